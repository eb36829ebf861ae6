/// A profile that cannot be used, or a transform that lcms2 refused to build. The message says what
/// is wrong in a few words and, where lcms2 said why, ends with lcms2's own words.
///
/// ```swift
/// do { _ = try ColorProfile(icc: bytes) } catch { print("photo.jpg: \(error)") }
/// // photo.jpg: ICC profile is a device link, not a colour space
/// ```
public struct ColorProfileError: Error, Sendable, CustomStringConvertible, Equatable {
    /// What is wrong, starting with "ICC profile" or "colour transform", no trailing period.
    public var message: String

    /// An error with `message`.
    ///
    /// ```swift
    /// throw ColorProfileError("ICC profile is empty")
    /// ```
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
