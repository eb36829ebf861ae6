import CKernelsSIMD
import RecipeCore
import RecipeKernels

/// Rotates float RGB rows (linear light) about the image centre (`straighten`), Catmull-Rom bicubic in linear
/// light, clamp-to-edge. A rotated row reads from a band of source rows as tall as the row's
/// slope (W·|sin θ|/s, plus the taps): the step keeps that band and a strip's worth more,
/// in a ring, and makes each output row from an affine start point and step. A small straighten
/// keeps a few hundred rows (−1.5° on photo24, 4000×6000: 154 rows, 1.8 of 72 MB); at 45° the band is
/// most of the image, and never more than all of it.
///
/// ```swift
/// let crop = StraightenStep(source: decoder, angleDegrees: -1.5, fill: .crop,
///                           width: decoder.width, height: decoder.height)
/// let (w, h) = Rotation.expandedSize(width: decoder.width, height: decoder.height, angleDegrees: 5)
/// let expand = StraightenStep(source: decoder, angleDegrees: 5, fill: .expand, width: w, height: h)
/// ```
///
/// `crop` keeps the canvas and scales by `Rotation.cropScale` so no corner is empty (0° gives the
/// input bytes back exactly); `expand` keeps scale 1 on the bounding-box canvas the caller gives,
/// black where the sample position lies outside the source's pixel area.
public final class StraightenStep: RowSource {
    /// How the rotated picture meets the canvas.
    public enum Fill: String, Sendable, CaseIterable {
        /// Same canvas size; scaled up to hide the corners.
        case crop
        /// Canvas grown to the bounding box; scale 1; black corners.
        case expand
    }

    public let width: Int
    public let height: Int
    public let format = PixelFormat(.rgb, .float32)
    /// Source rows kept at once (the whole source height when the band is that tall).
    public let ringRows: Int

    private let source: RowSource
    private let sourceWidth: Int
    private let sourceHeight: Int
    private let map: Rotation.InverseMap
    /// Where the source's first pixel lies on the canvas the map is of (`from`).
    private let originX: Double
    private let originY: Double
    private let edge: Rotation.Edge
    /// The band of source rows, interleaved (the bicubic taps read a pixel's channels side by side).
    private var ring: SourceRing?
    private var next = 0
    /// Splits a strip's output rows over its threads.
    private let pool: WorkerPool?
    /// Output rows made per call at most (the ring is sized for them).
    static let rowsPerCall = 32
    /// Source rows read at a time.
    public static let sourceStripRows = SourceRing.stripRows

    /// `width`×`height` is the output canvas: the source size for `crop`, the bounding box
    /// (`Rotation.expandedSize`) for `expand`. With a `pool`, each strip's rows are split over it
    /// (every row is made the same way by any thread: the bytes do not change).
    ///
    /// `window` keeps only that rectangle of the canvas (in canvas pixels), mirrored left–right
    /// when `mirrored`: the crops and flips after a straighten composed into its map, so only the
    /// kept pixels are made, each from the source position the whole canvas would give it.
    ///
    /// `from` says that the source is only part of the canvas the straighten turns: its corner
    /// (x, y) on a canvas of `width`×`height`. Each output pixel is then made from the same
    /// canvas position (the 1:1 view renders such windows; `sourceWindow` says which part an
    /// output window needs).
    public init(source: RowSource, angleDegrees: Double, fill: Fill, width: Int, height: Int,
                window: (x: Int, y: Int, width: Int, height: Int)? = nil, mirrored: Bool = false,
                from: (x: Int, y: Int, width: Int, height: Int)? = nil, pool: WorkerPool? = nil) {
        precondition(source.format == PixelFormat(.rgb, .float32), "StraightenStep takes float RGB (linear light), not \(source.format)")
        precondition(width > 0 && height > 0, "empty output")
        let canvas = from.map { ($0.width, $0.height) } ?? (source.width, source.height)
        if let from {
            precondition(from.x >= 0 && from.y >= 0 && from.x + source.width <= from.width && from.y + source.height <= from.height,
                         "the source lies outside its canvas")
        }
        if fill == .crop {
            precondition(width == canvas.0 && height == canvas.1, "crop keeps the canvas size")
        }
        let window = window ?? (0, 0, width, height)
        precondition(window.x >= 0 && window.y >= 0 && window.width > 0 && window.height > 0
                     && window.x + window.width <= width && window.y + window.height <= height, "the window lies outside the canvas")
        self.source = source
        self.width = window.width
        self.height = window.height
        self.pool = pool
        sourceWidth = source.width
        sourceHeight = source.height
        map = Self.map(source: canvas, angleDegrees: angleDegrees, fill: fill, width: width, height: height,
                       window: window, mirrored: mirrored)
        originX = Double(from?.x ?? 0)
        originY = Double(from?.y ?? 0)
        edge = fill == .crop ? .clamp : .black
        ringRows = Self.ringRows(map: map, width: window.width, sourceHeight: sourceHeight)
    }

    /// The part of a `source`-sized canvas that the output `window` reads: the bounding box of
    /// its sample positions (the map is affine: its corners bound it) with the bicubic taps
    /// around them (−1…+2) and a pixel more, within the canvas.
    public static func sourceWindow(source: (width: Int, height: Int), angleDegrees: Double, fill: Fill, width: Int, height: Int,
                                    window: (x: Int, y: Int, width: Int, height: Int), mirrored: Bool)
        -> (x: Int, y: Int, width: Int, height: Int) {
        let map = map(source: source, angleDegrees: angleDegrees, fill: fill, width: width, height: height, window: window, mirrored: mirrored)
        let corners = [(0, 0), (window.width - 1, 0), (0, window.height - 1), (window.width - 1, window.height - 1)]
            .map { map.position(column: $0.0, row: $0.1) }
        func low(_ v: Double) -> Int { Int(max(-2, v).rounded(.down)) - 2 }
        func high(_ v: Double) -> Int { Int(min(1e9, v).rounded(.down)) + 4 }
        let x0 = max(0, low(corners.map(\.0).min()!)), x1 = min(source.width, high(corners.map(\.0).max()!))
        let y0 = max(0, low(corners.map(\.1).min()!)), y1 = min(source.height, high(corners.map(\.1).max()!))
        guard x1 > x0, y1 > y0 else { return (0, 0, 1, 1) }  // all outside (black): any pixel serves
        return (x0, y0, x1 - x0, y1 - y0)
    }

    /// Output position → source position for the canvas (and the window of it that is kept).
    private static func map(source: (width: Int, height: Int), angleDegrees: Double, fill: Fill, width: Int, height: Int,
                            window: (x: Int, y: Int, width: Int, height: Int), mirrored: Bool) -> Rotation.InverseMap {
        let scale = fill == .crop ? Rotation.cropScale(width: source.width, height: source.height, angleDegrees: angleDegrees) : 1
        return Rotation.InverseMap(sourceWidth: source.width, sourceHeight: source.height, outputWidth: width,
                                   outputHeight: height, angleDegrees: angleDegrees, scale: scale)
            .window(x: window.x, y: window.y, width: window.width, mirrored: mirrored)
    }

    /// The source rows kept for output rows `width` wide: one output row spans |stepY|·(W − 1)
    /// source rows, plus its taps (−1…+2) and a row for the floor; a call's rows move down by
    /// rowStepY each; a source strip may overshoot.
    private static func ringRows(map: Rotation.InverseMap, width: Int, sourceHeight: Int) -> Int {
        let band = Int((abs(map.stepY) * Double(width - 1)).rounded(.up)) + 5
        let calls = Int((abs(map.rowStepY) * Double(rowsPerCall)).rounded(.up)) + 1
        return min(sourceHeight, band + calls + sourceStripRows)
    }

    /// What a step of these parameters holds while it runs, before it exists (for the memory
    /// estimate): its band of source rows (`ringRows`) and a source strip, float RGB. The band is
    /// also its lookahead: source rows read before an output row comes out.
    public static func footprint(source: (width: Int, height: Int), angleDegrees: Double, fill: Fill, width: Int, height: Int,
                                 window: (x: Int, y: Int, width: Int, height: Int)? = nil,
                                 mirrored: Bool = false) -> (bytes: Int, lookahead: Int) {
        let window = window ?? (0, 0, width, height)
        let map = map(source: source, angleDegrees: angleDegrees, fill: fill, width: width, height: height, window: window, mirrored: mirrored)
        let rows = ringRows(map: map, width: window.width, sourceHeight: source.height)
        return (SourceRing.bytes(width: source.width, rows: rows), rows)
    }

    /// The source rows output row `row` reads: its samples' rows clamped as the kernel clamps
    /// them, with the taps around them, within the image.
    private func sourceRows(ofOutputRow row: Int) -> ClosedRange<Int> {
        let y0 = map.position(column: 0, row: row).1 - originY
        let y1 = y0 + Double(width - 1) * map.stepY
        let lastY = Double(sourceHeight)
        func floorClamped(_ y: Double) -> Int { Int(min(max(y, -1), lastY) + 1) - 1 }
        let lo = max(floorClamped(min(y0, y1)) - 1, 0), hi = min(floorClamped(max(y0, y1)) + 2, sourceHeight - 1)
        return min(lo, hi)...hi
    }

    public func readRows(into buffer: PixelBuffer) throws -> Int {
        guard next < height else { buffer.rowCount = 0; return 0 }
        precondition(buffer.width == width && buffer.format == format, "buffer does not match the step's rows")
        if ring == nil { ring = SourceRing(source: source, rows: ringRows, layout: .interleaved) }
        let n = min(buffer.rowCapacity, height - next, Self.rowsPerCall)
        // Rows move down the source as the output does (rowStepY > 0 for |θ| < 90°), so the
        // call's first row needs the lowest source row and its last row the highest.
        let first = sourceRows(ofOutputRow: next), last = sourceRows(ofOutputRow: next + n - 1)
        try ring!.fill(through: max(first.upperBound, last.upperBound), keeping: min(first.lowerBound, last.lowerBound))
        let image = ring!.buffer
        let map = self.map, edge = self.edge, (sw, sh) = (sourceWidth, sourceHeight), width = self.width
        let base = UnsafeRawPointer(image.baseAddress), stride = image.rowStride, ringRows = self.ringRows
        let top = next, (ox, oy) = (originX, originY)
        let row: (Int) -> Void = { r in
            let (cx, cy) = map.position(column: 0, row: top + r)
            let (x, y) = (cx - ox, cy - oy)
            // Interleaved as the kernel writes them, then the output row's planes.
            withUnsafeTemporaryAllocation(of: Float.self, capacity: 3 * width) { pixels in
                let px = pixels.baseAddress!
                Rotation.resampleRow(
                    image: base, rowStride: stride, width: sw, height: sh, ringRows: ringRows,
                    startX: x, startY: y, stepX: map.stepX, stepY: map.stepY, count: width, edge: edge, into: px)
                let out = buffer.row(r).assumingMemoryBound(to: Float.self)
                rk_deinterleave3f(px, out, out + width, out + 2 * width, Int32(width))
            }
        }
        if let pool { pool.run(count: n, row) } else { for r in 0..<n { row(r) } }
        buffer.rowCount = n
        buffer.originY = next
        next += n
        if next >= height { ring = nil }
        return n
    }
}
