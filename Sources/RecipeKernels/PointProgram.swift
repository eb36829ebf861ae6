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
        case .vignette: true
        case .maskMix(.gradient, _, _), .maskMix(.radial, _, _): true
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
        case .maskMix(.gradient(let fromX, let fromY, let toX, let toY), let invert, let amount):
            return .maskMix(.gradient(fromX: fromX * x, fromY: fromY * y, toX: toX * x, toY: toY * y), invert: invert, amount: amount)
        case .maskMix(.radial(let cx, let cy, let inner, let outer, let scale), let invert, let amount):
            return .maskMix(.radial(cx: cx * x, cy: cy * y, inner: inner, outer: outer, scale: scale / f), invert: invert, amount: amount)
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
        case .maskMix(.gradient(let fromX, let fromY, let toX, let toY), let invert, let amount):
            return .maskMix(.gradient(fromX: fromX - x, fromY: fromY - y, toX: toX - x, toY: toY - y), invert: invert, amount: amount)
        case .maskMix(.radial(let cx, let cy, let inner, let outer, let scale), let invert, let amount):
            return .maskMix(.radial(cx: cx - x, cy: cy - y, inner: inner, outer: outer, scale: scale), invert: invert, amount: amount)
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
        }
    }
}

/// A run of point steps executed in one pass over a strip: pixels are taken `tile` (256) at a
/// time as three planes that stay in L1, every step runs over them (a C kernel or a vectorised
/// loop), and they are written back. A tile is a buffer of its own between 8-bit rows, and a
/// slice of the row itself where a row of float planes is written, or read and free to
/// overwrite (`runsInRows`). No intermediate image, no per-pixel dispatch: the `switch` on the
/// step happens once a tile.
///
/// Per-channel steps at the ends cost nothing per pixel: the leading run (from the 8-bit code)
/// becomes a 256-entry load table per channel, computed exactly in double precision; the trailing
/// run (to the 8-bit code) a 65536-entry store table per channel, indexed by the value in 1/65535
/// steps. Only the steps between (matrices, vibrance) run per pixel.
///
/// ```swift
/// let program = PointProgram(steps: [.toLinear, .matrix(m), .toEncoded, .power(0.9)])
/// program.run(row, pixels: width)          // interleaved RGB UInt8, in place
/// ```
public struct PointProgram: Sendable {
    public static let tile = 256
    static let storeLevels = 65536

    /// Every step, in order (what `apply` runs on floats).
    public let steps: [PointStep]
    /// The leading per-channel steps folded into `loadTable`, and the trailing ones into `storeTable`.
    public let head: [PointStep]
    public let body: [PointStep]
    public let tail: [PointStep]
    /// code → value after `head`, per channel (3 × 256).
    let loadTable: [Float]
    /// `loadTable`'s floats as byte planes (byte k of code v's float of channel c at
    /// 1024·c + 256·k + v), for `rk_u8_load_bytes`' AVX-512 byte permutes.
    let loadBytes: [UInt8]
    /// value·65535 → 8-bit code after `tail`, per channel (3 × 65536); empty when the store is
    /// direct (`storeDirect`), which needs none.
    let storeTable: [UInt8]
    /// True when clamping to [0, 1] before the store table gives the exact code (the tail maps
    /// 0 to code 0, 1 to code 255, and never decreases); otherwise values outside [0, 1] go
    /// through the tail steps one by one.
    let storeClampSafe: Bool
    /// A clamp-safe `storeTable` as the thresholds `rk_u8_store` searches (3 ×
    /// `RK_STORE_SEARCH_WORDS`; empty otherwise, or where the CPU cannot search).
    let storeSearch: [UInt16]
    /// Nothing after the body (`tail` empty): the store quantises each value itself
    /// (`rk_u8_store_direct`, the table's codes without a lookup a sample).
    let storeDirect: Bool
    /// `head` and `tail` over float inputs (nil when empty): how a pass that reads or writes
    /// floats runs them.
    let headTables: ChannelTables.Lazy?
    let tailTables: ChannelTables.Lazy?
    /// `body` as it runs: its runs of per-channel steps that cost more than a multiply (the sRGB
    /// curves, powers, tone curves…) as tables, one lookup a sample. A colour conversion's matrix
    /// starts the body of a Display P3 photo's pass, so the recipe's conversions and tone steps
    /// after it land here rather than in the load table (the 5-op chain on a P3 photo ran two
    /// vectorised sRGB curves a sample: 2.8× the sRGB photo's time).
    let bodyRuns: [BodyRun]
    /// Whether every step of the body can run on tiles that are part of a row's planes
    /// (`runsInRows`): then a pass writing floats runs in its output row, without copies.
    let runsInRows: Bool
    /// Whether `run` on 8-bit rows takes a `PixelCache`: the pass gives each colour the same codes
    /// wherever it is (no step reads the position), its body costs more than the cache's lookup
    /// (a run of curves between matrices, a 3D LUT, an lcms2 conversion: about 1 ns a pixel more
    /// than the 8-bit ends; matrices alone cost less than a lookup in the render), and the CPU
    /// runs the lookup.
    public let cachesColours: Bool

    /// One piece of the body: a step, a matrix (its 12 floats pinned, for `ReadyRun`), or a run
    /// of per-channel steps as tables.
    enum BodyRun: Sendable {
        case step(PointStep)
        case matrix(PinnedFloats)
        case tables(ChannelTables.Lazy)
    }

    /// `body` with its costly per-channel runs as tables.
    static func bodyRuns(_ body: [PointStep]) -> [BodyRun] {
        var out: [BodyRun] = []
        var run: [PointStep] = []
        func flush() {
            if run.contains(where: isCostly) { out.append(.tables(ChannelTables.Lazy(steps: run))) } else { out += run.map(piece) }
            run = []
        }
        for step in body {
            if isPerChannel(step) { run.append(step); continue }
            flush()
            out.append(piece(step))
        }
        flush()
        return out
    }

    /// A step as a piece of the body on its own: a matrix pinned, any other step as it is.
    static func piece(_ step: PointStep) -> BodyRun {
        if case .matrix(let m) = step { .matrix(PinnedFloats(m)) } else { .step(step) }
    }

    /// Whether a fused pass of `steps` from 8-bit rows to 8-bit rows keeps a colour cache (see
    /// `cachesColours`), without building the program.
    public static func cachesColours(_ steps: [PointStep]) -> Bool {
        PixelCache.supported && !steps.contains(where: \.readsPosition) && hasDearBody(bodyRuns(split(steps).1))
    }

    /// Whether a pass over `width`×`height` 8-bit rows (`from`) to `to` rows takes a colour
    /// cache a thread: `PointStage` makes them on this answer and the memory estimate counts them.
    public func cachesColours(from: SampleType, to: SampleType, width: Int, height: Int) -> Bool {
        cachesColours && from == .uint8 && to == .uint8 && PixelCache.worthIt(width: width, height: height)
    }

    /// A body dearer than a colour cache's lookup: a run of curves, a 3D LUT, an lcms2 conversion.
    static func hasDearBody(_ runs: [BodyRun]) -> Bool {
        runs.contains { run in
            switch run {
            case .tables: true
            case .step(.lut), .step(.colorTransform): true
            case .step, .matrix: false
            }
        }
    }

    /// Per-channel steps whose arithmetic costs more than a table lookup (a diagonal matrix, a clip
    /// or a straight levels do not).
    static func isCostly(_ step: PointStep) -> Bool {
        switch step {
        case .toLinear, .toEncoded, .power, .sigmoid, .curves, .lut: true
        case .levels(_, _, let inverseGamma, _, _): inverseGamma != 1
        default: false
        }
    }

    /// The body's pieces for one row (tables fetched once, not per tile). A matrix and a table run
    /// are reached through plain pointers and an unretained reference, kept alive by the program
    /// (`bodyRuns`) while it runs: a tile takes no reference count for them. Retaining the same
    /// arrays every tile (256 pixels) on two threads made their counts' cache lines bounce: 4 ms
    /// of each pass thread's 50 ms on the P3 chain.
    enum ReadyRun {
        case step(PointStep)
        case matrix(UnsafePointer<Float>)
        case tables(Unmanaged<ChannelTables.Pinned>)
    }

    /// The float tables a fused pass looks up (its head's when it reads floats, its tail's when
    /// it writes them, its body's) that are tables rather than computed curves. Each builds on
    /// first use (`ChannelTables.Lazy.tables`); `PointStage` builds them on a thread of its own
    /// as it starts, so the build overlaps the decoder's first strip instead of following it.
    public func lazyTables(readsFloats: Bool, writesFloats: Bool) -> [ChannelTables.Lazy] {
        var lazy = bodyRuns.compactMap { if case .tables(let t) = $0 { t } else { nil } }
        if readsFloats, let headTables { lazy.append(headTables) }
        if writesFloats, let tailTables { lazy.append(tailTables) }
        return lazy.filter { ChannelTables.computed($0.steps) == nil }
    }

    func readyBody() -> [ReadyRun] {
        bodyRuns.map { piece in
            switch piece {
            case .step(let step): .step(step)
            case .matrix(let m): .matrix(UnsafePointer(m.base))
            case .tables(let lazy): .tables(Unmanaged.passUnretained(lazy.tables.pinned))
            }
        }
    }

    /// Runs the body on a tile whose planes are `stride` floats apart.
    @inline(__always)
    static func runBody(_ body: [ReadyRun], _ planes: UnsafeMutablePointer<Float>, _ n: Int, x: Int, y: Int, stride: Int = tile) {
        for piece in body {
            switch piece {
            case .step(let step): apply(step, planes, n, x: x, y: y, stride: stride)
            case .matrix(let m): rk_matrix_planes(planes, Int32(stride), Int32(n), m)
            case .tables(let tables): tables._withUnsafeGuaranteedRef { $0.apply(planes, count: n, tile: stride) }
            }
        }
    }

    /// Whether `step` runs on a tile that is part of a row's planes (`stride` apart, no spare
    /// floats after the tile's `n`): it touches only the tile's values and needs no planes
    /// beyond the three (a saved input and a mask's mix do, as does the trilinear 3D lookup,
    /// which reads whole vectors past `n`).
    static func runsInRows(_ step: PointStep) -> Bool {
        switch step {
        case .saveInput, .maskMix: false
        case .lut(let lut, let tetrahedral, _): !(lut.kind == .threeD && lut.shaper == nil && !tetrahedral)
        default: true
        }
    }

    /// The program's tables in a pass that reads and writes rows of the given kinds, before they
    /// are built (for the memory and work estimates): their bytes (the 8-bit load and store
    /// tables; the float tables of its head when it reads floats, of its tail when it writes
    /// them, and of its body; a LUT's lattice) and how many float tables the pass builds on its
    /// first row (each evaluates its steps at 104,000 points in double precision: milliseconds,
    /// whatever the photo's size), and what a float table's build takes and frees, whose pages
    /// the heap of the thread that runs the pass keeps (`firstRow`,
    /// `ChannelTables.buildTransientBytes`).
    public func tables(readsFloats: Bool, writesFloats: Bool) -> (bytes: Int, builds: Int, firstRow: Int) {
        let lazy = lazyTables(readsFloats: readsFloats, writesFloats: writesFloats)  // computed curves not tabulated
        var bytes = 4 * loadTable.count + loadBytes.count + storeTable.count + lazy.reduce(0) { $0 + ChannelTables.bytes(for: $1.steps) }
        for step in steps {
            if case .lut(let lut, _, _) = step { bytes += 4 * (lut.table.count + (lut.shaper?.table.count ?? 0)) }
        }
        return (bytes, lazy.count, lazy.isEmpty ? 0 : ChannelTables.buildTransientBytes)
    }

    /// `tables: false` skips building the load and store tables (about 200,000 evaluations of the
    /// tail steps): for programs only ever `apply`d to floats, as the unfused plan's are.
    /// `storeTable: false` builds only the load table, for a program that writes floats.
    public init(steps: [PointStep], tables: Bool = true, storeTable: Bool = true) {
        self.steps = steps
        let (head, body, tail) = Self.split(steps)
        self.head = head
        self.body = body
        self.tail = tail
        headTables = head.isEmpty ? nil : ChannelTables.Lazy(steps: head)
        tailTables = tail.isEmpty ? nil : ChannelTables.Lazy(steps: tail)
        bodyRuns = tables ? Self.bodyRuns(body) : body.map { .step($0) }
        runsInRows = body.allSatisfy(Self.runsInRows)
        cachesColours = tables && PixelCache.supported && !steps.contains(where: \.readsPosition) && Self.hasDearBody(bodyRuns)
        storeDirect = tail.isEmpty
        guard tables else {
            loadTable = []
            loadBytes = []
            self.storeTable = []
            storeClampSafe = false
            storeSearch = []
            return
        }
        var load = [Float](repeating: 0, count: 3 * 256)
        PointStep.sample(head, count: 256, input: { Double($0) / 255 }) { code, out in
            load[code] = Float(out.x)
            load[256 + code] = Float(out.y)
            load[512 + code] = Float(out.z)
        }
        loadTable = load
        loadBytes = Self.bytePlanes(load)
        guard storeTable, !storeDirect else {
            self.storeTable = []
            storeClampSafe = false
            storeSearch = []
            return
        }
        let levels = Self.storeLevels
        let store = Self.storeTable(tail)
        // A table built by search never decreases (`storeTable`); another is checked.
        let monotone = tail.allSatisfy(Self.isNonDecreasing)
            || (0..<3).allSatisfy { c in (1..<levels).allSatisfy { store[c * levels + $0] >= store[c * levels + $0 - 1] } }
        self.storeTable = store
        storeClampSafe = monotone && (0..<3).allSatisfy { store[$0 * levels] == 0 && store[$0 * levels + levels - 1] == 255 }
        if storeClampSafe, rk_u8_store_search_supported() != 0 {
            var search = [UInt16](repeating: 0, count: 3 * Int(RK_STORE_SEARCH_WORDS))
            rk_u8_store_search_table(store, Int32(levels), &search)
            storeSearch = search
        } else {
            storeSearch = []
        }
    }

    /// The store table of `tail`: per channel, the code of the value at each of `storeLevels`
    /// indices (index i stands for i / 65535), `tail` evaluated in double precision.
    ///
    /// Where every step of `tail` never decreases a value (`isNonDecreasing`: the chain's
    /// → encoded and power, most passes' tails), neither do the codes, so a channel's table is
    /// fixed by the first index of each code: a binary search finds each, 16 evaluations a code
    /// instead of one an index (4,000 against 65,536; 2.5 ms of pow before a render's first
    /// pixel). `exhaustive` evaluates every index, as other tails are (the test compares the two).
    static func storeTable(_ tail: [PointStep], exhaustive: Bool = false) -> [UInt8] {
        let levels = storeLevels
        var store = [UInt8](repeating: 0, count: 3 * levels)
        func input(_ i: Int) -> Double { Double(i) / Double(levels - 1) }
        guard !exhaustive, tail.allSatisfy(isNonDecreasing) else {
            PointStep.sample(tail, count: levels, input: input) { i, out in
                for c in 0..<3 { store[c * levels + i] = SampleConversion.quantize8(Float(c == 0 ? out.x : c == 1 ? out.y : out.z)) }
            }
            return store
        }
        // `reference` gives the bits `sample` does (its alike path runs the same arithmetic).
        let channels = PointStep.treatChannelsAlike(tail) ? 1 : 3
        for c in 0..<channels {
            func code(_ i: Int) -> UInt8 {
                let v = input(i)
                return SampleConversion.quantize8(Float(tail.reduce(SIMD3(v, v, v)) { $1.reference($0) }[c]))
            }
            let last = code(levels - 1)
            var from = 0, current = code(0)  // the first index of the current code, and the code
            while current < last {
                // The first index past `from` whose code is above `current`: code(lo) ≤ current < code(hi).
                var (lo, hi) = (from, levels - 1)
                while hi - lo > 1 {
                    let mid = (lo + hi) / 2
                    if code(mid) > current { hi = mid } else { lo = mid }
                }
                for i in from..<hi { store[c * levels + i] = current }
                (from, current) = (hi, code(hi))
            }
            for i in from..<levels { store[c * levels + i] = current }
        }
        if channels == 1 {
            store.withUnsafeMutableBufferPointer { s in
                (s.baseAddress! + levels).update(from: s.baseAddress!, count: levels)
                (s.baseAddress! + 2 * levels).update(from: s.baseAddress!, count: levels)
            }
        }
        return store
    }

    /// Whether `step` never makes a value smaller by making its input larger (each channel on its
    /// own): the sRGB curves, a power with a positive exponent, a clip, a diagonal matrix whose
    /// gains are not negative. Other steps may (a tone curve, a LUT), or are not checked here.
    static func isNonDecreasing(_ step: PointStep) -> Bool {
        switch step {
        case .toLinear, .toEncoded, .clip: true
        case .power(let e): e > 0
        case .matrix(let m): isPerChannel(step) && m[0] >= 0 && m[5] >= 0 && m[10] >= 0
        default: false
        }
    }

    /// A load table's floats split into planes of their bytes, channel by channel (`loadBytes`).
    public static func bytePlanes(_ table: [Float]) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 4 * table.count)
        for c in 0..<(table.count / 256) {
            for v in 0..<256 {
                let bits = table[256 * c + v].bitPattern
                for k in 0..<4 { bytes[1024 * c + 256 * k + v] = UInt8(truncatingIfNeeded: bits >> (8 * UInt32(k))) }
            }
        }
        return bytes
    }

    /// The program laid out on a canvas `fx`×`fy` as large (`PointStep.laidOut`). Steps that read
    /// a position are never per-channel, so they sit in `body` and the tables stay as they are:
    /// nothing is rebuilt.
    public func laidOut(scaledBy fx: Double, _ fy: Double) -> PointProgram {
        guard body.contains(where: \.readsPosition) else { return self }
        return PointProgram(laidOut: self, body: body.map { $0.laidOut(scaledBy: fx, fy) })
    }

    /// The program on a window of its canvas whose top-left pixel is the canvas's (`dx`, `dy`)
    /// (`PointStep.translated`); the tables stay as they are.
    public func translated(by dx: Int, _ dy: Int) -> PointProgram {
        guard body.contains(where: \.readsPosition) else { return self }
        return PointProgram(laidOut: self, body: body.map { $0.translated(by: dx, dy) })
    }

    /// `program` with `body` in place of its own, the tables shared.
    private init(laidOut program: PointProgram, body: [PointStep]) {
        steps = program.head + body + program.tail
        head = program.head
        self.body = body
        tail = program.tail
        loadTable = program.loadTable
        loadBytes = program.loadBytes
        storeTable = program.storeTable
        storeClampSafe = program.storeClampSafe
        storeSearch = program.storeSearch
        storeDirect = program.storeDirect
        headTables = program.headTables
        tailTables = program.tailTables
        runsInRows = program.runsInRows
        cachesColours = program.cachesColours
        // Positional steps are never per-channel: the tables stay, the steps are laid out.
        var next = body.makeIterator()
        bodyRuns = program.bodyRuns.map { piece in
            switch piece {
            case .step: return .step(next.next()!)
            case .matrix(let m):
                _ = next.next()
                return .matrix(m)
            case .tables(let t):
                for _ in t.steps { _ = next.next() }
                return .tables(t)
            }
        }
    }

    /// Whether every step treats each channel on its own (then `ChannelTables` can run them all).
    public var isPerChannelOnly: Bool { !steps.isEmpty && body.isEmpty && tail.isEmpty }

    /// Steps that treat each channel on its own (so a table per channel can stand for them).
    public static func isPerChannel(_ step: PointStep) -> Bool {
        switch step {
        case .toLinear, .toEncoded, .power, .levels, .sigmoid, .clip, .curves: return true
        case .matrix(let m): return m[1] == 0 && m[2] == 0 && m[4] == 0 && m[6] == 0 && m[8] == 0 && m[9] == 0
        case .vibrance, .vignette, .saveInput, .maskMix, .colorTransform: return false
        case .lut(let table, _, _): return table.kind == .oneD
        }
    }

    /// The leading per-channel run, the rest, and the trailing per-channel run.
    public static func split(_ steps: [PointStep]) -> ([PointStep], [PointStep], [PointStep]) {
        let h = steps.firstIndex { !isPerChannel($0) } ?? steps.count
        let rest = steps[h...]
        let t = rest.lastIndex { !isPerChannel($0) }.map { $0 + 1 } ?? h
        return (Array(steps[..<h]), Array(steps[h..<t]), Array(steps[t...]))
    }


    /// Runs the program on the `pixels` RGB pixels of image row `y` (a whole row: float rows are
    /// planar, their planes `pixels` apart), read from `input` as `from` samples and written to
    /// `output` as `to` samples (8-bit, 16-bit or float; the two may be the same row when the
    /// sample types agree). 8-bit ends go through the load and store tables; 16-bit and float ends
    /// run the head and tail steps per pixel, and float outputs keep every value as it is
    /// (extended range, no clamping: only encoders quantise). A float or 16-bit end runs its
    /// per-channel steps through `ChannelTables`.
    ///
    /// `scratchInput`: a float input row is the caller's to overwrite (a stage's own scratch row
    /// or strip), so the pass may run in its planes on the way to integer output. `cache`: the
    /// calling thread's colour cache, for 8-bit rows to 8-bit rows.
    public func run(_ input: UnsafeRawPointer, from: SampleType, into output: UnsafeMutableRawPointer, to: SampleType,
                    pixels: Int, y: Int = 0, scratchInput: Bool = false, cache: PixelCache? = nil) {
        if from == .uint8 && to == .uint8 {
            run(output.assumingMemoryBound(to: UInt8.self), pixels: pixels, y: y, input: input.assumingMemoryBound(to: UInt8.self),
                cache: cache)
            return
        }
        precondition(from != .uint8 || !loadTable.isEmpty, "PointProgram built without tables cannot read 8-bit rows")
        precondition(to != .uint8 || storeDirect || !storeTable.isEmpty, "PointProgram built without tables cannot write 8-bit rows")
        // Tiles that are slices of a row's own planes (`runsInRows`): of a float output row, which
        // the input is loaded straight into (or is already: a pass inside a neighbourhood stage's
        // emit, run in place), nothing copied out; or of a float input row the caller lets the
        // pass overwrite, nothing copied in.
        let floats = output.assumingMemoryBound(to: Float.self)
        let inOutput = to == .float32 && runsInRows && (from != .float32 || input == UnsafeRawPointer(output))
        let inInput = !inOutput && from == .float32 && scratchInput && runsInRows
        let inRow = inOutput || inInput
        let rowPlanes = inOutput ? floats : UnsafeMutablePointer(mutating: input.assumingMemoryBound(to: Float.self))
        withTileBuffer { buffer in
            let stride = inRow ? pixels : Self.tile
            let headReady = from != .uint8 ? headTables?.tables : nil
            let tailReady = to != .uint8 ? tailTables?.tables : nil
            let body = readyBody()
            var start = 0
            while start < pixels {
                let n = min(Self.tile, pixels - start)
                let planes = inRow ? rowPlanes + start : buffer
                let r = planes, g = planes + stride, b = planes + 2 * stride
                switch from {
                case .uint8:
                    let px = input.assumingMemoryBound(to: UInt8.self) + 3 * start
                    loadTable.withUnsafeBufferPointer { table in
                        loadBytes.withUnsafeBufferPointer { rk_u8_load_bytes(px, $0.baseAddress!, table.baseAddress!, planes, Int32(stride), Int32(n)) }
                    }
                case .uint16:
                    let px = input.assumingMemoryBound(to: UInt16.self) + 3 * start
                    let k: Float = 1 / 65535
                    for i in 0..<n {
                        r[i] = Float(px[3 * i]) * k
                        g[i] = Float(px[3 * i + 1]) * k
                        b[i] = Float(px[3 * i + 2]) * k
                    }
                case .float32:
                    if !inRow { rk_copy_planes(input.assumingMemoryBound(to: Float.self) + start, pixels, planes, Self.tile, Int32(n)) }
                }
                headReady?.apply(planes, count: n, tile: stride)
                Self.runBody(body, planes, n, x: start, y: y, stride: stride)
                tailReady?.apply(planes, count: n, tile: stride)
                switch to {
                case .uint8:
                    withStoreTables { store($0, $1, planes, n, output.assumingMemoryBound(to: UInt8.self) + 3 * start, stride: stride) }
                case .uint16:
                    let px = output.assumingMemoryBound(to: UInt16.self) + 3 * start
                    for i in 0..<n {
                        px[3 * i] = SampleConversion.quantize16(r[i])
                        px[3 * i + 1] = SampleConversion.quantize16(g[i])
                        px[3 * i + 2] = SampleConversion.quantize16(b[i])
                    }
                case .float32:
                    if !inOutput { rk_copy_planes(planes, stride, floats + start, pixels, Int32(n)) }
                }
                start += n
            }
        }
    }

    /// Runs the program on `pixels` interleaved RGB 8-bit pixels of image row `y`, in place
    /// (or from `input` when given). With a `cache` (the calling thread's, used where
    /// `cachesColours`), the row's colours found there take their codes from it and the steps
    /// run on the others alone: the same bytes.
    public func run(_ row: UnsafeMutablePointer<UInt8>, pixels: Int, y: Int = 0, input: UnsafePointer<UInt8>? = nil,
                    cache: PixelCache? = nil) {
        precondition(!loadTable.isEmpty, "PointProgram built without tables cannot run on 8-bit rows")
        let body = readyBody()
        let cache = cachesColours ? cache : nil
        withTileBuffer { planes in
            loadTable.withUnsafeBufferPointer { load in
                loadBytes.withUnsafeBufferPointer { bytes in
                    withStoreTables { store, search in
                        // `count` pixels from `source` through load, body and store into `output`,
                        // a tile at a time; pixel k at column x + k.
                        func pass(_ source: UnsafePointer<UInt8>, _ output: UnsafeMutablePointer<UInt8>, _ count: Int, x: Int) {
                            var start = 0
                            while start < count {
                                let n = min(Self.tile, count - start)
                                rk_u8_load_bytes(source + 3 * start, bytes.baseAddress!, load.baseAddress!, planes, Int32(Self.tile), Int32(n))
                                Self.runBody(body, planes, n, x: x + start, y: y)
                                self.store(store, search, planes, n, output + 3 * start)
                                start += n
                            }
                        }
                        let source = UnsafePointer(input ?? UnsafePointer(row))
                        guard let cache, pixels <= PixelCache.widest, cache.looksUp(pixels) else {
                            pass(source, row, pixels, x: 0)
                            return
                        }
                        if !cache.prefilled {
                            // Every entry starts valid: the codes of the colours the entries are
                            // for, rendered here (65,536 pixels; no step reads the position).
                            let count = 1 << Int(RK_CACHE_BITS)
                            let colours = UnsafeMutablePointer<UInt8>.allocate(capacity: 6 * count), codes = colours + 3 * count
                            defer { colours.deallocate() }
                            rk_u8_cache_prefill_colours(colours)
                            pass(colours, codes, count, x: 0)
                            rk_u8_cache_prefill(cache.entries, codes)
                            cache.prefilled = true
                        }
                        // The row looked up, then its misses run through the steps packed into
                        // full tiles (the kernels' fast paths), then filed.
                        cache.reserve(pixels)
                        let misses = Int(rk_u8_cache_lookup(source, Int32(pixels), cache.entries, row, cache.missPixels, cache.missIndices))
                        cache.record(pixels, missed: misses)
                        pass(cache.missPixels, cache.missOutput, misses, x: 0)
                        rk_u8_cache_fill(cache.missPixels, cache.missOutput, cache.missIndices, Int32(misses), cache.entries, row)
                    }
                }
            }
        }
    }

    /// A tile buffer of six planes (the three a pass works in, the three a saved input takes)
    /// for `body`, on the stack. Zeroed only for a program whose steps read past a tile's `n`
    /// (the trilinear 3D lookup's whole vectors, a saved input's whole planes: the programs that
    /// do not run in rows); every other step reads and writes the tile's values alone, so a row
    /// no longer pays 6 KiB of zeroes and a heap allocation.
    @inline(__always)
    func withTileBuffer<R>(_ body: (UnsafeMutablePointer<Float>) -> R) -> R {
        withUnsafeTemporaryAllocation(of: Float.self, capacity: 6 * Self.tile) { buffer in
            if !runsInRows { buffer.initialize(repeating: 0) }
            return body(buffer.baseAddress!)
        }
    }

    /// The store table and its search thresholds (nil when empty) for `store`.
    @inline(__always)
    func withStoreTables<R>(_ body: (UnsafePointer<UInt8>?, UnsafePointer<UInt16>?) -> R) -> R {
        storeTable.withUnsafeBufferPointer { table in
            storeSearch.withUnsafeBufferPointer { search in
                body(table.isEmpty ? nil : table.baseAddress, search.isEmpty ? nil : search.baseAddress)
            }
        }
    }

    @inline(__always)
    func store(_ table: UnsafePointer<UInt8>?, _ search: UnsafePointer<UInt16>?, _ planes: UnsafeMutablePointer<Float>, _ n: Int,
               _ px: UnsafeMutablePointer<UInt8>, stride: Int = tile) {
        if storeDirect {
            rk_u8_store_direct(planes, Int32(stride), Int32(n), px)
            return
        }
        let table = table!
        if storeClampSafe {
            // Clamp, scale, round to the nearest index, look up (or search), interleave: in C
            // (see rk_u8_store).
            rk_u8_store(planes, Int32(stride), Int32(n), table, Int32(Self.storeLevels), search, px)
            return
        }
        let top = Float(Self.storeLevels - 1)
        for c in 0..<3 {
            let plane = planes + c * stride
            let t = table + c * Self.storeLevels
            for i in 0..<n {
                let v = plane[i]
                if v >= 0 && v <= 1 {
                    px[3 * i + c] = t[Int(v * top + 0.5)]
                } else {
                    // Outside [0, 1] with a tail that does not clamp cleanly: the steps themselves.
                    var p = SIMD3<Double>(repeating: Double(v))
                    for step in tail { p = step.reference(p) }
                    px[3 * i + c] = SampleConversion.quantize8(Float(p.x))
                }
            }
        }
    }

    /// Runs every step on planar float channels, in place (no tables: the float path the tests
    /// and the unfused plan use).
    public func apply(r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>, count: Int,
                      width: Int = .max, firstRow: Int = 0) {
        let planes = UnsafeMutablePointer<Float>.allocate(capacity: 6 * Self.tile)
        planes.initialize(repeating: 0, count: 6 * Self.tile)
        defer { planes.deallocate() }
        var start = 0
        while start < count {
            // Tiles never cross a row, so positional steps see one y per tile.
            let column = width == .max ? start : start % width
            let n = min(Self.tile, count - start, width == .max ? .max : width - column)
            (planes).update(from: r + start, count: n)
            (planes + Self.tile).update(from: g + start, count: n)
            (planes + 2 * Self.tile).update(from: b + start, count: n)
            for step in steps { Self.apply(step, planes, n, x: column, y: width == .max ? firstRow : firstRow + start / width) }
            (r + start).update(from: planes, count: n)
            (g + start).update(from: planes + Self.tile, count: n)
            (b + start).update(from: planes + 2 * Self.tile, count: n)
            start += n
        }
    }

    /// `step` on a tile of `n` pixels whose planes are `stride` floats apart (a tile buffer's
    /// `tile`, or a row's width when the tile is part of the row: `runsInRows`).
    @inline(__always)
    static func apply(_ step: PointStep, _ planes: UnsafeMutablePointer<Float>, _ n: Int, x: Int, y: Int, stride: Int = tile) {
        let r = planes, g = planes + stride, b = planes + 2 * stride
        switch step {
        case .toLinear:
            vectors(planes, n, stride) { FastMath.srgbToLinear($0) }
        case .toEncoded:
            vectors(planes, n, stride) { FastMath.linearToSRGB($0) }
        case .matrix(let m):
            m.withUnsafeBufferPointer { rk_matrix_planes(planes, Int32(stride), Int32(n), $0.baseAddress!) }
        case .power(let e):
            vectors(planes, n, stride) { FastMath.pow($0, e) }
        case .levels(let black, let white, let gamma, let outBlack, let outWhite):
            let scale = 1 / (white - black), range = outWhite - outBlack
            if gamma == 1 {
                for c in 0..<3 { let p = planes + c * stride; for i in 0..<n { p[i] = outBlack + range * max(0, (p[i] - black) * scale) } }
            } else {
                vectors(planes, n, stride) { v in
                    var x = (v - black) * scale
                    x = x.replacing(with: 0, where: x .< 0)
                    return range * FastMath.pow(x, gamma) + outBlack
                }
            }
        case .sigmoid(let a, let mid, let s0, let s1):
            let k = 1 / (s1 - s0), half = a / 2
            vectors(planes, n, stride) { (FastMath.tanh(half * ($0 - mid)) - s0) * k }
        case .vibrance(let amount):
            // In C (`rk_vibrance`, the Swift loop's operations eight lanes at a time: the compiler
            // left the Swift loop scalar).
            rk_vibrance(r, g, b, Int32(n), amount)
        case .clip(let lo, let hi):
            for c in 0..<3 { let p = planes + c * stride; for i in 0..<n { p[i] = min(max(p[i], lo), hi) } }
        case .vignette(let amount, let inner, let outer, let cx, let cy, let scale, let encoded):
            // The gains of the tile's pixels (`rk_vignette_gains`), then on linear light a product,
            // on encoded values `EncodedGain`.
            let dy = (Float(y) + 0.5 - cy)
            withUnsafeTemporaryAllocation(of: Float.self, capacity: tile) { buffer in
                let gains = buffer.baseAddress!
                rk_vignette_gains(gains, Int32(n), Int32(x), dy * dy, cx, scale, inner, outer, amount)
                if encoded {
                    EncodedGain.apply(r, g, b, gains: gains, count: n)
                } else {
                    rk_scale_planes(r, g, b, gains, Int32(n))
                }
            }
        case .saveInput:
            (planes + 3 * tile).update(from: planes, count: 3 * tile)
        case .maskMix(let shape, let invert, let amount):
            let sr = planes + 3 * tile, sg = planes + 4 * tile, sb = planes + 5 * tile
            withUnsafeTemporaryAllocation(of: Float.self, capacity: tile) { weights in
                let wp = weights.baseAddress!
                shape.weights(x0: x, y: Float(y) + 0.5, r: sr, g: sg, b: sb, count: n, into: wp)
                for i in 0..<n {
                    var w = wp[i]
                    if invert { w = 1 - w }
                    w *= amount
                    r[i] = sr[i] + (r[i] - sr[i]) * w
                    g[i] = sg[i] + (g[i] - sg[i]) * w
                    b[i] = sb[i] + (b[i] - sb[i]) * w
                }
            }
        case .lut(let lut, let tetrahedral, let amount):
            lut.table.withUnsafeBufferPointer { t in
                if lut.kind == .threeD && lut.shaper == nil {
                    lookup3D(lut, t.baseAddress!, planes, n, tetrahedral, amount, stride: stride)
                    return
                }
                for i in 0..<n {
                    let p = SIMD3<Float>(r[i], g[i], b[i])
                    let out = lookup(lut, t.baseAddress!, p, tetrahedral)
                    let mixed = p + (out - p) * amount
                    r[i] = mixed.x
                    g[i] = mixed.y
                    b[i] = mixed.z
                }
            }
        case .colorTransform(let transform):
            transform.apply(r, g, b, n)
        case .curves(let table, let size):
            table.withUnsafeBufferPointer { tb in
                for c in 0..<3 {
                    let p = planes + c * stride
                    let base = tb.baseAddress! + c * size
                    for i in 0..<n { p[i] = curve(p[i], base, size) }
                }
            }
        }
    }

    /// Applies `f` to the three planes (`stride` floats apart) eight values at a time; the last
    /// few values through a padded vector, so nothing past `n` is read or written (a tile may
    /// be part of a row). `f` works lane by lane: the padding changes no value.
    @inline(__always)
    static func vectors(_ planes: UnsafeMutablePointer<Float>, _ n: Int, _ stride: Int, _ f: (FastMath.V) -> FastMath.V) {
        let raw = UnsafeMutableRawPointer(planes)
        let whole = n / 8, rest = n % 8
        for c in 0..<3 {
            for k in 0..<whole {
                let offset = (c * stride + 8 * k) * MemoryLayout<Float>.stride
                raw.storeBytes(of: f(raw.loadUnaligned(fromByteOffset: offset, as: FastMath.V.self)), toByteOffset: offset, as: FastMath.V.self)
            }
            if rest > 0 {
                let p = planes + c * stride + 8 * whole
                var v = FastMath.V(repeating: 0)
                for i in 0..<rest { v[i] = p[i] }
                v = f(v)
                for i in 0..<rest { p[i] = v[i] }
            }
        }
    }

    /// The float twin of `CubeLUT.lookup` for the kernel (same cell choice and weights).
    @inline(__always)
    static func lookup(_ lut: CubeLUT, _ t: UnsafePointer<Float>, _ p: SIMD3<Float>, _ tetrahedral: Bool) -> SIMD3<Float> {
        var p = p
        if let s = lut.shaper {
            let sTop = Float(s.size - 1)
            for c in 0..<3 {
                let v = (p[c] - s.domainMin) / (s.domainMax - s.domainMin) * sTop
                let x = v > 0 ? min(v, sTop) : 0  // NaN to 0 too: Int(NaN) would trap
                let i = min(Int(x), s.size - 2), f = x - Float(i)
                p[c] = s.table[3 * i + c] * (1 - f) + s.table[3 * (i + 1) + c] * f
            }
        }
        let n = lut.size, top = Float(n - 1)
        var q = (p - lut.domainMin) / (lut.domainMax - lut.domainMin) * top
        q = q.replacing(with: 0, where: .!(q .> 0))
        q = q.replacing(with: top, where: q .> top)
        if lut.kind == .oneD {
            var out = SIMD3<Float>()
            for c in 0..<3 {
                let i = min(Int(q[c]), n - 2), f = q[c] - Float(i)
                out[c] = t[3 * i + c] * (1 - f) + t[3 * (i + 1) + c] * f
            }
            return out
        }
        let i = min(Int(q.x), n - 2), j = min(Int(q.y), n - 2), k = min(Int(q.z), n - 2)
        return interpolate(t, base: i + n * j + n * n * k, q.x - Float(i), q.y - Float(j), q.z - Float(k), size: n, tetrahedral)
    }

    /// The 3D table's value in the cell whose low corner is entry `base`, at fractions (fr, fg, fb)
    /// along r, g, b: tetrahedral (the tetrahedron the fractions' order picks, FilmLight TN-0057)
    /// or trilinear.
    @inline(__always)
    static func interpolate(_ t: UnsafePointer<Float>, base: Int, _ fr: Float, _ fg: Float, _ fb: Float, size n: Int,
                            _ tetrahedral: Bool) -> SIMD3<Float> {
        @inline(__always) func entry(_ i: Int) -> SIMD3<Float> { SIMD3(t[3 * i], t[3 * i + 1], t[3 * i + 2]) }
        let dr = 1, dg = n, db = n * n
        if !tetrahedral {
            let c00 = entry(base) * (1 - fr) + entry(base + dr) * fr, c10 = entry(base + dg) * (1 - fr) + entry(base + dr + dg) * fr
            let c01 = entry(base + db) * (1 - fr) + entry(base + dr + db) * fr, c11 = entry(base + dg + db) * (1 - fr) + entry(base + dr + dg + db) * fr
            return (c00 * (1 - fg) + c10 * fg) * (1 - fb) + (c01 * (1 - fg) + c11 * fg) * fb
        }
        let c000 = entry(base), c111 = entry(base + dr + dg + db)
        if fr > fg {
            if fg > fb { return c000 * (1 - fr) + entry(base + dr) * (fr - fg) + entry(base + dr + dg) * (fg - fb) + c111 * fb }
            if fr > fb { return c000 * (1 - fr) + entry(base + dr) * (fr - fb) + entry(base + dr + db) * (fb - fg) + c111 * fg }
            return c000 * (1 - fb) + entry(base + db) * (fb - fr) + entry(base + dr + db) * (fr - fg) + c111 * fg
        }
        if fb > fg { return c000 * (1 - fb) + entry(base + db) * (fb - fg) + entry(base + dg + db) * (fg - fr) + c111 * fr }
        if fb > fr { return c000 * (1 - fg) + entry(base + dg) * (fg - fb) + entry(base + dg + db) * (fb - fr) + c111 * fr }
        return c000 * (1 - fg) + entry(base + dg) * (fg - fr) + entry(base + dr + dg) * (fr - fb) + c111 * fb
    }

    /// `lookup` for a 3D table without a shaper over a tile, eight pixels at a time for the cell
    /// coordinates (scale, clamp, integer part, fraction), then pixel by pixel for the corners
    /// (same cell choice and weights, so the same values to within a float rounding).
    @inline(__always)
    static func lookup3D(_ lut: CubeLUT, _ t: UnsafePointer<Float>, _ planes: UnsafeMutablePointer<Float>, _ n: Int,
                         _ tetrahedral: Bool, _ amount: Float, stride: Int = tile) {
        typealias V = SIMD8<Float>
        let size = lut.size, top = Float(size - 1)
        let scale = top / (lut.domainMax - lut.domainMin)
        if tetrahedral {
            // In C: the corners as vectors (see rk_lut3d_tetrahedral), the same values.
            var ends = (lut.domainMin.x, lut.domainMin.y, lut.domainMin.z, scale.x, scale.y, scale.z)
            withUnsafeBytes(of: &ends) { e in
                let f = e.bindMemory(to: Float.self).baseAddress!
                rk_lut3d_tetrahedral(t, Int32(size), planes, Int32(stride), Int32(n), f, f + 3, amount)
            }
            return
        }
        let (s0, s1, s2) = (V(repeating: scale.x), V(repeating: scale.y), V(repeating: scale.z))
        let (m0, m1, m2) = (V(repeating: lut.domainMin.x), V(repeating: lut.domainMin.y), V(repeating: lut.domainMin.z))
        let last = V(repeating: Float(size - 2))
        @inline(__always) func cell(_ v: V, _ min: V, _ scale: V) -> (SIMD8<UInt32>, V) {
            // Clamped to [0, top] with NaN to 0, as `lookup`'s comparisons do; the cell's low
            // corner is at most size − 2, so the top end has fraction 1 in the last cell.
            let q = FastMath.clamp((v - min) * scale, upTo: top)
            let (low, index) = SRGB.floor22(q.replacing(with: last, where: q .> last))
            return (index, q - low)
        }
        assert(stride == tile, "the trilinear lookup reads whole vectors past n: tile buffers only (runsInRows)")
        let r = planes, g = planes + tile, b = planes + 2 * tile
        let raw = UnsafeMutableRawPointer(planes)
        let dg = size, db = size * size
        var k = 0
        while k < n {
            let x = raw.loadUnaligned(fromByteOffset: 4 * k, as: V.self)
            let y = raw.loadUnaligned(fromByteOffset: 4 * (tile + k), as: V.self)
            let z = raw.loadUnaligned(fromByteOffset: 4 * (2 * tile + k), as: V.self)
            let (ir, fr8) = cell(x, m0, s0), (ig, fg8) = cell(y, m1, s1), (ib, fb8) = cell(z, m2, s2)
            let base8 = ir &+ ig &* UInt32(dg) &+ ib &* UInt32(db)
            for j in 0..<Swift.min(8, n - k) {
                let out = interpolate(t, base: Int(base8[j]), fr8[j], fg8[j], fb8[j], size: size, tetrahedral)
                let i = k + j
                r[i] += (out.x - r[i]) * amount
                g[i] += (out.y - g[i]) * amount
                b[i] += (out.z - b[i]) * amount
            }
            k += 8
        }
    }

    /// smoothstep(e0, e1, x): 0 below e0, 1 above e1, 3t² − 2t³ between; a step when e0 = e1.
    static func smoothstep(_ e0: Double, _ e1: Double, _ x: Double) -> Double {
        guard e1 > e0 else { return x >= e1 ? 1 : 0 }
        let t = min(max((x - e0) / (e1 - e0), 0), 1)
        return t * t * (3 - 2 * t)
    }

    /// One channel's curve: table on [0, 1], linear extension with the end slopes.
    @inline(__always)
    static func curve(_ v: Float, _ t: UnsafePointer<Float>, _ size: Int) -> Float {
        let last = size - 1
        let x = v * Float(last)
        if x.isNaN { return x }  // Int(NaN) would trap
        if x <= 0 { return t[0] + x * (t[1] - t[0]) }
        if x >= Float(last) { return t[last] + (x - Float(last)) * (t[last] - t[last - 1]) }
        let i = Int(x)
        return t[i] + (x - Float(i)) * (t[i + 1] - t[i])
    }

    /// The double-precision reference of `curve` (same table, same interpolation).
    static func curve(_ v: Double, _ table: [Float], _ offset: Int, _ size: Int) -> Double {
        // Indexed in place: the load and store tables call this 65,536 times per channel.
        func t(_ i: Int) -> Double { Double(table[offset + i]) }
        let last = size - 1
        let x = v * Double(last)
        if x.isNaN { return x }  // Int(NaN) would trap
        if x <= 0 { return t(0) + x * (t(1) - t(0)) }
        if x >= Double(last) { return t(last) + (x - Double(last)) * (t(last) - t(last - 1)) }
        let i = Int(x)
        return t(i) + (x - Double(i)) * (t(i + 1) - t(i))
    }
}
