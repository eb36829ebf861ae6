import RecipeCore
import RecipeKernels

/// Makes the rows upright (EXIF orientation). Orientation 2 streams (each row mirrored); the
/// others need every stored row before the first upright one, so they hold the whole image once,
/// at the decoded size (a display render holds the DCT-reduced image, not the full one).
public final class OrientStep: RowSource {
    public let width: Int
    public let height: Int
    public var format: PixelFormat { source.format }

    private let source: RowSource
    private let orientation: Orientation
    private var whole: PixelBuffer?
    private var scratch: PixelBuffer?
    private var next = 0

    public init(source: RowSource, orientation: Orientation) {
        self.source = source
        self.orientation = orientation
        (width, height) = orientation.orientedSize(width: source.width, height: source.height)
    }

    /// What a step turning `source` by `orientation` holds while it runs, before it exists (for
    /// the memory estimate): the whole image and a strip, or for a left–right mirror a strip of
    /// `stripRows`. `lookahead`: source rows read before its first row comes out.
    public static func footprint(source: (width: Int, height: Int, format: PixelFormat), orientation: Orientation,
                                 stripRows: Int) -> (bytes: Int, lookahead: Int) {
        if orientation == .up { return (0, 0) }
        if orientation == .upMirrored {
            return (PixelBuffer.bytes(width: source.width, rowCapacity: stripRows, format: source.format), stripRows)
        }
        return (PixelBuffer.bytes(width: source.width, rowCapacity: source.height, format: source.format)
                + PixelBuffer.bytes(width: source.width, rowCapacity: gatherRows, format: source.format), source.height)
    }

    /// Source rows read at a time while the whole image is gathered.
    public static let gatherRows = 32

    public func readRows(into buffer: PixelBuffer) throws -> Int {
        guard next < height else { buffer.rowCount = 0; return 0 }
        if orientation == .upMirrored {
            if scratch == nil { scratch = PixelBuffer(width: source.width, rowCapacity: buffer.rowCapacity, format: format) }
            let n = try source.readRows(into: scratch!)
            for i in 0..<n {
                Orient.mirrorRow(scratch!.row(i), buffer.row(i), width: width, format: format)
            }
            buffer.rowCount = n
            buffer.originY = next
            next += n
            return n
        }
        if whole == nil {
            let all = PixelBuffer(width: source.width, rowCapacity: source.height, format: format)
            let strip = PixelBuffer(width: source.width, rowCapacity: Self.gatherRows, format: format)
            var y = 0
            while y < source.height {
                let n = try source.readRows(into: strip)
                guard n > 0 else { break }
                for i in 0..<n { all.row(y + i).copyMemory(from: strip.row(i), byteCount: strip.rowBytes) }
                y += n
            }
            all.rowCount = y
            whole = all
        }
        let n = min(buffer.rowCapacity, height - next)
        for i in 0..<n { Orient.uprightRow(next + i, of: whole!, orientation: orientation, into: buffer.row(i)) }
        buffer.rowCount = n
        buffer.originY = next
        next += n
        if next >= height { whole = nil }
        return n
    }
}
