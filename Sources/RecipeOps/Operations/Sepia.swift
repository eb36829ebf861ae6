import RecipeCore
import RecipeKernels
#if canImport(Glibc)
import Glibc
#endif

extension Operations {
    /// Tones the image brown like an old print (CSS `sepia()`).
    ///
    /// ```yaml
    /// - sepia: 0.4
    /// ```
    public static let sepia = OperationSpec(
        name: "sepia",
        summary: "Maps encoded RGB through the W3C sepia() matrix, interpolated from the identity by amount (CISepiaTone-like).",
        opClass: .point, space: .encoded, primary: "amount",
        params: [
            ParamSpec("amount", .number(0...1, unit: .none), default: .number(1),
                      "strength; 0 leaves the image unchanged, 1 is full sepia"),
        ],
        example: "sepia: 0.4")
}

extension Operations {
    /// What a pixel becomes: the point steps of `sepia` for checked parameters `p`, in the
    /// op's working space (the planner adds the conversions around them).
    static func sepiaSteps(_ p: ParamSet, _ canvas: CanvasSize) -> [PointStep] {
        // W3C Filter Effects sepia(): identity + (sepia − identity)·amount.
        let a = Float(p.number("amount") ?? 1)
        let s: [Float] = [0.393, 0.769, 0.189, 0, 0.349, 0.686, 0.168, 0, 0.272, 0.534, 0.131, 0]
        return [.matrix(zip(PointStep.identityMatrix, s).map { $0 + ($1 - $0) * a })]
    }
}
