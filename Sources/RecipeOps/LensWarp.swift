import RecipeCore
import RecipeKernels

/// A lens correction as a geometric step of the plan: the `LensGeometry` laid on the canvas it
/// reads (the photo's), and what the optimiser composed into the same resampling after it
/// (`FuseGeometry`): a straighten that keeps the canvas, then the window of its output kept by
/// the crops after it, mirrored by a left–right flip.
///
/// ```
/// lens (profile) · straighten −1.5° · crop 4000×4000 at (1000, 0)
///   →   lens correction, then straighten −1.5°, only its 4000×4000 at (1000, 0)
/// ```
public struct LensWarp: Sendable, Hashable, CustomStringConvertible {
    public var geometry: LensGeometry
    /// Degrees of a straighten (`fill: crop`) composed after the correction; 0: none.
    public var straighten: Double = 0
    /// The part of the corrected (and straightened) canvas kept, in its pixels.
    public var window: GeometricStep.Window
    public var mirrored = false

    public init(geometry: LensGeometry) {
        self.geometry = geometry
        window = GeometricStep.Window(x: 0, y: 0, width: geometry.width, height: geometry.height)
    }

    /// Output pixel → position on the corrected canvas: the straighten's inverse map (identity
    /// at 0°), restricted to the window.
    public var place: Rotation.InverseMap {
        let (w, h) = (geometry.width, geometry.height)
        let scale = straighten == 0 ? 1 : Rotation.cropScale(width: w, height: h, angleDegrees: straighten)
        return Rotation.InverseMap(sourceWidth: w, sourceHeight: h, outputWidth: w, outputHeight: h, angleDegrees: straighten, scale: scale)
            .window(x: window.x, y: window.y, width: window.width, mirrored: mirrored)
    }

    public var description: String {
        var parts: [String] = []
        if geometry.distortion && geometry.calibration.distortion != nil { parts.append(geometry.reverse ? "adds distortion" : "distortion") }
        if geometry.tca && geometry.calibration.tca != nil { parts.append("TCA") }
        var text = "lens correction (\(parts.isEmpty ? "scale only" : parts.joined(separator: " + ")), scale \(NumberFormatting.shortest((geometry.scale * 10000).rounded() / 10000)))"
        if straighten != 0 { text += ", then straighten \(NumberFormatting.shortest(straighten))°" }
        if window != GeometricStep.Window(x: 0, y: 0, width: geometry.width, height: geometry.height) {
            text += ", only its \(window.width)×\(window.height) at (\(window.x), \(window.y))"
        }
        return text + (mirrored ? ", mirrored left–right" : "")
    }
}

/// A `lens` stage resolved for one photo (by the planner, from the photo's metadata and lensfun's
/// database or its own opcodes): the numbers, and the camera's crop factor they are laid with.
public struct LensCorrection: Sendable, Hashable {
    public var calibration: LensCalibration
    public var cameraCropFactor: Double
    /// The scale that fills the frame as lensfun finds it for the full-size photo (`scale: auto`);
    /// nil: `LensGeometry.autoScale()`'s own (a DNG's data, or lensfun finding none).
    public var autoScale: Double?
    /// The photo's EXIF orientation (a DNG's own data is laid on its stored frame).
    public var orientation: Orientation

    public init(calibration: LensCalibration, cameraCropFactor: Double, autoScale: Double? = nil, orientation: Orientation = .up) {
        self.calibration = calibration
        self.cameraCropFactor = cameraCropFactor
        self.autoScale = autoScale
        self.orientation = orientation
    }

    /// The correction a `lens` stage's parameters ask for, laid on a canvas of `canvas`: the
    /// corrections switched on, the direction, and the scale (`auto`: lensfun's fill; adding
    /// distortion: 1).
    public func geometry(_ params: ParamSet, canvas: CanvasSize) -> LensGeometry {
        var g = LensGeometry(calibration: calibration, cameraCropFactor: cameraCropFactor, width: canvas.width, height: canvas.height)
        g.distortion = params.boolean("distortion") ?? true
        g.tca = params.boolean("tca") ?? true
        g.reverse = params.choice("mode") == "distort"
        g.orientation = orientation
        g.scale = params.number("scale") ?? (g.reverse ? 1 : autoScale ?? g.autoScale() ?? 1)
        return g
    }
}
