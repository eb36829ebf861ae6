import RecipeCore

extension Operations {
    /// Blurs with a Gaussian of standard deviation sigma in linear light (CIGaussianBlur, clamped edges).
    ///
    /// ```yaml
    /// - blur: 2px
    /// - blur: {sigma: 0.5%}
    /// ```
    public static let blur = OperationSpec(
        name: "blur",
        summary: "Convolves linear light with a separable Gaussian of standard deviation sigma, edges clamped (vips gaussblur).",
        opClass: .neighbourhood, space: .linear, primary: "sigma",
        params: [
            ParamSpec("sigma", .length(px: 0...1000, percentOf: .shortSide), default: .length(.px(0)),
                      "standard deviation of the Gaussian, in px or % of the short side; 0 leaves the image unchanged"),
        ],
        example: "blur: {sigma: 0.5%}")
}
