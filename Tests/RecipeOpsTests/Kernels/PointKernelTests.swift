import Glibc
import RecipeCore
import RecipeKernels
@testable import RecipeOps
import Testing

/// The point kernels the ops declare, against the formulas of ops-reference.md.
@Suite("point kernels of the ops")
struct PointKernelTests {
    /// Checked parameters: the given ones over the op's defaults.
    func params(_ op: String, _ given: [String: ParamValue]) -> ParamSet {
        var set = ParamSet()
        for p in Operations.named(op)!.params {
            if let v = given[p.name] { set.set(p.name, v, given: true) } else if let d = p.defaultValue { set.set(p.name, d, given: false) }
        }
        return set
    }

    func apply(_ op: String, _ given: [String: ParamValue], _ rgb: SIMD3<Double>) -> SIMD3<Double> {
        var p = rgb
        for step in Operations.pointSteps(op: op, params: params(op, given), canvas: CanvasSize(width: 600, height: 400)) ?? [] { p = step.reference(p) }
        return p
    }

    func close(_ a: SIMD3<Double>, _ b: SIMD3<Double>, _ tol: Double = 1e-6) -> Bool {
        abs(a.x - b.x) <= tol && abs(a.y - b.y) <= tol && abs(a.z - b.z) <= tol
    }

    let px = SIMD3<Double>(0.2, 0.5, 0.7)

    @Test("defaults are the identity for every op with a point kernel")
    func identities() {
        for op in Operations.pointKernels.keys.sorted() where !["colorize", "sepia", "grayscale", "invert"].contains(op) {
            #expect(close(apply(op, [:], px), px), "\(op) is not the identity at its defaults")
        }
        #expect(close(apply("sepia", ["amount": .number(0)], px), px))
        #expect(close(apply("grayscale", ["amount": .number(0)], px), px))
        #expect(close(apply("colorize", ["amount": .number(0)], px), px))
    }

    @Test("exposure multiplies by 2^ev; brightness adds; contrast pivots; gamma powers; invert")
    func tone() {
        #expect(close(apply("exposure", ["ev": .number(1)], px), px * 2))
        #expect(close(apply("exposure", ["ev": .number(-2)], px), px / 4))
        #expect(close(apply("brightness", ["amount": .number(0.1)], px), px + 0.1))
        #expect(close(apply("contrast", ["amount": .number(1.15)], px), (px - 0.5) * 1.15 + 0.5))
        #expect(close(apply("contrast", ["amount": .number(2), "pivot": .number(0.2)], px), (px - 0.2) * 2 + 0.2))
        #expect(close(apply("gamma", ["power": .number(2)], px), px * px))
        #expect(close(apply("invert", [:], px), 1 - px))
    }

    @Test("levels follow ImageMagick's -level with output levels; sigmoid follows -sigmoidal-contrast")
    func levelsAndSigmoid() {
        let l = apply("levels", ["black": .number(0.1), "white": .number(0.8), "gamma": .number(1.5)], px)
        #expect(abs(l.y - pow((0.5 - 0.1) / 0.7, 1 / 1.5)) < 1e-6)
        let s = apply("sigmoid", ["contrast": .number(5), "midpoint": .number(0.4)], px)
        let sig = { (x: Double) in tanh(2.5 * (x - 0.4)) }
        #expect(abs(s.y - (sig(0.5) - sig(0)) / (sig(1) - sig(0))) < 1e-6)
    }

    @Test("saturation and grayscale keep Rec.709 luminance; grayscale 1 is Y everywhere")
    func saturation() {
        let y = 0.2126 * px.x + 0.7152 * px.y + 0.0722 * px.z
        let g = apply("grayscale", [:], px)
        #expect(close(g, SIMD3(repeating: y)))
        let s = apply("saturation", ["amount": .number(1.3)], px)
        #expect(abs(0.2126 * s.x + 0.7152 * s.y + 0.0722 * s.z - y) < 1e-6)
        #expect(close(s, SIMD3(repeating: y) + (px - y) * 1.3))
    }

    @Test("sepia 1 is the W3C matrix; hue keeps greys grey and SVG's luma; matrix permutes and offsets")
    func matrices() {
        let s = apply("sepia", [:], px)
        #expect(close(s, SIMD3(0.393 * 0.2 + 0.769 * 0.5 + 0.189 * 0.7, 0.349 * 0.2 + 0.686 * 0.5 + 0.168 * 0.7, 0.272 * 0.2 + 0.534 * 0.5 + 0.131 * 0.7), 1e-6))
        let grey = SIMD3<Double>(repeating: 0.4)
        #expect(close(apply("hue", ["degrees": .angle(120)], grey), grey, 1e-6))
        // SVG's hueRotate keeps its own luma (0.213, 0.715, 0.072) for every angle, up to the
        // rounding of its published coefficients (0.143, 0.140, 0.283: about 4e-5 here).
        for degrees in [-150.0, -30, 45, 100] {
            let h = apply("hue", ["degrees": .angle(degrees)], px)
            #expect(abs((0.213 * h.x + 0.715 * h.y + 0.072 * h.z) - (0.213 * px.x + 0.715 * px.y + 0.072 * px.z)) < 1e-4)
            #expect(!close(h, px, 1e-3))
        }
        #expect(close(apply("matrix", ["m": .matrix([[0, 1, 0], [0, 0, 1], [1, 0, 0]])], px), SIMD3(px.y, px.z, px.x)))
        #expect(close(apply("matrix", ["m": .matrix([[1, 0, 0, 0.1], [0, 1, 0, 0], [0, 0, 1, -0.1]])], px), px + SIMD3(0.1, 0, -0.1)))
    }

    @Test("colorize 1 is Y times the (linear) colour")
    func colorize() {
        let y = 0.2126 * px.x + 0.7152 * px.y + 0.0722 * px.z
        let c = apply("colorize", ["color": .color(RGBColor(1, 0.5, 0))], px)
        #expect(close(c, SIMD3(y * 1, y * SRGB.decode(0.5), 0), 1e-6))
    }

    @Test("curve passes through its points, per channel when asked")
    func curve() {
        let points = ParamValue.points([CanvasPoint(0, 0.1), CanvasPoint(0.5, 0.6), CanvasPoint(1, 0.9)])
        let all = apply("curve", ["points": points], SIMD3(0, 0.5, 1))
        #expect(close(all, SIMD3(0.1, 0.6, 0.9), 1e-6))
        let red = apply("curve", ["points": points, "channel": .choice("r")], SIMD3(0, 0.5, 1))
        #expect(close(red, SIMD3(0.1, 0.5, 1), 1e-6))
    }

    @Test("which point ops have kernels, and which not yet (an explicit list, so a gap is visible)")
    func coverage() {
        let point = Operations.all.filter { $0.opClass == .point || $0.opClass == .positional }.map(\.name)
        let missing = point.filter { Operations.pointKernels[$0] == nil }
        #expect(missing.sorted() == ["lut"], "\(missing)")
    }
}

/// White balance against golden matrices from an independent numpy implementation of the same
/// formulas: `python3 Tests/Tools/white_balance_reference.py TEMP TINT [TARGET_TEMP TARGET_TINT]`.
@Suite("white-balance kernel")
struct WhiteBalanceKernelTests {
    static let cases: [([Double], [Double])] = [
        ([5200, 8, 6500, 0], [0.960218313, -0.053355938, -0.014418076, 0.002449738, 1.007920081, -0.006215167, 0.007121527, 0.026992318, 1.297821016]),
        ([3000, 0, 6500, 0], [0.789736927, -0.389967803, -0.094016992, 0.018093233, 1.139633236, -0.039086626, 0.045739948, 0.171371283, 2.967709883]),
        ([9000, -20, 6500, 0], [1.019703401, 0.001514845, 0.010366278, 0.000095722, 1.019447766, 0.005731445, -0.005731835, -0.023472692, 0.756417576]),
        ([4000, 30, 5000, 10], [0.950587529, -0.069471339, -0.028223347, 0.003032779, 1.011654135, -0.013364819, 0.014520877, 0.056696410, 1.630955337]),
    ]

    @Test("matches the numpy reference within 1e-6", arguments: 0..<cases.count)
    func golden(_ i: Int) {
        let (args, want) = Self.cases[i]
        let m = WhiteBalance.matrix(temperature: args[0], tint: args[1], targetTemperature: args[2], targetTint: args[3])
        let got = [m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]].map(Double.init)
        let worst = zip(got, want).map { abs($0 - $1) }.max()!
        #expect(worst < 1e-6, "worst \(worst)")
    }

    @Test("the defaults are the identity; greys stay grey when the target is the source")
    func identity() {
        let m = WhiteBalance.matrix(temperature: 6500, tint: 0, targetTemperature: 6500, targetTint: 0)
        #expect(zip(m, PointStep.identityMatrix).allSatisfy { abs($0 - $1) < 1e-6 })
        let x = WhiteBalance.matrix(temperature: 4321, tint: 12, targetTemperature: 4321, targetTint: 12)
        #expect(zip(x, PointStep.identityMatrix).allSatisfy { abs($0 - $1) < 1e-6 })
    }
}
