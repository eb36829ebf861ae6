import RecipeCore
import RecipeKernels
#if canImport(Glibc)
import Glibc
#endif

extension Operations {
    /// Clamps every channel into min…max (CIColorClamp).
    ///
    /// ```yaml
    /// - clip: {min: 0, max: 1}
    /// ```
    ///
    /// `min` must be below `max`.
    public static let clip = OperationSpec(
        name: "clip",
        summary: "Clamps every channel to min…max, clamp(v, min, max), in whatever space the values are in (CIColorClamp).",
        opClass: .point, space: .any,
        params: [
            ParamSpec("min", .number(0...1, unit: .none), default: .number(0),
                      "lowest value a channel keeps"),
            ParamSpec("max", .number(0...1, unit: .none), default: .number(1),
                      "highest value a channel keeps"),
        ],
        example: "clip: {min: 0, max: 1}",
        validate: minBelowMax)
}

extension Operations {
    /// What a pixel becomes: the point steps of `clip` for checked parameters `p`, in the
    /// op's working space (the planner adds the conversions around them).
    static func clipSteps(_ p: ParamSet, _ canvas: CanvasSize) -> [PointStep] {
        return [.clip(low: Float(p.number("min") ?? 0), high: Float(p.number("max") ?? 1))]
    }
}
