import RecipeCore

/// Cuts a recipe's text into the pieces `recipe merge-file` copies whole: one per item of a block
/// collection (a top-level key, a knob, a stage), each from the line after the previous item to
/// the item's last line, so the comments and blank line above an item travel with it.
///
/// ```yaml
/// stages:
///   # brighter          ┐ chunk 1
///   - exposure: 0.3     ┘
///   - id: sky           ┐ chunk 2
///     exposure: -0.7    ┘
/// ```
enum SourceChunks {
    /// The text of each item (lines `first…last`, 1-based), re-indented so its first line that is
    /// neither blank nor a comment starts at column `indent + 1`. All nil when two items share a
    /// line (a flow collection): such items cannot be cut apart by lines.
    static func split(_ file: SourceFile, items: [(first: Int, last: Int)], after headerLine: Int, indent: Int) -> [String?] {
        lineRanges(items, after: headerLine).map { range in
            range.map { reindent($0.map(file.line), to: indent).joined(separator: "\n") + "\n" }
        }
    }

    /// The lines of each item's chunk (see `split`); all nil when two items share a line.
    static func lineRanges(_ items: [(first: Int, last: Int)], after headerLine: Int) -> [ClosedRange<Int>?] {
        var previous = headerLine
        var ranges: [ClosedRange<Int>] = []
        for item in items {
            guard item.first > previous, item.last >= item.first else { return items.map { _ in nil } }
            ranges.append((previous + 1)...item.last)
            previous = item.last
        }
        return ranges
    }

    /// The comment lines among `lines` (1-based, inclusive), as written; with `blanks`, the blank
    /// lines among them too (runs of them as one), so a merge that writes them keeps the gaps
    /// `recipe fmt` keeps.
    static func comments(_ file: SourceFile, lines: ClosedRange<Int>, blanks: Bool = false) -> [String] {
        var out: [String] = []
        for line in lines.map(file.line) {
            let text = line.drop { $0 == " " || $0 == "\t" || $0 == "\r" }
            if text.hasPrefix("#") {
                out.append(line)
            } else if blanks, text.isEmpty, out.last != "" {
                out.append("")
            }
        }
        return out
    }

    /// Shifts every line by the same amount, so nesting (and block scalars) keep their shape.
    static func reindent(_ lines: [String], to indent: Int) -> [String] {
        let content = lines.first { line in
            let text = line.drop { $0 == " " }
            return !text.isEmpty && !text.hasPrefix("#")
        }
        guard let content else { return lines }
        let delta = indent - content.prefix { $0 == " " }.count
        if delta == 0 { return lines }
        return lines.map { line in
            if line.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) { return "" }
            if delta > 0 { return String(repeating: " ", count: delta) + line }
            let spaces = min(-delta, line.prefix { $0 == " " }.count)
            return String(line.dropFirst(spaces))
        }
    }
}
