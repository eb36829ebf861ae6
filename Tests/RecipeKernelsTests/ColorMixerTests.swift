import Foundation
import RecipeKernels
import Testing
import TestSupport

/// The largest difference of two colours' channels.
func dist(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
    let d = a - b
    return max(abs(d.x), abs(d.y), abs(d.z))
}

/// The OKLab colour controls' kernels: OKLab itself against the values its author and CSS Color 4
/// publish, the C kernels against their double-precision references, and the colour mixer's
/// promises (a band moves only its hues, greys stay, no edges) on hue sweeps.
@Suite("colour mixer and grading")
struct ColorMixerTests {
    /// Runs `steps` on float pixels through a point program (the float path a render's fused pass
    /// runs: the C kernels).
    static func run(_ steps: [PointStep], _ pixels: [SIMD3<Double>]) -> [SIMD3<Double>] {
        var r = pixels.map { Float($0.x) }, g = pixels.map { Float($0.y) }, b = pixels.map { Float($0.z) }
        PointProgram(steps: steps, tables: false).apply(r: &r, g: &g, b: &b, count: pixels.count)
        return pixels.indices.map { SIMD3(Double(r[$0]), Double(g[$0]), Double(b[$0])) }
    }

    /// Linear sRGB of OKLCh (L, C, h°).
    static func fromLCh(_ l: Double, _ c: Double, _ h: Double) -> SIMD3<Double> {
        OKLab.rgb(SIMD3(l, c * cos(h * .pi / 180), c * sin(h * .pi / 180)))
    }

    static func encode(_ v: Double) -> Double { v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055 }
    static func decode(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }

    /// CIELAB C*ab of an 8-bit sRGB colour (D65, the sRGB matrix to XYZ): the "chroma".
    static func chromaAB(_ rgb: SIMD3<Double>) -> Double {
        let l = SIMD3(decode(rgb.x / 255), decode(rgb.y / 255), decode(rgb.z / 255))
        let x = (0.4124564 * l.x + 0.3575761 * l.y + 0.1804375 * l.z) / 0.95047
        let y = 0.2126729 * l.x + 0.7151522 * l.y + 0.0721750 * l.z
        let z = (0.0193339 * l.x + 0.1191920 * l.y + 0.9503041 * l.z) / 1.08883
        func f(_ t: Double) -> Double { t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
        let a = 500 * (f(x) - f(y)), b = 200 * (f(y) - f(z))
        return (a * a + b * b).squareRoot()
    }

    @Test("OKLab of the sRGB primaries and white as CSS Color 4 and Ottosson publish them, within 1e-4")
    func oklabPublished() {
        // CSS Color 4's sample values (oklab() of the sRGB primaries), and white at L 1.
        let cases: [(SIMD3<Double>, SIMD3<Double>)] = [
            (SIMD3(1, 0, 0), SIMD3(0.62796, 0.22486, 0.12585)),
            (SIMD3(0, 1, 0), SIMD3(0.86644, -0.23389, 0.17950)),
            (SIMD3(0, 0, 1), SIMD3(0.45201, -0.03246, -0.31153)),
            (SIMD3(1, 1, 1), SIMD3(1, 0, 0)),
        ]
        for (rgb, want) in cases {
            let got = OKLab.lab(rgb)
            #expect(dist(got, want) < 1e-4, "\(rgb): \(got) against \(want)")
            #expect(dist(OKLab.rgb(got), rgb) < 1e-6, "round trip of \(rgb) (the published matrices' 10 digits)")
        }
    }

    static func randomPixels(_ count: Int, seed: UInt64) -> [SIMD3<Double>] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { _ in SIMD3(rng.unit(), rng.unit(), rng.unit()) }
    }

    @Test("the mixer's and the grading's kernels equal their double-precision references within 2e-4 (4000 colours, random settings)")
    func kernelsAgainstReferences() {
        var rng = SplitMix64(seed: 7)
        let pixels = Self.randomPixels(4000, seed: 11) + [SIMD3(0, 0, 0), SIMD3(1, 1, 1), SIMD3(0.5, 0.5, 0.5)]
        var worst = 0.0
        for trial in 0..<6 {
            let mixer = ColorMixer(hue: (0..<8).map { _ in rng.unit() * 60 - 30 }, saturation: (0..<8).map { _ in rng.unit() * 2 - 1 },
                                   luminance: (0..<8).map { _ in rng.unit() * 2 - 1 })
            let grade = ColorGrade(zones: (0..<4).map { _ in ColorGrade.Tint(hue: rng.unit() * 360, saturation: rng.unit(), luminance: rng.unit() * 2 - 1) },
                                   balance: rng.unit() * 2 - 1, blending: rng.unit())
            for step in [PointStep.colorMixer(mixer), .colorGrade(grade)] {
                let got = Self.run([step], pixels)
                for (p, out) in zip(pixels, got) {
                    let want = step.reference(p)
                    let error = dist(out, want)
                    worst = max(worst, error)
                    #expect(error < 2e-4, "trial \(trial), \(step), pixel \(p): \(out) against \(want)")
                }
            }
        }
        testNote("worst kernel error against the references: \(worst)")
    }

    @Test("a band moves only the hues between its neighbours' centres (to 1 code) at three lightnesses; its centre moves")
    func bandMovesOnlyItsHues() throws {
        let centres = ColorMixer.bands.map(\.centre)
        for k in 0..<8 {
            for sign in [1.0, -1.0] {
                var mixer = ColorMixer(hue: .init(repeating: 0, count: 8), saturation: .init(repeating: 0, count: 8),
                                       luminance: .init(repeating: 0, count: 8))
                mixer.hue[k] = 30 * sign
                mixer.saturation[k] = sign
                mixer.luminance[k] = sign
                let program = PointProgram(steps: [.toLinear, .colorMixer(mixer), .toEncoded])
                let low = centres[(k + 7) % 8], high = centres[(k + 1) % 8]
                var movedInside = 0, worstOutside = 0
                for lightness in [0.45, 0.65, 0.85] {
                    // 8-bit colours on a hue sweep at chroma 0.06 (inside sRGB at these lightnesses).
                    var row: [UInt8] = []
                    for step in 0..<1440 {
                        let rgb = Self.fromLCh(lightness, 0.06, Double(step) / 4)
                        #expect(rgb.min() >= -1e-9 && rgb.max() <= 1 + 1e-9, "OKLCh(\(lightness), 0.06, \(Double(step) / 4)) is outside sRGB")
                        for c in [rgb.x, rgb.y, rgb.z] { row.append(UInt8((Self.encode(min(max(c, 0), 1)) * 255).rounded())) }
                    }
                    let input = row
                    row.withUnsafeMutableBufferPointer { program.run($0.baseAddress!, pixels: 1440) }
                    for i in 0..<1440 {
                        let code = SIMD3(Double(input[3 * i]), Double(input[3 * i + 1]), Double(input[3 * i + 2]))
                        let hue = OKLab.lch(SIMD3(Self.decode(code.x / 255), Self.decode(code.y / 255), Self.decode(code.z / 255))).z
                        let change = (0..<3).map { abs(Int(row[3 * i + $0]) - Int(input[3 * i + $0])) }.max()!
                        // Inside the open interval (low, high), cyclic.
                        let span = (high - low + 360).truncatingRemainder(dividingBy: 360)
                        let along = (hue - low + 360).truncatingRemainder(dividingBy: 360)
                        if along > 0 && along < span {
                            if abs(along - span / 2) < span / 4 && change >= 3 { movedInside += 1 }
                        } else {
                            worstOutside = max(worstOutside, change)
                        }
                    }
                }
                #expect(worstOutside <= 1, "band \(ColorMixer.bands[k].name) (sign \(sign)) moved a hue outside \(low)…\(high) by \(worstOutside) codes")
                #expect(movedInside > 20, "band \(ColorMixer.bands[k].name) (sign \(sign)) moved only \(movedInside) colours near its centre")
            }
        }
    }

    /// Every band at an extreme, neighbours opposite: the steepest the mixer gets.
    static let extreme = ColorMixer(hue: (0..<8).map { $0 % 2 == 0 ? 30 : -30 }, saturation: (0..<8).map { $0 % 2 == 0 ? 1 : -1 },
                                    luminance: (0..<8).map { $0 % 2 == 0 ? 1 : -1 })

    @Test("greys and near-greys (C*ab under 1) come out as they went in, to 1 code, with every band at its extreme")
    func neutralsUnchanged() {
        var inputs: [SIMD3<Double>] = []
        for g in stride(from: 0, through: 255, by: 3) {
            for dr in -2...2 { for db in -2...2 {
                let c = SIMD3(Double(g + dr), Double(g), Double(g + db))
                if c.min() >= 0, c.max() <= 255, Self.chromaAB(c) < 1 { inputs.append(c) }
            } }
        }
        #expect(inputs.count > 300)
        for mixer in [Self.extreme, ColorMixer(hue: Self.extreme.hue.map(-), saturation: Self.extreme.saturation.map(-), luminance: Self.extreme.luminance.map(-))] {
            let program = PointProgram(steps: [.toLinear, .colorMixer(mixer), .toEncoded])
            var row = inputs.flatMap { [UInt8($0.x), UInt8($0.y), UInt8($0.z)] }
            let before = row
            row.withUnsafeMutableBufferPointer { program.run($0.baseAddress!, pixels: inputs.count) }
            let worst = zip(row, before).map { abs(Int($0) - Int($1)) }.max()!
            #expect(worst <= 1, "a near-grey moved \(worst) codes")
        }
    }

    @Test("no step over 1 code between neighbouring hues (0.05° apart) with every band at its extreme, three lightnesses")
    func noEdges() {
        for lightness in [0.45, 0.65, 0.85] {
            let hues = (0...7200).map { Double($0) / 20 }
            let pixels = hues.map { Self.fromLCh(lightness, 0.06, $0) }
            for mixer in [Self.extreme, ColorMixer(hue: Self.extreme.hue.map(-), saturation: Self.extreme.saturation.map(-), luminance: Self.extreme.luminance.map(-))] {
                let out = Self.run([.colorMixer(mixer)], pixels).map { p in SIMD3(Self.encode(min(max(p.x, 0), 1)), Self.encode(min(max(p.y, 0), 1)), Self.encode(min(max(p.z, 0), 1))) * 255 }
                var worst = 0.0
                for i in 1..<out.count { worst = max(worst, dist(out[i], out[i - 1])) }
                #expect(worst <= 1, "lightness \(lightness): a step of \(worst) codes between neighbouring hues")
                testNote("lightness \(lightness): largest step between hues 0.05° apart \(worst) codes")
            }
        }
    }

    @Test("grading: a grey ramp takes the shadows' tint in the shadows only, at the formula's chroma and the tint's hue")
    func gradingSplitsTones() {
        let grade = ColorGrade(zones: [ColorGrade.Tint(hue: 245, saturation: 1, luminance: 0), ColorGrade.Tint(hue: 0, saturation: 0, luminance: 0),
                                       ColorGrade.Tint(hue: 60, saturation: 0.5, luminance: 0), ColorGrade.Tint(hue: 0, saturation: 0, luminance: 0)],
                               balance: 0, blending: 0.5)
        let greys = (0...100).map { Double($0) / 100 }
        let out = Self.run([.colorGrade(grade)], greys.map { SIMD3(repeating: $0) })
        func smooth(_ e0: Double, _ e1: Double, _ v: Double) -> Double { let t = min(max((v - e0) / (e1 - e0), 0), 1); return t * t * (3 - 2 * t) }
        for (g, o) in zip(greys, out) {
            let lab = OKLab.lab(o), L = OKLab.lab(SIMD3(repeating: g)).x
            // The documented zones: pivot 0.5, fades ±0.125 about 0.25 and 0.75.
            let shadows = 1 - smooth(0.125, 0.375, L), highlights = smooth(0.625, 0.875, L)
            let a = shadows * 0.1 * cos(245 * .pi / 180) + highlights * 0.05 * cos(60 * .pi / 180)
            let b = shadows * 0.1 * sin(245 * .pi / 180) + highlights * 0.05 * sin(60 * .pi / 180)
            let k = min(1, 4 * L)
            #expect(abs(lab.y - a * k) < 2e-4 && abs(lab.z - b * k) < 2e-4, "grey \(g) (L \(L)): a, b \(lab.y), \(lab.z) against \(a * k), \(b * k)")
            #expect(abs(lab.x - L) < 2e-4, "grey \(g): lightness moved to \(lab.x) from \(L)")
        }
        #expect(dist(out[0], SIMD3(0, 0, 0)) < 1e-6, "black took a tint: \(out[0])")
    }
}

extension SplitMix64 {
    /// A double in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
