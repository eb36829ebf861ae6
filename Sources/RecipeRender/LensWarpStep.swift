import CKernelsSIMD
import RecipeCore
import RecipeKernels

/// Corrects a lens's distortion and lateral chromatic aberration (`lens`) in one resampling of
/// the source: each output pixel's red, green and blue are sampled (Catmull-Rom bicubic, linear
/// light) where `LensGeometry` says the lens put them. The straighten, crops and flips after the
/// correction are composed into the same map (`place`: output pixel → position on the corrected
/// canvas), so the photo is interpolated once.
///
/// ```swift
/// let g = LensGeometry(calibration: c, cameraCropFactor: 1.5, width: 6000, height: 4000).with(scale: 1.01)
/// let step = LensWarpStep(source: decoder, geometry: g, width: 6000, height: 4000)
/// ```
///
/// It streams: the rows an output row reads form a band as tall as the distortion bends a row
/// (the top row of a barrel correction dips towards the middle), found from the map before the
/// first row, and the step keeps that band and a strip more in a ring of planar rows.
public final class LensWarpStep: RowSource {
    public let width: Int
    public let height: Int
    public let format = PixelFormat(.rgb, .float32)
    /// Source rows kept at once.
    public let ringRows: Int

    private let source: RowSource
    private let sourceWidth: Int
    private let sourceHeight: Int
    private var map: rk_lens_map
    private let place: Rotation.InverseMap
    /// The band of source rows, planar as the rows come.
    private var ring: SourceRing?
    /// The source positions of a call's output rows (`rk_lens_map_row`'s six floats a pixel).
    private var positions: [Float] = []
    private var next = 0
    private let pool: WorkerPool?
    /// Output rows made per call at most.
    static let rowsPerCall = 16
    /// Source rows read at a time.
    public static let sourceStripRows = SourceRing.stripRows

    /// `geometry` is laid on the source's canvas; `place` maps output pixels onto that canvas
    /// (nil: the identity, the output the source's size).
    public init(source: RowSource, geometry: LensGeometry, place: Rotation.InverseMap? = nil, width: Int, height: Int,
                pool: WorkerPool? = nil) {
        precondition(source.format == PixelFormat(.rgb, .float32), "LensWarpStep takes float RGB (linear light), not \(source.format)")
        precondition(geometry.width == source.width && geometry.height == source.height, "the lens geometry is of another canvas")
        precondition(width > 0 && height > 0, "empty output")
        self.source = source
        self.width = width
        self.height = height
        self.pool = pool
        sourceWidth = source.width
        sourceHeight = source.height
        map = geometry.kernelMap
        self.place = place ?? Self.identity(width: width, height: height)
        ringRows = Self.ringRows(map: map, place: self.place, width: width, height: height, sourceHeight: source.height)
    }

    static func identity(width: Int, height: Int) -> Rotation.InverseMap {
        Rotation.InverseMap(sourceWidth: width, sourceHeight: height, outputWidth: width, outputHeight: height, angleDegrees: 0, scale: 1)
    }

    /// The source rows (lowest, highest) that output row `row` reads, from its positions at
    /// `columns` spread over the row (the map is smooth: a few dozen bound it to a row).
    private static func rowSpan(map: inout rk_lens_map, place: Rotation.InverseMap, row: Int, width: Int, columns: Int) -> (Double, Double) {
        let step = max(1, (width - 1) / max(columns - 1, 1))
        var xs = Array(stride(from: 0, to: width, by: step))
        if xs.last != width - 1 { xs.append(width - 1) }
        var lo = Double.infinity, hi = -Double.infinity
        var out = [Float](repeating: 0, count: 6)
        for x in xs {
            let (px, py) = place.position(column: x, row: row)
            _ = rk_lens_map_row(&map, px, py, 1, 0, 1, &out)
            for c in 0..<3 {
                let y = Double(out[2 * c + 1])
                if y.isFinite { lo = min(lo, y); hi = max(hi, y) }
            }
        }
        return (lo, hi)
    }

    /// The source rows kept: the tallest band any output row reads (every 4th row measured, at
    /// 65 columns), what a call's rows add to it, the bicubic taps and a source strip.
    private static func ringRows(map: rk_lens_map, place: Rotation.InverseMap, width: Int, height: Int, sourceHeight: Int) -> Int {
        var m = map
        var band = 0.0, drift = 0.0
        var previous: (Double, Double)?
        for row in Swift.stride(from: 0, to: height, by: 4) + (height % 4 == 1 ? [] : [height - 1]) {
            let (lo, hi) = rowSpan(map: &m, place: place, row: row, width: width, columns: 65)
            guard lo.isFinite, hi.isFinite else { continue }
            band = max(band, min(hi, Double(sourceHeight)) - max(lo, -1))
            if let previous { drift = max(drift, (hi - previous.1) / 4, (lo - previous.0) / 4) }
            previous = (lo, hi)
        }
        let rows = Int(band.rounded(.up)) + Int((drift * Double(rowsPerCall)).rounded(.up)) + 8 + sourceStripRows
        return min(sourceHeight, max(rows, 8))
    }

    /// What a step of this geometry holds while it runs (for the memory estimate): its ring, a
    /// source strip and a call's positions.
    public static func footprint(geometry: LensGeometry, place: Rotation.InverseMap?, width: Int, height: Int) -> (bytes: Int, lookahead: Int) {
        let place = place ?? identity(width: width, height: height)
        let rows = ringRows(map: geometry.kernelMap, place: place, width: width, height: height, sourceHeight: geometry.height)
        return (SourceRing.bytes(width: geometry.width, rows: rows) + 24 * width * rowsPerCall, rows)
    }

    public func readRows(into buffer: PixelBuffer) throws -> Int {
        guard next < height else { buffer.rowCount = 0; return 0 }
        precondition(buffer.width == width && buffer.format == format, "buffer does not match the step's rows")
        if ring == nil {
            ring = SourceRing(source: source, rows: ringRows, layout: .planar)
            positions = [Float](repeating: 0, count: 6 * width * Self.rowsPerCall)
        }
        let n = min(buffer.rowCapacity, height - next, Self.rowsPerCall)
        // The positions of the call's rows (in parallel: a row's map is independent), and the
        // source rows they reach.
        let top = next, width = self.width, place = self.place
        var map = self.map
        let lowest = withUnsafeTemporaryAllocation(of: Double.self, capacity: n) { reach -> Double in
            positions.withUnsafeMutableBufferPointer { p in
                let base = p.baseAddress!, reachBase = reach.baseAddress!
                withUnsafePointer(to: &map) { m in
                    let row: (Int) -> Void = { r in
                        let (x0, y0) = place.position(column: 0, row: top + r)
                        reachBase[r] = rk_lens_map_row(m, x0, y0, place.stepX, place.stepY, Int32(width), base + 6 * width * r)
                    }
                    if let pool { pool.run(count: n, row) } else { for r in 0..<n { row(r) } }
                }
            }
            return reach.prefix(n).max() ?? -.infinity
        }
        let last = lowest.isFinite ? min(Int(max(lowest, -1).rounded(.down)) + 2, sourceHeight - 1) : sourceHeight - 1
        let ring = self.ring!
        try ring.fill(through: last)
        // The ring holds rows read − rows … read − 1; taps outside are clamped into it.
        let firstHeld = Int32(max(0, ring.read - ringRows)), lastHeld = Int32(ring.read - 1)
        let image = UnsafeRawPointer(ring.buffer.baseAddress), stride = ring.buffer.rowStride
        let (sw, sh, ringRows) = (Int32(sourceWidth), Int32(sourceHeight), Int32(self.ringRows))
        positions.withUnsafeBufferPointer { p in
            let base = p.baseAddress!
            let row: (Int) -> Void = { r in
                rk_warp_row(image, stride, sw, sh, ringRows, firstHeld, lastHeld, base + 6 * width * r, Int32(width),
                            buffer.row(r).assumingMemoryBound(to: Float.self))
            }
            if let pool { pool.run(count: n, row) } else { for r in 0..<n { row(r) } }
        }
        buffer.rowCount = n
        buffer.originY = next
        next += n
        if next >= height { self.ring = nil; positions = [] }
        return n
    }
}
