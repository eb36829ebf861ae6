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
    /// bytes. Eight pixels at a time with the same float operations as `reference`, so the same
    /// bytes. A pixel's three codes go out as one 4-byte store whose spare byte the next pixel
    /// overwrites (24 single-byte stores per eight pixels were most of clarity's per-pixel time).
    public static func apply(original: UnsafePointer<Float>, blurred: UnsafePointer<Float>, width: Int, amount: Float,
                             threshold: Float, luma: Bool, into out: UnsafeMutablePointer<UInt8>) {
        typealias V = SIMD8<Float>
        @inline(__always) func load(_ p: UnsafePointer<Float>) -> V { UnsafeRawPointer(p).loadUnaligned(as: V.self) }
        let (kr, kg, kb) = (V(repeating: 0.2126), V(repeating: 0.7152), V(repeating: 0.0722))
        let limit = V(repeating: threshold), half = V(repeating: 0.5)
        @inline(__always) func codes(_ v: V, _ d: V) -> SIMD8<UInt32> {
            let sharpened = v.replacing(with: v + amount * d, where: .!(FastMath.abs(2 * d) .< limit))
            return SRGB.floor22(FastMath.clamp(sharpened, upTo: 1) * 255 + half).1
        }
        // The last whole group ends one pixel early: its last pixel's 4-byte store would pass the row.
        let groups = width >= 9 ? (width - 1) / 8 : 0
        let raw = UnsafeMutableRawPointer(out)
        for group in 0..<groups {
            let x = group * 8
            let r = load(original + x), g = load(original + width + x), b = load(original + 2 * width + x)
            let packed: SIMD8<UInt32>
            if luma {
                let d = kr * r + kg * g + kb * b - load(blurred + x)
                packed = codes(r, d) | codes(g, d) &<< 8 | codes(b, d) &<< 16
            } else {
                packed = codes(r, r - load(blurred + x)) | codes(g, g - load(blurred + width + x)) &<< 8
                    | codes(b, b - load(blurred + 2 * width + x)) &<< 16
            }
            for k in 0..<8 { raw.storeBytes(of: packed[k].littleEndian, toByteOffset: 3 &* (x &+ k), as: UInt32.self) }
        }
        reference(original: original, blurred: blurred, width: width, amount: amount, threshold: threshold, luma: luma,
                  into: out, from: groups * 8)
    }

    /// The scalar definition, pixel by pixel (the tests hold `apply` to it), from column `start`.
    public static func reference(original: UnsafePointer<Float>, blurred: UnsafePointer<Float>, width: Int, amount: Float,
                                 threshold: Float, luma: Bool, into out: UnsafeMutablePointer<UInt8>, from start: Int = 0) {
        guard start < width else { return }
        for x in start..<width {
            let y = 0.2126 * original[x] + 0.7152 * original[width + x] + 0.0722 * original[2 * width + x]
            for c in 0..<3 {
                let v = original[c * width + x]
                let d = luma ? y - blurred[x] : v - blurred[c * width + x]
                let o = Swift.abs(2 * d) < threshold ? v : v + amount * d
                out[3 * x + c] = SampleConversion.quantize8(o)
            }
        }
    }
}
