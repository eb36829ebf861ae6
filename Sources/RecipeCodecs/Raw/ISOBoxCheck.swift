import RecipeCore
#if canImport(Glibc)
import Glibc
#endif

/// Checks the box tree of an ISO base media file (a Canon CR3) before LibRaw reads it: every box
/// at least its header, within its parent, and the children of a container tiling it to its end.
/// LibRaw 0.20's CR3 parser trusts the sizes: a `tkhd` whose size says 28 instead of 92 (one
/// flipped bit) sends it re-reading the file for ever (14 GB read in 5 s, found by mutating a
/// corpus CR3), before any row is decoded, where `--timeout` cannot stop it. A file whose boxes do
/// not fit together is refused as damaged instead. Only headers are read (a few hundred `pread`s).
///
/// ```swift
/// if let problem = ISOBoxCheck.problem(path) { throw ImageError(.corrupt, path: path, problem) }
/// ```
public enum ISOBoxCheck {
    /// Boxes whose content is boxes, in the CR3s LibRaw reads (ISO 14496-12 and Canon's).
    static let containers: Set<String> = ["moov", "trak", "mdia", "minf", "stbl", "dinf", "edts", "udta", "mvex", "moof", "traf"]
    /// Canon's `uuid` box of metadata boxes (CNCV, CMT1…), 85c0b687-820f-11e0-8111-f4ce462b6a48.
    static let canonUUID: [UInt8] = [0x85, 0xc0, 0xb6, 0x87, 0x82, 0x0f, 0x11, 0xe0, 0x81, 0x11, 0xf4, 0xce, 0x46, 0x2b, 0x6a, 0x48]
    static let maxDepth = 12
    static let maxBoxes = 100_000

    /// Whether the file starts as an ISO media file (`ftyp` at 4).
    public static func isISOMedia(_ head: [UInt8]) -> Bool {
        head.count >= 8 && Array(head[4..<8]) == Array("ftyp".utf8)
    }

    /// Why the boxes of `path` do not fit together (nil: they do, or it cannot be read: the
    /// reader that follows says so).
    public static func problem(_ path: String) -> String? {
        guard let fd = try? InputFile.openRegular(path) else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        var walker = Walker(fd: fd)
        return walker.check(from: 0, to: Int64(st.st_size), depth: 0, inside: "the file")
    }

    struct Walker {
        let fd: Int32
        var boxes = 0

        func read(_ count: Int, at offset: Int64) -> [UInt8]? {
            var bytes = [UInt8](repeating: 0, count: count)
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
            return n == count ? bytes : nil
        }

        static func number(_ b: ArraySlice<UInt8>) -> Int64 { b.reduce(0) { $0 << 8 | Int64($1) } }

        mutating func check(from start: Int64, to end: Int64, depth: Int, inside parent: String) -> String? {
            guard depth <= ISOBoxCheck.maxDepth else { return "its boxes nest deeper than \(ISOBoxCheck.maxDepth)" }
            var at = start
            while at < end {
                boxes += 1
                guard boxes <= ISOBoxCheck.maxBoxes else { return "it has more than \(ISOBoxCheck.maxBoxes) boxes" }
                guard end - at >= 8, let head = read(8, at: at) else { return "\(end - at) bytes at offset \(at) in \(parent) are too few for a box" }
                let type = String(decoding: head[4..<8].map { $0 >= 0x20 && $0 < 0x7f ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
                var size = Self.number(head[0..<4]), header: Int64 = 8
                if size == 1 {
                    guard end - at >= 16, let large = read(8, at: at + 8) else { return "the `\(type)` box at offset \(at) has no 64-bit size" }
                    size = Self.number(large[...])
                    header = 16
                } else if size == 0 {
                    size = end - at  // to the end of its parent
                }
                guard size >= header, size <= end - at else {
                    return "the `\(type)` box at offset \(at) says \(size) bytes, \(size < header ? "less than its header" : "past the end of \(parent) (\(end - at) left)")"
                }
                if ISOBoxCheck.containers.contains(type) {
                    if let problem = check(from: at + header, to: at + size, depth: depth + 1, inside: "`\(type)`") { return problem }
                } else if type == "uuid", size >= header + 16, let id = read(16, at: at + header), id == ISOBoxCheck.canonUUID {
                    if let problem = check(from: at + header + 16, to: at + size, depth: depth + 1, inside: "Canon's `uuid`") { return problem }
                }
                at += size
            }
            return nil
        }
    }
}
