import RecipeCore

extension Operations {
    /// Turns the image into a monochrome of one colour (CIColorMonochrome-like).
    ///
    /// ```yaml
    /// - colorize: {color: "#996633", amount: 0.6}
    /// ```
    public static let colorize = OperationSpec(
        name: "colorize",
        summary: "Mixes linear RGB towards its Rec.709 luminance times the colour, mix(rgb, Y·color, amount) (CIColorMonochrome-like).",
        opClass: .point, space: .linear, primary: "amount",
        params: [
            ParamSpec("color", .color, default: .color(RGBColor(0x99 / 255, 0x66 / 255, 0x33 / 255)),
                      "tint colour, \"#rrggbb\" or [r, g, b] in 0…1 (sRGB-encoded)"),
            ParamSpec("amount", .number(0...1, unit: .none), default: .number(1),
                      "strength; 0 leaves the image unchanged, 1 is fully tinted"),
        ],
        example: "colorize: {color: \"#996633\", amount: 0.6}")
}
