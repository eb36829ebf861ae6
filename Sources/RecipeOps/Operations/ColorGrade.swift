import RecipeCore
import RecipeKernels

extension Operations {
    /// Colour grading (Lightroom's Color Grading, the older split toning; darktable's color
    /// balance rgb): a tint and a lightness change for the shadows, the midtones, the
    /// highlights and the whole picture, in OKLab (`ColorGrade`).
    ///
    /// ```yaml
    /// - color-grade: {shadows-hue: 230, shadows-saturation: 0.3, highlights-hue: 60, highlights-saturation: 0.25}
    /// ```
    ///
    /// Split toning is the shadows and highlights tints with `balance`. `blending` widens the
    /// fades between the zones; `balance` moves the split between shadows and highlights.
    public static let colorGrade = OperationSpec(
        name: "color-grade",
        summary: "Tints shadows, midtones, highlights and the whole picture: each zone adds saturation·0.1·(cos hue, sin hue) to OKLab a, b (times min(1, 4L)) and luminance·0.2 to L, zones weighted by smoothsteps of L around 0.5 − 0.25·balance ± 0.25, fades ±0.25·blending wide.",
        opClass: .point, space: .linear,
        params: ["shadows", "midtones", "highlights", "global"].flatMap { zone in [
            ParamSpec("\(zone)-hue", .number(0...360, unit: .degrees), default: .number(0),
                      "hue of the \(zone == "global" ? "whole picture's" : zone + "'") tint, in OKLCh degrees (25 red, 100 yellow, 140 green, 245 blue)"),
            ParamSpec("\(zone)-saturation", .number(0...1, unit: .none), default: .number(0),
                      "strength of the \(zone == "global" ? "whole picture's" : zone + "'") tint; 0 none"),
            ParamSpec("\(zone)-luminance", .number(-1...1, unit: .none), default: .number(0),
                      "lightens (positive) or darkens the \(zone == "global" ? "whole picture" : zone)"),
        ] } + [
            ParamSpec("balance", .number(-1...1, unit: .none), default: .number(0),
                      "moves the split between shadows and highlights: positive gives the highlights' tint more of the picture"),
            ParamSpec("blending", .number(0...1, unit: .none), default: .number(0.5),
                      "how gradually the zones blend: 0 hard edges, 1 the widest fades"),
        ],
        example: "color-grade: {shadows-hue: 230, shadows-saturation: 0.3, highlights-hue: 60, highlights-saturation: 0.25}",
        sinceFormat: FormatVersion(1, 4))
}

extension Operations {
    /// What a pixel becomes: the grading on linear light, or nothing when no zone changes.
    static func colorGradeSteps(_ p: ParamSet, _ canvas: CanvasSize) -> [PointStep] {
        let zones = ["shadows", "midtones", "highlights", "global"].map { zone in
            ColorGrade.Tint(hue: p.number("\(zone)-hue") ?? 0, saturation: p.number("\(zone)-saturation") ?? 0,
                            luminance: p.number("\(zone)-luminance") ?? 0)
        }
        let grade = ColorGrade(zones: zones, balance: p.number("balance") ?? 0, blending: p.number("blending") ?? 0.5)
        return grade.isIdentity ? [] : [.colorGrade(grade)]
    }
}
