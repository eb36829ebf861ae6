import RecipeCore

/// Keeps a rectangle of the rows streaming by: rows above it are read and dropped, columns
/// outside it are not copied, and rows below it are never asked for. Exact (bytes are copied).
///
/// ```swift
/// let chain = CropStep(source: decoder, x: 100, y: 50, width: 800, height: 600)
/// ```
public final class CropStep: RowSource {
    public let width: Int
    public let height: Int
    public var format: PixelFormat { source.format }

    private let source: RowSource
    private let x: Int
    private let y: Int
    private var strip: PixelBuffer
    private var stripNext = 0
    private var sourceRow = 0  // rows of the source consumed
    private var produced = 0

    public init(source: RowSource, x: Int, y: Int, width: Int, height: Int) {
        precondition(x >= 0 && y >= 0 && width > 0 && height > 0 && x + width <= source.width && y + height <= source.height,
                     "crop \(width)×\(height) at (\(x), \(y)) is outside \(source.width)×\(source.height)")
        self.source = source
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        strip = PixelBuffer(width: source.width, rowCapacity: Self.stripRows(height: source.height), format: source.format)
    }

    /// Source rows read at a time.
    public static func stripRows(height: Int) -> Int { min(16, height) }

    /// What a crop of `source` holds while it runs (a strip of the source), and its lookahead:
    /// the rows above the rectangle, read before its first row comes out, and a strip.
    public static func footprint(source: (width: Int, height: Int, format: PixelFormat), y: Int) -> (bytes: Int, lookahead: Int) {
        let rows = stripRows(height: source.height)
        return (PixelBuffer.bytes(width: source.width, rowCapacity: rows, format: source.format), min(source.height, y + rows))
    }

    public func readRows(into buffer: PixelBuffer) throws -> Int {
        let bpp = format.bytesPerPixel
        var n = 0
        while n < buffer.rowCapacity && produced < height {
            if stripNext >= strip.rowCount {
                strip.rowCount = 0
                stripNext = 0
                guard try source.readRows(into: strip) > 0 else { preconditionFailure("crop source ended early") }
            }
            let row = sourceRow
            sourceRow += 1
            stripNext += 1
            guard row >= y else { continue }
            let from = strip.row(stripNext - 1)
            if format.sampleType == .float32 {
                // A float row's three planes, each cut to the columns kept.
                let (src, dst, w) = (from.assumingMemoryBound(to: Float.self), buffer.row(n).assumingMemoryBound(to: Float.self), source.width)
                for c in 0..<3 { (dst + c * width).update(from: src + c * w + x, count: width) }
            } else {
                buffer.row(n).copyMemory(from: from + x * bpp, byteCount: width * bpp)
            }
            n += 1
            produced += 1
        }
        buffer.rowCount = n
        buffer.originY = produced - n
        return n
    }
}
