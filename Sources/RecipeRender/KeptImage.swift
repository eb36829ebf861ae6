import RecipeCore

/// A whole image held in memory and handed out as rows again and again (`rewind`): what a
/// render that encodes its result several times keeps (`--max-bytes` tries qualities).
///
/// ```swift
/// let kept = try KeptImage(reading: chain)
/// for q in [90, 80] { kept.rewind(); try encode(kept, quality: q) }
/// ```
public final class KeptImage: RowSource {
    public var width: Int { pixels.width }
    public let height: Int
    public var format: PixelFormat { pixels.format }

    private let pixels: PixelBuffer
    private var next = 0

    /// Reads every row of `source`.
    public init(reading source: RowSource, deadline: UInt64? = nil) throws {
        height = source.height
        pixels = PixelBuffer(width: source.width, rowCapacity: max(1, source.height), format: source.format)
        let strip = PixelBuffer(width: source.width, rowCapacity: 64, format: source.format)
        var y = 0
        while y < height {
            if let deadline, Timeout.now() > deadline { throw Timeout() }
            let n = try source.readRows(into: strip)
            guard n > 0 else { break }
            for i in 0..<n { pixels.row(y + i).copyMemory(from: strip.row(i), byteCount: strip.rowBytes) }
            y += n
        }
        pixels.rowCount = y
    }

    /// What keeping an image of `width`×`height` in `format` holds.
    public static func bytes(width: Int, height: Int, format: PixelFormat) -> Int {
        PixelBuffer.bytes(width: width, rowCapacity: max(1, height), format: format)
    }

    /// Starts again from the first row.
    public func rewind() { next = 0 }

    public func readRows(into buffer: PixelBuffer) throws -> Int {
        let n = min(buffer.rowCapacity, pixels.rowCount - next)
        guard n > 0 else { return 0 }
        for i in 0..<n { buffer.row(i).copyMemory(from: pixels.row(next + i), byteCount: buffer.rowBytes) }
        buffer.rowCount = n
        buffer.originY = next
        next += n
        return n
    }
}
