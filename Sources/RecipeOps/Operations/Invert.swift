import RecipeCore

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
