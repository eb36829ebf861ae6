import RecipeCore
import RecipeKernels
#if canImport(Glibc)
import Glibc
#endif

extension Operations {
    /// Mixes linear RGB with its Rec.709 luminance (CIColorControls saturation).
    ///
    /// ```yaml
    /// - saturation: 1.2
    /// ```
    public static let saturation = OperationSpec(
        name: "saturation",
        summary: "Moves linear RGB away from its Rec.709 luminance Y, Y + amount·(rgb − Y), so luminance is kept (CIColorControls saturation).",
        opClass: .point, space: .linear, primary: "amount",
        params: [
            ParamSpec("amount", .number(0...2, unit: .factor), default: .number(1),
                      "saturation factor; 0 is grey, 1 leaves the image unchanged, above 1 extrapolates"),
        ],
        example: "saturation: 1.2")
}

extension Operations {
    /// What a pixel becomes: the point steps of `saturation` for checked parameters `p`, in the
    /// op's working space (the planner adds the conversions around them).
    static func saturationSteps(_ p: ParamSet, _ canvas: CanvasSize) -> [PointStep] {
        return [.matrix(Luma.mix(toward: Luma.rec709, amount: Float(1 - (p.number("amount") ?? 1))))]
    }
}
