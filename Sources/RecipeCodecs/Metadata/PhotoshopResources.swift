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
        app13Header + bytes(of: [Block(id: iptcResource, data: iim)])
    }

    /// The IIM records of resource 0x0404 among `resources` (nil when there is none, or the
    /// blocks are damaged before it).
    public static func iim(in resources: [UInt8]) -> [UInt8]? {
        var i = 0
        while i + 12 <= resources.count, resources[i..<(i + 4)].elementsEqual("8BIM".utf8), let (block, next) = readBlock(in: resources, at: i) {
            if block.id == iptcResource { return block.data }
            i = next
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

    /// One image resource block: a 4-byte signature (`8BIM`, or another maker's), an id, a
    /// Pascal-string name and the data.
    public struct Block: Sendable, Equatable {
        public var signature: [UInt8]
        public var id: UInt16
        public var name: [UInt8]
        public var data: [UInt8]

        public init(signature: [UInt8] = Array("8BIM".utf8), id: UInt16, name: [UInt8] = [], data: [UInt8]) {
            self.signature = signature
            self.id = id
            self.name = name
            self.data = data
        }
    }

    /// The blocks of `resources`, or nil when they do not parse to the end (zero padding aside).
    public static func blocks(in resources: [UInt8]) -> [Block]? {
        var blocks: [Block] = []
        var i = 0
        while i + 12 <= resources.count, resources[i..<(i + 4)].contains(where: { $0 != 0 }) {
            guard let (block, next) = readBlock(in: resources, at: i) else { return nil }
            blocks.append(block)
            i = next
        }
        return resources[i...].allSatisfy { $0 == 0 } ? blocks : nil
    }

    /// The block at `i` (at least 12 bytes before the end) and where the next one starts; nil when
    /// its size runs past the end.
    private static func readBlock(in resources: [UInt8], at i: Int) -> (Block, next: Int)? {
        // The name: a Pascal string padded to an even length (length byte included).
        let nameLength = Int(resources[i + 6])
        let sizeAt = i + 6 + (nameLength + 2) / 2 * 2
        guard sizeAt + 4 <= resources.count else { return nil }
        let size = resources[sizeAt..<(sizeAt + 4)].reduce(0) { $0 << 8 | Int($1) }
        let start = sizeAt + 4
        guard size <= resources.count - start else { return nil }
        let block = Block(signature: Array(resources[i..<(i + 4)]), id: UInt16(resources[i + 4]) << 8 | UInt16(resources[i + 5]),
                          name: Array(resources[(i + 7)..<(i + 7 + nameLength)]), data: Array(resources[start..<(start + size)]))
        return (block, min(resources.count, start + (size + 1) / 2 * 2))
    }

    /// `blocks` written out, each name and payload padded to an even length.
    public static func bytes(of blocks: [Block]) -> [UInt8] {
        var out: [UInt8] = []
        for block in blocks {
            let name = block.name.prefix(255)
            out += block.signature + [UInt8(block.id >> 8), UInt8(block.id & 0xFF), UInt8(name.count)] + name
            if name.count % 2 == 0 { out.append(0) }
            let n = UInt32(block.data.count)
            out += [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + block.data
            if block.data.count % 2 == 1 { out.append(0) }
        }
        return out
    }

    /// IIM records as RichTIFFIPTC holds them: padded with zeros to whole 32-bit words.
    public static func padded(iim: [UInt8]) -> [UInt8] { iim + [UInt8](repeating: 0, count: (4 - iim.count % 4) % 4) }
}
