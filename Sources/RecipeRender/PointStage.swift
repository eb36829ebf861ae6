import RecipeCore
import RecipeKernels

/// Runs a recipe's point passes over 8-bit RGB strips as they stream by.
///
/// One pass (the fused plan) runs per row, 64 pixels at a time, with no intermediate image. Several
/// passes (the `--no-fuse` plan) each read and write a whole float strip, as an interpreter
/// without fusion would; the arithmetic per value is the same. Either way a pool, when given,
/// splits the strip's rows.
///
/// ```swift
/// let chain = PointStage(source: decoder, programs: [program])   // RGB8 in, RGB8 out
/// ```
public final class PointStage: RowSource {
    public var width: Int { source.width }
    public var height: Int { source.height }
    public var format: PixelFormat { source.format }

    private let source: RowSource
    private let programs: [PointProgram]
    private var planes: UnsafeMutablePointer<Float>?
    private var planeCapacity = 0
    /// Rows handed out so far: strips arrive in order, so this is the next strip's first row.
    private var rowsDone = 0

    private let pool: WorkerPool?

    /// With a `pool`, the fused pass splits each strip's rows across its threads.
    public init(source: RowSource, programs: [PointProgram], pool: WorkerPool? = nil) {
        self.pool = pool
        precondition(source.format == PixelFormat(.rgb, .uint8), "PointStage takes 8-bit RGB, not \(source.format)")
        self.source = source
        self.programs = programs
    }

    deinit { planes?.deallocate() }


    public func readRows(into buffer: PixelBuffer) throws -> Int {
        let n = try source.readRows(into: buffer)
        let firstRow = rowsDone
        rowsDone += n
        guard n > 0, !programs.isEmpty else { return n }
        if programs.count == 1 {
            let program = programs[0], width = self.width
            if let pool {
                pool.run(count: n) { i in program.run(buffer.row(i).assumingMemoryBound(to: UInt8.self), pixels: width, y: firstRow + i) }
            } else {
                for i in 0..<n { program.run(buffer.row(i).assumingMemoryBound(to: UInt8.self), pixels: width, y: firstRow + i) }
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
        let width = self.width
        let rows: (@escaping (Int) -> Void) -> Void = { [pool] body in
            if let pool { pool.run(count: n, body) } else { for y in 0..<n { body(y) } }
        }
        let k: Float = 1 / 255
        rows { y in
            let px = buffer.row(y).assumingMemoryBound(to: UInt8.self)
            for x in 0..<width {
                r[y * width + x] = Float(px[3 * x]) * k
                g[y * width + x] = Float(px[3 * x + 1]) * k
                b[y * width + x] = Float(px[3 * x + 2]) * k
            }
        }
        for program in programs {
            rows { y in
                let o = y * width
                program.apply(r: r + o, g: g + o, b: b + o, count: width, width: width, firstRow: firstRow + y)
            }
        }
        rows { y in
            let px = buffer.row(y).assumingMemoryBound(to: UInt8.self)
            for x in 0..<width {
                let i = y * width + x
                px[3 * x] = SampleConversion.quantize8(r[i])
                px[3 * x + 1] = SampleConversion.quantize8(g[i])
                px[3 * x + 2] = SampleConversion.quantize8(b[i])
            }
        }
        return n
    }
}
