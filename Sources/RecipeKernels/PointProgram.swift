// `PointProgram`, the compiler part of a fused point pass: the program type with its stored
// tables, and what turns a list of `PointStep`s into it. `split` cuts the steps into a
// per-channel head, a body and a per-channel tail; the head becomes the 8-bit load table, the
// tail the store table (`storeTable`, `isNonDecreasing`, `bytePlanes`); the body becomes its
// runs (`bodyRuns`, `piece`, `ReadyRun`, `readyBody`), costly per-channel runs as tables. Also
// the program's answers before it runs (`cachesColours`, `hasDearBody`, `isCostly`,
// `lazyTables`, `tables`) and its moves with the canvas (`laidOut`, `translated`). The steps
// are in `PointStep.swift`; `PointProgram+Execution.swift` runs the program.
import RecipeCore
import CKernelsSIMD
#if canImport(Glibc)
import Glibc
#endif

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
            case .step(.lut), .step(.colorTransform), .step(.colorMixer), .step(.colorGrade): true
            case .step(.maskMix(.color, _, _)): true
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
        case .vibrance, .vignette, .radialGain, .saveInput, .maskMix, .colorTransform, .colorMixer, .colorGrade: return false
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
}
