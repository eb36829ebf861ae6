import RecipeCore
import RecipeKernels

/// Blends a second stream of float RGB rows (`top`, the stage named by `with`) over this stage's
/// input (`base`) with a W3C separable blend mode on the encoded values (both streams arrive
/// encoded), mixed by opacity: `cb + (B(cb, cs) − cb)·opacity`. Both streams are read row for
/// row; memory is one strip of `top`.
///
/// ```swift
/// let soft = BlendStage(base: input, top: blurred, mode: .softLight, opacity: 0.5)
/// ```
public final class BlendStage: RowSource {
    public let width: Int
    public let height: Int
    public let format = PixelFormat(.rgb, .float32)

    private let base: RowSource
    private let top: RowSource
    private let mode: BlendMode
    private let opacity: Float
    private let topStrip: PixelBuffer
    private var topAvailable = 0
    private var topNext = 0
    private var produced = 0

    public init(base: RowSource, top: RowSource, mode: BlendMode, opacity: Float) {
        let rgbF = PixelFormat(.rgb, .float32)
        precondition(base.format == rgbF && top.format == rgbF, "BlendStage takes float RGB, not \(base.format) and \(top.format)")
        precondition(base.width == top.width && base.height == top.height,
                     "blend needs images of one size, not \(base.width)×\(base.height) and \(top.width)×\(top.height)")
        precondition(opacity >= 0 && opacity <= 1, "opacity out of 0…1")
        self.base = base
        self.top = top
        width = base.width
        height = base.height
        self.mode = mode
        self.opacity = opacity
        topStrip = PixelBuffer(width: base.width, rowCapacity: Self.topRows, format: rgbF)
    }

    /// What a blend of `width`-pixel rows holds while it runs: a strip of the top image (its
    /// lookahead on the top stream, in rows).
    public static func footprint(width: Int) -> (bytes: Int, lookahead: Int) {
        (PixelBuffer.bytes(width: width, rowCapacity: topRows, format: PixelFormat(.rgb, .float32)), topRows)
    }

    static let topRows = 16

    public func readRows(into buffer: PixelBuffer) throws -> Int {
        guard produced < height else { buffer.rowCount = 0; return 0 }
        precondition(buffer.width == width && buffer.format == format, "buffer does not match the stage's rows")
        // The base rows land in the output buffer and are blended there in place; the top rows
        // come from a strip of their own, which may be cut at other row counts.
        let n = try base.readRows(into: buffer)
        precondition(n > 0, "base ended after \(produced) of \(height) rows")
        let count = 3 * width
        for r in 0..<n {
            if topNext >= topAvailable {
                topAvailable = try top.readRows(into: topStrip)
                topNext = 0
                precondition(topAvailable > 0, "top ended after \(produced + r) of \(height) rows")
            }
            let row = buffer.row(r).assumingMemoryBound(to: Float.self)
            BlendMode.blendRow(base: row, top: topStrip.row(topNext).assumingMemoryBound(to: Float.self), into: row,
                               count: count, mode: mode, opacity: opacity)
            topNext += 1
        }
        buffer.rowCount = n
        buffer.originY = produced
        produced += n
        return n
    }
}
