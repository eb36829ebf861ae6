/// The lens corrections a DNG's `OpcodeList3` carries, as the plain formulas of the Adobe DNG
/// Specification 1.4, chapter 7 "Opcode List Processing": `WarpRectilinear` (where an output pixel
/// takes its value from, per plane) and `FixVignetteRadial` (the gain a pixel is multiplied by).
/// Pure and cheap: the constants are worked out once in `init`, a position costs a few
/// multiplications. The renderer's warp resampler and vignette step call them.
///
/// ```swift
/// let warp = DNGLensMaps.Warp(planes: [plane], centerX: 0.5, centerY: 0.5, width: 6000, height: 4000)
/// let (sx, sy) = warp.source(x: 0, y: 0, plane: 0)       // where output pixel (0, 0) samples the image
/// let gain = DNGLensMaps.Vignette(k: [0.3, 0, 0, 0, 0], centerX: 0.5, centerY: 0.5,
///                                 width: 6000, height: 4000).gain(x: 0, y: 0)   // 1.3 at a corner
/// ```
///
/// Coordinates. The specification places the optical centre (cx, cy) as a fraction of the
/// image's own area, (0, 0) its top-left corner and (1, 1) its bottom-right one, and normalises
/// distances by the largest distance from that centre to a corner of the image. Here, as in
/// `Rotation`, a position is in pixel indices: pixel column j has its centre at x = j, so the
/// image's area is [−0.5, W − 0.5] × [−0.5, H − 0.5] and
///
///     x₀ = cx·W − 0.5,   y₀ = cy·H − 0.5,
///     m  = max over the corners (−0.5 or W − 0.5, −0.5 or H − 0.5) of the distance to (x₀, y₀).
///
/// Adobe's DNG SDK 1.4 does exactly this for `FixVignetteRadial` (it evaluates pixel centres at
/// index + ½ in a frame whose area is [0, W]); for `WarpRectilinear` it evaluates at the bare
/// index, half a pixel away, which moves its result by 0.5·|f − 1| px (under 0.03 px for a 5 %
/// distortion): the specification's reading, the same for both opcodes, is kept here.
///
/// W × H is the image the opcode list applies to: for `OpcodeList3`, the demosaiced image the
/// size of the raw's ActiveArea, in its stored orientation (before the EXIF orientation turns it,
/// before the DefaultCrop). A render at 1/s of that size maps its pixel x to s·x + (s − 1)/2.
/// Pixel aspect ratios other than 1 (DNG DefaultScale) are not modelled.
public enum DNGLensMaps {
    /// Where the specification's optical centre and unit radius lie, in pixel indices.
    public struct Frame: Sendable, Hashable {
        /// The optical centre, in pixel indices (pixel j's centre at j).
        public let x0: Double
        public let y0: Double
        /// The distance from the centre to the farthest corner of the image's area (r = 1 there).
        public let radius: Double

        public init(centerX: Double, centerY: Double, width: Int, height: Int) {
            precondition(width > 0 && height > 0, "empty image")
            let (w, h) = (Double(width), Double(height))
            x0 = centerX * w - 0.5
            y0 = centerY * h - 0.5
            // The corners of the area are −0.5 and W − 0.5: the farther of the two, per axis.
            let dx = max(x0 + 0.5, w - 0.5 - x0), dy = max(y0 + 0.5, h - 0.5 - y0)
            radius = (dx * dx + dy * dy).squareRoot()
        }
    }

    /// `WarpRectilinear` (opcode 1): for an output (corrected) pixel, the position in the image it
    /// came from, per plane. With (Δx, Δy) the pixel's offset from the centre divided by m,
    /// r² = Δx² + Δy², f = kr0 + kr1·r² + kr2·r⁴ + kr3·r⁶,
    ///
    ///     x_src = x₀ + m·(f·Δx + kt0·2ΔxΔy + kt1·(r² + 2Δx²))
    ///     y_src = y₀ + m·(f·Δy + kt1·2ΔxΔy + kt0·(r² + 2Δy²))
    ///
    /// A warp of one plane applies to every plane; of three, red, green and blue (the difference
    /// between them is the lens's lateral chromatic aberration).
    public struct Warp: Sendable, Hashable {
        public let frame: Frame
        /// kr0, kr1, kr2, kr3, kt0, kt1 of each plane in turn (one flat array: no nested array
        /// to follow per position).
        public let coefficients: [Double]
        public let planeCount: Int

        public init(planes: [LensCalibration.DNGWarpPlane], centerX: Double, centerY: Double, width: Int, height: Int) {
            precondition(!planes.isEmpty, "a warp has at least one plane")
            frame = Frame(centerX: centerX, centerY: centerY, width: width, height: height)
            coefficients = planes.flatMap { $0.kr + $0.kt }
            planeCount = planes.count
        }

        /// The source position of output pixel (x, y) in `plane` (0, 1, 2; a one-plane warp
        /// answers every plane), in pixel indices.
        @inlinable
        public func source(x: Double, y: Double, plane: Int) -> (x: Double, y: Double) {
            let at = 6 * min(plane, planeCount - 1)
            let k = coefficients
            let m = frame.radius
            let dx = (x - frame.x0) / m, dy = (y - frame.y0) / m
            let r2 = dx * dx + dy * dy
            let f = k[at] + r2 * (k[at + 1] + r2 * (k[at + 2] + r2 * k[at + 3]))
            let tx = k[at + 4] * 2 * dx * dy + k[at + 5] * (r2 + 2 * dx * dx)
            let ty = k[at + 5] * 2 * dx * dy + k[at + 4] * (r2 + 2 * dy * dy)
            return (frame.x0 + m * (f * dx + tx), frame.y0 + m * (f * dy + ty))
        }
    }

    /// `FixVignetteRadial` (opcode 3): the gain 1 + k0·r² + k1·r⁴ + k2·r⁶ + k3·r⁸ + k4·r¹⁰ every
    /// plane of the pixel at (x, y) is multiplied by, r its distance from the centre over m.
    public struct Vignette: Sendable, Hashable {
        public let frame: Frame
        /// k0 … k4.
        public let k: [Double]

        public init(k: [Double], centerX: Double, centerY: Double, width: Int, height: Int) {
            precondition(k.count == 5, "FixVignetteRadial has five coefficients")
            frame = Frame(centerX: centerX, centerY: centerY, width: width, height: height)
            self.k = k
        }

        /// The gain at pixel (x, y), in pixel indices.
        @inlinable
        public func gain(x: Double, y: Double) -> Double {
            let dx = (x - frame.x0) / frame.radius, dy = (y - frame.y0) / frame.radius
            let r2 = dx * dx + dy * dy
            return 1 + r2 * (k[0] + r2 * (k[1] + r2 * (k[2] + r2 * (k[3] + r2 * k[4]))))
        }
    }

    /// The warp of a calibration's `.dngWarp` distortion for a W × H image (nil for any other model).
    public static func warp(_ distortion: LensCalibration.Distortion?, width: Int, height: Int) -> Warp? {
        guard case .dngWarp(let planes, let cx, let cy) = distortion else { return nil }
        return Warp(planes: planes, centerX: cx, centerY: cy, width: width, height: height)
    }

    /// The vignette of a calibration's `.dngRadial` vignetting for a W × H image (nil for any other model).
    public static func vignette(_ vignetting: LensCalibration.Vignetting?, width: Int, height: Int) -> Vignette? {
        guard case .dngRadial(let k, let cx, let cy) = vignetting else { return nil }
        return Vignette(k: k, centerX: cx, centerY: cy, width: width, height: height)
    }
}
