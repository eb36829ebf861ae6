#if canImport(Glibc)
import Glibc
#endif
import RecipeCore

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
        let theta = abs(angle) * .pi / 180
        let (c, s) = (cos(theta), sin(theta))
        let (w, h) = (Double(size.width), Double(size.height))
        // The smallest whole-pixel canvas holding all four rotated corners; the slack absorbs the
        // rounding of cos/sin so that 0° keeps the size exactly.
        func boundingSide(_ v: Double) -> Int { max(1, Int((v - 1e-6).rounded(.up))) }
        return CanvasSize(width: boundingSide(w * c + h * s), height: boundingSide(w * s + h * c))
    }
}
