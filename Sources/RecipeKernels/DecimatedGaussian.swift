import CKernelsSIMD
/// A wide Gaussian (σ of tens of pixels) computed on a grid `factor` times coarser, streaming:
/// the rows are box-averaged into blocks of `factor`×`factor`, the block image is blurred with
/// the sampled Gaussian of σ/factor (less what the box and the interpolation add), and each
/// output row is interpolated back bilinearly. The direct blur costs 2·(2·3.72σ + 1) multiply-adds
/// per value (clarity on a 6000×4000 photo, σ 80: 597 taps a pass); this costs a handful, and
/// the window it keeps is as tall as the direct one's.
///
/// Written by hand: no library here does a streaming, clamp-to-edge Gaussian (libvips' own
/// `gaussblur` is the direct sum, 12 s at σ 60 on 24 MP).
///
/// Edges: the blocks are those of the clamp-extended image (a partial last block repeats the last
/// pixel), and the coarse grid carries one block of padding on every side that holds the edge
/// pixels themselves (the average of the edge column or row over the block), so the coarse blur's
/// own clamp-to-edge extends the image as the direct blur does, pixel by pixel, not by the mean
/// of the outermost block.
///
/// Accuracy against the direct sampled Gaussian (`GaussianBlur.taps`), from `factor = σ / 8`:
/// within a few thousandths of the signal's range at sharp steps and well below that on photos
/// (DecimatedGaussianTests states the bounds).
///
/// ```swift
/// let g = DecimatedGaussian(width: 6000, height: 4000, planes: 1, sigma: 80)!   // factor 10
/// for y in 0..<4000 {
///     while g.rowsPushed < min(g.rowsNeeded(forOutput: y), 4000) { g.push(nextRow()) }
///     g.blurredRow(y, into: out)
/// }
/// ```
public final class DecimatedGaussian {
    /// The coarse σ a decimation aims for: the factor is ⌊σ / coarseSigma⌋.
    public static let coarseSigma = 8.0

    /// The factor for `sigma`, or nil when it would be below 2 or the kernel is band-limited (the
    /// direct blur is used). BlurStage and `recipe explain` both decide by it.
    public static func factor(sigma: Double, kernel: GaussianBlur.Kernel = .sampled,
                              coarseSigma: Double = DecimatedGaussian.coarseSigma) -> Int? {
        guard kernel == .sampled, sigma.isFinite, coarseSigma > 0 else { return nil }
        let d = Int((sigma / coarseSigma).rounded(.down))
        return d >= 2 ? d : nil
    }

    public let width: Int
    public let height: Int
    public let planes: Int
    public let factor: Int
    /// Fine rows pushed so far.
    public private(set) var rowsPushed = 0

    /// Coarse columns with the two padding columns, coarse rows with the two padding rows.
    private let coarseWidth: Int
    private let coarseHeight: Int
    private let taps: [Float]
    private let radius: Int
    /// Horizontally blurred coarse rows (`planes · coarseWidth` floats) by coarse row mod `ringSize`.
    private let ring: UnsafeMutablePointer<Float>
    private let ringSize: Int
    /// Coarse rows finished (horizontally blurred) so far, counting the top padding row.
    private var coarseDone = 0
    /// Block sums of the rows of the current block row.
    private let sums: UnsafeMutablePointer<Float>
    private var rowsInBlock = 0
    /// Scratch: one coarse row before the horizontal pass, and its padded copy.
    private let coarseRow: UnsafeMutablePointer<Float>
    private let padded: UnsafeMutablePointer<Float>
    /// Two vertically blurred coarse rows and which rows they are (−1: none).
    private let vertical: UnsafeMutablePointer<Float>
    private var verticalCached = [-1, -1]
    private let windowRows: UnsafeMutablePointer<UnsafePointer<Float>>
    private let mixed: UnsafeMutablePointer<Float>
    /// Per output column: the left coarse column and the weight of the right one.
    private let column: [Int32]
    private let columnWeight: [Float]
    /// The last fine row pushed (the bottom padding repeats it).
    private let lastRow: UnsafeMutablePointer<Float>
    /// The fine rows of the block being gathered, added up column by column (each times its
    /// weight); their block sums are taken once a block is complete (`finishCoarseRow`).
    private let columnSums: UnsafeMutablePointer<Float>

    /// Nil when `sigma` gives a factor below 2 (see `factor(sigma:)`) or the image is empty.
    public init?(width: Int, height: Int, planes: Int, sigma: Double, kernel: GaussianBlur.Kernel = .sampled,
                 coarseSigma: Double = DecimatedGaussian.coarseSigma) {
        guard width > 0, height > 0, planes > 0, let d = Self.factor(sigma: sigma, kernel: kernel, coarseSigma: coarseSigma)
        else { return nil }
        self.width = width
        self.height = height
        self.planes = planes
        factor = d
        coarseWidth = (width + d - 1) / d + 2
        coarseHeight = (height + d - 1) / d + 2
        taps = Self.coarseTaps(sigma: sigma, factor: d)
        radius = taps.count / 2
        ringSize = 2 * radius + 4
        let row = planes * coarseWidth
        ring = .allocate(capacity: ringSize * row)
        sums = .allocate(capacity: row)
        sums.initialize(repeating: 0, count: row)
        coarseRow = .allocate(capacity: row)
        padded = .allocate(capacity: coarseWidth + taps.count + 8)
        vertical = .allocate(capacity: 2 * row)
        windowRows = .allocate(capacity: taps.count)
        mixed = .allocate(capacity: row + 8)  // + 8: rk_coarse_lerp reads eight samples at a time
        mixed.initialize(repeating: 0, count: row + 8)
        lastRow = .allocate(capacity: planes * width)
        columnSums = .allocate(capacity: planes * width)
        columnSums.initialize(repeating: 0, count: planes * width)
        var column: [Int32] = [], weight: [Float] = []
        for x in 0..<width {
            // Fine pixel x sits at (x + ½)/d − ½ on the coarse grid, one more with the padding.
            let position = (Double(x) + 0.5) / Double(d) + 0.5
            let left = Int(position.rounded(.down))
            column.append(Int32(left))
            weight.append(Float(position - Double(left)))
        }
        self.column = column
        columnWeight = weight
    }

    deinit {
        ring.deallocate()
        sums.deallocate()
        coarseRow.deallocate()
        padded.deallocate()
        vertical.deallocate()
        windowRows.deallocate()
        mixed.deallocate()
        lastRow.deallocate()
        columnSums.deallocate()
    }

    /// Fine rows that must have been pushed before `blurredRow(y)` (capped at `height`).
    public func rowsNeeded(forOutput y: Int) -> Int {
        Self.rowsNeeded(forOutput: y, height: height, factor: factor, radius: radius)
    }

    static func rowsNeeded(forOutput y: Int, height: Int, factor: Int, radius: Int) -> Int {
        let (below, _) = coarsePosition(y, factor: factor)
        // Coarse row c (with padding) holds fine rows (c − 1)·d ..< c·d; the vertical blur of
        // row below + 1 reads up to below + 1 + radius.
        let c = below + 1 + radius
        let coarseHeight = (height + factor - 1) / factor + 2
        return c >= coarseHeight - 1 ? height : min(height, c * factor)
    }

    /// The coarse row above fine row `y` (with padding) and the weight of the one below it.
    private func coarsePosition(_ y: Int) -> (Int, Float) { Self.coarsePosition(y, factor: factor) }

    private static func coarsePosition(_ y: Int, factor: Int) -> (Int, Float) {
        let position = (Double(y) + 0.5) / Double(factor) + 0.5
        let above = Int(position.rounded(.down))
        return (above, Float(position - Double(above)))
    }

    /// The coarse blur's taps for `sigma` on a grid `factor` times coarser: what the box
    /// (variance (d² − 1)/12) and the linear interpolation back (on average d²/12 more: it is
    /// exact at the coarse samples and smooths most half-way between them) add is taken off the
    /// coarse blur's variance, in coarse pixels.
    static func coarseTaps(sigma: Double, factor d: Int) -> [Float] {
        let dd = Double(d * d)
        let added = ((dd - 1) / 12 + dd / 12) / dd
        return GaussianBlur.taps(sigma: (sigma * sigma / dd - added).squareRoot())
    }

    /// What a coarse blur of these dimensions holds, before one exists (for memory estimates):
    /// the bytes of its buffers as `init` allocates them, and `lag`, the most fine rows an output
    /// row waits for beyond itself (`rowsNeeded(forOutput: y) − y`), which a stage around it keeps
    /// its originals for. Nil where `init` is nil.
    public static func footprint(width: Int, height: Int, planes: Int, sigma: Double, kernel: GaussianBlur.Kernel = .sampled,
                                 coarseSigma: Double = DecimatedGaussian.coarseSigma) -> (bytes: Int, lag: Int)? {
        guard width > 0, height > 0, planes > 0, let d = factor(sigma: sigma, kernel: kernel, coarseSigma: coarseSigma) else { return nil }
        let taps = coarseTaps(sigma: sigma, factor: d).count, radius = taps / 2
        let coarseWidth = (width + d - 1) / d + 2, row = planes * coarseWidth
        // ring, sums, coarseRow, vertical (2), mixed; padded; lastRow, columnSums; windowRows; column + columnWeight.
        let floats = (2 * radius + 4) * row + 5 * row + (coarseWidth + taps + 8) + 2 * planes * width + 8
        let bytes = 4 * floats + 8 * taps + (4 + 4) * width
        var lag = 0
        for y in 0..<height { lag = max(lag, rowsNeeded(forOutput: y, height: height, factor: d, radius: radius) - y) }
        return (bytes, lag)
    }

    /// The next fine row: `planes` planes of `width` floats.
    public func push(_ row: UnsafePointer<Float>) {
        precondition(rowsPushed < height, "more rows than the image has")
        if rowsPushed == 0 {
            // The top padding row: the first row's blocks, as if it were repeated d times.
            addRow(row, times: Float(factor))
            finishCoarseRow()
        }
        addRow(row, times: 1)
        rowsInBlock += 1
        rowsPushed += 1
        if rowsPushed == height {
            // The last block row repeats the last row (clamp to edge), then the bottom padding
            // row is that row alone.
            if rowsInBlock < factor { addRow(row, times: Float(factor - rowsInBlock)) }
            finishCoarseRow()
            addRow(row, times: Float(factor))
            finishCoarseRow()
        } else if rowsInBlock == factor {
            finishCoarseRow()
        }
    }

    /// Adds `times` × `row` to the block's column sums (`rk_axpy`: eight columns a step). The
    /// rows are added up first and the columns once a block (d rows) is complete: d times fewer
    /// horizontal sums than summing each row's blocks (scalar), the same sums in another order.
    private func addRow(_ row: UnsafePointer<Float>, times: Float) {
        rk_axpy(columnSums, row, times, Int32(planes * width))
    }

    /// The block's column sums summed over each block of d columns into `sums` (the edge pixels,
    /// d wide, into the padding columns), and cleared for the next block.
    private func blockSums() {
        let d = factor, blocks = coarseWidth - 2
        for p in 0..<planes {
            let src = UnsafePointer(columnSums + p * width), dst = sums + p * coarseWidth
            dst[0] = Float(d) * src[0]
            for b in 0..<blocks {
                let start = b * d, end = min(start + d, width)
                var s: Float = 0
                for x in start..<end { s += src[x] }
                s += Float(start + d - end) * src[width - 1]
                dst[b + 1] = s
            }
            dst[coarseWidth - 1] = Float(d) * src[width - 1]
        }
        columnSums.update(repeating: 0, count: planes * width)
    }

    /// The block sums as the next coarse row: averaged, blurred horizontally, into the ring.
    private func finishCoarseRow() {
        blockSums()
        let row = planes * coarseWidth
        let scale = 1 / Float(factor * factor)
        for i in 0..<row { coarseRow[i] = sums[i] * scale }
        rowsInBlock = 0
        let slot = ring + (coarseDone % ringSize) * row
        taps.withUnsafeBufferPointer { taps in
            for p in 0..<planes {
                GaussianBlur.horizontal(coarseRow + p * coarseWidth, slot + p * coarseWidth, width: coarseWidth,
                                        taps: taps, padded: padded)
            }
        }
        coarseDone += 1
    }

    /// Vertically blurred coarse row `c` (with padding), from the ring, cached two at a time.
    private func verticalRow(_ c: Int, avoiding other: Int) -> UnsafePointer<Float> {
        let row = planes * coarseWidth
        if let slot = verticalCached.firstIndex(of: c) { return UnsafePointer(vertical + slot * row) }
        let slot = verticalCached[0] == other ? 1 : 0
        let last = coarseHeight - 1
        precondition(min(c + radius, last) < coarseDone && c - radius >= coarseDone - ringSize,
                     "coarse row \(c) is not in the window")
        for k in 0..<taps.count {
            let r = min(max(c + k - radius, 0), last)
            windowRows[k] = UnsafePointer(ring + (r % ringSize) * row)
        }
        taps.withUnsafeBufferPointer { taps in
            GaussianBlur.vertical(rows: windowRows, taps: taps, into: vertical + slot * row, lineStride: row,
                                  rowCount: 1, columns: 0..<row)
        }
        verticalCached[slot] = c
        return UnsafePointer(vertical + slot * row)
    }

    /// Blurred fine row `y` (in order, once `rowsNeeded(forOutput: y)` rows are pushed) into
    /// `out`: `planes` planes of `width` floats.
    public func blurredRow(_ y: Int, into out: UnsafeMutablePointer<Float>) {
        precondition(rowsPushed >= rowsNeeded(forOutput: y), "row \(y) needs more input")
        let (above, t) = coarsePosition(y)
        let a = verticalRow(above, avoiding: above + 1), b = verticalRow(above + 1, avoiding: above)
        let row = planes * coarseWidth
        for i in 0..<row { mixed[i] = a[i] + t * (b[i] - a[i]) }
        column.withUnsafeBufferPointer { column in
            columnWeight.withUnsafeBufferPointer { weight in
                for p in 0..<planes {
                    // dst[x] = src[l] + weight[x]·(src[l + 1] − src[l]), l = column[x], in C
                    // (`rk_coarse_lerp`: a permute of eight samples in place of the lookups).
                    rk_coarse_lerp(mixed + p * coarseWidth, column.baseAddress!, weight.baseAddress!, out + p * width, Int32(width))
                }
            }
        }
    }
}
