/// A mistake in a recipe, reported the way a compiler reports one: a stable code, a position,
/// the message, and notes that say how to fix it. Diagnostics are collected, never thrown, so every
/// mistake of a file is reported in one run.
///
/// ```
/// warm.recipe.yaml:7:5: error[R204]: unknown operation `saturaton`
///     7 |   - saturaton: 1.2
///       |     ^~~~~~~~~
///   = note: did you mean `saturation`?
/// ```
public struct Diagnostic: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Severity: String, Sendable, Hashable, Comparable {
        case error, warning, note

        private var rank: Int { self == .error ? 2 : self == .warning ? 1 : 0 }
        public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
    }

    /// A line under the main message: a hint, the valid choices, or a second position.
    public struct Note: Sendable, Hashable {
        public var message: String
        /// A position the note refers to (the first of two duplicate keys, say), if any.
        public var range: SourceRange?

        public init(_ message: String, at range: SourceRange? = nil) {
            self.message = message
            self.range = range
        }
    }

    public var code: DiagnosticCode
    public var severity: Severity
    public var message: String
    /// Where the mistake is; nil only for problems of a whole file (it cannot be read, say).
    public var range: SourceRange?
    public var notes: [Note]
    /// The file concerned (the range's file when there is a range).
    public var file: String

    public init(_ code: DiagnosticCode, _ message: String, at range: SourceRange?, file: String? = nil,
                severity: Severity? = nil, notes: [Note] = []) {
        self.code = code
        self.severity = severity ?? code.defaultSeverity
        self.message = message
        self.range = range
        self.notes = notes
        self.file = range?.file ?? file ?? ""
    }

    /// `file:line:col: error[R204]: message`, the first line of the rendered diagnostic.
    public var description: String {
        let position = range.map { "\($0.file):\($0.start.line):\($0.start.column)" } ?? file
        return "\(position): \(severity.rawValue)[\(code.rawValue)]: \(message)"
    }
}

extension Array where Element == Diagnostic {
    /// True when any diagnostic is an error (warnings alone do not fail a check).
    public var hasErrors: Bool { contains { $0.severity == .error } }
}
