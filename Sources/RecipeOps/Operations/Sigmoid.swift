import RecipeCore
import RecipeKernels
#if canImport(Glibc)
import Glibc
#endif

extension Operations {
    /// An S-shaped contrast curve around a midpoint that keeps black and white fixed
    /// (ImageMagick `-sigmoidal-contrast`).
    ///
    /// ```yaml
    /// - sigmoid: {contrast: 5, midpoint: 0.4}
    /// ```
    public static let sigmoid = OperationSpec(
        name: "sigmoid",
        summary: "Applies the scaled sigmoid (S(v) − S(0))/(S(1) − S(0)) with S(x) = tanh(contrast/2·(x − midpoint)) to encoded values (ImageMagick SigmoidalContrastImage).",
        opClass: .point, space: .encoded, primary: "contrast",
        params: [
            ParamSpec("contrast", .number(0...20, unit: .none), default: .number(0),
                      "steepness of the S-curve; 0 leaves the image unchanged"),
            ParamSpec("midpoint", .number(0...1, unit: .none), default: .number(0.5),
                      "encoded value at the centre of the S-curve"),
        ],
        example: "sigmoid: {contrast: 5, midpoint: 0.4}")
}

extension Operations {
    /// What a pixel becomes: the point steps of `sigmoid` for checked parameters `p`, in the
    /// op's working space (the planner adds the conversions around them).
    static func sigmoidSteps(_ p: ParamSet, _ canvas: CanvasSize) -> [PointStep] {
        let a = p.number("contrast") ?? 0, b = p.number("midpoint") ?? 0.5
        guard a > 1e-6 else { return [] }  // ImageMagick's no-op below MagickEpsilon
        return [.sigmoid(a: Float(a), b: Float(b), s0: Float(tanh(a / 2 * (0 - b))), s1: Float(tanh(a / 2 * (1 - b))))]
    }
}
