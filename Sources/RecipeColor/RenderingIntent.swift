internal import CLCMS2

/// How colours outside the destination gamut, and the two white points, are treated when a
/// transform maps one profile to another. The raw values are the words a recipe or the CLI uses.
///
/// ```swift
/// let intent = RenderingIntent(rawValue: "relative")   // .relative
/// let t = try ColorTransform(from: .adobeRGB, to: .sRGB, input: .rgb8, output: .rgb8, intent: intent!)
/// ```
public enum RenderingIntent: String, Sendable, CaseIterable {
    /// The profile's perceptual table (A2B0/B2A0); a matrix-shaper treats it as relative.
    case perceptual
    /// Media-relative colorimetric: white maps to white, everything else is clipped colorimetrically.
    case relative
    /// The profile's saturation table (A2B2/B2A2); a matrix-shaper treats it as relative.
    case saturation
    /// ICC-absolute colorimetric: keeps the source white's XYZ (paper simulation).
    case absolute

    /// lcms2's INTENT_* number.
    var lcmsValue: cmsUInt32Number {
        switch self {
        case .perceptual: cmsUInt32Number(INTENT_PERCEPTUAL)
        case .relative: cmsUInt32Number(INTENT_RELATIVE_COLORIMETRIC)
        case .saturation: cmsUInt32Number(INTENT_SATURATION)
        case .absolute: cmsUInt32Number(INTENT_ABSOLUTE_COLORIMETRIC)
        }
    }
}
