import RecipeCore
import RecipeKernels
#if canImport(Glibc)
import Glibc
#endif

extension Operations {
    /// Maps the input range black…white onto out-black…out-white with a gamma in between
    /// (ImageMagick `-level` and `+level`).
    ///
    /// ```yaml
    /// - levels: {black: 0.05, white: 0.95, gamma: 1.2}
    /// - levels: {black: auto, white: auto, black-clip: 0.005}   # ImageMagick's -contrast-stretch 0.5%x0.1%
    /// ```
    ///
    /// `black` must be below `white`, and `out-black` must not be above `out-white`. An `auto`
    /// black (white) is the darkest (lightest) intensity once `black-clip` (`white-clip`) of the
    /// pixels are left below (above) it, measured per photo.
    public static let levels = OperationSpec(
        name: "levels",
        summary: "Maps encoded black…white onto out-black…out-white through a gamma, ob + (ow − ob)·clamp0((v − b)/(w − b))^(1/gamma) (ImageMagick LevelImage).",
        opClass: .point, space: .encoded,
        params: [
            ParamSpec("black", .orAuto(.number(0...1, unit: .none)), default: .number(0), autoSince: FormatVersion(1, 4),
                      "encoded input value that becomes out-black; auto: the intensity black-clip of the pixels are darker than"),
            ParamSpec("white", .orAuto(.number(0...1, unit: .none)), default: .number(1), autoSince: FormatVersion(1, 4),
                      "encoded input value that becomes out-white; auto: the intensity white-clip of the pixels are lighter than"),
            ParamSpec("gamma", .number(0.1...10, unit: .none), default: .number(1),
                      "midtone gamma; above 1 brightens the midtones, 1 is linear"),
            ParamSpec("out-black", .number(0...1, unit: .none), default: .number(0),
                      "encoded output value for input black"),
            ParamSpec("out-white", .number(0...1, unit: .none), default: .number(1),
                      "encoded output value for input white"),
            ParamSpec("black-clip", .number(0...0.5, unit: .fraction), default: .number(0.001),
                      "with black: auto, the fraction of pixels left at or below black (ImageMagick -contrast-stretch's black point, as a fraction)"),
            ParamSpec("white-clip", .number(0...0.5, unit: .fraction), default: .number(0.001),
                      "with white: auto, the fraction of pixels left at or above white (ImageMagick -contrast-stretch's white point, as a fraction)"),
        ],
        example: "levels: {black: 0.05, white: 0.95, gamma: 1.2}",
        validate: validateLevels)

    private static func validateLevels(_ params: ParamSet) -> [ParamProblem] {
        var problems: [ParamProblem] = []
        let black = params.number("black") ?? 0, white = params.number("white") ?? 1
        // An `auto` point is measured below the other (`AutoMeasure.levels`).
        if params["black"]?.isAuto != true, params["white"]?.isAuto != true, !(black < white) {
            let at = params.isGiven("white") && !params.isGiven("black") ? "white" : "black"
            problems.append(ParamProblem(
                at, "black (\(NumberFormatting.shortest(black))) must be below white (\(NumberFormatting.shortest(white)))",
                notes: ["the input range black…white is stretched to out-black…out-white, so it cannot be empty"]))
        }
        let outBlack = params.number("out-black") ?? 0, outWhite = params.number("out-white") ?? 1
        if !(outBlack <= outWhite) {
            let at = params.isGiven("out-white") && !params.isGiven("out-black") ? "out-white" : "out-black"
            problems.append(ParamProblem(
                at, "out-black (\(NumberFormatting.shortest(outBlack))) must not be above out-white (\(NumberFormatting.shortest(outWhite)))",
                notes: ["to invert the image, use `invert`"]))
        }
        for (clip, point) in [("black-clip", "black"), ("white-clip", "white")]
        where params.isGiven(clip) && params[point]?.isAuto != true {
            problems.append(ParamProblem(clip, "`\(clip)` goes with `\(point): auto`", notes: ["it says how many pixels an automatic \(point) point leaves beyond it"]))
        }
        if (params.number("black-clip") ?? 0) + (params.number("white-clip") ?? 0) >= 1 {
            problems.append(ParamProblem("white-clip", "black-clip and white-clip together must leave some pixels between them"))
        }
        return problems
    }
}

extension Operations {
    /// What a pixel becomes: the point steps of `levels` for checked parameters `p`, in the
    /// op's working space (the planner adds the conversions around them).
    static func levelsSteps(_ p: ParamSet, _ canvas: CanvasSize) -> [PointStep] {
        return [.levels(black: Float(p.number("black") ?? 0), white: Float(p.number("white") ?? 1),
                        inverseGamma: Float(1 / (p.number("gamma") ?? 1)),
                        outBlack: Float(p.number("out-black") ?? 0), outWhite: Float(p.number("out-white") ?? 1))]
    }
}
