import RecipeCore
import RecipeKernels

extension Operations {
    /// Selects by brightness: the stage applies where the input's encoded luma lies in min…max,
    /// fading out over `feather` on each side.
    ///
    /// ```yaml
    /// - saturation: 0.8
    ///   mask: {luminance: {min: 0.7, max: 1, feather: 0.1}}
    /// ```
    ///
    /// `min` must be below `max`.
    public static let luminanceMask = MaskSpec(
        name: "luminance",
        summary: "Applies the stage where the input's encoded Rec.709 luma lies in min…max, with smoothstep fades of width feather outside both ends.",
        params: [
            ParamSpec("min", .number(0...1, unit: .none), default: .number(0),
                      "lowest encoded luma where the stage applies fully"),
            ParamSpec("max", .number(0...1, unit: .none), default: .number(1),
                      "highest encoded luma where the stage applies fully"),
            ParamSpec("feather", .number(0...1, unit: .none), default: .number(0.1),
                      "width of the fade beyond min and max, in encoded luma"),
        ] + maskStrengthParams,
        example: "mask: {luminance: {min: 0.7, max: 1, feather: 0.1}}",
        validate: minBelowMax)
}

extension Operations {
    /// The luma band; `linear` when the stage's input is linear light (the mask reads encoded luma).
    static func luminanceShape(_ p: ParamSet, _ canvas: CanvasSize, linear: Bool) -> MaskShape {
        .luminance(min: Float(p.number("min") ?? 0), max: Float(p.number("max") ?? 1),
                   feather: Float(p.number("feather") ?? 0.1), inputIsLinear: linear)
    }
}
