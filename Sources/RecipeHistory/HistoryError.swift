/// A failure of the edit lifecycle: a sidecar, object or foreign file that cannot be used. The
/// message names the file, so the CLI prints `recipe: <file>: <what is wrong>`.
public struct HistoryError: Error, CustomStringConvertible, Sendable {
    /// The file the problem is about.
    public var file: String
    public var message: String

    public init(_ file: String, _ message: String) {
        self.file = file
        self.message = message
    }

    public var description: String { "\(file): \(message)" }
}
