import RecipeCore
import RecipeKernels

/// What a geometric op does to the canvas being rendered, in pixels of that canvas.
///
/// ```swift
/// Operations.geometricStep(op: "crop", params: p, canvas: CanvasSize(width: 2048, height: 1365), scale: 0.34)
/// // .crop(x: 341, y: 0, width: 1365, height: 1365)
/// ```
public enum GeometricStep: Sendable, Hashable, CustomStringConvertible {
    /// A half-open integer rectangle.
    case crop(x: Int, y: Int, width: Int, height: Int)
    /// Clockwise quarter turns, 1…3.
    case rotate(quarterTurns: Int)
    case flip(horizontal: Bool)
    /// Rotation about the centre, counter-clockwise degrees; `expand` grows the canvas to
    /// `width`×`height`, otherwise the canvas keeps its size and the image is scaled to fill it.
    case straighten(degrees: Double, expand: Bool, width: Int, height: Int)
    /// A straighten whose output is only `window` of its `width`×`height` canvas, mirrored
    /// left–right when `mirrored`: a straighten with the crops and flips after it composed into
    /// its map (the optimiser's `FuseGeometry`), so that only the kept pixels are resampled.
    /// `source`, when set, is the part of the input canvas the step is given (the preview's 1:1
    /// view decodes only what its region needs): positions are still those of the whole canvas.
    case straightenWindow(degrees: Double, expand: Bool, width: Int, height: Int, window: Window, mirrored: Bool, source: SourceWindow? = nil)
    case resize(width: Int, height: Int, kernel: ResampleKernel)
    /// A lens correction (distortion, TCA) resampled once, with what `FuseGeometry` composed after it.
    indirect case lens(LensWarp)

    /// A rectangle of a canvas, in whole pixels.
    public struct Window: Sendable, Hashable {
        public var x: Int, y: Int, width: Int, height: Int
        public init(x: Int, y: Int, width: Int, height: Int) {
            (self.x, self.y, self.width, self.height) = (x, y, width, height)
        }
    }

    /// A part of a step's input canvas, and the canvas's size.
    public struct SourceWindow: Sendable, Hashable {
        public var window: Window
        public var canvas: CanvasSize
        public init(_ window: Window, of canvas: CanvasSize) { (self.window, self.canvas) = (window, canvas) }
    }

    /// The canvas after the step, given the one before it.
    public func size(after canvas: CanvasSize) -> CanvasSize {
        switch self {
        case .crop(_, _, let w, let h): CanvasSize(width: w, height: h)
        case .rotate(let q): q & 1 == 1 ? CanvasSize(width: canvas.height, height: canvas.width) : canvas
        case .flip: canvas
        case .straighten(_, _, let w, let h): CanvasSize(width: w, height: h)
        case .straightenWindow(_, _, _, _, let window, _, _): CanvasSize(width: window.width, height: window.height)
        case .resize(let w, let h, _): CanvasSize(width: w, height: h)
        case .lens(let warp): CanvasSize(width: warp.window.width, height: warp.window.height)
        }
    }

    /// What the step holds while it streams, when that is more than a few rows: said in the plan.
    public var holds: String? {
        switch self {
        case .crop, .resize, .flip(horizontal: true): nil
        case .rotate, .flip(horizontal: false): "the whole image"
        // The rows one rotated output row reads, W·|sin θ| of them and a strip more (StraightenStep).
        case .straighten, .straightenWindow: "a band of rows as tall as the tilt"
        // The rows one corrected row reads: as many as the distortion bends a row (LensWarpStep).
        case .lens: "a band of rows as tall as the distortion bends a row"
        }
    }

    public var description: String {
        switch self {
        case .crop(let x, let y, let w, let h): "crop \(w)×\(h) at (\(x), \(y))"
        case .rotate(let q): "rotate \(q * 90)° clockwise"
        case .flip(let h): h ? "flip left–right" : "flip top–bottom"
        case .straighten(let d, let e, let w, let h): "straighten \(NumberFormatting.shortest(d))° \(e ? "expand" : "crop") to \(w)×\(h)"
        case .straightenWindow(let d, let e, let w, let h, let window, let mirrored, let source):
            "straighten \(NumberFormatting.shortest(d))° \(e ? "expand" : "crop") to \(w)×\(h), only its \(window.width)×\(window.height) at (\(window.x), \(window.y))"
                + (mirrored ? ", mirrored left–right" : "")
                + (source.map { ", from the \($0.window.width)×\($0.window.height) at (\($0.window.x), \($0.window.y)) of its input" } ?? "")
        case .resize(let w, let h, let k): "resize to \(w)×\(h) \(k.rawValue)"
        case .lens(let warp): "\(warp)"
        }
    }
}

extension Operations {
    /// The geometric step of `op` on the render canvas `canvas`, or nil when the op is not
    /// geometric or changes nothing. (Resize is the planner's: its target is the node's full
    /// size at the render scale.) `scale` is the render's size over the full size: px lengths
    /// are pixels of the full-size canvas at that step, so a display render scales them.
    public static func geometricStep(op: String, params: ParamSet, canvas: CanvasSize, scale: Double) -> GeometricStep? {
        func px(_ name: String, base: Int) -> Double? { params.length(name)?.pixels(base: Double(base), scale: scale) }
        switch op {
        case "crop":
            let (x, y, w, h): (Int, Int, Int, Int)
            if let aspect = params.aspect("aspect") {
                let fitted = Geometry.fit(aspect: aspect, in: canvas)
                (w, h) = (fitted.width, fitted.height)
                let anchor = params.choice("anchor") ?? "center"
                let (spareX, spareY) = (canvas.width - w, canvas.height - h)
                x = anchor.hasSuffix("left") ? 0 : anchor.hasSuffix("right") ? spareX : spareX / 2
                y = anchor.hasPrefix("top") ? 0 : anchor.hasPrefix("bottom") ? spareY : spareY / 2
            } else {
                guard let width = px("width", base: canvas.width), let height = px("height", base: canvas.height) else { return nil }
                x = min(Geometry.wholePixels(px("x", base: canvas.width) ?? 0, minimum: 0), canvas.width - 1)
                y = min(Geometry.wholePixels(px("y", base: canvas.height) ?? 0, minimum: 0), canvas.height - 1)
                w = max(1, min(canvas.width - x, Geometry.wholePixels(width)))
                h = max(1, min(canvas.height - y, Geometry.wholePixels(height)))
            }
            if x == 0 && y == 0 && w == canvas.width && h == canvas.height { return nil }
            return .crop(x: x, y: y, width: w, height: h)
        case "rotate":
            let q = Int(((params.number("angle") ?? 0) / 90).rounded()) & 3
            return q == 0 ? nil : .rotate(quarterTurns: q)
        case "flip":
            return .flip(horizontal: params.choice("axis") != "vertical")
        case "straighten":
            let degrees = params.number("angle") ?? 0
            guard degrees != 0 else { return nil }
            let expand = params.choice("fill") == "expand"
            let size = expand ? straightenedSize(canvas, params) : canvas
            return .straighten(degrees: degrees, expand: expand, width: size.width, height: size.height)
        default:
            return nil
        }
    }
}
