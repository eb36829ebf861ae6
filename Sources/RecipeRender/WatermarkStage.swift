import RecipeCore

/// Lays a watermark over streaming float RGB rows: `out = v·(1 − α·opacity) + c·opacity`, with
/// the mark's colour `c` premultiplied by its alpha `α` (Porter–Duff "over", the mark's alpha
/// scaled by the opacity, as ImageMagick's `composite -dissolve`). The rows and the mark are
/// encoded values of the output's colour space, as a logo's alpha edges are drawn for: the rows
/// outside the mark pass through untouched, the mark's rows are blended as they stream by. The
/// rows are planar (`PixelFormat`: a row's reds, then its greens, then its blues).
///
/// ```swift
/// let mark = WatermarkStage.Mark(width: 2, height: 1, premultiplied: [1, 1, 1, 1, 0, 0, 0, 0])
/// let chain = WatermarkStage(source: rows, mark: mark, x: 100, y: 80, opacity: 0.7)
/// ```
public final class WatermarkStage: RowSource {
    /// The mark: `width`×`height` pixels of premultiplied r, g, b, α floats (0…1), row by row.
    public struct Mark: Sendable {
        public let width: Int
        public let height: Int
        public let premultiplied: [Float]

        public init(width: Int, height: Int, premultiplied: [Float]) {
            precondition(premultiplied.count == width * height * 4, "a mark has four samples a pixel")
            self.width = width
            self.height = height
            self.premultiplied = premultiplied
        }

        /// What the mark holds in memory.
        public var bytes: Int { premultiplied.count * 4 }
    }

    public var width: Int { source.width }
    public var height: Int { source.height }
    public var format: PixelFormat { source.format }

    private let source: RowSource
    private let mark: Mark
    private let x: Int
    private let y: Int
    private let opacity: Float

    /// `x`, `y`: where the mark's top-left corner lies on the rows; the part of the mark outside
    /// them is left out.
    public init(source: RowSource, mark: Mark, x: Int, y: Int, opacity: Double) {
        precondition(source.format == PixelFormat(.rgb, .float32), "WatermarkStage takes float RGB, not \(source.format)")
        self.source = source
        self.mark = mark
        self.x = x
        self.y = y
        self.opacity = Float(min(1, max(0, opacity)))
    }

    public func readRows(into buffer: PixelBuffer) throws -> Int {
        let n = try source.readRows(into: buffer)
        let columns = max(0, min(width, x + mark.width) - max(0, x))
        guard columns > 0, opacity > 0 else { return n }
        let first = max(0, x)
        mark.premultiplied.withUnsafeBufferPointer { m in
            for i in 0..<n {
                let my = buffer.originY + i - y
                guard my >= 0, my < mark.height else { continue }
                let row = buffer.samples(i, as: Float.self)
                for column in first..<(first + columns) {
                    let p = (my * mark.width + column - x) * 4
                    let a = m[p + 3] * opacity
                    guard a > 0 else { continue }
                    for c in 0..<3 {
                        let o = c * width + column
                        row[o] = row[o] * (1 - a) + m[p + c] * opacity
                    }
                }
            }
        }
        return n
    }
}
