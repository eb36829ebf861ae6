import RecipeCore
import RecipeKernels
#if canImport(Glibc)
import Glibc
#endif

extension Operations {
    /// Raises the saturation of dull colours more than that of vivid ones (glfx.js vibrance).
    ///
    /// ```yaml
    /// - vibrance: 0.3
    /// ```
    public static let vibrance = OperationSpec(
        name: "vibrance",
        summary: "Saturates low-saturation colours more than vivid ones, mixing rgb with max(r,g,b) by (max − mean)·(−3·amount) (glfx.js vibrance).",
        opClass: .point, space: .encoded, primary: "amount",
        params: [
            ParamSpec("amount", .number(-1...1, unit: .none), default: .number(0),
                      "strength; positive saturates dull colours, negative desaturates, 0 leaves the image unchanged"),
        ],
        example: "vibrance: 0.3")
}

extension Operations {
    /// What a pixel becomes: the point steps of `vibrance` for checked parameters `p`, in the
    /// op's working space (the planner adds the conversions around them).
    static func vibranceSteps(_ p: ParamSet, _ canvas: CanvasSize) -> [PointStep] {
        return [.vibrance(Float(p.number("amount") ?? 0))]
    }
}
