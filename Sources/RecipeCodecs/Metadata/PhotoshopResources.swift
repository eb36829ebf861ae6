/// IPTC between the places that hold it: a JPEG's APP13 segment ("Photoshop 3.0\0" and then
/// Photoshop image resources, `8BIM` blocks, the IPTC-IIM records in resource 0x0404), a TIFF's
/// Photoshop tag (34377: the resources alone) and its RichTIFFIPTC tag (33723: the IIM records
/// alone, padded to whole 32-bit words). Photoshop writes both tags; libvips reads 33723, ExifTool
/// either. Written by hand: the resource blocks are a 12-byte header and a payload, and no
/// library of the machine's parses them.
///
/// ```swift
/// let resources = PhotoshopResources.resources(fromAPP13: app13)   // for tag 34377
/// let iim = resources.flatMap(PhotoshopResources.iim)              // for tag 33723
/// ```
public enum PhotoshopResources {
    static let app13Header: [UInt8] = Array("Photoshop 3.0\0".utf8)
    static let iptcResource: UInt16 = 0x0404

    /// The resource blocks of an APP13 payload (nil when it is not Photoshop's).
    public static func resources(fromAPP13 app13: [UInt8]) -> [UInt8]? {
        guard app13.starts(with: app13Header), app13.count > app13Header.count else { return nil }
        return Array(app13[app13Header.count...])
    }

    /// An APP13 payload holding `resources`.
    public static func app13(resources: [UInt8]) -> [UInt8] { app13Header + resources }

    /// An APP13 payload holding the IIM records `iim` as resource 0x0404.
    public static func app13(iim: [UInt8]) -> [UInt8] {
        var block: [UInt8] = Array("8BIM".utf8) + [UInt8(iptcResource >> 8), UInt8(iptcResource & 0xFF), 0, 0]
        let n = UInt32(iim.count)
        block += [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + iim
        if iim.count % 2 == 1 { block.append(0) }
        return app13Header + block
    }

    /// The IIM records of resource 0x0404 among `resources` (nil when there is none, or the
    /// blocks are damaged before it).
    public static func iim(in resources: [UInt8]) -> [UInt8]? {
        var i = 0
        while i + 12 <= resources.count, resources[i..<(i + 4)].elementsEqual("8BIM".utf8) {
            let id = UInt16(resources[i + 4]) << 8 | UInt16(resources[i + 5])
            // The name: a Pascal string padded to an even length (length byte included).
            let nameLength = Int(resources[i + 6])
            let sizeAt = i + 6 + (nameLength + 2) / 2 * 2
            guard sizeAt + 4 <= resources.count else { return nil }
            let size = resources[sizeAt..<(sizeAt + 4)].reduce(0) { $0 << 8 | Int($1) }
            let start = sizeAt + 4
            guard size <= resources.count - start else { return nil }
            if id == iptcResource { return Array(resources[start..<(start + size)]) }
            i = start + (size + 1) / 2 * 2
        }
        return nil
    }

    /// How many bytes of `bytes` are whole IIM records (0x1C, record, dataset, a 2-byte length
    /// or, with its top bit set, the length's own length, then the data): what is left of
    /// RichTIFFIPTC's words after their padding.
    public static func iimLength(_ bytes: [UInt8]) -> Int {
        var i = 0
        while i + 5 <= bytes.count, bytes[i] == 0x1C {
            var length = Int(bytes[i + 3]) << 8 | Int(bytes[i + 4])
            var header = 5
            if length & 0x8000 != 0 {
                let digits = length & 0x7FFF
                guard digits <= 4, i + 5 + digits <= bytes.count else { break }
                length = bytes[(i + 5)..<(i + 5 + digits)].reduce(0) { $0 << 8 | Int($1) }
                header += digits
            }
            guard length <= bytes.count - i - header else { break }
            i += header + length
        }
        return i
    }

    /// IIM records as RichTIFFIPTC holds them: padded with zeros to whole 32-bit words.
    public static func padded(iim: [UInt8]) -> [UInt8] { iim + [UInt8](repeating: 0, count: (4 - iim.count % 4) % 4) }
}
