#if canImport(Glibc)
import Glibc
#endif

/// Rotation about the image centre with Catmull-Rom bicubic resampling in linear light
/// (ops-reference §4 `straighten`, §6): the scale that hides the corners, the inverse map from an
/// output pixel to its source position, and the row loop.
///
/// ```swift
/// let s = Rotation.cropScale(width: 3000, height: 2000, angleDegrees: 5)        // 1.12693
/// let map = Rotation.InverseMap(sourceWidth: 3000, sourceHeight: 2000, outputWidth: 3000,
///                               outputHeight: 2000, angleDegrees: 5, scale: s)
/// let (x, y) = map.position(column: 0, row: 0)   // where output pixel (0, 0) samples the source
/// ```
///
/// Conventions: y grows downwards and a positive angle turns the picture counter-clockwise as seen
/// on screen (a dot right of the centre moves up). Pixel centres sit at (x + 0.5, y + 0.5); the
/// centre of the output maps to the centre of the source.
public enum Rotation {
    /// The scale that makes a W×H image rotated by `angleDegrees` cover a W×H canvas:
    /// `cos|θ| + max(W/H, H/W)·sin|θ|` (1 at 0°; 5° on 3000×2000 gives 1.12693).
    public static func cropScale(width: Int, height: Int, angleDegrees: Double) -> Double {
        precondition(width > 0 && height > 0, "empty image")
        let theta = abs(angleDegrees) * .pi / 180
        let (w, h) = (Double(width), Double(height))
        return cos(theta) + max(w / h, h / w) * sin(theta)
    }

    /// The smallest whole-pixel canvas holding the rotated image at scale 1 (`fill: expand`):
    /// `ceil(W·cos|θ| + H·sin|θ| − 1e-6)` by `ceil(W·sin|θ| + H·cos|θ| − 1e-6)`, the slack absorbing
    /// the rounding of cos/sin so that 0° keeps the size exactly. Same formula as the op's geometry.
    public static func expandedSize(width: Int, height: Int, angleDegrees: Double) -> (width: Int, height: Int) {
        let theta = abs(angleDegrees) * .pi / 180
        let (c, s) = (cos(theta), sin(theta))
        let (w, h) = (Double(width), Double(height))
        func side(_ v: Double) -> Int { max(1, Int((v - 1e-6).rounded(.up))) }
        return (side(w * c + h * s), side(w * s + h * c))
    }

    /// What a sample whose position falls outside the source becomes.
    public enum Edge: Sendable {
        /// Clamp-to-edge everywhere (`fill: crop`): taps beyond the border read the border pixel.
        case clamp
        /// Black where the sample position lies outside [−0.5, W − 0.5]×[−0.5, H − 0.5] (the
        /// source's pixel area); inside it, clamp-to-edge as `clamp` (`fill: expand`). The border
        /// between picture and black is therefore hard: whole pixels, no partial coverage.
        case black
    }

    /// Output pixel (j, i) → source sample position, in source pixel indices (pixel x's centre at x):
    /// `origin + j·step + i·rowStep`. With u, v the output pixel centre relative to the output
    /// centre, `x = W/2 − 0.5 + (u·cos θ − v·sin θ)/s` and `y = H/2 − 0.5 + (u·sin θ + v·cos θ)/s`.
    public struct InverseMap: Sendable, Equatable {
        /// Source position of output pixel (0, 0).
        public let originX: Double
        public let originY: Double
        /// Change of the source position per output column.
        public let stepX: Double
        public let stepY: Double
        /// Change of the source position per output row.
        public let rowStepX: Double
        public let rowStepY: Double

        public init(sourceWidth: Int, sourceHeight: Int, outputWidth: Int, outputHeight: Int, angleDegrees: Double, scale: Double) {
            precondition(scale > 0, "scale must be positive")
            let theta = angleDegrees * .pi / 180
            // Exact at 0°, so that the identity maps every pixel onto itself.
            let (c, s) = angleDegrees == 0 ? (1.0, 0.0) : (cos(theta), sin(theta))
            let u0 = 0.5 - Double(outputWidth) / 2, v0 = 0.5 - Double(outputHeight) / 2
            stepX = c / scale
            stepY = s / scale
            rowStepX = -s / scale
            rowStepY = c / scale
            originX = Double(sourceWidth) / 2 - 0.5 + u0 * stepX + v0 * rowStepX
            originY = Double(sourceHeight) / 2 - 0.5 + u0 * stepY + v0 * rowStepY
        }

        /// The source position sampled by output pixel (`column`, `row`).
        @inlinable
        public func position(column: Int, row: Int) -> (x: Double, y: Double) {
            (originX + Double(column) * stepX + Double(row) * rowStepX,
             originY + Double(column) * stepY + Double(row) * rowStepY)
        }
    }

    /// Catmull-Rom (Keys a = −0.5) weights of the taps at offsets −1, 0, 1, 2 for a sample at
    /// fraction `t` ∈ [0, 1) past tap 0. They sum to 1; at t = 0 they are exactly (0, 1, 0, 0).
    @inlinable @inline(__always)
    public static func catmullRomWeights(_ t: Float) -> SIMD4<Float> {
        let t2 = t * t
        return SIMD4(
            ((-0.5 * t + 1) * t - 0.5) * t,
            (1.5 * t - 2.5) * t2 + 1,
            ((-1.5 * t + 2) * t + 0.5) * t,
            (0.5 * t - 0.5) * t2)
    }

    /// Writes `count` float RGB pixels of one output row: pixel j samples `image` (float RGB in
    /// linear light, `width`×`height`, rows `rowStride` bytes apart) at (startX + j·stepX,
    /// startY + j·stepY), bicubic. Clamp-to-edge; `edge` says what happens outside the picture.
    /// Values are not clamped (Catmull-Rom overshoots a little at edges; the encoder clamps).
    ///
    /// Neighbouring output pixels share most of their 16 taps (a step is at most one source pixel
    /// on each axis for any straighten map), so the taps stay in a 4×4 window, a ring on both axes
    /// keyed by source column and row: a step to the next column loads 4 pixels, not 16.
    ///
    /// With `ringRows` below `height`, `image` holds only that many rows, source row y in slot
    /// y mod `ringRows` (a band of the source streaming by); the caller keeps every row the
    /// samples reach in it.
    public static func resampleRow(
        image: UnsafeRawPointer, rowStride: Int, width: Int, height: Int, ringRows: Int? = nil,
        startX: Double, startY: Double, stepX: Double, stepY: Double, count: Int, edge: Edge,
        into out: UnsafeMutablePointer<Float>
    ) {
        precondition(width > 0 && height > 0 && rowStride >= 12 * width)
        resampleRow(image: image, rowStride: rowStride, width: width, height: height, ringRows: ringRows ?? height,
                    startX: startX, startY: startY, stepX: stepX, stepY: stepY, count: count, edge: edge, output: out)
    }

    @inlinable
    static func resampleRow(
        image: UnsafeRawPointer, rowStride: Int, width: Int, height: Int, ringRows: Int,
        startX: Double, startY: Double, stepX: Double, stepY: Double, count: Int, edge: Edge,
        output out: UnsafeMutablePointer<Float>
    ) {
        precondition(ringRows > 0)
        let src = image
        // A row's slot: the row itself for a whole image (no division per row change).
        let ring = ringRows < height ? ringRows : 0
        let blackOutside = edge == .black
        let (maxX, maxY) = (Double(width) - 0.5, Double(height) - 0.5)
        // Clamped taps make the value constant beyond one pixel past the border, so positions are
        // clamped there first: the index arithmetic then stays small whatever the map.
        let (hiX, hiY) = (Double(width), Double(height))
        let (lastX, lastY) = (width - 1, height - 1)
        // The window (16 linear pixels, slot (y & 3)·4 + (x & 3)), then the byte offsets of its
        // columns and rows in `image`, clamped to the image (slot x & 3, y & 3): on the stack.
        withUnsafeTemporaryAllocation(byteCount: 16 * 16 + 8 * 8, alignment: 16) { scratch in
            let win = scratch.baseAddress!.bindMemory(to: SIMD4<Float>.self, capacity: 16)
            let columnOffset = (scratch.baseAddress! + 16 * 16).bindMemory(to: Int.self, capacity: 8)
            let rowOffset = columnOffset + 4
            @inline(__always) func setColumn(_ x: Int) { columnOffset[x & 3] = 12 * min(max(x, 0), lastX) }
            @inline(__always) func setRow(_ y: Int) {
                let row = min(max(y, 0), lastY)
                rowOffset[y & 3] = (ring == 0 ? row : row % ring) * rowStride
            }
            // Source pixel (x, y) into its slot (its column's and row's offsets set first).
            @inline(__always) func load(_ x: Int, _ y: Int) {
                let p = (src + (rowOffset[y & 3] + columnOffset[x & 3])).assumingMemoryBound(to: Float.self)
                win[(y & 3) << 2 | (x & 3)] = SIMD4(p[0], p[1], p[2], 0)
            }
            // The window holds columns cx − 1 … cx + 2 of rows cy − 1 … cy + 2.
            var cx = -8, cy = -8  // no pixel yet: positions are clamped to ≥ −1
            for j in 0..<count {
                let x = startX + Double(j) * stepX
                let y = startY + Double(j) * stepY
                let o = out + 3 * j
                if blackOutside && !(x >= -0.5 && x <= maxX && y >= -0.5 && y <= maxY) {
                    o[0] = 0; o[1] = 0; o[2] = 0
                    continue
                }
                let px = min(max(x, -1), hiX), py = min(max(y, -1), hiY)
                // floor as a truncation of a non-negative value: `rounded(.down)` is a libm call
                // on baseline x86-64 (no SSE4.1 `roundsd`).
                let ix = Int(px + 1) - 1, iy = Int(py + 1) - 1
                let fx = Double(ix), fy = Double(iy)
                let dx = ix - cx, dy = iy - cy
                if dx != 0 || dy != 0 {
                    if dx >= -1 && dx <= 1 && dy >= -1 && dy <= 1 {
                        // One column in (the old rows), then one row in (the new columns).
                        if dx != 0 {
                            let column = dx > 0 ? ix + 2 : ix - 1
                            setColumn(column)
                            for r in -1...2 { load(column, cy + r) }
                        }
                        if dy != 0 {
                            let row = dy > 0 ? iy + 2 : iy - 1
                            setRow(row)
                            for k in -1...2 { load(ix + k, row) }
                        }
                    } else {
                        for k in -1...2 { setColumn(ix + k) }
                        for r in -1...2 { setRow(iy + r); for k in -1...2 { load(ix + k, iy + r) } }
                    }
                    (cx, cy) = (ix, iy)
                }
                let wx = catmullRomWeights(Float(px - fx))
                let wy = catmullRomWeights(Float(py - fy))
                var acc = SIMD4<Float>()
                for r in 0..<4 {
                    let row = win + ((iy - 1 + r) & 3) << 2
                    var h = row[(ix - 1) & 3] * wx[0]
                    h += row[ix & 3] * wx[1]
                    h += row[(ix + 1) & 3] * wx[2]
                    h += row[(ix + 2) & 3] * wx[3]
                    acc += h * wy[r]
                }
                o[0] = acc[0]
                o[1] = acc[1]
                o[2] = acc[2]
            }
        }
    }
}
