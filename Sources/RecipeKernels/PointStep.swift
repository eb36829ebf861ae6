// The step IR of a fused point pass: `PointStep`, one per-pixel step with its constants
// prepared once per render, how a step moves with its canvas (`laidOut`, `translated`), and its
// plain scalar reference in double precision (`reference`, `referenceAlike`, `signedPower`,
// `sample`, `treatChannelsAlike`) that the store tables are sampled from and the fused kernels
// are tested against. `PointProgram.swift` compiles a list of steps into a runnable program;
// `PointProgram+Execution.swift` runs it.
import RecipeCore
import CKernelsSIMD
#if canImport(Glibc)
import Glibc
#endif

/// One step of a fused per-pixel program, its constants prepared once per render.
///
/// Ops say what a pixel becomes as a list of these (STYLE.md rule 2); the planner folds and
/// fuses them; `PointProgram` runs a whole run of them in one pass over a strip.
public enum PointStep: Sendable, Hashable {
    /// sRGB-encoded → linear light (sign-symmetric, unclamped).
    case toLinear
    /// Linear light → sRGB-encoded (sign-symmetric, unclamped).
    case toEncoded
    /// out = M·rgb + bias; `m` is row-major 3×4 (the 4th column the bias).
    case matrix([Float])
    /// out = sign(v)·|v|^power on every channel.
    case power(Float)
    /// out = outBlack + (outWhite − outBlack)·max(0, (v − black)/(white − black))^inverseGamma.
    case levels(black: Float, white: Float, inverseGamma: Float, outBlack: Float, outWhite: Float)
    /// out = (tanh(a/2·(v − b)) − s0)/(s1 − s0), s0 and s1 the values at 0 and 1.
    case sigmoid(a: Float, b: Float, s0: Float, s1: Float)
    /// glfx.js vibrance: t = (max − mean)·(−3·amount); rgb = rgb + (max − rgb)·t.
    case vibrance(Float)
    /// out = min(max(v, low), high).
    case clip(low: Float, high: Float)
    /// Per-channel tables on [0, 1] (`size` samples each, channels r, g, b one after the other),
    /// interpolated linearly, extended linearly outside [0, 1] with the end slopes.
    case curves(table: [Float], size: Int)
    /// Positional: every channel times 1 − amount·smoothstep(inner, outer, d), d the distance of
    /// the pixel centre (x + ½, y + ½) from (cx, cy) in pixels, times `scale`. A gain on linear
    /// light; `encoded`: the same gain applied to encoded values (`EncodedGain`), where the planner
    /// found encoded neighbours on both sides.
    case vignette(amount: Float, inner: Float, outer: Float, cx: Float, cy: Float, scale: Float, encoded: Bool = false)
    /// Positional: every channel times p, or divided by it when `divide`, with
    /// p = 1 + terms[0]·r² + terms[1]·r⁴ + …, r the distance of the pixel centre (x + ½, y + ½)
    /// from (cx, cy) in pixels, times `scale`. A lens's vignetting on linear light: lensfun's
    /// `pa` model divides (`LensGeometry.vignettingStep`), a DNG FixVignetteRadial multiplies.
    indirect case radialGain(terms: [Float], divide: Bool, cx: Float, cy: Float, scale: Float)
    /// The colour mixer on linear light (`ColorMixer`, in OKLCh).
    indirect case colorMixer(ColorMixer)
    /// Colour grading on linear light (`ColorGrade`, in OKLab).
    indirect case colorGrade(ColorGrade)
    /// A .cube table (1D or 3D), its result mixed with the input by `amount`.
    case lut(CubeLUT, tetrahedral: Bool, amount: Float)
    /// Keeps the current values: a masked stage starts here.
    case saveInput
    /// Ends a masked stage: out = saved + (current − saved)·w, w the mask's weight (inverted
    /// when asked) times `amount`.
    case maskMix(MaskShape, invert: Bool, amount: Float)
    /// A colour conversion between profiles that is not a curve and a matrix (lcms2's, through
    /// the colour module): the photo's colours into the working space, or the working space into
    /// the output's.
    case colorTransform(PlanarColorTransform)

    /// Whether the step reads the pixel's position (a vignette, a gradient or radial mask):
    /// such steps are laid out on one canvas and cannot move across a crop or a resize.
    public var readsPosition: Bool {
        switch self {
        case .vignette, .radialGain: true
        case .maskMix(let shape, _, _): shape.readsPosition
        default: false
        }
    }

    /// The step laid out on another canvas over the same picture, `fx`×`fy` as large (pixel
    /// edges scale: a point at (x, y) here is at (x·fx, y·fy) there). Distances scale by the mean
    /// √(fx·fy): a vignette or radial mask stays round, which is exact when the two factors agree
    /// (they differ by the rounding of a canvas size, under 0.1% for a photo). Steps that read
    /// no position come back unchanged.
    public func laidOut(scaledBy fx: Double, _ fy: Double) -> PointStep {
        let f = Float((fx * fy).squareRoot()), x = Float(fx), y = Float(fy)
        switch self {
        case .vignette(let amount, let inner, let outer, let cx, let cy, let scale, let encoded):
            return .vignette(amount: amount, inner: inner, outer: outer, cx: cx * x, cy: cy * y, scale: scale / f, encoded: encoded)
        case .radialGain(let terms, let divide, let cx, let cy, let scale):
            return .radialGain(terms: terms, divide: divide, cx: cx * x, cy: cy * y, scale: scale / f)
        case .maskMix(let shape, let invert, let amount):
            return .maskMix(shape.laidOut(x, y, f), invert: invert, amount: amount)
        default:
            return self
        }
    }

    /// The step on a window of its canvas whose top-left pixel is the canvas's (`dx`, `dy`): a
    /// vignette's or mask's centre and ends move by (−dx, −dy), so each pixel of the window gets
    /// what it got on the whole canvas. Steps that read no position come back unchanged.
    public func translated(by dx: Int, _ dy: Int) -> PointStep {
        let x = Float(dx), y = Float(dy)
        switch self {
        case .vignette(let amount, let inner, let outer, let cx, let cy, let scale, let encoded):
            return .vignette(amount: amount, inner: inner, outer: outer, cx: cx - x, cy: cy - y, scale: scale, encoded: encoded)
        case .radialGain(let terms, let divide, let cx, let cy, let scale):
            return .radialGain(terms: terms, divide: divide, cx: cx - x, cy: cy - y, scale: scale)
        case .maskMix(let shape, let invert, let amount):
            return .maskMix(shape.translated(x, y), invert: invert, amount: amount)
        default:
            return self
        }
    }

    /// A whole step list in double precision for the pixel at (x, y), masks included.
    public static func reference(_ p: SIMD3<Double>, steps: [PointStep], x: Int = 0, y: Int = 0) -> SIMD3<Double> {
        var value = p
        var saved = p
        for step in steps {
            switch step {
            case .saveInput: saved = value
            case .maskMix(let shape, let invert, let amount):
                var w = Double(shape.weight(x: Float(x) + 0.5, y: Float(y) + 0.5, rgb: SIMD3<Float>(saved)))
                if invert { w = 1 - w }
                w *= Double(amount)
                value = saved + (value - saved) * w
            default: value = step.reference(value, x: x, y: y)
            }
        }
        return value
    }

    /// Whether every step treats the three channels alike (the sRGB curves, a power, levels, an
    /// equal diagonal matrix…): then a grey input gives a grey output, and one lane of a
    /// `reference` evaluation stands for all three.
    public static func treatChannelsAlike(_ steps: [PointStep]) -> Bool {
        steps.allSatisfy { step in
            switch step {
            case .toLinear, .toEncoded, .power, .levels, .sigmoid, .clip: true
            case .matrix(let m):
                m[1] == 0 && m[2] == 0 && m[4] == 0 && m[6] == 0 && m[8] == 0 && m[9] == 0
                    && m[0] == m[5] && m[5] == m[10] && m[3] == m[7] && m[7] == m[11]
            case .curves(let table, let size):
                table[..<size].elementsEqual(table[size..<(2 * size)]) && table[..<size].elementsEqual(table[(2 * size)...])
            default: false
            }
        }
    }

    /// The per-channel `steps` evaluated in double precision at `count` inputs, `input(i)` on
    /// every channel, each result handed to `visit(i, result)`. Steps that treat the channels
    /// alike run on one value an input, a chunk of inputs at a time and step by step
    /// (`referenceAlike`: a step's switch, and its `pow` closure, once a chunk instead of once a
    /// value): a store table samples 65,536 inputs, and the 5-op chain's took 3.6 ms of a
    /// render's start before a row was decoded.
    public static func sample(_ steps: [PointStep], count: Int, input: (Int) -> Double, _ visit: (Int, SIMD3<Double>) -> Void) {
        if treatChannelsAlike(steps) {
            let chunk = 4096
            withUnsafeTemporaryAllocation(of: Double.self, capacity: min(chunk, count)) { values in
                for start in stride(from: 0, to: count, by: chunk) {
                    let n = min(chunk, count - start)
                    let part = UnsafeMutableBufferPointer(rebasing: values[0..<n])
                    for i in 0..<n { part[i] = input(start + i) }
                    for step in steps { step.referenceAlike(part) }
                    for i in 0..<n { visit(start + i, SIMD3(repeating: part[i])) }
                }
            }
        } else {
            for i in 0..<count {
                let v = input(i)
                visit(i, steps.reduce(SIMD3(v, v, v)) { $1.reference($0) })
            }
        }
    }

    /// The 3×4 identity.
    public static let identityMatrix: [Float] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0]

    /// |v|^e with v's sign: the power step's reference (one function for `reference` and
    /// `referenceAlike`, so the two give the same bits).
    static func signedPower(_ v: Double, _ e: Double) -> Double { v < 0 ? -pow(-v, e) : pow(v, e) }

    /// `reference` of a step that treats the channels alike, on each of `values` (one channel's
    /// value standing for all three), in place: the same arithmetic lane by lane, so the same
    /// bits (`PointStep.sample`).
    func referenceAlike(_ values: UnsafeMutableBufferPointer<Double>) {
        @inline(__always) func each(_ f: (Double) -> Double) { for i in values.indices { values[i] = f(values[i]) } }
        switch self {
        case .toLinear: each(SRGB.decode)
        case .toEncoded: each(SRGB.encode)
        case .power(let e):
            let d = Double(e)
            each { Self.signedPower($0, d) }
        case .matrix(let m):
            // `reference`'s sum in its order, with the three channels' values the same.
            let (a, b, c, d) = (Double(m[0]), Double(m[1]), Double(m[2]), Double(m[3]))
            each { a * $0 + b * $0 + c * $0 + d }
        default: each { reference(SIMD3(repeating: $0)).x }
        }
    }

    /// The step in double precision, one pixel at a time: the reference the fused kernel is
    /// tested against. (x, y) is the pixel's position, read by positional steps only.
    public func reference(_ p: SIMD3<Double>, x: Int = 0, y: Int = 0) -> SIMD3<Double> {
        func each(_ f: (Double) -> Double) -> SIMD3<Double> { SIMD3(f(p.x), f(p.y), f(p.z)) }
        switch self {
        case .toLinear: return each(SRGB.decode)
        case .toEncoded: return each(SRGB.encode)
        case .matrix(let m):
            let d = m.map(Double.init)
            return SIMD3(d[0] * p.x + d[1] * p.y + d[2] * p.z + d[3],
                         d[4] * p.x + d[5] * p.y + d[6] * p.z + d[7],
                         d[8] * p.x + d[9] * p.y + d[10] * p.z + d[11])
        case .power(let e): return each { Self.signedPower($0, Double(e)) }
        case .levels(let b, let w, let g, let ob, let ow):
            return each { Double(ob) + Double(ow - ob) * pow(max(0, ($0 - Double(b)) / Double(w - b)), Double(g)) }
        case .sigmoid(let a, let b, let s0, let s1):
            return each { (tanh(Double(a) / 2 * ($0 - Double(b))) - Double(s0)) / Double(s1 - s0) }
        case .vibrance(let amount):
            let mx = max(p.x, p.y, p.z), mean = (p.x + p.y + p.z) / 3
            let t = (mx - mean) * (-3 * Double(amount))
            return each { $0 + (mx - $0) * t }
        case .clip(let lo, let hi): return each { min(max($0, Double(lo)), Double(hi)) }
        case .colorMixer(let mixer): return mixer.reference(p)
        case .colorGrade(let grade): return grade.reference(p)
        case .curves(let table, let size):
            return SIMD3(PointProgram.curve(p.x, table, 0, size), PointProgram.curve(p.y, table, size, size),
                         PointProgram.curve(p.z, table, 2 * size, size))
        case .lut(let table, let tetrahedral, let amount):
            return p + (table.lookup(p, tetrahedral: tetrahedral) - p) * Double(amount)
        case .saveInput, .maskMix:
            return p  // stateful: see `PointStep.reference(_:steps:x:y:)`
        case .colorTransform(let transform):
            return transform.convert(p)
        case .vignette(let amount, let inner, let outer, let cx, let cy, let scale, let encoded):
            let dx = Double(x) + 0.5 - Double(cx), dy = Double(y) + 0.5 - Double(cy)
            let d = (dx * dx + dy * dy).squareRoot() * Double(scale)
            let k = 1 - Double(amount) * PointProgram.smoothstep(Double(inner), Double(outer), d)
            return encoded ? SIMD3(EncodedGain.reference(p.x, gain: k), EncodedGain.reference(p.y, gain: k), EncodedGain.reference(p.z, gain: k)) : p * k
        case .radialGain(let terms, let divide, let cx, let cy, let scale):
            let dx = (Double(x) + 0.5 - Double(cx)) * Double(scale), dy = (Double(y) + 0.5 - Double(cy)) * Double(scale)
            let r2 = dx * dx + dy * dy
            var poly = 1.0, power = 1.0
            for t in terms { power *= r2; poly += Double(t) * power }
            return divide ? p / poly : p * poly
        }
    }
}
