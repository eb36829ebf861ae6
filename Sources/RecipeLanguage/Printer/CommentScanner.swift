import RecipeCore

/// One comment of a recipe's source. libyaml does not report comments, so they are recovered
/// from the text: a `#` at the start of a line or after a space or tab, outside quoted and
/// block scalars, runs to the end of the line.
struct SourceComment: Hashable {
    /// 1-based line.
    var line: Int
    /// The text from `#` on, trailing spaces removed.
    var text: String
    /// True when nothing but blanks precedes it on its line.
    var fullLine: Bool
}

enum CommentScanner {
    /// Every comment of `file`, in order. `root` gives the scalars whose text may hold a `#`.
    static func comments(in file: SourceFile, root: YAMLNode?) -> [SourceComment] {
        var protected: [(Int, Int)] = []  // byte ranges of quoted and block scalars
        if let root { collect(root, into: &protected) }
        protected.sort { $0.0 < $1.0 }
        let bytes = file.bytes
        var comments: [SourceComment] = []
        var p = 0  // index into protected
        var i = 0
        var lineStart = true  // only blanks since the start of the line
        var line = 1
        while i < bytes.count {
            while p < protected.count, protected[p].1 <= i { p += 1 }
            if p < protected.count, protected[p].0 <= i, i < protected[p].1 {
                // Inside a quoted or block scalar: skip it, counting its newlines.
                let end = protected[p].1
                while i < end {
                    let n = SourceFile.lineBreakLength(bytes, at: i)
                    if n > 0 { line += 1; i += n } else { i += 1 }
                }
                lineStart = false
                continue
            }
            let b = bytes[i]
            let lineBreak = SourceFile.lineBreakLength(bytes, at: i)
            if lineBreak > 0 {
                line += 1
                lineStart = true
                i += lineBreak
                continue
            }
            if b == UInt8(ascii: "#"), i == 0 || bytes[i - 1] == UInt8(ascii: " ") || bytes[i - 1] == UInt8(ascii: "\t") || lineStart {
                var end = i
                while end < bytes.count, SourceFile.lineBreakLength(bytes, at: end) == 0 { end += 1 }
                var textEnd = end
                while textEnd > i, bytes[textEnd - 1] == UInt8(ascii: " ") || bytes[textEnd - 1] == UInt8(ascii: "\t") { textEnd -= 1 }
                comments.append(SourceComment(line: line, text: String(decoding: bytes[i..<textEnd], as: UTF8.self), fullLine: lineStart))
                i = end
                continue
            }
            if b != UInt8(ascii: " "), b != UInt8(ascii: "\t"), b != UInt8(ascii: "\r") { lineStart = false }
            i += 1
        }
        return comments
    }

    static func collect(_ node: YAMLNode, into ranges: inout [(Int, Int)]) {
        switch node.content {
        case .scalar(_, let style):
            if style != .plain { ranges.append((node.range.start.offset, node.range.end.offset)) }
        case .sequence(let items):
            for item in items { collect(item, into: &ranges) }
        case .mapping(let pairs):
            for pair in pairs {
                collect(pair.key, into: &ranges)
                collect(pair.value, into: &ranges)
            }
        }
    }
}
