import RecipeCore

extension Sidecar {
    /// Writes the value of stage `index`'s operation `op` anew, with a comment after it: how
    /// `recipe edit` records the measured `auto` values of a photo's edit, so that re-rendering
    /// the sidecar (a re-run, a revert) gives the same picture whatever the measurement becomes.
    ///
    /// ```yaml
    /// - exposure: auto-0.3        # as given
    /// - exposure: {ev: 0.1234}  # auto-0.3: measured 0.4234   (recorded)
    /// ```
    ///
    /// The op's value, on its key's line and any lines below indented deeper, is replaced by
    /// `value`; the stage's other keys (`id`, `mask`, …) stay as they are.
    public mutating func setOperation(stage index: Int, op: String, value: String, comment: String) throws {
        try editable()
        let (_, end) = try block(of: index)
        var lines = lines()
        let first = try firstLine(of: index)
        func keyColumn(_ line: String) -> Int? {
            let body = line.drop { $0 == " " || $0 == "-" }
            guard body.hasPrefix(op + ":") else { return nil }
            return line.count - body.count
        }
        guard let at = (first..<end).first(where: { keyColumn(lines[$0]) != nil }), let column = keyColumn(lines[at]) else {
            throw HistoryError(path, "stage \(index) has no `\(op)` to record its measured values in")
        }
        var last = at + 1
        while last < end, lines[last].prefix(while: { $0 == " " }).count > column { last += 1 }
        let comment = comment.replacingNewlines
        lines[at] = String(lines[at].prefix(column)) + op + ": " + value + (comment.isEmpty ? "" : "  # " + comment)
        lines.removeSubrange((at + 1)..<last)
        try replace(with: lines.joined(separator: "\n") + "\n", what: "the measured values of stage \(index)")
    }
}

extension String {
    /// One line: newlines as spaces (a YAML comment ends at the line's end).
    fileprivate var replacingNewlines: String { String(map { $0.isNewline ? " " : $0 }) }
}
