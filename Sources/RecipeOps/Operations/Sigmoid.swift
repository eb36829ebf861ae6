import RecipeCore

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
