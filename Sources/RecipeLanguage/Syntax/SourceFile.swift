import RecipeCore

/// The text of a recipe file, with a line table, so positions can be turned into source lines
/// for diagnostics and gaps between nodes searched for comments. Lines break where libyaml breaks
/// them — LF, CR LF, a lone CR, NEL (U+0085), LS (U+2028), PS (U+2029) — so line numbers agree
/// with libyaml's marks whatever the file's line endings.
public struct SourceFile: Sendable {
    /// The path as the user gave it; diagnostics print it.
    public let path: String
    public let bytes: [UInt8]
    /// Byte offset where each line starts (line 1 at index 0).
    public let lineStarts: [Int]
    /// Byte offset where each line's text ends (its line break starts there).
    let lineEnds: [Int]

    public init(path: String, bytes: [UInt8]) {
        self.path = path
        self.bytes = bytes
        var starts = [0]
        var ends: [Int] = []
        starts.reserveCapacity(bytes.count / 24 + 1)
        var i = 0
        while i < bytes.count {
            let n = SourceFile.lineBreakLength(bytes, at: i)
            if n > 0 {
                ends.append(i)
                i += n
                starts.append(i)
            } else {
                i += 1
            }
        }
        ends.append(bytes.count)
        self.lineStarts = starts
        self.lineEnds = ends
    }

    public init(path: String, text: String) {
        self.init(path: path, bytes: Array(text.utf8))
    }

    /// The length in bytes of the line break at `i`, or 0 when there is none.
    static func lineBreakLength(_ bytes: [UInt8], at i: Int) -> Int {
        switch bytes[i] {
        case 0x0A: return 1
        case 0x0D: return i + 1 < bytes.count && bytes[i + 1] == 0x0A ? 2 : 1
        case 0xC2: return i + 1 < bytes.count && bytes[i + 1] == 0x85 ? 2 : 0
        case 0xE2: return i + 2 < bytes.count && bytes[i + 1] == 0x80 && (bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9) ? 3 : 0
        default: return 0
        }
    }

    public var lineCount: Int { lineStarts.count }

    /// The text of 1-based `line`, without its line break.
    public func line(_ line: Int) -> String {
        guard line >= 1, line <= lineStarts.count else { return "" }
        let start = lineStarts[line - 1], end = lineEnds[line - 1]
        return String(decoding: bytes[start..<max(start, end)], as: UTF8.self)
    }

    /// The 1-based line holding byte `offset`.
    func lineNumber(at offset: Int) -> Int {
        var lo = 0, hi = lineStarts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if lineStarts[mid] <= offset { lo = mid } else { hi = mid - 1 }
        }
        return lo + 1
    }

    /// The byte offset of a 0-based (line, column in characters) mark from libyaml.
    func offset(line: Int, column: Int) -> Int {
        guard line < lineStarts.count else { return bytes.count }
        return offset(from: lineStarts[line], advancing: column)
    }

    /// The offset `characters` UTF-8 characters after `start`.
    func offset(from start: Int, advancing characters: Int) -> Int {
        var offset = start
        var remaining = characters
        while remaining > 0, offset < bytes.count {
            let b = bytes[offset]
            offset += b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4
            remaining -= 1
        }
        return min(offset, bytes.count)
    }

    /// A location from a libyaml mark (0-based line and column).
    func location(line: Int, column: Int) -> SourceLocation {
        SourceLocation(line: line + 1, column: column + 1, offset: offset(line: line, column: column))
    }

    /// The source text of a range (for messages quoting what was written).
    public func text(_ range: SourceRange) -> String {
        let a = max(0, min(range.start.offset, bytes.count)), b = max(a, min(range.end.offset, bytes.count))
        return String(decoding: bytes[a..<b], as: UTF8.self)
    }
}
