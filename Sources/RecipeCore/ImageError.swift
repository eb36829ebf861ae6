/// A failure of the system while reading or writing an image (not a mistake in a recipe, which is
/// a diagnostic). Every case names the file, so one line tells the user what went wrong where.
///
/// ```
/// recipe: photo.gif: not a JPEG, PNG, TIFF, WebP, HEIF, AVIF or camera raw file (it starts with 47 49 46 38)
/// ```
public struct ImageError: Error, Sendable, CustomStringConvertible, Equatable {
    /// What kind of failure this is; the CLI and the tests branch on it.
    public enum Kind: String, Sendable, Equatable {
        /// The file could not be opened or read (missing, permission, a directory, I/O error).
        case unreadable
        /// Not an image of a supported format, or the codec gave up on it.
        case corrupt
        /// Pixel data is missing (a truncated file); `--allow-damaged` renders what was decoded.
        case damaged
        /// Declared dimensions beyond the pixel limit.
        case tooLarge
        /// A valid file of a variant we do not handle (12-bit JPEG, …).
        case unsupported
        /// The output could not be written.
        case writeFailed
        /// Refused because it would touch an original.
        case refused
        /// Its render would need more memory than the budget allows (`--max-memory`); refused
        /// before decoding.
        case overBudget
    }

    public var kind: Kind
    /// The file concerned, as the user named it.
    public var path: String
    /// What is wrong, in a few words, lower case, no trailing period.
    public var reason: String

    public init(_ kind: Kind, path: String, _ reason: String) {
        self.kind = kind
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}

/// A problem that did not stop the work (damaged metadata, recoverable stream damage). Collected
/// and printed as `recipe: warning: <file>: <message>`.
public struct ImageWarning: Sendable, Hashable, CustomStringConvertible {
    public var path: String
    public var message: String

    public init(path: String, _ message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}
