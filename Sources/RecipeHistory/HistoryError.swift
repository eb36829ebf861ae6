/// A failure of the edit lifecycle: a sidecar, object or foreign file that cannot be used. The
/// message names the file, so the CLI prints `recipe: <file>: <what is wrong>`.
public struct HistoryError: Error, CustomStringConvertible, Sendable {
    /// The file the problem is about.
    public var file: String
    public var message: String
    /// A mistake in what was asked (a `--stage` that is not a stage): nothing was done, exit 2
    /// like every other usage error; otherwise the photo's edit failed (exit 1).
    public var isUsage: Bool

    public init(_ file: String, _ message: String, usage: Bool = false) {
        self.file = file
        self.message = message
        isUsage = usage
    }

    public var description: String { "\(file): \(message)" }
}
