import RecipeCore
import RecipeKernels

extension Operations {
    /// Selects by colour (Lightroom's colour range, darktable's parametric mask): the stage
    /// applies where the input's OKLCh hue, chroma and lightness lie in their ranges, fading out
    /// over each range's feather (`ColorRange`).
    ///
    /// ```yaml
    /// - color-mixer: {blue-saturation: 0.3}
    ///   mask: {color: {hue-min: 200, hue-max: 270, lightness-min: 0.5}}
    /// ```
    ///
    /// Hues run from `hue-min` up to `hue-max`, through 360° back to 0 when `hue-max` is the
    /// smaller (330 to 30 is the reds); 0 to 360 is every hue. `chroma-min` defaults above 0 so
    /// that greys, whose hue means nothing, are left out.
    public static let colorMask = MaskSpec(
        name: "color",
        summary: "Applies the stage where the input's OKLCh hue lies on the arc hue-min→hue-max, its chroma in chroma-min…max and its lightness in lightness-min…max, each fading out over its feather (smoothsteps); the weight is the product of the three.",
        params: [
            ParamSpec("hue-min", .number(0...360, unit: .degrees), default: .number(0),
                      "where the arc of hues starts, OKLCh degrees (25 red, 55 orange, 100 yellow, 140 green, 190 aqua, 245 blue, 290 purple, 330 magenta)"),
            ParamSpec("hue-max", .number(0...360, unit: .degrees), default: .number(360),
                      "where the arc ends, going up from hue-min (through 360 when it is smaller)"),
            ParamSpec("hue-feather", .number(0...180, unit: .degrees), default: .number(15),
                      "width of the fade beyond both ends of the arc, in degrees"),
            ParamSpec("chroma-min", .number(0...0.5, unit: .none), default: .number(0.02),
                      "lowest OKLCh chroma selected fully (greys are 0, vivid sRGB colours about 0.3)"),
            ParamSpec("chroma-max", .number(0...0.5, unit: .none), default: .number(0.5),
                      "highest OKLCh chroma selected fully"),
            ParamSpec("chroma-feather", .number(0...0.5, unit: .none), default: .number(0.02),
                      "width of the fade beyond the chroma range"),
            ParamSpec("lightness-min", .number(0...1, unit: .none), default: .number(0),
                      "lowest OKLCh lightness selected fully (0 black, 1 white)"),
            ParamSpec("lightness-max", .number(0...1, unit: .none), default: .number(1),
                      "highest OKLCh lightness selected fully"),
            ParamSpec("lightness-feather", .number(0...1, unit: .none), default: .number(0.05),
                      "width of the fade beyond the lightness range"),
        ] + maskStrengthParams,
        example: "mask: {color: {hue-min: 200, hue-max: 270}}",
        validate: validateColorMask)

    private static func validateColorMask(_ p: ParamSet) -> [ParamProblem] {
        var problems: [ParamProblem] = []
        for axis in ["chroma", "lightness"] {
            let low = p.number("\(axis)-min") ?? 0, high = p.number("\(axis)-max") ?? 1
            guard low > high else { continue }
            let at = p.isGiven("\(axis)-max") && !p.isGiven("\(axis)-min") ? "\(axis)-max" : "\(axis)-min"
            problems.append(ParamProblem(
                at, "the \(axis) range is inverted: \(axis)-min (\(NumberFormatting.shortest(low))) is above \(axis)-max (\(NumberFormatting.shortest(high)))",
                notes: ["swap the two values; to select outside a range, keep it the right way round and add `invert: true`"]))
        }
        return problems
    }
}

extension Operations {
    /// The colour range; `linear` when the stage's input is linear light (else decoded first).
    static func colorShape(_ p: ParamSet, _ canvas: CanvasSize, linear: Bool) -> MaskShape {
        func f(_ name: String, _ fallback: Double) -> Float { Float(p.number(name) ?? fallback) }
        return .color(ColorRange(hueFrom: f("hue-min", 0), hueTo: f("hue-max", 360), hueFeather: f("hue-feather", 15),
                                 chromaLow: f("chroma-min", 0.02), chromaHigh: f("chroma-max", 0.5), chromaFeather: f("chroma-feather", 0.02),
                                 lightnessLow: f("lightness-min", 0), lightnessHigh: f("lightness-max", 1),
                                 lightnessFeather: f("lightness-feather", 0.05), inputIsLinear: linear))
    }
}
