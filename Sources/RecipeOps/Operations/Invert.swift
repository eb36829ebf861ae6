import RecipeCore
import RecipeKernels
#if canImport(Glibc)
import Glibc
#endif

extension Operations {
    /// Makes a negative: every encoded channel becomes 1 − v (CIColorInvert).
    ///
    /// ```yaml
    /// - invert: {}
    /// ```
    public static let invert = OperationSpec(
        name: "invert",
        summary: "Replaces every sRGB-encoded channel v with 1 − v (CIColorInvert).",
        opClass: .point, space: .encoded,
        params: [],
        example: "invert: {}")
}

extension Operations {
    /// What a pixel becomes: the point steps of `invert` for checked parameters `p`, in the
    /// op's working space (the planner adds the conversions around them).
    static func invertSteps(_ p: ParamSet, _ canvas: CanvasSize) -> [PointStep] {
        return [.matrix([-1, 0, 0, 1, 0, -1, 0, 1, 0, 0, -1, 1])]
    }
}
