import RecipeCore
import RecipeKernels
#if canImport(Glibc)
import Glibc
#endif

extension Operations {
    /// Rotates colours around the grey axis, keeping luminance (SVG/CSS `hue-rotate`).
    ///
    /// ```yaml
    /// - hue: 15
    /// ```
    public static let hue = OperationSpec(
        name: "hue",
        summary: "Rotates linear RGB around the grey axis by degrees with the luma-preserving matrix of SVG feColorMatrix hueRotate.",
        opClass: .point, space: .linear, primary: "degrees",
        params: [
            ParamSpec("degrees", .angle(-180...180, allowed: nil), default: .angle(0),
                      "rotation of the hue circle, in degrees"),
        ],
        example: "hue: 15")
}

extension Operations {
    /// What a pixel becomes: the point steps of `hue` for checked parameters `p`, in the
    /// op's working space (the planner adds the conversions around them).
    static func hueSteps(_ p: ParamSet, _ canvas: CanvasSize) -> [PointStep] {
        // SVG feColorMatrix hueRotate (0.213/0.715/0.072, as the oracle has them).
        let t = (p.number("degrees") ?? 0) * .pi / 180
        let c = Float(cos(t)), s = Float(sin(t))
        return [.matrix([
            0.213 + c * 0.787 - s * 0.213, 0.715 - c * 0.715 - s * 0.715, 0.072 - c * 0.072 + s * 0.928, 0,
            0.213 - c * 0.213 + s * 0.143, 0.715 + c * 0.285 + s * 0.140, 0.072 - c * 0.072 - s * 0.283, 0,
            0.213 - c * 0.213 - s * 0.787, 0.715 - c * 0.715 + s * 0.715, 0.072 + c * 0.928 + s * 0.072, 0,
        ])]
    }
}
