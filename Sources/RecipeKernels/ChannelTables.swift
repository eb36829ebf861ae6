#if canImport(Glibc)
import Glibc
#endif
import CKernelsSIMD

/// A run of per-channel point steps (sRGB curves, powers, levels, tone curves…) as one table per
/// channel over float inputs, for the ends of a point pass that reads or writes floats: where an
/// 8-bit pass looks a code up in its load or store table, a float pass looks the value up here
/// instead of running each step's arithmetic (the sRGB curves alone, vectorised, were a third of
/// a black-and-white render once samples crossed stages as floats).
///
/// The nodes are log-spaced, as floats themselves are: 512 per octave from 2⁻³⁰ to 16, indexed by
/// the value's exponent and top mantissa bits, so the linear interpolation between two nodes is
/// the lower mantissa bits' fraction and a cell is 1/512 of its value wide. On a power curve that
/// keeps the relative error under 2e-6 at any brightness (0.1 of a 16-bit step at white); a run
/// with a kink (a tone curve's nodes, levels' black point) is cut across the one cell that holds
/// it, by up to 5e-5 (a uniform table of the same size loses
/// the shadows, where x^(1/2.4) is steep). Negative values have nodes of their own (a contrast
/// or a white balance pushes dark pixels below 0, and the curves of an extended working space go
/// on there). Zero is a node of its own; other values under 2⁻³⁰ in magnitude (a power curve is
/// steepest there), values from 16 up, and NaN go through the steps themselves.
///
/// ```swift
/// let toEncoded = ChannelTables(steps: [.toEncoded])
/// toEncoded.apply(planes, count: 64, tile: 64)   // three planes of 64, in place
/// ```
public struct ChannelTables: Sendable {
    /// Tables made on first use: a program builds them only for the ends it runs with floats (an
    /// 8-bit pass has its load and store tables instead), and a plan made and not run (`explain`,
    /// a display render's planning at full size) builds none. Building one evaluates its steps at
    /// 35,000 nodes in double precision, several milliseconds.
    public final class Lazy: @unchecked Sendable {
        // @unchecked: `built` is written once, under `lock`.
        public let steps: [PointStep]
        private var built: ChannelTables?
        private var lock = pthread_mutex_t()

        public init(steps: [PointStep]) {
            self.steps = steps
            pthread_mutex_init(&lock, nil)
        }

        deinit { pthread_mutex_destroy(&lock) }

        /// The tables, built by the first caller.
        public var tables: ChannelTables {
            pthread_mutex_lock(&lock)
            defer { pthread_mutex_unlock(&lock) }
            if let built { return built }
            let made = ChannelTables(steps: steps)
            built = made
            return made
        }
    }

    /// Mantissa bits that pick a node (the C kernel's constant), and the nodes per octave.
    static let nodeBits = Int(RK_NODE_BITS)
    static let perOctave = 1 << nodeBits
    static let octaves = 34
    /// 2⁻³⁰, the first log-spaced node (a matrix leaves values of 1e-8 beside black).
    static let lowest: Float = 0x1p-30
    static let highest: Float = 16
    /// Entries per sign: f(0), the log-spaced nodes, and f(16).
    public static let entries = 2 + perOctave * octaves
    /// The bytes of one set's table when the channels differ (816 KiB; a third when alike).
    public static let maximumBytes = 4 * 2 * 3 * 2 * entries
    /// What building one set takes beside the table and frees: the three channels' values at
    /// every node (0.4 MB). A pass builds its sets on the thread that runs it, whose heap keeps
    /// those pages.
    public static let buildTransientBytes = 2 * entries * 3 * 4

    /// The bytes the tables of `steps` will take, before they are built (for memory estimates):
    /// a third of `maximumBytes` when the steps treat the three channels alike at a few inputs
    /// across the range (the full build compares every node; a difference only there costs the
    /// estimate 544 KiB).
    public static func bytes(for steps: [PointStep]) -> Int {
        if computed(steps) != nil { return 0 }
        let probes: [Double] = [0, 1e-6, 0.003, 0.04, 0.2, 0.5, 0.73, 1, 3, 16, -0.05, -1]
        let alike = probes.allSatisfy { v in
            let out = steps.reduce(SIMD3(v, v, v)) { $1.reference($0) }
            return Float(out.x) == Float(out.y) && Float(out.y) == Float(out.z)
        }
        // The polynomials beside the table (1.25 KiB a channel fitted).
        let fits = ChannelFit.supported ? (alike ? 1 : 3) * 4 * ChannelFit.floats : 0
        return (alike ? maximumBytes / 3 : maximumBytes) + fits
    }

    /// The steps the tables stand for.
    public var steps: [PointStep] { pinned.steps }
    /// For the sRGB curves alone (→ linear: 1, → encoded: 0), no table: `rk_srgb_curve` computes
    /// them, ten times more exactly and a fifth faster than the lookups (0.52–0.58 against
    /// 0.67–0.70 ns a value on these machines' Zen 4, where a gather element costs as much as
    /// the whole curve), and nothing to build.
    var curve: Int32? { pinned.curve }

    /// Whether `steps` are one sRGB curve, which `rk_srgb_curve` runs without a table.
    public static func curve(_ steps: [PointStep]) -> Int32? {
        steps == [.toLinear] ? 1 : steps == [.toEncoded] ? 0 : nil
    }

    /// `steps` as one sRGB curve among steps that cost a multiply (`PointProgram.isCostly` says
    /// not: a diagonal matrix, a clip, straight levels), or nil. Those run as they are around the
    /// computed curve, without a table or a fit: basic-corrections' → encoded and contrast cost
    /// 22 + 5 ms of CPU a render this way on photo24 against 37 ms as one fit of the run (perf,
    /// 10 alternating runs; the curve 0.26 ns a value sixteen lanes at a time, the fit's
    /// polynomials 0.47). A run of two curves (the P3 chain's → encoded, contrast, → linear)
    /// stays one fit: computed, it took the same time.
    public static func computed(_ steps: [PointStep]) -> (before: [PointStep], curve: Int32, after: [PointStep])? {
        let costly = steps.indices.filter { PointProgram.isCostly(steps[$0]) }
        guard costly.count == 1, let curve = curve([steps[costly[0]]]) else { return nil }
        return (Array(steps[..<costly[0]]), curve, Array(steps[(costly[0] + 1)...]))
    }
    /// The steps, the tables, their fits and the lookup itself, at addresses that stay put: all a
    /// ChannelTables holds, so a copy is one reference.
    let pinned: Pinned

    /// Per channel (r, g, b), `entries` pairs at the nodes, then `entries` at their negatives; a
    /// pair is the value at the node and the step to the next node's value (a copy, for tests).
    var table: [Float] { Array(pinned.table) }
    /// Floats from one channel's table to the next: 0 when the three share one.
    var channelStride: Int { pinned.channelStride }
    /// Per channel (one when the three share a table), the table's values in [2⁻¹⁴, 4) as
    /// polynomials (`ChannelFit`), where the CPU runs them: `ChannelFit.floats` each, or none.
    var fits: [[Float]?] { pinned.fits.map { $0.map { Array(UnsafeBufferPointer(start: $0, count: ChannelFit.floats)) } } }

    /// The input value of entry `i` (i ≥ 1) of a channel's table.
    static func node(_ i: Int) -> Double {
        if i == 0 { return 0 }
        let k = i - 1
        let octave = k / perOctave, step = k % perOctave
        return Double(lowest) * Double(1 << octave) * (1 + Double(step) / Double(perOctave))
    }

    /// Tables for `steps`, which must all be per-channel (`PointProgram.isPerChannel`), evaluated
    /// in double precision at every node.
    public init(steps: [PointStep]) {
        if let (before, curve, after) = Self.computed(steps) {
            pinned = Pinned(steps: steps, curve: curve, before: before, after: after, table: [], channelStride: 0, fits: [])
            return
        }
        let perChannel = 2 * Self.entries
        var values = [Float](repeating: 0, count: 3 * perChannel)
        PointStep.sample(steps, count: perChannel, input: { $0 < Self.entries ? Self.node($0) : -Self.node($0 - Self.entries) }) { i, out in
            values[i] = Float(out.x)
            values[perChannel + i] = Float(out.y)
            values[2 * perChannel + i] = Float(out.z)
        }
        // One table for the three when the steps treat the channels alike (the sRGB curves, a
        // contrast, a power: the usual case): a third of the memory the lookups gather from,
        // 272 KiB that stay in L2 where three tables did not.
        let alike = values[..<perChannel].elementsEqual(values[perChannel..<(2 * perChannel)])
            && values[..<perChannel].elementsEqual(values[(2 * perChannel)...])
        if alike { values.removeLast(2 * perChannel) }
        let channelStride = alike ? 0 : 4 * Self.entries
        // Pairs (f(node), f(next node) - f(node)): one 64-bit load fetches both ends of a cell.
        var table = [Float](repeating: 0, count: 2 * values.count)
        for half in stride(from: 0, to: values.count, by: Self.entries) {
            for i in 0..<Self.entries {
                let here = values[half + i]
                table[2 * (half + i)] = here
                table[2 * (half + i) + 1] = i + 1 < Self.entries ? values[half + i + 1] - here : 0
            }
        }
        let fits = ChannelFit.supported ? (0..<(alike ? 1 : 3)).map { ChannelFit.make(ChannelFit.channel($0, of: steps)) } : []
        pinned = Pinned(steps: steps, curve: nil, before: [], after: [], table: table, channelStride: channelStride, fits: fits)
    }

    /// Runs the steps on three planes of `count` values that start `tile` floats apart, in place
    /// (`Pinned.apply`).
    public func apply(_ planes: UnsafeMutablePointer<Float>, count: Int, tile: Int) {
        pinned.apply(planes, count: count, tile: tile)
    }

    /// The tables and fits at addresses that stay put while the object lives, and the lookups
    /// that read them: a point pass's tiles reach this through an unretained reference
    /// (`PointProgram.ReadyRun`), so a tile of 256 pixels takes no reference count. Two threads
    /// retaining the same arrays every tile fought over their counts' cache lines (retains and
    /// releases were 4 ms a pass thread on the P3 chain).
    final class Pinned: @unchecked Sendable {
        // @unchecked: every property is set in init and only read after; the memory is this
        // object's, freed in deinit.
        let steps: [PointStep]
        let curve: Int32?
        /// With `curve`, the steps before and after it (`computed`), a matrix's floats pinned.
        let before, after: [Cheap]
        let table: UnsafeMutableBufferPointer<Float>
        let channelStride: Int
        let fit0, fit1, fit2: UnsafeMutablePointer<Float>?
        let fitCount: Int

        /// A step that costs a multiply: a matrix (its 12 floats at an address of their own, so a
        /// tile takes no reference count of an array) or a step of scalars.
        enum Cheap {
            case matrix(UnsafeMutablePointer<Float>)
            case step(PointStep)

            init(_ step: PointStep) {
                if case .matrix(let m) = step {
                    let p = UnsafeMutablePointer<Float>.allocate(capacity: m.count)
                    p.initialize(from: m, count: m.count)
                    self = .matrix(p)
                } else {
                    self = .step(step)
                }
            }
        }

        init(steps: [PointStep], curve: Int32?, before: [PointStep], after: [PointStep], table: [Float], channelStride: Int,
             fits: [[Float]?]) {
            self.steps = steps
            self.curve = curve
            self.before = before.map(Cheap.init)
            self.after = after.map(Cheap.init)
            self.table = .allocate(capacity: table.count)
            _ = self.table.initialize(from: table)
            self.channelStride = channelStride
            func pin(_ fit: [Float]??) -> UnsafeMutablePointer<Float>? {
                guard let fit = fit ?? nil else { return nil }
                let p = UnsafeMutablePointer<Float>.allocate(capacity: fit.count)
                p.initialize(from: fit, count: fit.count)
                return p
            }
            fit0 = pin(fits.first)
            fit1 = fits.count > 1 ? pin(fits[1]) : nil
            fit2 = fits.count > 2 ? pin(fits[2]) : nil
            fitCount = fits.count
        }

        deinit {
            for case .matrix(let m) in before + after { m.deallocate() }
            table.deallocate()
            fit0?.deallocate()
            fit1?.deallocate()
            fit2?.deallocate()
        }

        /// The fits as they were made, one a channel or one for three alike (for tests).
        var fits: [UnsafeMutablePointer<Float>?] { Array([fit0, fit1, fit2].prefix(fitCount)) }

        /// Runs the steps on three planes of `count` values that start `tile` floats apart, in place.
        /// The lookups run in C (`rk_channel_table_apply`: an AVX2 gather where the CPU has one; with
        /// a fit, `rk_channel_fit_apply`: polynomials where the CPU has AVX-512 VBMI, the lookups for
        /// the values they leave); values off the table come back flagged and go through the steps here.
        func apply(_ planes: UnsafeMutablePointer<Float>, count: Int, tile: Int) {
            guard count > 0 else { return }
            if !before.isEmpty || !after.isEmpty {
                // Steps that may treat the channels differently around the curve: no grey shortcut.
                Self.run(before, planes, count: count, tile: tile)
                apply(planes, count: count, tile: tile, channels: 3)
                Self.run(after, planes, count: count, tile: tile)
                return
            }
            // A grey tile (the three planes the same bits: after a black-and-white mix, or a grey
            // photo) through tables that treat the channels alike: one plane looked up, copied to
            // the others. The check stops at the first difference, so colour costs nothing.
            let bytes = count * MemoryLayout<Float>.stride
            if channelStride == 0, memcmp(planes, planes + tile, bytes) == 0, memcmp(planes, planes + 2 * tile, bytes) == 0 {
                apply(planes, count: count, tile: tile, channels: 1)
                (planes + tile).update(from: planes, count: count)
                (planes + 2 * tile).update(from: planes, count: count)
                return
            }
            apply(planes, count: count, tile: tile, channels: 3)
        }

        private func apply(_ planes: UnsafeMutablePointer<Float>, count: Int, tile: Int, channels: Int) {
            if let curve {
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { outside in
                    for c in 0..<channels {
                        let plane = planes + c * tile
                        guard rk_srgb_curve(plane, Int32(count), curve, outside.baseAddress!) > 0 else { continue }
                        // 16 and up, infinities, NaN: the step itself.
                        let step: PointStep = curve == 1 ? .toLinear : .toEncoded
                        for k in 0..<count where outside[k] != 0 { plane[k] = Float(step.reference(SIMD3(repeating: Double(plane[k]))).x) }
                    }
                }
                return
            }
            // `rk_channel_fit_apply_planes`: the polynomials where there is a fit and the CPU runs
            // them, the table's lookups otherwise. A fit the channels share takes their planes in
            // one call (its coefficients loaded once a tile); channels of their own, one each.
            let entries = Int32(ChannelTables.entries)
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: channels * count) { outside in
                var left: Int32 = 0
                if channelStride == 0 {
                    left = rk_channel_fit_apply_planes(table.baseAddress!, entries, fit0, planes, Int32(tile), Int32(channels), Int32(count),
                                                       outside.baseAddress!)
                } else {
                    for c in 0..<channels {
                        left += rk_channel_fit_apply_planes(table.baseAddress! + c * channelStride, entries, c == 0 ? fit0 : c == 1 ? fit1 : fit2,
                                                            planes + c * tile, Int32(tile), 1, Int32(count), outside.baseAddress! + c * count)
                    }
                }
                guard left > 0 else { return }
                for c in 0..<channels {
                    let base = UnsafePointer(table.baseAddress! + c * channelStride), plane = planes + c * tile
                    for k in 0..<count where outside[c * count + k] != 0 { plane[k] = value(plane[k], channel: c, base: base) }
                }
            }
        }

        static func run(_ pieces: [Cheap], _ planes: UnsafeMutablePointer<Float>, count: Int, tile: Int) {
            for piece in pieces {
                switch piece {
                case .matrix(let m): rk_matrix_planes(planes, Int32(tile), Int32(count), m)
                case .step(let step): PointProgram.apply(step, planes, count, x: 0, y: 0, stride: tile)
                }
            }
        }

        /// One value of channel `c` (the scalar path: tails of a tile and values off the table).
        @inline(__always)
        func value(_ v: Float, channel c: Int, base: UnsafePointer<Float>) -> Float {
            let magnitude = Swift.abs(v)
            let half = base + (v.sign == .minus ? 2 * ChannelTables.entries : 0)
            if magnitude >= ChannelTables.lowest && magnitude < ChannelTables.highest {
                let bits = magnitude.bitPattern
                let octave: UInt32 = (bits >> 23) - (127 - 30)
                let fractionBits = UInt32(23 - ChannelTables.nodeBits)
                let i = Int((octave << UInt32(ChannelTables.nodeBits)) | ((bits >> fractionBits) & UInt32(ChannelTables.perOctave - 1))) + 1
                let fraction = Float(bits & ((1 << fractionBits) - 1)) / Float(1 << fractionBits)
                return half[2 * i] + half[2 * i + 1] * fraction
            }
            if magnitude == 0 { return half[0] }
            // Negative, 16 and up, NaN: the steps themselves.
            let d = Double(v)
            let out = steps.reduce(SIMD3(d, d, d)) { $1.reference($0) }
            return Float(out[c])
        }
    }
}
