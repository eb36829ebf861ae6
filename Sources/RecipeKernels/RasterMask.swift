/// A mask made elsewhere (an AI subject or sky mask, a hand-painted one): a grey image's values
/// in 0…1, read once per render (`RasterMaskLoader` in the session), and how it lies on the canvas a
/// stage runs on (`RasterMask`).
public final class RasterMaskImage: Sendable, Hashable {
    public let width: Int
    public let height: Int
    /// Row by row, 0 (the stage does not apply) to 1 (it applies fully).
    public let values: [Float]
    /// The file's SHA-256: two images are the same mask when their bytes are.
    public let sha256: String

    public init(width: Int, height: Int, values: [Float], sha256: String) {
        precondition(width > 0 && height > 0 && values.count == width * height, "a raster mask's values are width × height")
        self.width = width
        self.height = height
        self.values = values
        self.sha256 = sha256
    }

    public static func == (a: RasterMaskImage, b: RasterMaskImage) -> Bool {
        a.sha256 == b.sha256 && a.width == b.width && a.height == b.height
    }

    public func hash(into h: inout Hasher) { h.combine(sha256) }
}

/// A raster mask stretched over a canvas: canvas pixel edge x lies at mask position
/// (x − offsetX)·scaleX (and likewise in y), so the whole mask covers the whole picture whatever
/// the canvas's size.
///
/// Where the canvas is coarser than the mask (scale ≥ 1: a display-size render), a pixel's weight
/// is the mask's mean over the pixel's footprint (each texel counted by the area it shares):
/// a preview then shows what the full-size render, shrunk, shows. Where it is finer, the weight
/// is interpolated linearly between texel centres (edges clamped).
public struct RasterMask: Sendable, Hashable {
    public var image: RasterMaskImage
    public var scaleX: Double, scaleY: Double
    public var offsetX: Double, offsetY: Double

    /// The mask over a canvas of `width`×`height`.
    public init(image: RasterMaskImage, width: Int, height: Int) {
        self.image = image
        scaleX = Double(image.width) / Double(max(1, width))
        scaleY = Double(image.height) / Double(max(1, height))
        offsetX = 0
        offsetY = 0
    }

    /// The texels (index, weight) that make up canvas pixel `p` along one axis: the footprint
    /// [(p − offset)·scale, (p + 1 − offset)·scale) when it spans a texel or more, else the two
    /// texel centres around the pixel's centre.
    static func taps(_ p: Int, scale: Double, offset: Double, count: Int, into taps: inout [(Int, Float)]) {
        taps.removeAll(keepingCapacity: true)
        let start = (Double(p) - offset) * scale, end = start + scale
        if scale >= 1 {
            var i = Int(start.rounded(.down))
            while Double(i) < end {
                let overlap = min(end, Double(i + 1)) - max(start, Double(i))
                if overlap > 0 { taps.append((min(max(i, 0), count - 1), Float(overlap / scale))) }
                i += 1
            }
        } else {
            let centre = (start + end) / 2 - 0.5
            let i = Int(centre.rounded(.down)), t = Float(centre - Double(i))
            taps.append((min(max(i, 0), count - 1), 1 - t))
            taps.append((min(max(i + 1, 0), count - 1), t))
        }
    }

    /// The weights of `count` pixels of canvas row `y` from column `x0`, into `w`.
    public func weights(x0: Int, y: Int, count: Int, into w: UnsafeMutablePointer<Float>) {
        var rows: [(Int, Float)] = [], columns: [(Int, Float)] = []
        rows.reserveCapacity(8)
        columns.reserveCapacity(8)
        Self.taps(y, scale: scaleY, offset: offsetY, count: image.height, into: &rows)
        image.values.withUnsafeBufferPointer { v in
            for k in 0..<count {
                Self.taps(x0 + k, scale: scaleX, offset: offsetX, count: image.width, into: &columns)
                var sum: Float = 0
                for (row, wy) in rows {
                    let base = row * image.width
                    var across: Float = 0
                    for (column, wx) in columns { across += v[base + column] * wx }
                    sum += across * wy
                }
                w[k] = sum
            }
        }
    }

    /// The weight of the pixel at column `x`, row `y` of the canvas.
    public func weight(x: Int, y: Int) -> Float {
        var w: Float = 0
        weights(x0: x, y: y, count: 1, into: &w)
        return w
    }

    /// On a canvas `fx`×`fy` as large: a canvas pixel covers 1/fx as much of the mask.
    func laidOut(_ fx: Float, _ fy: Float) -> RasterMask {
        var m = self
        m.scaleX /= Double(fx)
        m.scaleY /= Double(fy)
        m.offsetX *= Double(fx)
        m.offsetY *= Double(fy)
        return m
    }

    /// On a window whose top-left pixel is the canvas's (`dx`, `dy`).
    func translated(_ dx: Float, _ dy: Float) -> RasterMask {
        var m = self
        m.offsetX -= Double(dx)
        m.offsetY -= Double(dy)
        return m
    }
}
