import RecipeCore

extension Operations {
    /// Composites the output of an earlier stage over this stage's input with a blend mode
    /// (W3C Compositing and Blending Level 1).
    ///
    /// ```yaml
    /// - id: soft
    ///   blur: 1%
    /// - input: base
    ///   blend: {with: soft, mode: soft-light, opacity: 0.5}
    /// ```
    public static let blend = OperationSpec(
        name: "blend",
        summary: "Blends the image of the stage named in `with` over the input in sRGB-encoded values with a separable blend mode, mixed by opacity (W3C Compositing and Blending Level 1).",
        opClass: .composite, space: .encoded, primary: "with",
        params: [
            ParamSpec("with", .stageRef, required: true,
                      "id of the earlier stage whose image is laid on top"),
            ParamSpec("mode", .choice(["normal", "multiply", "screen", "overlay", "soft-light"]),
                      default: .choice("normal"), "blend mode of the top image"),
            ParamSpec("opacity", .number(0...1, unit: .none), default: .number(1),
                      "mix of the blended result with the input; 1 is the full blend"),
        ],
        example: "blend: {with: soft, mode: soft-light, opacity: 0.5}")
}
