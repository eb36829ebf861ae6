import CKernelsSIMD
#if canImport(Glibc)
import Glibc
#endif

/// Colour grading's settings: a tint (hue and saturation) and a lightness offset for the
/// shadows, the midtones, the highlights and the whole picture, with the balance and blending
/// that place the zones; and what it does to a pixel (`reference`; `OKLab.c` runs it).
///
/// In OKLab (`OKLab`), from the pixel's lightness x = L clamped to 0…1: the pivot is
/// p = 0.5 − 0.25·balance, the fade half-width w = 0.25·blending (at least 0.0001); the shadows'
/// weight is 1 − smoothstep(p − 0.25 − w, p − 0.25 + w, x), the highlights'
/// smoothstep(p + 0.25 − w, p + 0.25 + w, x), the midtones' the rest (the three sum to 1). A
/// zone's tint is the OKLab offset saturation·0.1·(cos hue, sin hue), its lightness offset
/// luminance·0.2. The pixel gets a and b plus the weighted tints and the global tint, times
/// min(1, 4x) so that black stays black, and L plus the weighted lightness offsets.
public struct ColorGrade: Sendable, Hashable {
    /// One zone's (or the global) setting: hue in degrees, saturation 0…1, luminance −1…1.
    public struct Tint: Sendable, Hashable {
        public var hue: Double
        public var saturation: Double
        public var luminance: Double
        public init(hue: Double, saturation: Double, luminance: Double) {
            self.hue = hue
            self.saturation = saturation
            self.luminance = luminance
        }
        var ab: (Double, Double) { (saturation * 0.1 * cos(hue * .pi / 180), saturation * 0.1 * sin(hue * .pi / 180)) }
    }

    /// Shadows, midtones, highlights, global.
    public var zones: [Tint]
    /// −1…1: positive moves the split down (more of the picture counts as highlights).
    public var balance: Double
    /// 0…1: how wide the fades between the zones are (0 hard edges, 1 a midtone tent).
    public var blending: Double

    public init(zones: [Tint], balance: Double, blending: Double) {
        self.zones = zones
        self.balance = balance
        self.blending = blending
    }

    public var isIdentity: Bool { zones.allSatisfy { $0.saturation == 0 && $0.luminance == 0 } }

    /// The fade edges: shadows out over the first pair, highlights in over the second.
    var edges: (Double, Double, Double, Double) {
        let p = 0.5 - 0.25 * balance, w = max(0.25 * blending, 0.0001)
        return (p - 0.25 - w, p - 0.25 + w, p + 0.25 - w, p + 0.25 + w)
    }

    /// The zones' weights (shadows, midtones, highlights) at OKLab lightness `lightness`.
    public func weights(lightness: Double) -> (Double, Double, Double) {
        let x = min(max(lightness, 0), 1), e = edges
        let s = 1 - PointProgram.smoothstep(e.0, e.1, x), h = PointProgram.smoothstep(e.2, e.3, x)
        return (s, 1 - s - h, h)
    }

    /// Grading on one linear sRGB pixel, in double precision.
    public func reference(_ rgb: SIMD3<Double>) -> SIMD3<Double> {
        let lab = OKLab.lab(rgb)
        let (ws, wm, wh) = weights(lightness: lab.x)
        let w = [ws, wm, wh, 1]
        var da = 0.0, db = 0.0, dl = 0.0
        for (k, z) in zones.enumerated() {
            let (a, b) = z.ab
            da += w[k] * a
            db += w[k] * b
            dl += w[k] * z.luminance * 0.2
        }
        let k = min(1, 4 * min(max(lab.x, 0), 1))
        return OKLab.rgb(SIMD3(lab.x + dl, lab.y + da * k, lab.z + db * k))
    }

    var kernel: rk_color_grade {
        var q = rk_color_grade()
        let e = edges
        withUnsafeMutableBytes(of: &q) { raw in
            let f = raw.bindMemory(to: Float.self)
            for (k, z) in zones.enumerated() {
                let (a, b) = z.ab
                f[k] = Float(a)
                f[4 + k] = Float(b)
                f[8 + k] = Float(z.luminance * 0.2)
            }
            f[12] = Float(e.0)
            f[13] = Float(e.1)
            f[14] = Float(e.2)
            f[15] = Float(e.3)
        }
        return q
    }

    /// Runs the grading on `count` pixels of three planes in place.
    func apply(_ r: UnsafeMutablePointer<Float>, _ g: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>, count: Int) {
        var q = kernel
        rk_color_grade_planes(r, g, b, Int32(count), &q)
    }
}
