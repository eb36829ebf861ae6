import RecipeCore

/// Reads, checks and patches the TIFF structure of an EXIF block.
///
/// Hand-written because the job is small and exact: find IFD0's Orientation, check that the IFD
/// chain stays inside the block, and rewrite a few SHORT/LONG values in place (so the block stays
/// byte-for-byte the camera's except for those values). A full EXIF library would re-serialise.
///
/// ```swift
/// var exif = EXIF(bytes)              // nil when the TIFF header itself is unusable
/// exif?.orientation                   // 6
/// exif?.setOrientation(1)             // patched in place
/// ```
public struct EXIF: Sendable {
    /// The TIFF bytes, patched in place by the setters.
    public internal(set) var bytes: [UInt8]
    let bigEndian: Bool
    /// Where IFD0 starts; the editing extension moves it when IFD0 grows.
    var ifd0: Int

    /// Parses the header and checks the IFD structure; nil with `problem` set when it is damaged.
    public init?(_ bytes: [UInt8]) {
        guard let ok = EXIF.check(bytes).ok else { return nil }
        self.bytes = bytes
        self.bigEndian = ok.bigEndian
        self.ifd0 = ok.ifd0
    }

    /// Why a block is unusable, or nil when it is fine.
    public static func problem(in bytes: [UInt8]) -> String? { check(bytes).problem }

    /// The byte order, IFD0's offset and every IFD reached (IFD0 first), or why the block is
    /// unusable.
    static func check(_ b: [UInt8]) -> (ok: (bigEndian: Bool, ifd0: Int, ifds: [Int])?, problem: String?) {
        guard b.count >= 8 else { return (nil, "EXIF block too short (\(b.count) bytes)") }
        let be: Bool
        if b[0] == 0x4D && b[1] == 0x4D { be = true } else if b[0] == 0x49 && b[1] == 0x49 { be = false } else {
            return (nil, "EXIF block has no TIFF byte-order mark")
        }
        let r = Reader(bytes: b, bigEndian: be)
        guard r.u16(2) == 42 else { return (nil, "EXIF block has a bad TIFF magic number") }
        guard let ifd0 = r.u32(4).map(Int.init), ifd0 >= 8 else { return (nil, "EXIF IFD0 offset is invalid") }
        // Walk IFD0, its chain (IFD1) and the Exif/GPS/Interop sub-IFDs, each at most once.
        var queue = [ifd0]
        var seen = Set<Int>()
        var ifds: [Int] = []
        while let off = queue.popLast() {
            guard seen.insert(off).inserted else { continue }
            ifds.append(off)
            if ifds.count > 16 { return (nil, "EXIF has too many IFDs") }
            guard let n = r.u16(off).map(Int.init), off + 2 + n * 12 + 4 <= b.count else {
                return (nil, "EXIF IFD at offset \(off) runs past the end of the block")
            }
            for i in 0..<n {
                let e = off + 2 + i * 12
                let tag = r.u16(e)!, type = r.u16(e + 2)!, count = Int(r.u32(e + 4)!)
                let size = Reader.typeSize(type) * count
                if size > 4 {
                    guard let vo = r.u32(e + 8).map(Int.init), vo <= b.count, size <= b.count - vo else {
                        return (nil, "EXIF tag 0x\(hex(tag)) points outside the block")
                    }
                }
                if tag == 0x8769 || tag == 0x8825 || tag == 0xA005, let sub = r.u32(e + 8).map(Int.init) {
                    guard sub >= 8 && sub < b.count else {
                        return (nil, "EXIF sub-IFD (tag 0x\(hex(tag))) offset is outside the block")
                    }
                    queue.append(sub)
                }
            }
            if let next = r.u32(off + 2 + n * 12).map(Int.init), next != 0 {
                guard next >= 8 && next < b.count else { return (nil, "EXIF next-IFD offset is outside the block") }
                queue.append(next)
            }
        }
        return ((be, ifd0, ifds), nil)
    }

    /// IFD0's Orientation value (1 when absent).
    public var orientation: Int {
        guard let e = entry(tag: 0x0112, inIFD: ifd0), let v = shortValue(at: e) else { return 1 }
        return v
    }

    /// Rewrites IFD0's Orientation value in place (no-op when the tag is absent).
    public mutating func setOrientation(_ value: Int) {
        guard let e = entry(tag: 0x0112, inIFD: ifd0) else { return }
        writeShort(at: e, value)
    }

    /// Rewrites PixelXDimension/PixelYDimension in the Exif sub-IFD, when present, so the block
    /// describes the pixels actually written.
    public mutating func setPixelDimensions(width: Int, height: Int) {
        let r = Reader(bytes: bytes, bigEndian: bigEndian)
        guard let ex = entry(tag: 0x8769, inIFD: ifd0), let sub = r.u32(ex + 8).map(Int.init) else { return }
        if let e = entry(tag: 0xA002, inIFD: sub) { writeShort(at: e, width) }
        if let e = entry(tag: 0xA003, inIFD: sub) { writeShort(at: e, height) }
    }

    /// The Exif IFD's ColorSpace (1 sRGB, 0xFFFF uncalibrated), nil when absent.
    public var colorSpace: Int? {
        let r = Reader(bytes: bytes, bigEndian: bigEndian)
        guard let ex = entry(tag: 0x8769, inIFD: ifd0), let sub = r.u32(ex + 8).map(Int.init),
              let e = entry(tag: 0xA001, inIFD: sub) else { return nil }
        return shortValue(at: e)
    }

    /// The Interoperability IFD's InteropIndex ("R98" sRGB, "R03" Adobe RGB: DCF option file), nil
    /// when absent.
    public var interopIndex: String? {
        let r = Reader(bytes: bytes, bigEndian: bigEndian)
        guard let ex = entry(tag: 0x8769, inIFD: ifd0), let sub = r.u32(ex + 8).map(Int.init),
              let io = entry(tag: 0xA005, inIFD: sub), let interop = r.u32(io + 8).map(Int.init),
              let e = entry(tag: 0x0001, inIFD: interop), r.u16(e + 2) == 2, let count = r.u32(e + 4), count <= 4
        else { return nil }
        // ASCII of up to 4 bytes (with its NUL) sits in the value field itself.
        let text = bytes[(e + 8)..<(e + 8 + Int(count))].prefix { $0 != 0 }
        return String(decoding: text, as: UTF8.self)
    }

    func entry(tag: UInt16, inIFD off: Int) -> Int? {
        let r = Reader(bytes: bytes, bigEndian: bigEndian)
        guard let n = r.u16(off) else { return nil }
        for i in 0..<Int(n) {
            let e = off + 2 + i * 12
            if r.u16(e) == tag { return e }
        }
        return nil
    }

    private func shortValue(at e: Int) -> Int? {
        let r = Reader(bytes: bytes, bigEndian: bigEndian)
        switch r.u16(e + 2) {
        case 3: return r.u16(e + 8).map(Int.init)
        case 4: return r.u32(e + 8).map(Int.init)
        default: return nil
        }
    }

    /// Writes a SHORT or LONG value held inline in entry `e`.
    private mutating func writeShort(at e: Int, _ value: Int) {
        let type = Reader(bytes: bytes, bigEndian: bigEndian).u16(e + 2)
        let v = UInt32(clamping: value)
        if type == 3 {
            let s = UInt16(clamping: value)
            bytes[e + 8] = bigEndian ? UInt8(s >> 8) : UInt8(s & 0xFF)
            bytes[e + 9] = bigEndian ? UInt8(s & 0xFF) : UInt8(s >> 8)
        } else if type == 4 {
            for k in 0..<4 {
                let shift = bigEndian ? (3 - k) * 8 : k * 8
                bytes[e + 8 + k] = UInt8((v >> UInt32(shift)) & 0xFF)
            }
        }
    }

    struct Reader {
        let bytes: [UInt8]
        let bigEndian: Bool
        func u16(_ o: Int) -> UInt16? {
            guard o >= 0, o + 2 <= bytes.count else { return nil }
            let a = UInt16(bytes[o]), b = UInt16(bytes[o + 1])
            return bigEndian ? (a << 8 | b) : (b << 8 | a)
        }
        func u32(_ o: Int) -> UInt32? {
            guard o >= 0, o + 4 <= bytes.count else { return nil }
            var v: UInt32 = 0
            for k in 0..<4 {
                let byte = UInt32(bytes[o + (bigEndian ? k : 3 - k)])
                v = v << 8 | byte
            }
            return v
        }
        static func typeSize(_ type: UInt16) -> Int {
            switch type {
            case 1, 2, 6, 7: 1
            case 3, 8: 2
            case 4, 9, 11: 4
            case 5, 10, 12: 8
            default: 1
            }
        }
    }
}

private func hex(_ v: UInt16) -> String {
    let s = String(v, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - s.count)) + s
}
