import RecipeCore

extension Operations {
    /// Local contrast: a luma-only unsharp mask with a wide radius (a `sharpen` with large sigma).
    ///
    /// ```yaml
    /// - clarity: 0.3
    /// ```
    public static let clarity = OperationSpec(
        name: "clarity",
        summary: "Adds local contrast as a luma-only unsharp mask with a large sigma, sharpen(luma: true) (ImageMagick UnsharpMaskImage on luma).",
        opClass: .neighbourhood, space: .encoded, primary: "amount",
        params: [
            ParamSpec("amount", .number(-1...1, unit: .none), default: .number(0),
                      "strength; negative softens local contrast, 0 leaves the image unchanged"),
            ParamSpec("sigma", .length(px: 0...1000, percentOf: .shortSide), default: .length(.percent(2)),
                      "standard deviation of the wide blur, in px or % of the short side"),
        ],
        example: "clarity: 0.3")
}
