import RecipeCore

extension Operations {
    /// Adds a constant to every sRGB-encoded channel (CIColorControls brightness).
    ///
    /// ```yaml
    /// - brightness: 0.05
    /// ```
    public static let brightness = OperationSpec(
        name: "brightness",
        summary: "Adds amount to every sRGB-encoded channel, v + amount (CIColorControls brightness).",
        opClass: .point, space: .encoded, primary: "amount",
        params: [
            ParamSpec("amount", .number(-1...1, unit: .none), default: .number(0),
                      "offset added to encoded values; 0 leaves the image unchanged"),
        ],
        example: "brightness: 0.05")
}
