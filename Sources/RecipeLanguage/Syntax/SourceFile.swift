import RecipeCore

/// The text of a recipe file, with a line table, so positions can be turned into source lines
/// for diagnostics and gaps between nodes searched for comments.
public struct SourceFile: Sendable {
    /// The path as the user gave it; diagnostics print it.
    public let path: String
    public let bytes: [UInt8]
    /// Byte offset where each line starts (line 1 at index 0).
    public let lineStarts: [Int]

    public init(path: String, bytes: [UInt8]) {
        self.path = path
        self.bytes = bytes
        var starts = [0]
        starts.reserveCapacity(bytes.count / 24 + 1)
        for (i, b) in bytes.enumerated() where b == UInt8(ascii: "\n") { starts.append(i + 1) }
        self.lineStarts = starts
    }

    public init(path: String, text: String) {
        self.init(path: path, bytes: Array(text.utf8))
    }

    public var lineCount: Int { lineStarts.count }

    /// The text of 1-based `line`, without its newline.
    public func line(_ line: Int) -> String {
        guard line >= 1, line <= lineStarts.count else { return "" }
        let start = lineStarts[line - 1]
        var end = line < lineStarts.count ? lineStarts[line] - 1 : bytes.count
        if end > start, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        return String(decoding: bytes[start..<max(start, end)], as: UTF8.self)
    }

    /// The byte offset of a 0-based (line, column in characters) mark from libyaml.
    func offset(line: Int, column: Int) -> Int {
        guard line < lineStarts.count else { return bytes.count }
        var offset = lineStarts[line]
        var remaining = column
        while remaining > 0, offset < bytes.count {
            let b = bytes[offset]
            // Step over one UTF-8 encoded character.
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
