import CKernelsSIMD

/// The per-pixel half of an unsharp mask (ImageMagick's -unsharp): each encoded value v becomes
/// v + amount·(v − blurred) where |2·(v − blurred)| reaches `threshold`, else stays v; with
/// `luma`, the difference of the lumas on every channel. The blur itself is `GaussianBlur` or
/// `DecimatedGaussian`; this is what a BlurStage does with it, row by row.
///
/// ```swift
/// UnsharpMask.apply(original: planes, blurred: blurredPlanes, width: w, amount: 0.8, threshold: 0,
///                   luma: false, into: floatRow)   // the row's three planes
/// ```
public enum UnsharpMask {
    /// One row: `original` holds three planes (r, g, b) of `width` encoded values, `blurred`
    /// three planes (or one, the blurred luma, with `luma`); `out` gets three planes of `width`
    /// floats (a float row), unclamped (an overshoot past white stays for the stages after it;
    /// the encoder clamps). The same float operations as `reference`, so the same values.
    public static func apply(original: UnsafePointer<Float>, blurred: UnsafePointer<Float>, width: Int, amount: Float,
                             threshold: Float, luma: Bool, into out: UnsafeMutablePointer<Float>) {
        // In C (`rk_unsharp_row`): eight pixels a step where the compiler vectorises it.
        rk_unsharp_row(original, blurred, Int32(width), amount, threshold, luma ? 1 : 0, out)
    }

    /// The scalar definition, pixel by pixel (the tests hold `apply` to it), from column `start`.
    public static func reference(original: UnsafePointer<Float>, blurred: UnsafePointer<Float>, width: Int, amount: Float,
                                 threshold: Float, luma: Bool, into out: UnsafeMutablePointer<Float>, from start: Int = 0) {
        guard start < width else { return }
        for x in start..<width {
            let y = 0.2126 * original[x] + 0.7152 * original[width + x] + 0.0722 * original[2 * width + x]
            for c in 0..<3 {
                let v = original[c * width + x]
                let d = luma ? y - blurred[x] : v - blurred[c * width + x]
                out[c * width + x] = Swift.abs(2 * d) < threshold ? v : v + amount * d
            }
        }
    }
}
