import RecipeCore
import RecipeKernels
#if canImport(Glibc)
import Glibc
#endif

extension Operations {
    /// Replaces colours with their Rec.709 luminance.
    ///
    /// ```yaml
    /// - grayscale: 1
    /// ```
    public static let grayscale = OperationSpec(
        name: "grayscale",
        summary: "Mixes linear RGB towards its Rec.709 luminance Y = 0.2126 R + 0.7152 G + 0.0722 B by amount.",
        opClass: .point, space: .linear, primary: "amount",
        params: [
            ParamSpec("amount", .number(0...1, unit: .none), default: .number(1),
                      "strength; 0 leaves the image unchanged, 1 is fully grey"),
        ],
        example: "grayscale: 1")
}

extension Operations {
    /// What a pixel becomes: the point steps of `grayscale` for checked parameters `p`, in the
    /// op's working space (the planner adds the conversions around them).
    static func grayscaleSteps(_ p: ParamSet, _ canvas: CanvasSize) -> [PointStep] {
        return [.matrix(Luma.mix(toward: Luma.rec709, amount: Float(p.number("amount") ?? 1)))]
    }
}
