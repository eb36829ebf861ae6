/// The XMP packets a photo file embeds, where Lightroom and Camera Raw write their settings into a
/// DNG, TIFF or JPEG (and where a HEIC carries its XMP item): found without decoding the image.
///
/// - JPEG: the APP1 segment of `http://ns.adobe.com/xap/1.0/`, and the extended XMP
///   (`http://ns.adobe.com/xmp/extension/`, reassembled by offset) that large settings spill into.
/// - TIFF and DNG: IFD0's tag 700 (XMLPacket).
/// - Anything else (HEIC's uncompressed `mime` item, PNG, WebP): the `<x:xmpmeta>` element found
///   in the file's bytes.
///
/// ```swift
/// EmbeddedXMP.packets(in: jpegBytes)    // [main packet, extended packet]
/// EmbeddedXMP.packets(in: xmpFileBytes) // nil: not a photo, read it as XMP
/// ```
enum EmbeddedXMP {
    /// The packets, nil when the bytes are XML themselves (an `.xmp` file), empty when the photo
    /// has none.
    static func packets(in bytes: [UInt8]) -> [[UInt8]]? {
        var i = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
        if i < bytes.count, bytes[i] == UInt8(ascii: "<") { return nil }
        if bytes.starts(with: [0xFF, 0xD8]) { return jpeg(bytes) }
        if bytes.starts(with: [0x49, 0x49, 0x2A, 0x00]) || bytes.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) {
            if let packet = tiff(bytes) { return [packet] }
        }
        return scanned(bytes).map { [$0] } ?? []
    }

    static func jpeg(_ bytes: [UInt8]) -> [[UInt8]] {
        let main = Array("http://ns.adobe.com/xap/1.0/\0".utf8), extended = Array("http://ns.adobe.com/xmp/extension/\0".utf8)
        var packets: [[UInt8]] = []
        var whole: [UInt8] = []
        var guid: ArraySlice<UInt8>?
        var i = 2
        while i + 4 <= bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1]
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 || marker == 0xFF { i += marker == 0xFF ? 1 : 2; continue }
            if marker == 0xDA || marker == 0xD9 { break }
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            guard length >= 2, i + 2 + length <= bytes.count else { break }
            let payload = bytes[(i + 4)..<(i + 2 + length)]
            if marker == 0xE1, payload.starts(with: main) {
                packets.append(Array(payload.dropFirst(main.count)))
            } else if marker == 0xE1, payload.starts(with: extended), payload.count >= extended.count + 40 {
                let body = payload.dropFirst(extended.count)
                let id = body.prefix(32)
                let total = body.dropFirst(32).prefix(4).reduce(0) { $0 << 8 | Int($1) }
                let offset = body.dropFirst(36).prefix(4).reduce(0) { $0 << 8 | Int($1) }
                let data = body.dropFirst(40)
                if guid == nil, total <= CameraRawXMP.maxBytes { guid = id; whole = [UInt8](repeating: 0x20, count: total) }
                if id.elementsEqual(guid ?? []), offset + data.count <= whole.count {
                    whole.replaceSubrange(offset..<(offset + data.count), with: data)
                }
            }
            i += 2 + length
        }
        if !whole.isEmpty { packets.append(whole) }
        return packets
    }

    /// IFD0's XMLPacket (tag 700), classic TIFF only (BigTIFF falls back to the scan).
    static func tiff(_ bytes: [UInt8]) -> [UInt8]? {
        let little = bytes[0] == 0x49
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= bytes.count else { return nil }
            return little ? Int(bytes[at]) | Int(bytes[at + 1]) << 8 : Int(bytes[at]) << 8 | Int(bytes[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let a = u16(at), let b = u16(at + 2) else { return nil }
            return little ? a | b << 16 : a << 16 | b
        }
        guard let ifd = u32(4), let entries = u16(ifd) else { return nil }
        for e in 0..<entries {
            let entry = ifd + 2 + e * 12
            guard let tag = u16(entry), let type = u16(entry + 2), let count = u32(entry + 4) else { return nil }
            guard tag == 700, type == 1 || type == 7 else { continue }
            let start = count <= 4 ? entry + 8 : (u32(entry + 8) ?? -1)
            guard start >= 0, count <= CameraRawXMP.maxBytes, start + count <= bytes.count else { return nil }
            return Array(bytes[start..<(start + count)])
        }
        return nil
    }

    /// The first `<x:xmpmeta …>…</x:xmpmeta>` in the bytes.
    static func scanned(_ bytes: [UInt8]) -> [UInt8]? {
        let open = Array("<x:xmpmeta".utf8), close = Array("</x:xmpmeta>".utf8)
        guard let start = firstIndex(of: open, in: bytes, from: 0),
              let end = firstIndex(of: close, in: bytes, from: start) else { return nil }
        let packet = bytes[start..<(end + close.count)]
        return packet.count <= CameraRawXMP.maxBytes ? Array(packet) : nil
    }

    static func firstIndex(of needle: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
        guard needle.count <= bytes.count else { return nil }
        var i = from
        while i + needle.count <= bytes.count {
            if bytes[i] == needle[0], bytes[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }
}
