import CKernelsSIMD
import RecipeCore

/// A band of a source's float RGB rows kept in a ring: source row y in slot y mod `rows`, read
/// from the source a strip at a time as far down as a resampling step asks. The straighten and
/// the lens correction keep the rows their output rows read in one.
///
/// ```swift
/// let ring = SourceRing(source: decoder, rows: 154, layout: .interleaved)
/// try ring.fill(through: 40)        // rows 0…40 (and the rest of their strip) are in
/// ring.buffer.row(17 % ring.rows)   // source row 17
/// ```
final class SourceRing {
    /// How the ring holds a row: as the source's planes, or with each pixel's three channels side
    /// by side (the straighten's taps read a pixel's channels at once).
    enum Layout { case planar, interleaved }

    let rows: Int
    let buffer: PixelBuffer
    /// Source rows read so far: the ring holds rows `read − rows` … `read − 1`.
    private(set) var read = 0
    private let source: RowSource
    private let strip: PixelBuffer
    private let layout: Layout

    /// Source rows read at a time.
    static let stripRows = 16

    init(source: RowSource, rows: Int, layout: Layout) {
        precondition(source.format == PixelFormat(.rgb, .float32), "a ring holds float RGB rows, not \(source.format)")
        self.source = source
        self.rows = rows
        self.layout = layout
        buffer = PixelBuffer(width: source.width, rowCapacity: rows, format: source.format)
        strip = PixelBuffer(width: source.width, rowCapacity: Self.stripRows, format: source.format)
    }

    /// The bytes a ring of `rows` rows `width` wide holds, with its strip.
    static func bytes(width: Int, rows: Int) -> Int {
        let float = PixelFormat(.rgb, .float32)
        return PixelBuffer.bytes(width: width, rowCapacity: rows, format: float) + PixelBuffer.bytes(width: width, rowCapacity: stripRows, format: float)
    }

    /// Reads source rows until row `last` is in (or the source ends); `keep`, when given, is the
    /// first row still needed: a strip that would overwrite it is a bug of the ring's size.
    func fill(through last: Int, keeping keep: Int? = nil) throws {
        let height = source.height, width = source.width
        while read <= last && read < height {
            let n = try source.readRows(into: strip)
            precondition(n > 0, "source ended after \(read) of \(height) rows")
            if let keep { precondition(read + n - rows <= keep || rows == height, "the band outgrew its ring") }
            for i in 0..<n {
                let to = buffer.row((read + i) % rows)
                switch layout {
                case .planar:
                    to.copyMemory(from: strip.row(i), byteCount: strip.rowBytes)
                case .interleaved:
                    let p = strip.row(i).assumingMemoryBound(to: Float.self)
                    rk_interleave3f(p, p + width, p + 2 * width, to.assumingMemoryBound(to: Float.self), Int32(width))
                }
            }
            read += n
        }
    }
}
