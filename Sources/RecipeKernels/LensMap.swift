import CKernelsSIMD
import RecipeCore
#if canImport(Glibc)
import Glibc
#endif

/// A lens correction laid on one canvas: a `LensCalibration` for a photo of `width`×`height`
/// pixels taken with a camera of `cameraCropFactor`, and the choices of the recipe (which
/// corrections, the scale, the direction). It gives each output pixel's source positions (red,
/// green and blue apart, for TCA) and the vignetting gain, by lensfun 0.3.3's own formulas
/// (lfModifier: libs/lensfun/modifier.cpp, mod-coord.cpp, mod-subpix.cpp, mod-color.cpp):
///
/// - normalised coordinates: with W′ = W − 1, H′ = H − 1 (pixel centres), s = min(W′, H′) and
///   a = max(W′, H′)/s, a pixel x is x·n − cx, where n = 2/s · c and
///   c = √(A² + 1)/√(a² + 1) · (calibration crop / camera crop), A the calibration sensor's
///   aspect ratio: r = 1 at half the short side of the calibration sensor;
/// - correcting, an output position is scaled by 1/scale, distorted by the model (rd of ru),
///   then red and blue moved by the TCA model; the result, back in pixels, is where the source is
///   sampled;
/// - vignetting divides the source's linear light by 1 + k1·r² + k2·r⁴ + k3·r⁶, r = 1 at the
///   calibration sensor's corner.
///
/// ```swift
/// let g = LensGeometry(calibration: c, cameraCropFactor: 1.5, width: 6000, height: 4000)
/// let scale = g.autoScale()            // fills the frame: no black corners
/// let p = g.with(scale: scale).position(x: 0, y: 0)   // where output (0, 0) samples, per channel
/// ```
public struct LensGeometry: Sendable, Hashable {
    public var calibration: LensCalibration
    public var cameraCropFactor: Double
    public var width: Int
    public var height: Int
    /// Which corrections the geometry makes (vignetting is a point step: `vignettingStep`).
    public var distortion = true
    public var tca = true
    /// The image is magnified by this about its centre (1: none; `autoScale()` fills the frame).
    public var scale = 1.0
    /// Adds the lens's distortion instead of removing it (lensfun's `reverse`).
    public var reverse = false
    /// The photo's EXIF orientation: `width`×`height` is the upright canvas, and a DNG's opcodes
    /// are laid on the stored frame before it (lensfun's models are radial about the centre and
    /// need no turning; their rare centre offsets are taken as upright).
    public var orientation: Orientation = .up

    public init(calibration: LensCalibration, cameraCropFactor: Double, width: Int, height: Int) {
        precondition(width > 0 && height > 0, "empty canvas")
        self.calibration = calibration
        self.cameraCropFactor = cameraCropFactor
        self.width = width
        self.height = height
    }

    public func with(scale: Double) -> LensGeometry {
        var g = self
        g.scale = scale
        return g
    }

    /// Whether the geometry moves any pixel (a distortion or TCA model that is switched on).
    public var movesPixels: Bool {
        (distortion && calibration.distortion != nil) || (tca && calibration.tca != nil && !isDNG) || scale != 1
    }

    private var isDNG: Bool { if case .dngWarp? = calibration.distortion { true } else { false } }

    /// lensfun's normalisation (lfModifier's constructor).
    struct Normalisation {
        var scale: Double, unscale: Double, centerX: Double, centerY: Double
        /// lfModifier's AspectRatioCorrection: √(A² + 1) of the calibration sensor.
        var aspectCorrection: Double
    }

    var normalisation: Normalisation {
        let w = Double(max(width - 1, 1)), h = Double(max(height - 1, 1))
        let size = min(w, h), imageAspect = max(w, h) / size
        let aspectCorrection = (calibration.calibrationAspectRatio * calibration.calibrationAspectRatio + 1).squareRoot()
        let correction = 1 / (imageAspect * imageAspect + 1).squareRoot() * calibration.calibrationCropFactor / cameraCropFactor
            * aspectCorrection
        return Normalisation(scale: 2 / size * correction, unscale: size * 0.5 / correction,
                             centerX: (w / size + calibration.centerX) * correction,
                             centerY: (h / size + calibration.centerY) * correction, aspectCorrection: aspectCorrection)
    }

    /// The C kernel's parameters (`rk_lens_map`).
    public var kernelMap: rk_lens_map {
        var m = rk_lens_map()
        let n = normalisation
        (m.norm_scale, m.norm_unscale, m.center_x, m.center_y) = (n.scale, n.unscale, n.centerX, n.centerY)
        m.pre_scale = 1 / scale
        m.post_scale = scale
        m.reverse = reverse ? 1 : 0
        m.distortion = Int32(RK_LENS_NONE)
        if distortion {
            switch calibration.distortion {
            case .poly3(let k1)?: m.distortion = Int32(RK_LENS_POLY3); m.d = (k1, 0, 0)
            case .poly5(let k1, let k2)?: m.distortion = Int32(RK_LENS_POLY5); m.d = (k1, k2, 0)
            case .ptlens(let a, let b, let c)?: m.distortion = Int32(RK_LENS_PTLENS); m.d = (a, b, c)
            case .dngWarp(let planes, let cx, let cy)?:
                m.distortion = Int32(RK_LENS_DNG)
                setDNG(&m, planes: planes, centerX: cx, centerY: cy)
            case nil: break
            }
        }
        m.tca = Int32(RK_TCA_NONE)
        if tca, !isDNG {
            switch calibration.tca {
            case .linear(let kr, let kb)?: m.tca = Int32(RK_TCA_LINEAR); m.t = (kr, kb, 0, 0, 0, 0)
            case .poly3(let vr, let vb, let cr, let cb, let br, let bb)?: m.tca = Int32(RK_TCA_POLY3); m.t = (vr, vb, cr, cb, br, bb)
            case nil: break
            }
        }
        return m
    }

    /// A DNG WarpRectilinear in the kernel's terms: the optical centre in pixel indices and the
    /// distance from it to the farthest corner (DNG 1.4 §6), its planes' terms; a DNG warp
    /// without TCA switched on uses its green (middle) plane for all three channels.
    private func setDNG(_ m: inout rk_lens_map, planes: [LensCalibration.DNGWarpPlane], centerX: Double, centerY: Double) {
        let stored = orientation.orientedSize(width: width, height: height)
        let frame = DNGLensMaps.Frame(centerX: centerX, centerY: centerY, width: stored.width, height: stored.height)
        (m.dng_cx, m.dng_cy, m.dng_m) = (frame.x0, frame.y0, frame.radius)
        let (to, from) = storedFrame
        m.to_stored = (to[0], to[1], to[2], to[3], to[4], to[5])
        m.from_stored = (from[0], from[1], from[2], from[3], from[4], from[5])
        let used = planes.count == 3 && !tca ? [planes[1]] : planes
        m.dng_planes = Int32(used.count == 3 ? 3 : 1)
        withUnsafeMutableBytes(of: &m.dng_kr) { kr in
            withUnsafeMutableBytes(of: &m.dng_kt) { kt in
                let r = kr.bindMemory(to: Double.self), t = kt.bindMemory(to: Double.self)
                for (p, plane) in used.prefix(3).enumerated() {
                    for k in 0..<4 { r[4 * p + k] = plane.kr[k] }
                    for k in 0..<2 { t[2 * p + k] = plane.kt[k] }
                }
            }
        }
    }

    /// The canvas's pixel in the stored frame (a, b, c, d, tx, ty: x′ = a·x + b·y + tx,
    /// y′ = c·x + d·y + ty), from the orientation's own pixel map, and its inverse (the matrix is
    /// a signed permutation: its inverse is its transpose).
    var storedFrame: ([Double], [Double]) {
        func at(_ x: Int, _ y: Int) -> (Double, Double) {
            let p = orientation.sourceCoordinate(x: x, y: y, uprightWidth: width, uprightHeight: height)
            return (Double(p.x), Double(p.y))
        }
        let o = at(0, 0), ex = at(1, 0), ey = at(0, 1)
        let (a, c, b, d) = (ex.0 - o.0, ex.1 - o.1, ey.0 - o.0, ey.1 - o.1)
        let to = [a, b, c, d, o.0, o.1]
        let from = [a, c, b, d, -(a * o.0 + c * o.1), -(b * o.0 + d * o.1)]
        return (to, from)
    }

    /// The source positions of output pixel (x, y) (pixel indices: pixel x's centre at x), red,
    /// green and blue.
    public func position(x: Double, y: Double) -> (red: (x: Double, y: Double), green: (x: Double, y: Double), blue: (x: Double, y: Double)) {
        var out = [Float](repeating: 0, count: 6)
        var m = kernelMap
        _ = rk_lens_map_row(&m, x, y, 1, 0, 1, &out)
        return ((Double(out[0]), Double(out[1])), (Double(out[2]), Double(out[3])), (Double(out[4]), Double(out[5])))
    }

    /// The vignetting correction on the source's linear light, as a positional point step on this
    /// canvas: lensfun's `pa` model divides by 1 + k1·r² + k2·r⁴ + k3·r⁶ (r in lensfun's
    /// normalised units over the calibration's AspectRatioCorrection: 1 at its corner); a DNG
    /// FixVignetteRadial multiplies by its polynomial. nil without a model.
    public var vignettingStep: PointStep? {
        let size = Double(min(max(width - 1, 1), max(height - 1, 1)))
        switch calibration.vignetting {
        case .pa(let k1, let k2, let k3)?:
            let n = normalisation
            return .radialGain(terms: [Float(k1), Float(k2), Float(k3)], divide: true,
                               cx: Float(Double(width) / 2 + calibration.centerX * size / 2),
                               cy: Float(Double(height) / 2 + calibration.centerY * size / 2),
                               scale: Float(n.scale / n.aspectCorrection))
        case .dngRadial(let k, let centerX, let centerY)?:
            // The centre is the stored frame's; the radius is the same turned upright.
            let stored = orientation.orientedSize(width: width, height: height)
            let frame = DNGLensMaps.Frame(centerX: centerX, centerY: centerY, width: stored.width, height: stored.height)
            let from = storedFrame.1
            let cx = from[0] * frame.x0 + from[1] * frame.y0 + from[4], cy = from[2] * frame.x0 + from[3] * frame.y0 + from[5]
            return .radialGain(terms: k.map(Float.init), divide: false, cx: Float(cx + 0.5), cy: Float(cy + 0.5), scale: Float(1 / frame.radius))
        case nil:
            return nil
        }
    }

    /// The scale that leaves no empty border (lensfun's GetAutoScale): for eight directions from
    /// the centre (the corners and the middles of the edges) the radius whose distorted position
    /// reaches the image's edge, found by Newton's method; the largest ratio, times 1.001 (and
    /// again 1.001 with TCA on, for the channels' spread). 1 when nothing moves; nil when a
    /// direction does not converge (a profile that never reaches the edge).
    ///
    /// In single precision as lensfun computes it, step for step: its Newton stops within 0.001
    /// (normalised) of the edge, so a search of its own would land up to a few hundredths of a
    /// pixel elsewhere at the corners; this one lands where lensfun's does.
    public func autoScale() -> Double? {
        let subpixel: Float = tca && calibration.tca != nil && !isDNG ? 1.001 : 1
        guard distortion, let model = calibration.distortion else { return Double(subpixel) }
        if case .dngWarp = model { return 1 }
        let n = normalisation
        let w = max(width - 1, 1), h = max(height - 1, 1)
        let maxX = Double(w) / 2 * n.scale, maxY = Double(h) / 2 * n.scale
        /// lensfun's ModifyCoord_Dist_* (plain C, one point), in floats.
        func distort(_ x: Float, _ y: Float) -> (Float, Float) {
            let ru2 = x * x + y * y
            let k: Float
            switch model {
            case .poly3(let k1):
                let k1 = Float(k1)
                k = Float(1.0 - Double(k1)) + k1 * ru2
            case .poly5(let k1, let k2):
                let (k1, k2) = (Float(k1), Float(k2))
                k = Float(1.0 + Double(k1 * ru2) + Double(k2 * ru2 * ru2))
            case .ptlens(let a, let b, let c):
                let (a, b, c) = (Float(a), Float(b), Float(c))
                let d = Float(1.0 - Double(a) - Double(b) - Double(c)), r = ru2.squareRoot()
                k = a * ru2 * r + b * ru2 + c * r + d
            case .dngWarp:
                k = 1
            }
            return (x * k, y * k)
        }
        func residual(_ ru: Float, _ ca: Double, _ sa: Double) -> Double {
            let (x, y) = distort(Float(ca * Double(ru)), Float(sa * Double(ru)))
            return max(Double(x) - maxX, -maxX - Double(x), Double(y) - maxY, -maxY - Double(y))
        }
        /// lensfun's GetTransformedDistance.
        func transformed(angle: Float, dist: Float) -> Float? {
            let sa = sin(Double(angle)), ca = cos(Double(angle))
            var ru = dist, dx: Float = 0.0001
            var countdown = 50
            while true {
                defer { countdown -= 1 }
                let rd = residual(ru, ca, sa)
                if rd > -0.001 && rd < 0.001 { return ru }
                if countdown == 0 { return nil }
                let rd1 = residual(ru + dx, ca, sa)
                if abs(rd1 - rd) < 0.00001 { dx *= 2; continue }
                ru = Float(Double(ru) - rd / ((rd1 - rd) / Double(dx)))
            }
        }
        let corner = atan2(Float(h), Float(w))
        let diagonal = Float(Double(Float(w * w + h * h).squareRoot()) * 0.5 * n.scale)
        let across = Float(Double(w) * 0.5 * n.scale), down = Float(Double(h) * 0.5 * n.scale)
        let points: [(Float, Float)] = [
            (0, across), (corner, diagonal), (Float(Double.pi / 2), down), (Float(Double.pi - Double(corner)), diagonal),
            (Float(Double.pi), across), (Float(Double.pi + Double(corner)), diagonal), (Float(Double.pi * 3 / 2), down),
            (Float(2 * Double.pi - Double(corner)), diagonal),
        ]
        var scale: Float = 0.01
        for (angle, dist) in points {
            guard let t = transformed(angle: angle, dist: dist), t > 0 else { return nil }
            scale = max(scale, dist / t)
        }
        scale = Float(Double(scale) * 1.001)
        return Double(scale * subpixel)
    }

    /// Why the distortion model cannot be used on this canvas, or nil: its radius must grow with
    /// the undistorted radius over the whole frame (a model that folds back maps two places of
    /// the picture onto one, and has no inverse), and stay finite.
    public var foldProblem: String? {
        guard distortion, let model = calibration.distortion else { return nil }
        let n = normalisation
        let (w, h) = (Double(max(width - 1, 1)), Double(max(height - 1, 1)))
        // The corner of the output, in undistorted normalised units, and a little beyond.
        let reach = (w * w + h * h).squareRoot() / 2 * n.scale / scale * 1.05
        func radius(_ ru: Double) -> Double {
            let ru2 = ru * ru
            switch model {
            case .poly3(let k1): return ru * (1 - k1 + k1 * ru2)
            case .poly5(let k1, let k2): return ru * (1 + k1 * ru2 + k2 * ru2 * ru2)
            case .ptlens(let a, let b, let c): return ru * (a * ru2 * ru + b * ru2 + c * ru + 1 - a - b - c)
            case .dngWarp(let planes, _, _):
                // r = 1 at the farthest corner there; the radial factor's polynomial in r².
                let k = planes[planes.count / 2].kr
                return ru * (k[0] + ru2 * (k[1] + ru2 * (k[2] + ru2 * k[3])))
            }
        }
        let top: Double = if case .dngWarp = model { 1.05 } else { reach }
        var previous = 0.0
        for i in 1...400 {
            let ru = top * Double(i) / 400, rd = radius(ru)
            guard rd.isFinite, rd > previous else {
                return "its distortion folds back \(Int((Double(i) / 400 * 100).rounded())) % of the way to the corner"
            }
            previous = rd
        }
        return nil
    }
}
