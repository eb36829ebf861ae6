import CKernelsSIMD
#if canImport(Glibc)
import Glibc
#endif

/// The colour mixer's settings: a hue shift, a saturation and a luminance for each of eight
/// bands of OKLCh hue (`OKLab`), and what it does to a pixel (`reference`; `OKLab.c` runs it).
///
/// Band k's weight is 1 at its centre and falls to 0 at the centres of its neighbours: for a hue
/// between centres k and k+1 at fraction t of the way, band k has 1 − s and band k+1 has s,
/// s = 3t² − 2t³. The weights sum to 1, so neighbouring bands blend without an edge. A pixel's
/// shifts are its bands' values so mixed, times smoothstep(0.01, 0.04, C·min(1, 2L)): greys
/// (chroma under 0.01, about 2 in CIELAB's C*ab) are left exactly as they were, and so are
/// near-blacks, whose OKLab chroma the cube roots inflate (sRGB (0, 0, 2) has C 0.027 but a
/// C*ab of 0.8). Then, in OKLCh,
/// h → h + hue shift, C → C·max(0, 1 + saturation), L → L·(1 + luminance/2).
public struct ColorMixer: Sendable, Hashable {
    /// The bands in hue order, with their centres in OKLCh degrees: where the sRGB primaries and
    /// secondaries sit (red 29°, yellow 110°, green 142°, aqua 195°, blue 264°, magenta 328°),
    /// moved towards the colours photographers mean (blue at 245° takes in the sky's 225°–240°;
    /// yellow at 100° foliage's yellows), orange and purple between.
    public static let bands: [(name: String, centre: Double)] = [
        ("red", 25), ("orange", 55), ("yellow", 100), ("green", 140),
        ("aqua", 190), ("blue", 245), ("purple", 290), ("magenta", 330),
    ]
    /// The largest hue shift, in degrees: the nearest band centres are 30° apart.
    public static let maxHueShift = 30.0

    /// Per band, in `bands` order: hue shift in degrees, saturation and luminance in −1…1.
    public var hue: [Double]
    public var saturation: [Double]
    public var luminance: [Double]

    public init(hue: [Double], saturation: [Double], luminance: [Double]) {
        self.hue = hue
        self.saturation = saturation
        self.luminance = luminance
    }

    public var isIdentity: Bool { (hue + saturation + luminance).allSatisfy { $0 == 0 } }

    /// The band interval a hue falls in: k and the fraction of the way to band k+1 (cyclic).
    static func interval(_ h: Double) -> (Int, Double) {
        let centres = bands.map(\.centre)
        for k in 0..<7 where h >= centres[k] && h < centres[k + 1] {
            return (k, (h - centres[k]) / (centres[k + 1] - centres[k]))
        }
        var d = h - centres[7]
        if d < 0 { d += 360 }
        return (7, d / (centres[0] + 360 - centres[7]))
    }

    /// The band weights at hue `h` (degrees): eight numbers, two of them nonzero, summing to 1.
    public static func weights(hue h: Double) -> [Double] {
        let (k, t) = interval(h)
        let s = t * t * (3 - 2 * t)
        var w = [Double](repeating: 0, count: 8)
        w[k] += 1 - s
        w[(k + 1) % 8] += s
        return w
    }

    /// The mixer on one linear sRGB pixel, in double precision.
    public func reference(_ rgb: SIMD3<Double>) -> SIMD3<Double> {
        let lab = OKLab.lab(rgb)
        let chroma = (lab.y * lab.y + lab.z * lab.z).squareRoot()
        var h = atan2(lab.z, lab.y) * 180 / .pi
        if h < 0 { h += 360 }
        let w = Self.weights(hue: h)
        let grey = PointProgram.smoothstep(0.01, 0.04, chroma * min(1, 2 * lab.x))
        func mix(_ values: [Double]) -> Double { zip(w, values).reduce(0) { $0 + $1.0 * $1.1 } * grey }
        let dh = mix(hue) * .pi / 180
        let sc = max(0, 1 + mix(saturation))
        let a = (lab.y * cos(dh) - lab.z * sin(dh)) * sc, b = (lab.y * sin(dh) + lab.z * cos(dh)) * sc
        return OKLab.rgb(SIMD3(lab.x * (1 + mix(luminance) / 2), a, b))
    }

    /// The settings as the kernel takes them.
    var kernel: rk_color_mixer {
        var m = rk_color_mixer()
        let centres = Self.bands.map { Float($0.centre) }
        withUnsafeMutableBytes(of: &m) { raw in
            let f = raw.bindMemory(to: Float.self)
            for k in 0..<8 {
                f[k] = centres[k]
                f[8 + k] = k < 7 ? centres[k + 1] - centres[k] : centres[0] + 360 - centres[7]
                f[16 + k] = Float(hue[k] * .pi / 180)
                f[24 + k] = Float(saturation[k])
                f[32 + k] = Float(luminance[k] / 2)
            }
        }
        return m
    }

    /// Runs the mixer on `count` pixels of three planes in place.
    func apply(_ r: UnsafeMutablePointer<Float>, _ g: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>, count: Int) {
        var m = kernel
        rk_color_mixer_planes(r, g, b, Int32(count), &m)
    }
}
