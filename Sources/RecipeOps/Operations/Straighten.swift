import RecipeCore
import RecipeKernels

extension Operations {
    /// Levels a tilted horizon: rotates about the centre by a small angle, then either scales up to
    /// fill the canvas or grows the canvas to hold the whole rotated image (CIStraightenFilter).
    ///
    /// ```yaml
    /// - straighten: -1.5
    /// - straighten: {angle: 5, fill: expand}
    /// ```
    ///
    /// With `fill: crop` the size is kept and the image is scaled by cos|θ| + max(W/H, H/W)·sin|θ|;
    /// with `fill: expand` the canvas becomes the rotated image's bounding box.
    public static let straighten = OperationSpec(
        name: "straighten",
        summary: "Rotates the image about its centre by angle degrees, resampled in linear light, and scales it by cos|θ| + max(W/H, H/W)·sin|θ| to fill the canvas or grows the canvas to its bounding box (CIStraightenFilter).",
        opClass: .geometric, space: .linear, primary: "angle",
        params: [
            ParamSpec("angle", .angle(-45...45, allowed: nil), default: .angle(0),
                      "counter-clockwise rotation in degrees; negative turns clockwise"),
            ParamSpec("fill", .choice(["crop", "expand"]), default: .choice("crop"),
                      "crop keeps the canvas size and scales up to hide the corners; expand grows the canvas"),
        ],
        example: "straighten: -1.5",
        geometry: straightenedSize)

    static func straightenedSize(_ size: CanvasSize, _ params: ParamSet) -> CanvasSize {
        guard params.choice("fill") == "expand", let angle = params.number("angle") else { return size }
        // The kernel's bounding box (its slack keeps 0° exactly the size): one formula for the
        // checker's sizes and the render.
        let (w, h) = Rotation.expandedSize(width: size.width, height: size.height, angleDegrees: angle)
        return CanvasSize(width: w, height: h)
    }
}
