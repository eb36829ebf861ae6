import RecipeCore
import RecipeKernels
#if canImport(Glibc)
import Glibc
#endif

extension Operations {
    /// Adds a constant to every sRGB-encoded channel (CIColorControls brightness).
    ///
    /// ```yaml
    /// - brightness: 0.05
    /// ```
    public static let brightness = OperationSpec(
        name: "brightness",
        summary: "Adds amount to every sRGB-encoded channel, v + amount (CIColorControls brightness).",
        opClass: .point, space: .encoded, primary: "amount",
        params: [
            ParamSpec("amount", .number(-1...1, unit: .none), default: .number(0),
                      "offset added to encoded values; 0 leaves the image unchanged"),
        ],
        example: "brightness: 0.05")
}

extension Operations {
    /// What a pixel becomes: the point steps of `brightness` for checked parameters `p`, in the
    /// op's working space (the planner adds the conversions around them).
    static func brightnessSteps(_ p: ParamSet, _ canvas: CanvasSize) -> [PointStep] {
        let a = Float(p.number("amount") ?? 0)
        return [.matrix([1, 0, 0, a, 0, 1, 0, a, 0, 0, 1, a])]
    }
}
