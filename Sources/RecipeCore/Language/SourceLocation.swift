/// A position in a recipe file: 1-based line and column (columns count Unicode scalars), and the
/// 0-based UTF-8 byte offset libyaml reports.
///
/// ```
/// looks/warm.recipe.yaml:7:5
/// ```
public struct SourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var offset: Int

    public init(line: Int, column: Int, offset: Int) {
        self.line = line
        self.column = column
        self.offset = offset
    }

    public static func < (a: SourceLocation, b: SourceLocation) -> Bool { a.offset < b.offset }

    public var description: String { "\(line):\(column)" }
}

/// A half-open range of a recipe file, from `start` to just after the last character.
public struct SourceRange: Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var start: SourceLocation
    public var end: SourceLocation

    public init(file: String, start: SourceLocation, end: SourceLocation) {
        self.file = file
        self.start = start
        self.end = end
    }

    public var description: String { "\(file):\(start.line):\(start.column)" }
}
