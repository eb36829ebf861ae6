import CKernelsSIMD
import RecipeCore
import RecipeKernels
#if canImport(Glibc)
import Glibc
#endif

/// A Gaussian window over streaming float RGB strips, clamp-to-edge: blur, unsharp mask or
/// shadows/highlights. It keeps only the rows its window needs (a ring of 2r+6 rows of floats;
/// memory grows with the width and the radius, not the image area), blurs each kept row
/// horizontally once, then six output rows at a time vertically (`GaussianBlur.vertical`).
/// From σ 16 px the blur runs on a coarser grid instead (`DecimatedGaussian`: clarity on
/// photo24, σ 80, 597 taps a pass directly, 61 on a grid 10 times coarser), within one 8-bit
/// step of the direct sums; only the originals wait then, in the strips they came in.
///
/// Rows come in and go out as floats in the stage's working space (`Mode.space`: linear light
/// for the blur and shadows/highlights, encoded for the unsharp mask), unclamped: only the
/// encoder quantises; unless `readSteps` and `emitSteps` convert them on the way in and out.
///
/// ```swift
/// let chain = BlurStage(source: decoder, sigma: 2.5)   // sigma in pixels of this canvas
/// ```
public final class BlurStage: RowSource {
    /// What the blurred rows are for.
    public enum Mode: Sendable, Equatable {
        /// The blur itself, in linear light.
        case blur
        /// Unsharp mask on encoded values (ImageMagick's -unsharp): v + amount·(v − blurred),
        /// where |2·(v − blurred)| reaches `threshold`; with `luma`, the luma difference on every
        /// channel (only the luma is blurred: the luma of the differences is the difference of
        /// the lumas).
        case unsharp(amount: Float, threshold: Float, luma: Bool)
        /// Shadows/highlights (ops-reference §4.24): linear light scaled by
        /// 2^(shadows·(1 − Yb)² − highlights·Yb²), Yb the encoded luma Y′ blurred. `encoded`:
        /// the rows come and go encoded, the gain applied to them as they are (`EncodedGain`).
        case shadowsHighlights(shadows: Float, highlights: Float, encoded: Bool = false)

        /// The space of the rows the stage reads and writes.
        public var space: WorkingSpace {
            switch self {
            case .blur: .linear
            case .shadowsHighlights(_, _, let encoded): encoded ? .encoded : .linear
            case .unsharp: .encoded
            }
        }
    }

    // Stored, not forwarded to the source: the loops read them per pixel, and a call through the
    // RowSource existential (with its exclusivity checks) cost more than the arithmetic.
    public let width: Int
    public let height: Int
    /// Float RGB, or the encoder's integers when the pass after the stage writes them
    /// (`output`).
    public let format: PixelFormat

    private let source: RowSource
    private let mode: Mode
    private let taps: UnsafeMutableBufferPointer<Float>
    private let radius: Int
    private let ringSize: Int
    /// Planes blurred: r, g, b (3) or the luma Y′ (1).
    private let planes: Int
    /// Horizontally blurred rows, `planes` planes of `width` floats, by row index mod ring size.
    private let ring: UnsafeMutablePointer<Float>
    /// Where each unblurred row waiting for its output row is (encoded for unsharp, linear for
    /// shadows/highlights), by row index mod `originalSlots`: in the strip it was read into,
    /// which is kept until then (`strips`); nil for the blur, whose rows are not needed again.
    private let originals: UnsafeMutablePointer<UnsafeMutablePointer<Float>>?
    private let originalSlots: Int
    /// The strip source rows are read into (`inputRows` rows), and with `originals`, the strips
    /// read before it that still hold rows waiting for their output row: a strip is read into
    /// again once all its rows are out. Source strips of that height move into them whole (a
    /// prefetch's, `PrefetchStep.readRows`), so no row is copied on its way in; copying each row
    /// into a ring of originals cost basic-corrections 3.5% of its CPU.
    private var input: PixelBuffer
    private var strips: [PixelBuffer]
    /// A row's originals encoded (shadows/highlights on linear rows: its mask is the encoded luma).
    private let encodedRow: UnsafeMutablePointer<Float>?
    private var inputRow = 0        // rows of the source consumed
    private var inputAvailable = 0  // rows in `input` not yet consumed
    private var inputNext = 0
    private var produced = 0
    /// Output rows `linesStart..<linesEnd` are in `lines`, blurred vertically, not all emitted yet.
    private var linesStart = 0
    private var linesEnd = 0
    /// Vertically blurred output rows, `GaussianBlur.verticalRowsPerPass` of `planes · width` floats.
    private let lines: UnsafeMutablePointer<Float>
    /// The ring rows one vertical pass reads, in order.
    private let windowRows: UnsafeMutablePointer<UnsafePointer<Float>>
    /// Source rows waiting for the horizontal pass, up to `batchRows` of `planes · width` floats.
    private let rowPlanes: UnsafeMutablePointer<Float>
    /// Where each row of a batch of the horizontal pass has its planes (`readSourceRow`).
    private let batchSources: UnsafeMutablePointer<UnsafePointer<Float>>
    /// Scratch for `GaussianBlur.horizontal`, one of `paddedStride` floats per row and plane of a batch.
    private let padded: UnsafeMutablePointer<Float>
    private let paddedStride: Int
    /// Splits each batch of the horizontal pass and each vertical pass across its threads; the
    /// stage's own.
    private let pool: WorkerPool?
    /// Source rows blurred horizontally at once.
    private static let batchRows = GaussianBlur.verticalRowsPerPass
    /// Multiply-adds per output row below which the passes stay on one thread.
    public static let defaultMinimumPooledWork = 1 << 20
    /// A wide blur's coarse-grid computation; nil: the direct sums (`ring`, `lines`).
    private let decimated: DecimatedGaussian?
    /// Per-channel steps run on each source row's planes as it is read (the conversion into the
    /// stage's space that a pass of its own would make), and on each output row's planes (the
    /// conversion out of it); nil: none.
    private let readSteps: ChannelTables?
    private let emitSteps: ChannelTables?
    /// A point pass of any steps run on each output row's planes, as the fused pass after the
    /// stage would run it (no stage, thread or strip of its own); nil: none.
    private let emitProgram: PointProgram?
    /// With integer output: the pass that writes the rows' samples (`emitProgram`, or the plain
    /// conversion), and the float row it reads.
    private let storeProgram: PointProgram?
    private let floatRow: UnsafeMutablePointer<Float>?
    /// Shadows/highlights given encoded rows and → linear to read them with: the mask's luma is
    /// taken from the rows as they come (decided once, not per row).
    private let maskFromEncodedRows: Bool

    /// With `threads` above 1, both passes split their work across a pool of that many threads of
    /// the stage's own when a row's vertical sums reach `minimumPooledWork` multiply-adds (two
    /// such stages of one render sharing a pool took turns: warm-portrait 3.2 → 4.2 s). Each
    /// output value is the same sum in the same order whatever the split: the bytes do not change.
    ///
    /// From σ 16 px (`coarseSigma` · 2) the blur is computed on a coarser grid
    /// (`DecimatedGaussian`), within a few thousandths of the direct sums; `coarseSigma: nil`
    /// always takes the direct sums.
    ///
    /// `readSteps` and `emitSteps` are per-channel point steps (`PointProgram.isPerChannelOnly`)
    /// the stage runs on the planes it already makes of each row: a float pass before or after it
    /// that only converts between spaces (soft-glow's → linear and → encoded around its blur) then
    /// costs no pass over the strip. `emitProgram`: a pass of any steps after the stage, run on its
    /// output rows the same way (basic-corrections' vibrance after shadows/highlights).
    public init(source: RowSource, sigma: Double, kernel: GaussianBlur.Kernel = .sampled, mode: Mode = .blur,
                threads: Int = 1, minimumPooledWork: Int = BlurStage.defaultMinimumPooledWork,
                coarseSigma: Double? = DecimatedGaussian.coarseSigma, readSteps: [PointStep] = [], emitSteps: [PointStep] = [],
                emitProgram: PointProgram? = nil, output: SampleType = .float32) {
        precondition(source.format == PixelFormat(.rgb, .float32), "BlurStage takes float RGB, not \(source.format)")
        precondition(emitProgram == nil || emitSteps.isEmpty, "steps or a program after the stage, not both")
        format = PixelFormat(.rgb, output)
        if output == .float32 {
            self.emitProgram = emitProgram
            storeProgram = nil
            floatRow = nil
        } else {
            // The last pass (or the plain conversion) writes the integers from each float row.
            self.emitProgram = nil
            storeProgram = emitProgram ?? PointProgram(steps: [])
            floatRow = .allocate(capacity: 3 * source.width)
        }
        self.readSteps = readSteps.isEmpty ? nil : ChannelTables(steps: readSteps)
        self.emitSteps = emitSteps.isEmpty ? nil : ChannelTables(steps: emitSteps)
        if case .shadowsHighlights(_, _, false) = mode { maskFromEncodedRows = readSteps == [.toLinear] } else { maskFromEncodedRows = false }
        self.source = source
        self.mode = mode
        width = source.width
        height = source.height
        let layout = Layout(width: width, height: height, sigma: sigma, kernel: kernel, mode: mode, coarseSigma: coarseSigma)
        planes = layout.planes
        let (width, height, planes) = (self.width, self.height, self.planes)
        decimated = layout.coarse == nil ? nil : coarseSigma.flatMap { coarse in
            DecimatedGaussian(width: width, height: height, planes: planes, sigma: sigma, kernel: kernel, coarseSigma: coarse)
        }
        let weights = layout.weights
        taps = .allocate(capacity: weights.count)
        _ = taps.initialize(from: weights)
        radius = weights.count / 2
        ringSize = layout.ringSize
        ring = .allocate(capacity: decimated == nil ? planes * width * ringSize : 0)
        input = PixelBuffer(width: width, rowCapacity: Self.inputRows(width: width), format: source.format)
        strips = [input]
        // Rows read but not yet out: up to a ring's worth, plus the rest of the strip that
        // brought the last of them.
        originalSlots = ringSize + input.rowCapacity
        originals = mode == .blur ? nil : .allocate(capacity: originalSlots)
        if case .shadowsHighlights(_, _, false) = mode { encodedRow = .allocate(capacity: 3 * width) } else { encodedRow = nil }
        lines = .allocate(capacity: layout.lineRows * planes * width)
        windowRows = .allocate(capacity: weights.count + GaussianBlur.verticalRowsPerPass - 1)
        pool = layout.pooled(threads: threads, minimumPooledWork: minimumPooledWork) ? WorkerPool(threads: threads) : nil
        rowPlanes = .allocate(capacity: layout.lineRows * planes * width)
        batchSources = .allocate(capacity: Self.batchRows)
        batchSources.initialize(repeating: UnsafePointer(rowPlanes), count: Self.batchRows)
        paddedStride = width + weights.count + 8
        padded = .allocate(capacity: layout.coarse == nil ? Self.batchRows * planes * paddedStride : 1)
    }

    /// Source rows read at a time from `width`-pixel float rows: a prefetch strip's rows (8 at
    /// 4000 px), so that a threaded render's strips move into the stage whole instead of being
    /// copied into a taller buffer (photo24 basic-corrections: 4.6% of its CPU in those copies);
    /// at most 16.
    public static func inputRows(width: Int) -> Int {
        min(16, StripPipeline.stripRows(width: width, format: PixelFormat(.rgb, .float32)))
    }

    /// The sizes a stage of given parameters works with, decided once for `init` and for the
    /// memory estimate (`footprint`), so the two cannot disagree.
    struct Layout {
        let width: Int
        let mode: Mode
        /// Planes blurred: r, g, b (3) or the luma Y′ (1).
        let planes: Int
        /// The direct blur's taps ([1] on the coarse grid).
        let weights: [Float]
        /// The coarse grid's own buffers and lag (nil: the direct sums).
        let coarse: (bytes: Int, lag: Int)?
        /// Rows of the ring (and of the originals).
        let ringSize: Int

        init(width: Int, height: Int, sigma: Double, kernel: GaussianBlur.Kernel, mode: Mode,
             coarseSigma: Double? = DecimatedGaussian.coarseSigma) {
            self.width = width
            self.mode = mode
            let planes: Int
            switch mode {
            case .blur, .unsharp(_, _, false): planes = 3
            case .unsharp(_, _, true), .shadowsHighlights: planes = 1
            }
            self.planes = planes
            coarse = coarseSigma.flatMap { c in
                DecimatedGaussian.footprint(width: width, height: height, planes: planes, sigma: sigma, kernel: kernel, coarseSigma: c)
            }
            weights = coarse == nil ? GaussianBlur.taps(sigma: sigma, kernel: kernel) : [1]
            if let coarse {
                // The originals wait from their arrival until their output row: as many rows as
                // the coarse window reaches ahead.
                ringSize = coarse.lag + 1
            } else {
                // The window of a pass of several output rows: 2r + 1 rows for the first, one
                // more for each other.
                ringSize = 2 * (weights.count / 2) + GaussianBlur.verticalRowsPerPass
            }
        }

        /// Rows of `lines` and of `rowPlanes`: a pass's six for the direct sums, one on the coarse
        /// grid (which takes and gives a row at a time; at 4000 px, 0.8 MB less a stage).
        var lineRows: Int { coarse == nil ? GaussianBlur.verticalRowsPerPass : 1 }

        /// Whether the passes split over a pool of the stage's own. Handing a pass to the pool
        /// costs tens of µs: worth it for a wide window, not for a sharpen of σ 1 px (the display
        /// path's chain + unsharp went 113 → 173 ms with it). (On the coarse grid the passes are
        /// small; splitting the rows' store over a pool as well gained nothing measurable on
        /// photo24: blur 2% 498 → 473 ± 28 ms.)
        func pooled(threads: Int, minimumPooledWork: Int = BlurStage.defaultMinimumPooledWork) -> Bool {
            threads > 1 && coarse == nil && planes * width * weights.count >= minimumPooledWork
        }

        /// The bytes `init` allocates for these sizes (the pool's threads aside).
        var bytes: Int {
            let rows = GaussianBlur.verticalRowsPerPass, taps = weights.count
            var floats = 2 * lineRows * planes * width                         // lines, rowPlanes
            if coarse == nil {
                floats += BlurStage.batchRows * planes * (width + taps + 8)    // padded
                floats += planes * width * ringSize                            // ring
            }
            if mode != .blur {
                // The strips kept for their originals, beyond the one a stage reads into anyway.
                let rows = BlurStage.inputRows(width: width)
                floats += ((ringSize - 1 + rows - 1) / rows) * rows * 3 * width
            }
            if case .shadowsHighlights(_, _, false) = mode { floats += 3 * width }      // encodedRow
            return 4 * (floats + taps) + 8 * (taps + rows - 1) + (coarse?.bytes ?? 0)
                + PixelBuffer.bytes(width: width, rowCapacity: BlurStage.inputRows(width: width), format: PixelFormat(.rgb, .float32))
        }
    }

    /// What a stage of these parameters holds while it runs, before it exists (for the memory
    /// estimate a render is checked against before the photo is decoded): its ring of rows, the
    /// originals an unsharp mask or shadows/highlights keeps, its scratch rows and, on the coarse
    /// grid, that grid's window. `lookahead` is the most source rows it has read beyond the rows
    /// it has handed out (what a branch point before it keeps for it); `helperThreads`, the
    /// threads of its own pool.
    public static func footprint(width: Int, height: Int, sigma: Double, kernel: GaussianBlur.Kernel = .sampled, mode: Mode = .blur,
                                 threads: Int = 1) -> (bytes: Int, lookahead: Int, helperThreads: Int) {
        let layout = Layout(width: width, height: height, sigma: sigma, kernel: kernel, mode: mode)
        let lookahead = (layout.coarse?.lag ?? (layout.weights.count / 2 + GaussianBlur.verticalRowsPerPass)) + inputRows(width: width)
        return (layout.bytes, min(height, lookahead), layout.pooled(threads: threads) ? threads - 1 : 0)
    }

    deinit {
        pool?.shutdown()
        taps.deallocate()
        ring.deallocate()
        batchSources.deallocate()
        floatRow?.deallocate()
        originals?.deallocate()
        encodedRow?.deallocate()
        lines.deallocate()
        windowRows.deallocate()
        rowPlanes.deallocate()
        padded.deallocate()
    }

    /// Reads source rows up to `last` into the ring, a batch at a time: the planes to blur,
    /// blurred horizontally, and the originals.
    private func pullRows(through last: Int) throws {
        while inputRow <= last {
            let first = inputRow, batch = min(Self.batchRows, last - inputRow + 1)
            for b in 0..<batch { batchSources[b] = try readSourceRow(first + b, scratch: rowPlanes + b * planes * width, keep: true) }
            let (planes, width, ring, ringSize, sources) = (self.planes, self.width, self.ring, self.ringSize, self.batchSources)
            let (taps, padded, paddedStride) = (UnsafeBufferPointer(self.taps), self.padded, self.paddedStride)
            let blurRow = { (task: Int) in
                let b = task / planes, c = task % planes
                GaussianBlur.horizontal(sources[b] + c * width,
                                        ring + ((first + b) % ringSize) * planes * width + c * width,
                                        width: width, taps: taps, padded: padded + task * paddedStride)
            }
            if let pool { pool.run(count: batch * planes, blurRow) } else { for task in 0..<(batch * planes) { blurRow(task) } }
            inputRow += batch
        }
    }

    /// A strip to read the next source rows into: one whose rows have all been emitted (or that
    /// holds none yet), else a new one (about ring size ÷ strip height of them in all, when the
    /// source fills each strip).
    private func freeStrip() -> PixelBuffer {
        if let free = strips.first(where: { $0.rowCount == 0 || $0.originY + $0.rowCount <= produced }) { return free }
        let strip = PixelBuffer(width: width, rowCapacity: input.rowCapacity, format: input.format)
        strips.append(strip)
        return strip
    }

    /// Source row `row` (the next one): where its originals are noted (`originals`: in the strip
    /// they were read into, kept until their output row), and the planes to blur, returned: in
    /// `scratch`, or where they already are (the originals an unsharp mask blurs whole, or with
    /// `keep` false, the blur's source row itself). `keep`: the planes must outlive the next
    /// source read (a batch of the direct sums).
    private func readSourceRow(_ row: Int, scratch: UnsafeMutablePointer<Float>, keep: Bool) throws -> UnsafePointer<Float> {
        // A float row: its three planes (the buffer is the stage's own, so steps may run in it).
        if inputNext >= inputAvailable {
            if originals != nil { input = freeStrip() }
            inputAvailable = try source.readRows(into: input)
            inputNext = 0
            precondition(inputAvailable > 0, "source ended early")
        }
        let px = input.row(inputNext).assumingMemoryBound(to: Float.self)
        inputNext += 1
        let width = self.width
        originals?[row % originalSlots] = px
        switch mode {
        case .blur:
            readSteps?.apply(px, count: width, tile: width)
            guard keep else { return UnsafePointer(px) }
            scratch.update(from: px, count: 3 * width)
            return UnsafePointer(scratch)
        case .unsharp(_, _, let luma):
            readSteps?.apply(px, count: width, tile: width)
            // The originals stay until their output row: blurred where they are.
            guard luma else { return UnsafePointer(px) }
            rk_luma3f(px, px + width, px + 2 * width, scratch, Int32(width))
        case .shadowsHighlights(_, _, let encoded):
            // Linear originals; the mask is the luma of the encoded values (ops-reference §4.24).
            if encoded {
                // Encoded originals: the mask's luma from them as they are.
                readSteps?.apply(px, count: width, tile: width)
                rk_luma3f(px, px + width, px + 2 * width, scratch, Int32(width))
                break
            }
            if maskFromEncodedRows, let readSteps {
                // The rows come encoded (the pass before left its → linear to this stage): the
                // mask's luma from them as they are, then the originals decoded.
                rk_luma3f(px, px + width, px + 2 * width, scratch, Int32(width))
                readSteps.apply(px, count: width, tile: width)
                break
            }
            readSteps?.apply(px, count: width, tile: width)
            let encoded = encodedRow!
            encoded.update(from: px, count: 3 * width)
            Self.encode.apply(encoded, count: width, tile: width)
            rk_luma3f(encoded, encoded + width, encoded + 2 * width, scratch, Int32(width))
        }
        return UnsafePointer(scratch)
    }

    /// Linear → encoded over floats, for the shadows/highlights mask.
    private static let encode = ChannelTables(steps: [.toEncoded])

    public func readRows(into buffer: PixelBuffer) throws -> Int {
        var n = 0
        let count = planes * width
        while n < buffer.rowCapacity && produced < height {
            if let decimated {
                let needed = decimated.rowsNeeded(forOutput: produced)
                while decimated.rowsPushed < needed {
                    decimated.push(try readSourceRow(decimated.rowsPushed, scratch: rowPlanes, keep: false))
                }
                // The blur's planes straight into the output row; a mask's into `lines`.
                let out = floatRow ?? buffer.row(n).assumingMemoryBound(to: Float.self), line = mode == .blur ? out : lines
                decimated.blurredRow(produced, into: line)
                emit(row: produced, from: line, into: out)
                store(out, into: buffer.row(n), row: produced)
                n += 1
                produced += 1
                continue
            }
            if produced >= linesEnd {
                // The next pass: as many rows as the kernel takes at once (fewer only at the
                // bottom), whatever the caller's strip height; rows left over wait in `lines`.
                let y0 = produced
                let m = min(GaussianBlur.verticalRowsPerPass, height - y0)
                // Rows up to y0 + m − 1 + radius (clamped to the last) must be in the ring.
                try pullRows(through: min(y0 + m - 1 + radius, height - 1))
                for t in 0..<(m + taps.count - 1) {
                    let row = min(max(y0 + t - radius, 0), height - 1)
                    windowRows[t] = UnsafePointer(ring + (row % ringSize) * count)
                }
                let (rows, taps, lines) = (UnsafePointer(windowRows), UnsafeBufferPointer(self.taps), self.lines)
                if let pool {
                    // Column ranges of whole vectors, one per thread.
                    let parts = pool.threads, step = (count / parts + 7) & ~7
                    pool.run(count: parts) { part in
                        let columns = min(part * step, count)..<(part == parts - 1 ? count : min((part + 1) * step, count))
                        if !columns.isEmpty {
                            GaussianBlur.vertical(rows: rows, taps: taps, into: lines, lineStride: count, rowCount: m, columns: columns)
                        }
                    }
                } else {
                    GaussianBlur.vertical(rows: rows, taps: taps, into: lines, lineStride: count, rowCount: m, columns: 0..<count)
                }
                linesStart = y0
                linesEnd = y0 + m
            }
            let out = floatRow ?? buffer.row(n).assumingMemoryBound(to: Float.self)
            emit(row: produced, from: lines + (produced - linesStart) * count, into: out)
            store(out, into: buffer.row(n), row: produced)
            n += 1
            produced += 1
        }
        buffer.rowCount = n
        buffer.originY = produced - n
        return n
    }

    /// Output row `y` from its vertically blurred planes `line` (which may be the output row
    /// itself): the blur, or the unsharp mask or shadows/highlights applied to the row's
    /// originals, as a float row's three planes.
    private func emit(row y: Int, from line: UnsafeMutablePointer<Float>, into out: UnsafeMutablePointer<Float>) {
        let width = self.width
        let original = originals.map { $0[y % originalSlots] }
        switch mode {
        case .blur:
            if line != out { out.update(from: line, count: 3 * width) }
            finish(out, row: y)
        case .unsharp(let amount, let threshold, let luma):
            UnsharpMask.apply(original: original!, blurred: line, width: width, amount: amount, threshold: threshold, luma: luma,
                              into: out)
            finish(out, row: y)
        case .shadowsHighlights(let shadows, let highlights, let encoded):
            let v = original!
            withUnsafeTemporaryAllocation(of: Float.self, capacity: width) { buffer in
                let gains = buffer.baseAddress!
                ShadowsHighlights.gains(line, into: gains, count: width, shadows: shadows, highlights: highlights)
                if encoded {
                    // Applied to the encoded originals on their way to the output row (`EncodedGain`).
                    EncodedGain.apply(from: v, v + width, v + 2 * width, to: out, out + width, out + 2 * width, gains: gains, count: width)
                } else {
                    // The linear originals times their gains, into the output row's planes.
                    for c in 0..<3 {
                        let (src, dst) = (v + c * width, out + c * width)
                        for x in 0..<width { dst[x] = src[x] * gains[x] }
                    }
                }
            }
            finish(out, row: y)
        }
    }

    /// With integer output, the float row `out` written as the output row's samples.
    @inline(__always)
    private func store(_ out: UnsafeMutablePointer<Float>, into row: UnsafeMutableRawPointer, row y: Int) {
        storeProgram?.run(UnsafeRawPointer(out), from: .float32, into: row, to: format.sampleType, pixels: width, y: y, scratchInput: true)
    }

    /// The steps or pass after the stage, on output row `y`'s planes in place.
    @inline(__always)
    private func finish(_ out: UnsafeMutablePointer<Float>, row y: Int) {
        emitSteps?.apply(out, count: width, tile: width)
        emitProgram?.run(UnsafeRawPointer(out), from: .float32, into: UnsafeMutableRawPointer(out), to: .float32, pixels: width, y: y)
    }
}
