import RecipeCore
import RecipeKernels

/// Runs a recipe's point passes over RGB strips as they stream by: 8-bit, 16-bit or float rows
/// in, 8-bit, 16-bit or float rows out (floats between stages, integers from the decoder and to
/// the encoder).
///
/// One pass (the fused plan) runs per row, 64 pixels at a time, with no intermediate image. Several
/// passes (the `--no-fuse` plan) each read and write a whole float strip, as an interpreter
/// without fusion would; the arithmetic per value is the same. Either way a pool, when given,
/// splits the strip's rows.
///
/// ```swift
/// let chain = PointStage(source: decoder, programs: [program])                    // RGB8 in, RGB8 out
/// let toBlur = PointStage(source: decoder, programs: [program], output: .float32)  // RGB8 in, float out
/// ```
public final class PointStage: RowSource {
    public var width: Int { source.width }
    public var height: Int { source.height }
    public let format: PixelFormat

    private let source: RowSource
    private let programs: [PointProgram]
    private var planes: UnsafeMutablePointer<Float>?
    private var planeCapacity = 0
    /// The source's rows when they are not of the output's sample type (else the output buffer):
    /// the stage's own, so a float pass may run in them (`scratchInput`).
    private var scratch: PixelBuffer?
    /// Rows handed out so far: strips arrive in order, so this is the next strip's first row.
    private var rowsDone = 0

    private let pool: WorkerPool?
    /// The thread building the fused pass's float tables, started by the first `readRows`.
    private var tableBuilder: WorkerThread?
    private var started = false
    /// The fused 8-bit pass's colour caches, one a pool worker (`PointProgram.cachesColours`).
    private var caches: [PixelCache] = []

    /// With a `pool`, the fused pass splits each strip's rows across its threads. `output` is the
    /// sample type written (nil: the source's).
    public init(source: RowSource, programs: [PointProgram], output: SampleType? = nil, pool: WorkerPool? = nil) {
        self.pool = pool
        precondition(source.format.colorModel == .rgb, "PointStage takes RGB rows, not \(source.format)")
        self.source = source
        self.programs = programs.isEmpty ? [PointProgram(steps: [])] : programs
        format = PixelFormat(.rgb, output ?? source.format.sampleType)
    }

    deinit {
        tableBuilder?.join()
        planes?.deallocate()
    }

    /// On the first read, before the source's first strip (a decoder's start and its first rows,
    /// a millisecond or more): a threaded, fused pass with float tables to build (the P3 chain's
    /// run of curves as polynomials and their fallback table, about 2 ms) builds them on a
    /// thread of its own meanwhile, rather than on the pass thread once the strip has come (the
    /// P3 chain 1.4 ms sooner on photo24, 40 alternating runs). A render on one thread keeps to it.
    private func startTables(from: SampleType, to: SampleType) {
        guard !started else { return }
        started = true
        guard pool != nil, programs.count == 1 else { return }
        let tables = programs[0].lazyTables(readsFloats: from != .uint8, writesFloats: to != .uint8)
        guard !tables.isEmpty else { return }
        tableBuilder = WorkerThread { for lazy in tables { _ = lazy.tables } }
    }

    /// What a stage of `programs` passes over `width`-pixel rows holds while it runs, read into
    /// strips of `rows` (its reader's strip): a strip of the source's rows when they are of another
    /// sample type than the output, and for more than one pass (unfused) three float planes of
    /// the strip. The programs' tables are their own (`PointProgram.tableBytes`).
    public static func footprint(width: Int, source: PixelFormat, output: SampleType, programs: Int, rows: Int) -> Int {
        (source.sampleType == output ? 0 : PixelBuffer.bytes(width: width, rowCapacity: rows, format: source))
            + (programs > 1 ? 3 * 4 * rows * width : 0)
    }

    public func readRows(into buffer: PixelBuffer) throws -> Int {
        let from = source.format.sampleType, to = format.sampleType
        let width = self.width
        let chunk = min(buffer.rowCapacity, StripPipeline.stripRows(width: width, format: source.format))
        startTables(from: from, to: to)
        if from != to && programs.count == 1 && buffer.rowCapacity % chunk == 0 {
            // Other samples in than out (floats to the encoder's integers, say): the source's
            // rows go through a scratch strip of a prefetch strip's height, as many times as the
            // buffer takes, so that a threaded render's strips move into it whole rather than
            // being copied into a taller one (photo24 basic-corrections: 2% of its CPU).
            let rows = chunk
            if scratch == nil || scratch!.rowCapacity != rows {
                scratch = PixelBuffer(width: width, rowCapacity: rows, format: source.format)
            }
            let input = scratch!, program = programs[0]
            var filled = 0
            while filled < buffer.rowCapacity {
                let n = try source.readRows(into: input)
                if filled == 0 { buffer.originY = input.originY }
                guard n > 0 else { break }
                let (firstRow, offset) = (rowsDone, filled)
                let body = { (i: Int) in
                    program.run(UnsafeRawPointer(input.row(i)), from: from, into: buffer.row(offset + i), to: to, pixels: width, y: firstRow + i,
                                scratchInput: true)
                }
                if let pool { pool.run(count: n, body) } else { for i in 0..<n { body(i) } }
                rowsDone += n
                filled += n
                // A source gives fewer rows than asked for only at its end.
                if n < input.rowCapacity { break }
            }
            buffer.rowCount = filled
            return filled
        }
        let input: PixelBuffer
        if from == to {
            input = buffer
        } else {
            if scratch == nil || scratch!.rowCapacity != buffer.rowCapacity {
                scratch = PixelBuffer(width: width, rowCapacity: buffer.rowCapacity, format: source.format)
            }
            input = scratch!
        }
        let n = try source.readRows(into: input)
        buffer.rowCount = n
        buffer.originY = input.originY
        let firstRow = rowsDone
        rowsDone += n
        guard n > 0 else { return n }
        let rows: (@escaping (Int) -> Void) -> Void = { [pool] body in
            if let pool { pool.run(count: n, body) } else { for y in 0..<n { body(y) } }
        }
        if programs.count == 1 {
            let program = programs[0]
            if program.cachesColours(from: from, to: to, width: width, height: height) {
                // Each worker its own cache, kept from strip to strip.
                if caches.isEmpty { caches = (0..<(pool?.threads ?? 1)).map { _ in PixelCache() } }
                let caches = self.caches
                let chunk = { (worker: Int, rows: Range<Int>) in
                    for i in rows {
                        program.run(input.row(i).assumingMemoryBound(to: UInt8.self), pixels: width, y: firstRow + i, cache: caches[worker])
                    }
                }
                if let pool { pool.runChunks(count: n, chunk) } else { chunk(0, 0..<n) }
                return n
            }
            rows { i in
                program.run(UnsafeRawPointer(input.row(i)), from: from, into: buffer.row(i), to: to, pixels: width, y: firstRow + i,
                            scratchInput: true)
            }
            return n
        }
        // Unfused: each pass over the whole strip, through float planes (split by rows over the
        // pool like the fused pass, so `--no-fuse` measures fusion and not threads).
        let count = n * width
        if planeCapacity < count {
            planes?.deallocate()
            planes = .allocate(capacity: 3 * count)
            planeCapacity = count
        }
        let r = planes!, g = r + planeCapacity, b = g + planeCapacity
        rows { y in
            let o = y * width
            PixelRows.deinterleave(input.row(y), from, r + o, g + o, b + o, count: width)
        }
        for program in programs {
            rows { y in
                let o = y * width
                program.apply(r: r + o, g: g + o, b: b + o, count: width, width: width, firstRow: firstRow + y)
            }
        }
        rows { y in
            let o = y * width
            PixelRows.interleave(r + o, g + o, b + o, into: buffer.row(y), to, count: width)
        }
        return n
    }
}
