#if canImport(Glibc)
import Glibc
#endif

/// Kelvin and tint to a colour matrix: Adobe DNG SDK `dng_temperature` (Robertson isotherms,
/// tint scale −3000) for both whites, Bradford adaptation between them, wrapped to linear sRGB
/// (ops-reference.md §2.3, §2.4, §3). Computed once per render in double precision.
public enum WhiteBalance {
    /// Wyszecki & Stiles p. 228 (reciprocal megakelvin, u, v, isotherm slope); the 325 entry
    /// with the corrected u = 0.24792.
    static let isotherms: [(r: Double, u: Double, v: Double, t: Double)] = [
        (0, 0.18006, 0.26352, -0.24341), (10, 0.18066, 0.26589, -0.25479), (20, 0.18133, 0.26846, -0.26876),
        (30, 0.18208, 0.27119, -0.28539), (40, 0.18293, 0.27407, -0.30470), (50, 0.18388, 0.27709, -0.32675),
        (60, 0.18494, 0.28021, -0.35156), (70, 0.18611, 0.28342, -0.37915), (80, 0.18740, 0.28668, -0.40955),
        (90, 0.18880, 0.28997, -0.44278), (100, 0.19032, 0.29326, -0.47888), (125, 0.19462, 0.30141, -0.58204),
        (150, 0.19962, 0.30921, -0.70471), (175, 0.20525, 0.31647, -0.84901), (200, 0.21142, 0.32312, -1.0182),
        (225, 0.21807, 0.32909, -1.2168), (250, 0.22511, 0.33439, -1.4512), (275, 0.23247, 0.33904, -1.7298),
        (300, 0.24010, 0.34308, -2.0637), (325, 0.24792, 0.34655, -2.4681), (350, 0.25591, 0.34951, -2.9641),
        (375, 0.26400, 0.35200, -3.5814), (400, 0.27218, 0.35407, -4.3633), (425, 0.28039, 0.35577, -5.3762),
        (450, 0.28863, 0.35714, -6.7262), (475, 0.29685, 0.35823, -8.5955), (500, 0.30505, 0.35907, -11.324),
        (525, 0.31320, 0.35968, -15.628), (550, 0.32129, 0.36011, -23.325), (575, 0.32931, 0.36038, -40.770),
        (600, 0.33724, 0.36051, -116.45),
    ]
    static let tintScale = -3000.0

    /// CIE xy of the white a temperature (K) and tint name (DNG SDK Get_xy_coord).
    public static func xy(temperature: Double, tint: Double) -> (x: Double, y: Double) {
        let r = 1e6 / temperature
        let offset = tint / tintScale
        var index = 0
        while index < isotherms.count - 2, r >= isotherms[index + 1].r { index += 1 }
        let a = isotherms[index], b = isotherms[index + 1]
        let f = (b.r - r) / (b.r - a.r)
        var u = a.u * f + b.u * (1 - f)
        var v = a.v * f + b.v * (1 - f)
        func unit(_ t: Double) -> (Double, Double) { let l = (1 + t * t).squareRoot(); return (1 / l, t / l) }
        let (u1, v1) = unit(a.t), (u2, v2) = unit(b.t)
        var (u3, v3) = (u1 * f + u2 * (1 - f), v1 * f + v2 * (1 - f))
        let l3 = (u3 * u3 + v3 * v3).squareRoot()
        u3 /= l3
        v3 /= l3
        u += u3 * offset
        v += v3 * offset
        let denominator: Double = u - 4 * v + 2
        return (1.5 * u / denominator, v / denominator)
    }

    typealias M3 = [Double]  // row-major 3×3

    static func multiply(_ a: M3, _ b: M3) -> M3 {
        var out = M3(repeating: 0, count: 9)
        for r in 0..<3 {
            for c in 0..<3 {
                var v = 0.0
                for k in 0..<3 { v += a[r * 3 + k] * b[k * 3 + c] }
                out[r * 3 + c] = v
            }
        }
        return out
    }

    static func inverse(_ m: M3) -> M3 {
        let d0: Double = m[0] * (m[4] * m[8] - m[5] * m[7])
        let d1: Double = m[1] * (m[3] * m[8] - m[5] * m[6])
        let d2: Double = m[2] * (m[3] * m[7] - m[4] * m[6])
        let det = d0 - d1 + d2
        func cofactor(_ a: Int, _ b: Int, _ c: Int, _ d: Int) -> Double { m[a] * m[b] - m[c] * m[d] }
        let c: M3 = [
            cofactor(4, 8, 5, 7), cofactor(2, 7, 1, 8), cofactor(1, 5, 2, 4),
            cofactor(5, 6, 3, 8), cofactor(0, 8, 2, 6), cofactor(2, 3, 0, 5),
            cofactor(3, 7, 4, 6), cofactor(1, 6, 0, 7), cofactor(0, 4, 1, 3),
        ]
        return c.map { $0 / det }
    }

    /// Linear sRGB → XYZ, derived from the primaries and D65 in double precision.
    static let rgbToXYZ: M3 = {
        let primaries = [(0.64, 0.33), (0.30, 0.60), (0.15, 0.06)]
        let white = (0.3127, 0.3290)
        func xyz(_ p: (Double, Double)) -> [Double] { [p.0 / p.1, 1, (1 - p.0 - p.1) / p.1] }
        let cols = primaries.map(xyz)
        let p: M3 = [cols[0][0], cols[1][0], cols[2][0], cols[0][1], cols[1][1], cols[2][1], cols[0][2], cols[1][2], cols[2][2]]
        let w = xyz(white)
        let inv = inverse(p)
        var s = [0.0, 0.0, 0.0]
        for r in 0..<3 { for k in 0..<3 { s[r] += inv[r * 3 + k] * w[k] } }
        return (0..<9).map { p[$0] * s[$0 % 3] }
    }()

    static let bradford: M3 = [0.8951, 0.2664, -0.1614, -0.7502, 1.7135, 0.0367, 0.0389, -0.0685, 1.0296]

    /// The 3×4 matrix (bias 0) that adapts linear sRGB from the white (temp, tint) to the white
    /// (targetTemp, targetTint). The defaults give the identity exactly.
    public static func matrix(temperature: Double, tint: Double, targetTemperature: Double, targetTint: Double) -> [Float] {
        let s = xy(temperature: temperature, tint: tint), d = xy(temperature: targetTemperature, tint: targetTint)
        func cone(_ w: (x: Double, y: Double)) -> [Double] {
            let xyz = [w.x / w.y, 1, (1 - w.x - w.y) / w.y]
            var out = [0.0, 0.0, 0.0]
            for r in 0..<3 { for k in 0..<3 { out[r] += bradford[r * 3 + k] * xyz[k] } }
            return out
        }
        let cs = cone(s), cd = cone(d)
        let scale: M3 = [cd[0] / cs[0], 0, 0, 0, cd[1] / cs[1], 0, 0, 0, cd[2] / cs[2]]
        let adapt = multiply(inverse(bradford), multiply(scale, bradford))
        let m = multiply(inverse(rgbToXYZ), multiply(adapt, rgbToXYZ))
        var out = [Float](repeating: 0, count: 12)
        for r in 0..<3 { for c in 0..<3 { out[r * 4 + c] = Float(m[r * 3 + c]) } }
        return out
    }
}
