import CKernelsSIMD

/// A gain on linear light (a vignette's fall-off, shadows/highlights' local exposure) applied to
/// sRGB-encoded values without leaving them.
///
/// Above the curve's linear toe an encoded value is v = 1.055·L^(1/2.4) − 0.055, so the light
/// scaled by g is, encoded,
///
///     v′ = g^(1/2.4)·(v + 0.055) − 0.055
///
/// exactly: one multiply-add where a decode, the gain and an encode cost about 1.1 ns a value on
/// these machines. It holds while both v and v′ are above the toe (0.04045, code 10 of 255);
/// a vector with a value at or below it takes the decode, the gain and the encode instead.
/// Negative values (extended range) are handled by their magnitude, as the curve is odd.
///
/// The planner runs a gain here only between encoded neighbours (`EncodedGains`), where it
/// saves a decode and an encode of every value; against the linear form the results differ by
/// float rounding (a few 1e-7, relative). g^(1/2.4) is the encoding curve's polynomial, once a
/// pixel rather than twice a value.
///
/// ```swift
/// EncodedGain.apply(r, g, b, gains: k, count: 64)   // planes of 64 pixels, in place
/// ```
public enum EncodedGain {
    /// Scales the light of `count` pixels, given as encoded planes `r`, `g`, `b`, by `gains` (one
    /// a pixel), in place (`rk_encoded_gain`: AVX2 eight pixels at a time where the machine has it,
    /// the same operations and decisions lane by lane otherwise, so every CPU gets the same
    /// floats). Gains of exactly 1 leave a group of eight pixels untouched.
    @inlinable
    public static func apply(_ r: UnsafeMutablePointer<Float>, _ g: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>,
                             gains: UnsafePointer<Float>, count: Int) {
        rk_encoded_gain(r, g, b, gains, Int32(count))
    }

    /// The same from planes `fr`, `fg`, `fb` into `r`, `g`, `b` (another row), in one pass
    /// (`rk_encoded_gain_from`: each group of eight read from the one side and written to the
    /// other; a copy first and the gain in place cost 3% of basic-corrections' CPU more). The
    /// same floats as `apply` in place.
    @inlinable
    public static func apply(from fr: UnsafePointer<Float>, _ fg: UnsafePointer<Float>, _ fb: UnsafePointer<Float>,
                             to r: UnsafeMutablePointer<Float>, _ g: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>,
                             gains: UnsafePointer<Float>, count: Int) {
        rk_encoded_gain_from(fr, fg, fb, r, g, b, gains, Int32(count))
    }

    /// The same in Double, one value: the reference the kernel is tested against.
    public static func reference(_ v: Double, gain: Double) -> Double {
        SRGB.encode(SRGB.decode(v) * gain)
    }
}
