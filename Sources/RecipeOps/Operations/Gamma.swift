import RecipeCore
import RecipeKernels
#if canImport(Glibc)
import Glibc
#endif

extension Operations {
    /// Raises sRGB-encoded values to a power (CIGammaAdjust); above 1 darkens.
    ///
    /// ```yaml
    /// - gamma: 1.2
    /// ```
    public static let gamma = OperationSpec(
        name: "gamma",
        summary: "Raises sRGB-encoded values to a power, v^power, so powers above 1 darken (CIGammaAdjust).",
        opClass: .point, space: .encoded, primary: "power",
        params: [
            ParamSpec("power", .number(0.1...10, unit: .none), default: .number(1),
                      "exponent applied to encoded values; 1 leaves the image unchanged, above 1 darkens"),
        ],
        example: "gamma: 1.2")
}

extension Operations {
    /// What a pixel becomes: the point steps of `gamma` for checked parameters `p`, in the
    /// op's working space (the planner adds the conversions around them).
    static func gammaSteps(_ p: ParamSet, _ canvas: CanvasSize) -> [PointStep] {
        return [.power(Float(p.number("power") ?? 1))]
    }
}
