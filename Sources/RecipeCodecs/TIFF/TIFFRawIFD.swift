/// A classic-TIFF IFD kept as raw entries, with the EXIF, GPS and interoperability IFDs it points to.
///
/// The EXIF of a TIFF photo lives in the file itself (IFD0's 0x8769 pointer), while recipe carries
/// EXIF between formats as a standalone TIFF structure (`ImageMetadata.exif`). Both directions are
/// a copy of IFD entries from one byte layout to another: each entry keeps its tag, type, count and
/// value bytes exactly (no re-encoding of rationals or strings, unknown tags included), only the
/// offsets are recomputed. Byte order never changes: the blob takes the file's, and the encoder
/// writes its file in the blob's. A MakerNote whose inner offsets count from the TIFF header moves
/// with the rest, as in every EXIF rewriter.
///
/// ```swift
/// let ifd0 = try TIFFRawIFD.read(at: 8, bigEndian: false, parent: nil, budget: &budget) { offset, count in … }
/// let bytes = ifd0.serialized(at: 8, bigEndian: false)   // the IFD first, then its values and sub-IFDs
/// ```
struct TIFFRawIFD {
    struct Entry {
        var tag: UInt16
        var type: UInt16
        var count: UInt32
        /// `count × size of type` bytes in the structure's byte order.
        var value: [UInt8]
    }

    var entries: [Entry] = []
    /// Sub-IFDs by the tag that points at them.
    var children: [UInt16: TIFFRawIFD] = [:]
    /// Entries or sub-IFDs that were dropped while reading, and why.
    var problems: [String] = []

    static let exifPointer: UInt16 = 0x8769
    static let gpsPointer: UInt16 = 0x8825
    static let interoperabilityPointer: UInt16 = 0xA005

    /// Pointer tags followed inside an IFD: IFD0 → EXIF and GPS; EXIF → interoperability.
    static func pointerTags(inside parent: UInt16?) -> Set<UInt16> {
        switch parent {
        case nil: [exifPointer, gpsPointer]
        case exifPointer?: [interoperabilityPointer]
        default: []
        }
    }

    /// Bytes per value of a TIFF field type, nil for types a classic TIFF does not have.
    static func typeSize(_ type: UInt16) -> Int? {
        switch type {
        case 1, 2, 6, 7: 1
        case 3, 8: 2
        case 4, 9, 11, 13: 4
        case 5, 10, 12: 8
        default: nil
        }
    }

    /// Reads the IFD at `offset` through `source(offset, count)` (nil when out of bounds), following
    /// the pointer tags of `parent`'s level. `budget` caps the bytes of all values read (a hostile
    /// file cannot make the copy large). Sub-IFDs that cannot be read are dropped with a problem;
    /// an unreadable IFD itself throws. With `only`, the entries of other tags are passed over
    /// without reading their values (a DNG's opcode lists without its maker notes); `kind` names
    /// the tags in problems ("EXIF tag 0x829A is too large").
    static func read(at offset: Int, bigEndian: Bool, parent: UInt16?, budget: inout Int, depth: Int = 0,
                     only: Set<UInt16>? = nil, kind: String = "EXIF",
                     source: (Int, Int) -> [UInt8]?) throws(Failure) -> TIFFRawIFD {
        guard depth < 3 else { throw Failure("EXIF sub-IFDs nest too deep") }
        guard offset >= 8, let countBytes = source(offset, 2) else { throw Failure("IFD offset \(offset) is outside the file") }
        let n = Int(read16(countBytes, 0, bigEndian))
        guard n <= 1000, let table = source(offset + 2, n * 12) else { throw Failure("IFD at offset \(offset) runs past the end") }
        var ifd = TIFFRawIFD()
        let pointers = pointerTags(inside: parent)
        for i in 0..<n {
            let e = i * 12
            let tag = read16(table, e, bigEndian), type = read16(table, e + 2, bigEndian)
            let count = read32(table, e + 4, bigEndian)
            if let only, !only.contains(tag) { continue }
            guard let size = typeSize(type) else { continue }  // unknown type: cannot be copied safely
            let (total, overflow) = size.multipliedReportingOverflow(by: Int(count))
            guard !overflow, total <= budget else {
                ifd.problems.append("\(kind) tag 0x\(hex16(tag)) is too large (\(count) values)")
                continue
            }
            let value: [UInt8]
            if total <= 4 {
                value = Array(table[(e + 8)..<(e + 8 + total)])
            } else {
                guard let bytes = source(Int(read32(table, e + 8, bigEndian)), total) else {
                    ifd.problems.append("\(kind) tag 0x\(hex16(tag)) points outside the file")
                    continue
                }
                value = bytes
            }
            budget -= total
            if pointers.contains(tag) {
                guard count == 1, type == 4 || type == 13 else { continue }
                do {
                    let child = try read(at: Int(read32(value, 0, bigEndian)), bigEndian: bigEndian, parent: tag, budget: &budget,
                                         depth: depth + 1, source: source)
                    ifd.problems += child.problems
                    ifd.children[tag] = child
                } catch {
                    ifd.problems.append("\(pointerName(tag)) IFD dropped: \(error.reason)")
                    continue
                }
            }
            ifd.entries.append(Entry(tag: tag, type: type, count: count, value: value))
        }
        return ifd
    }

    /// The IFD and, after it, its out-of-line values and sub-IFDs, laid out for a file in which
    /// the first returned byte sits at offset `base` (even). Entries are sorted by tag, as TIFF
    /// requires, and the next-IFD link is 0.
    func serialized(at base: Int, bigEndian: Bool) -> [UInt8] {
        precondition(base % 2 == 0, "IFDs start on a word boundary")
        var out: [UInt8] = []
        append(to: &out, base: base, bigEndian: bigEndian)
        return out
    }

    @discardableResult
    private func append(to out: inout [UInt8], base: Int, bigEndian: Bool) -> Int {
        if out.count % 2 == 1 { out.append(0) }
        let start = out.count
        let kept = entries.filter { !TIFFRawIFD.isPointer($0.tag) || children[$0.tag] != nil }.sorted { $0.tag < $1.tag }
        write16(&out, UInt16(kept.count), bigEndian)
        var fixups: [(slot: Int, entry: Entry)] = []
        for entry in kept {
            write16(&out, entry.tag, bigEndian)
            write16(&out, children[entry.tag] != nil ? 4 : entry.type, bigEndian)
            write32(&out, children[entry.tag] != nil ? 1 : entry.count, bigEndian)
            let slot = out.count
            if entry.value.count <= 4 && children[entry.tag] == nil {
                out += entry.value + [UInt8](repeating: 0, count: 4 - entry.value.count)
            } else {
                out += [0, 0, 0, 0]
                fixups.append((slot, entry))
            }
        }
        write32(&out, 0, bigEndian)
        for (slot, entry) in fixups {
            let at: Int
            if let child = children[entry.tag] {
                at = child.append(to: &out, base: base, bigEndian: bigEndian)
            } else {
                if out.count % 2 == 1 { out.append(0) }
                at = out.count
                out += entry.value
            }
            patch32(&out, slot, UInt32(base + at), bigEndian)
        }
        return start
    }

    private static func isPointer(_ tag: UInt16) -> Bool {
        tag == exifPointer || tag == gpsPointer || tag == interoperabilityPointer
    }

    /// The entry for `tag`, if present.
    func entry(_ tag: UInt16) -> Entry? { entries.first { $0.tag == tag } }

    /// The values of a BYTE, SHORT or LONG entry as integers (nil for another type), read in the
    /// structure's byte order.
    func integers(_ tag: UInt16, bigEndian: Bool) -> [Int]? {
        guard let e = entry(tag) else { return nil }
        switch e.type {
        case 1: return e.value.map(Int.init)
        case 3: return stride(from: 0, to: e.value.count - 1, by: 2).map { Int(read16(e.value, $0, bigEndian)) }
        case 4, 13: return stride(from: 0, to: e.value.count - 3, by: 4).map { Int(read32(e.value, $0, bigEndian)) }
        default: return nil
        }
    }

    /// The ASCII text of an entry, without its terminating NUL.
    func ascii(_ tag: UInt16) -> [UInt8]? {
        guard let e = entry(tag), e.type == 2 else { return nil }
        let text = Array(e.value.prefix { $0 != 0 })
        return text.isEmpty ? nil : text
    }

    struct Failure: Error {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }
}

private func pointerName(_ tag: UInt16) -> String {
    switch tag {
    case TIFFRawIFD.exifPointer: "EXIF"
    case TIFFRawIFD.gpsPointer: "GPS"
    default: "interoperability"
    }
}

private func read16(_ b: [UInt8], _ o: Int, _ bigEndian: Bool) -> UInt16 {
    let x = UInt16(b[o]), y = UInt16(b[o + 1])
    return bigEndian ? x << 8 | y : y << 8 | x
}

private func read32(_ b: [UInt8], _ o: Int, _ bigEndian: Bool) -> UInt32 {
    var v: UInt32 = 0
    for k in 0..<4 { v = v << 8 | UInt32(b[o + (bigEndian ? k : 3 - k)]) }
    return v
}

private func write16(_ out: inout [UInt8], _ v: UInt16, _ bigEndian: Bool) {
    out += bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)]
}

private func write32(_ out: inout [UInt8], _ v: UInt32, _ bigEndian: Bool) {
    let bytes = (0..<4).map { UInt8((v >> UInt32(8 * $0)) & 0xFF) }
    out += bigEndian ? bytes.reversed() : bytes
}

private func patch32(_ out: inout [UInt8], _ at: Int, _ v: UInt32, _ bigEndian: Bool) {
    for k in 0..<4 { out[at + (bigEndian ? 3 - k : k)] = UInt8((v >> UInt32(8 * k)) & 0xFF) }
}

private func hex16(_ v: UInt16) -> String {
    let s = String(v, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - s.count)) + s
}

extension TIFFRawIFD {
    /// The most bytes of values copied into an EXIF block (a JPEG can carry 64 KB of it).
    static let maxEXIFBytes = 1 << 20

    /// IFD0 tags that describe the photo rather than the pixel layout, carried into an EXIF block:
    /// ImageDescription, Make, Model, Software, DateTime, Artist, Copyright.
    static let descriptiveTags: Set<UInt16> = [0x010E, 0x010F, 0x0110, 0x0131, 0x0132, 0x013B, 0x8298]
    /// Also carried when there is a block at all: Orientation and the resolution.
    static let layoutTagsKept: Set<UInt16> = [0x0112, 0x011A, 0x011B, 0x0128]

    /// A standalone EXIF block (`II*\0` or `MM\0*`, IFD0 at offset 8) holding `ifd0`'s descriptive
    /// tags and its EXIF and GPS IFDs; nil when it has none of them.
    static func exifBlock(fromFileIFD0 ifd0: TIFFRawIFD, bigEndian: Bool) -> [UInt8]? {
        var kept = TIFFRawIFD()
        kept.children = ifd0.children
        kept.entries = ifd0.entries.filter {
            descriptiveTags.contains($0.tag) || layoutTagsKept.contains($0.tag) || ifd0.children[$0.tag] != nil
        }
        guard !kept.children.isEmpty || kept.entries.contains(where: { descriptiveTags.contains($0.tag) }) else { return nil }
        let header: [UInt8] = bigEndian ? [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8] : [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0]
        return header + kept.serialized(at: 8, bigEndian: bigEndian)
    }

    /// IFD0 of an EXIF block, with its sub-IFDs, and the block's byte order.
    static func parse(exifBlock b: [UInt8]) throws(Failure) -> (ifd0: TIFFRawIFD, bigEndian: Bool) {
        guard b.count >= 8, b[0] == b[1], b[0] == 0x49 || b[0] == 0x4D else { throw Failure("EXIF block has no TIFF header") }
        let big = b[0] == 0x4D
        let offset = Int(read32(b, 4, big))
        var budget = maxEXIFBytes
        let ifd0 = try read(at: offset, bigEndian: big, parent: nil, budget: &budget) { at, count in
            guard at >= 0, count >= 0, at <= b.count, count <= b.count - at else { return nil }
            return Array(b[at..<(at + count)])
        }
        return (ifd0, big)
    }
}
