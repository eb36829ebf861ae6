import RecipeCore

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
