import CKernelsSIMD

/// The per-pixel half of an unsharp mask (ImageMagick's -unsharp): each encoded value v becomes
/// v + amount·(v − blurred) where |2·(v − blurred)| reaches `threshold`, else stays v; with
/// `luma`, the difference of the lumas on every channel. The blur itself is `GaussianBlur` or
/// `DecimatedGaussian`; this is what a BlurStage does with it, row by row.
///
/// ```swift
/// UnsharpMask.apply(original: planes, blurred: blurredPlanes, width: w, amount: 0.8, threshold: 0,
///                   luma: false, into: rgbRow)
/// ```
public enum UnsharpMask {
    /// One row: `original` holds three planes (r, g, b) of `width` encoded values, `blurred`
    /// three planes (or one, the blurred luma, with `luma`); `out` gets `width` interleaved RGB
    /// floats, unclamped (an overshoot past white stays for the stages after it; the encoder
    /// clamps). Eight pixels at a time with the same float operations as `reference`, so the
    /// same values.
    public static func apply(original: UnsafePointer<Float>, blurred: UnsafePointer<Float>, width: Int, amount: Float,
                             threshold: Float, luma: Bool, into out: UnsafeMutablePointer<Float>) {
        typealias V = SIMD8<Float>
        @inline(__always) func load(_ p: UnsafePointer<Float>) -> V { UnsafeRawPointer(p).loadUnaligned(as: V.self) }
        let (kr, kg, kb) = (V(repeating: 0.2126), V(repeating: 0.7152), V(repeating: 0.0722))
        let limit = V(repeating: threshold)
        @inline(__always) func sharpen(_ v: V, _ d: V) -> V {
            v.replacing(with: v + amount * d, where: .!(FastMath.abs(2 * d) .< limit))
        }
        let groups = width / 8
        // The results go to planes, interleaved in C at the end (a SIMD8's lanes written out one
        // by one cost more than the arithmetic).
        withUnsafeTemporaryAllocation(of: Float.self, capacity: max(1, 3 * groups * 8)) { scratch in
        let planes = scratch.baseAddress!, span = groups * 8
        @inline(__always) func store(_ v: V, _ p: UnsafeMutablePointer<Float>) { UnsafeMutableRawPointer(p).storeBytes(of: v, as: V.self) }
        for group in 0..<groups {
            let x = group * 8
            let r = load(original + x), g = load(original + width + x), b = load(original + 2 * width + x)
            let (sr, sg, sb): (V, V, V)
            if luma {
                let d = kr * r + kg * g + kb * b - load(blurred + x)
                (sr, sg, sb) = (sharpen(r, d), sharpen(g, d), sharpen(b, d))
            } else {
                (sr, sg, sb) = (sharpen(r, r - load(blurred + x)), sharpen(g, g - load(blurred + width + x)),
                                sharpen(b, b - load(blurred + 2 * width + x)))
            }
            store(sr, planes + x)
            store(sg, planes + span + x)
            store(sb, planes + 2 * span + x)
        }
        rk_interleave3f(planes, planes + span, planes + 2 * span, out, Int32(span))
        }
        reference(original: original, blurred: blurred, width: width, amount: amount, threshold: threshold, luma: luma,
                  into: out, from: groups * 8)
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
                out[3 * x + c] = Swift.abs(2 * d) < threshold ? v : v + amount * d
            }
        }
    }
}
