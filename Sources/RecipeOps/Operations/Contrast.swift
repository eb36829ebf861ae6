import RecipeCore
import RecipeKernels
#if canImport(Glibc)
import Glibc
#endif

extension Operations {
    /// Scales sRGB-encoded values away from a pivot (CIColorControls contrast).
    ///
    /// ```yaml
    /// - contrast: {amount: 1.15, pivot: 0.4614}
    /// ```
    public static let contrast = OperationSpec(
        name: "contrast",
        summary: "Scales sRGB-encoded values away from the pivot, (v − pivot)·amount + pivot (CIColorControls contrast).",
        opClass: .point, space: .encoded, primary: "amount",
        params: [
            ParamSpec("amount", .number(0...4, unit: .factor), default: .number(1),
                      "slope around the pivot; 1 leaves the image unchanged, 0 makes it flat"),
            ParamSpec("pivot", .number(0...1, unit: .none), default: .number(0.5),
                      "encoded value that stays fixed; 0.4614 is linear middle grey (18%)"),
        ],
        example: "contrast: {amount: 1.15, pivot: 0.4614}")
}

extension Operations {
    /// What a pixel becomes: the point steps of `contrast` for checked parameters `p`, in the
    /// op's working space (the planner adds the conversions around them).
    static func contrastSteps(_ p: ParamSet, _ canvas: CanvasSize) -> [PointStep] {
        let k = Float(p.number("amount") ?? 1), pivot = Float(p.number("pivot") ?? 0.5)
        let o = pivot * (1 - k)
        return [.matrix([k, 0, 0, o, 0, k, 0, o, 0, 0, k, o])]
    }
}
