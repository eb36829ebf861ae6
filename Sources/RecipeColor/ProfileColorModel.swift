/// The colour space of a profile's device side: what the pixels of a photo tagged with it hold.
///
/// ```swift
/// if profile.colorModel == .cmyk { /* decode the JPEG as CMYK and convert through `profile` */ }
/// ```
public enum ProfileColorModel: String, Sendable {
    /// Three channels, red, green and blue.
    case rgb
    /// One channel.
    case gray
    /// Four ink channels, cyan, magenta, yellow and black.
    case cmyk
}
