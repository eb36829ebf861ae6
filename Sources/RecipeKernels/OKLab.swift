#if canImport(Glibc)
import Glibc
#endif

/// Björn Ottosson's OKLab (2020) in double precision, from and to linear-light sRGB: the
/// reference the OKLab kernels (`OKLab.c`: the colour mixer, grading, the colour-range mask) are
/// tested against. OKLCh is its polar form: lightness L in 0…1, chroma C (0 for greys, about
/// 0.32 for the most saturated sRGB colours), hue h in degrees, as CSS `oklch()` has them.
///
/// Why OKLab: its hue is perceptually uniform (a blue shifted in hue stays blue, unlike in
/// CIELAB, whose blues turn purple), its lightness follows perceived lightness, and it costs two
/// 3×3 matrices and three cube roots a pixel.
public enum OKLab {
    static let m1: [Double] = [0.4122214708, 0.5363325363, 0.0514459929,
                               0.2119034982, 0.6806995451, 0.1073969566,
                               0.0883024619, 0.2817188376, 0.6299787005]
    static let m2: [Double] = [0.2104542553, 0.7936177850, -0.0040720468,
                               1.9779984951, -2.4285922050, 0.4505937099,
                               0.0259040371, 0.7827717662, -0.8086757660]
    static let m2Inverse: [Double] = [1, 0.3963377774, 0.2158037573,
                                      1, -0.1055613458, -0.0638541728,
                                      1, -0.0894841775, -1.2914855480]
    static let m1Inverse: [Double] = [4.0767416621, -3.3077115913, 0.2309699292,
                                      -1.2684380046, 2.6097574011, -0.3413193965,
                                      -0.0041960863, -0.7034186147, 1.7076147010]

    static func times(_ m: [Double], _ v: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(m[0] * v.x + m[1] * v.y + m[2] * v.z, m[3] * v.x + m[4] * v.y + m[5] * v.z, m[6] * v.x + m[7] * v.y + m[8] * v.z)
    }

    /// (L, a, b) of linear sRGB `rgb` (negative light keeps its sign through the cube roots).
    public static func lab(_ rgb: SIMD3<Double>) -> SIMD3<Double> {
        let lms = times(m1, rgb)
        return times(m2, SIMD3(cbrt(lms.x), cbrt(lms.y), cbrt(lms.z)))
    }

    /// Linear sRGB of OKLab (L, a, b).
    public static func rgb(_ lab: SIMD3<Double>) -> SIMD3<Double> {
        let lms = times(m2Inverse, lab)
        return times(m1Inverse, lms * lms * lms)
    }

    /// (L, C, h) of linear sRGB `rgb`, h in [0, 360) degrees (0 for a grey).
    public static func lch(_ rgb: SIMD3<Double>) -> SIMD3<Double> {
        let p = lab(rgb)
        var h = atan2(p.z, p.y) * 180 / .pi
        if h < 0 { h += 360 }
        if h >= 360 { h -= 360 }
        return SIMD3(p.x, (p.y * p.y + p.z * p.z).squareRoot(), h)
    }
}
