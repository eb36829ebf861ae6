import RecipeCore
import RecipeKernels

/// Rotates 8-bit RGB rows about the image centre (`straighten`), Catmull-Rom bicubic in linear
/// light, clamp-to-edge. A rotated row reads from many source rows, so the step holds the whole
/// input image once, 8-bit (3 bytes a pixel, like `OrientStep`), and makes each output row on
/// demand from an affine start point and step.
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
    public let format = PixelFormat(.rgb, .uint8)

    private let source: RowSource
    private let sourceWidth: Int
    private let sourceHeight: Int
    private let map: Rotation.InverseMap
    private let edge: Rotation.Edge
    private var whole: PixelBuffer?
    private var next = 0

    /// `width`×`height` is the output canvas: the source size for `crop`, the bounding box
    /// (`Rotation.expandedSize`) for `expand`.
    public init(source: RowSource, angleDegrees: Double, fill: Fill, width: Int, height: Int) {
        precondition(source.format == PixelFormat(.rgb, .uint8), "StraightenStep takes 8-bit RGB, not \(source.format)")
        precondition(width > 0 && height > 0, "empty output")
        if fill == .crop {
            precondition(width == source.width && height == source.height, "crop keeps the canvas size")
        }
        self.source = source
        self.width = width
        self.height = height
        sourceWidth = source.width
        sourceHeight = source.height
        let scale = fill == .crop ? Rotation.cropScale(width: source.width, height: source.height, angleDegrees: angleDegrees) : 1
        map = Rotation.InverseMap(sourceWidth: source.width, sourceHeight: source.height, outputWidth: width,
                                  outputHeight: height, angleDegrees: angleDegrees, scale: scale)
        edge = fill == .crop ? .clamp : .black
    }

    /// Reads every source row into one buffer.
    private func readWhole() throws -> PixelBuffer {
        let all = PixelBuffer(width: sourceWidth, rowCapacity: sourceHeight, format: format)
        let strip = PixelBuffer(width: sourceWidth, rowCapacity: 32, format: format)
        var y = 0
        while y < sourceHeight {
            let n = try source.readRows(into: strip)
            precondition(n > 0, "source ended after \(y) of \(sourceHeight) rows")
            for i in 0..<n { all.row(y + i).copyMemory(from: strip.row(i), byteCount: strip.rowBytes) }
            y += n
        }
        all.rowCount = y
        return all
    }

    public func readRows(into buffer: PixelBuffer) throws -> Int {
        guard next < height else { buffer.rowCount = 0; return 0 }
        precondition(buffer.width == width && buffer.format == format, "buffer does not match the step's rows")
        let image: PixelBuffer
        if let whole { image = whole } else { image = try readWhole(); whole = image }
        let n = min(buffer.rowCapacity, height - next)
        let map = self.map, edge = self.edge, (sw, sh) = (sourceWidth, sourceHeight), width = self.width
        let base = UnsafeRawPointer(image.baseAddress), stride = image.rowStride
        for r in 0..<n {
            let (x, y) = map.position(column: 0, row: next + r)
            Rotation.resampleRow(
                image: base, rowStride: stride, width: sw, height: sh,
                startX: x, startY: y, stepX: map.stepX, stepY: map.stepY, count: width, edge: edge,
                into: buffer.row(r).assumingMemoryBound(to: UInt8.self))
        }
        buffer.rowCount = n
        buffer.originY = next
        next += n
        if next >= height { whole = nil }
        return n
    }
}
