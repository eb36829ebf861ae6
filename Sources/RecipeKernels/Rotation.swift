import CKernelsSIMD
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

        init(originX: Double, originY: Double, stepX: Double, stepY: Double, rowStepX: Double, rowStepY: Double) {
            (self.originX, self.originY, self.stepX, self.stepY, self.rowStepX, self.rowStepY) = (originX, originY, stepX, stepY, rowStepX, rowStepY)
        }

        /// The map of the `width` columns from (`x`, `y`) on, right to left when `mirrored`: its
        /// pixel (j, i) samples where this map's (x + j, y + i) does, or (x + width − 1 − j, y + i).
        public func window(x: Int, y: Int, width: Int, mirrored: Bool) -> InverseMap {
            let first = mirrored ? x + width - 1 : x
            let (ox, oy) = position(column: first, row: y)
            return InverseMap(originX: ox, originY: oy, stepX: mirrored ? -stepX : stepX, stepY: mirrored ? -stepY : stepY,
                              rowStepX: rowStepX, rowStepY: rowStepY)
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
    /// The loop is C (`rk_rotate_row` in CKernelsSIMD): Swift's SIMD4 version spilled its taps and
    /// weights to the stack, 20 ns a pixel; the C one keeps them in registers. A straighten's rows
    /// cross few source rows (|stepY| is the tilt's sine), so the offsets of the four rows a pixel
    /// reads are worked out only when its row changes; where its four columns lie inside the row,
    /// each tap is one unaligned 4-float load (the 4th float, the next pixel's red, unused).
    ///
    /// With `ringRows` below `height`, `image` holds only that many rows, source row y in slot
    /// y mod `ringRows` (a band of the source streaming by); the caller keeps every row the
    /// samples reach in it.
    public static func resampleRow(
        image: UnsafeRawPointer, rowStride: Int, width: Int, height: Int, ringRows: Int? = nil,
        startX: Double, startY: Double, stepX: Double, stepY: Double, count: Int, edge: Edge,
        into out: UnsafeMutablePointer<Float>
    ) {
        precondition(width > 0 && height > 0 && rowStride >= 12 * width && (ringRows ?? height) > 0)
        precondition(width < Int(Int32.max) && height < Int(Int32.max) && count < Int(Int32.max) / 3)
        rk_rotate_row(image, rowStride, Int32(width), Int32(height), Int32(ringRows ?? height), startX, startY, stepX, stepY,
                      Int32(count), edge == .black ? 1 : 0, out)
    }
}
