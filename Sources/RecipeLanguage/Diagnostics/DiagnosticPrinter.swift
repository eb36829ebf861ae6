import RecipeCore

/// Renders diagnostics for people (the source line and a caret, in the style of a compiler) and
/// for tools (one JSON object per line).
///
/// ```
/// warm.recipe.yaml:7:5: error[R204]: unknown operation `saturaton`
///     |
///   7 |   - saturaton: 1.2
///     |     ^~~~~~~~~
///     = note: did you mean `saturation`?
/// ```
public enum DiagnosticPrinter {
    /// The human form; `source` gives the line text (nil when the file could not be read).
    public static func render(_ d: Diagnostic, source: SourceFile?, color: Bool = false) -> String {
        let (bold, red, yellow, blue, reset) = color ? ("\u{1B}[1m", "\u{1B}[31m", "\u{1B}[33m", "\u{1B}[34m", "\u{1B}[0m") : ("", "", "", "", "")
        let severityColor = d.severity == .error ? red : d.severity == .warning ? yellow : blue
        let position = d.range.map { "\($0.file):\($0.start.line):\($0.start.column)" } ?? d.file
        var out = "\(bold)\(position): \(severityColor)\(d.severity.rawValue)[\(d.code.rawValue)]\(reset)\(bold): \(d.message)\(reset)\n"
        if let range = d.range, let source, range.file == source.path, range.start.line <= source.lineCount {
            let number = String(range.start.line)
            let gutter = String(repeating: " ", count: number.count + 1)
            let line = source.line(range.start.line)
            let startColumn = max(1, range.start.column)
            // The caret spans the range on its first line (at least one character).
            let lineLength = line.count
            let endColumn = range.end.line == range.start.line ? max(startColumn + 1, range.end.column) : max(startColumn + 1, lineLength + 1)
            let width = max(1, min(endColumn, lineLength + 1) - startColumn)
            let pad = String(line.prefix(startColumn - 1).map { $0 == "\t" ? "\t" : " " })
            out += "\(blue)\(gutter)|\(reset)\n"
            out += "\(blue)\(number) |\(reset) \(line)\n"
            out += "\(blue)\(gutter)|\(reset) \(pad)\(severityColor)^\(String(repeating: "~", count: width - 1))\(reset)\n"
            for note in d.notes { out += "\(blue)\(gutter)= note:\(reset) \(noteText(note, relativeTo: range))\n" }
        } else {
            for note in d.notes { out += "  = note: \(noteText(note, relativeTo: d.range))\n" }
        }
        return out
    }

    static func noteText(_ note: Diagnostic.Note, relativeTo range: SourceRange?) -> String {
        guard let at = note.range else { return note.message }
        let position = at.file == range?.file ? "line \(at.start.line), column \(at.start.column)" : "\(at.file):\(at.start.line):\(at.start.column)"
        return "\(note.message) (\(position))"
    }

    /// One JSON object, for `--format json`: file, line, column, end, severity, code, title,
    /// message, notes.
    public static func json(_ d: Diagnostic) -> JSONValue {
        var fields: [(String, JSONValue)] = [("file", .string(d.file))]
        if let r = d.range {
            fields += [("line", .int(r.start.line)), ("column", .int(r.start.column)),
                       ("end_line", .int(r.end.line)), ("end_column", .int(r.end.column))]
        }
        fields += [("severity", .string(d.severity.rawValue)), ("code", .string(d.code.rawValue)),
                   ("title", .string(d.code.title)), ("message", .string(d.message))]
        fields.append(("notes", .array(d.notes.map { note in
            var n: [(String, JSONValue)] = [("message", .string(note.message))]
            if let r = note.range { n += [("line", .int(r.start.line)), ("column", .int(r.start.column))] }
            return .object(n)
        })))
        return .object(fields)
    }
}
