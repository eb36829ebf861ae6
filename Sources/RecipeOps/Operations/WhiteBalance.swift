import RecipeCore
import RecipeKernels

extension Operations {
    /// Corrects the colour of the light: maps the white of the illuminant (temp, tint) onto the
    /// white of (target-temp, target-tint) (CITemperatureAndTint semantics, Lightroom's numbers).
    ///
    /// ```yaml
    /// - white-balance: {temp: 5200, tint: 8}
    /// - white-balance: auto              # temp and tint measured per photo: its near-grey pixels made grey
    /// - white-balance: {temp: auto+500}  # measured, then a light 500 K warmer assumed (cools)
    /// ```
    ///
    /// A `temp` below `target-temp` cools the image; above it warms. Both whites come from the same
    /// locus, so the defaults are an exact identity.
    public static let whiteBalance = OperationSpec(
        name: "white-balance",
        summary: "Bradford-adapts linear RGB from the white of the illuminant (temp, tint) to the white of (target-temp, target-tint), both from Adobe DNG SDK Robertson temp/tint.",
        opClass: .point, space: .linear, primary: "temp",
        params: [
            ParamSpec("temp", .orAuto(.number(2000...50000, unit: .kelvin)), default: .number(6500), autoSince: FormatVersion(1, 4),
                      "colour temperature of the light in the scene, in kelvin; auto: measured from the photo's near-grey pixels (with tint: auto unless tint is given)"),
            ParamSpec("tint", .orAuto(.number(-150...150, unit: .none)), default: .number(0), autoSince: FormatVersion(1, 4),
                      "green–magenta offset of the light in the scene, in Adobe tint units; positive corrects towards magenta; auto: measured with temp"),
            ParamSpec("target-temp", .number(2000...50000, unit: .kelvin), default: .number(6500),
                      "colour temperature the scene light is mapped to, in kelvin"),
            ParamSpec("target-tint", .number(-150...150, unit: .none), default: .number(0),
                      "tint the scene light is mapped to, in Adobe tint units"),
        ],
        example: "white-balance: {temp: 5200, tint: 8}")
}

extension Operations {
    /// What a pixel becomes: the Bradford matrix from the white (temp, tint) to the target white,
    /// in linear light.
    static func whiteBalanceSteps(_ p: ParamSet, _ canvas: CanvasSize) -> [PointStep] {
        // A temp or tint still `auto` (planned without a photo: `explain` alone) is the identity.
        [.matrix(WhiteBalance.matrix(temperature: p.number("temp") ?? p.number("target-temp") ?? 6500, tint: p.number("tint") ?? p.number("target-tint") ?? 0,
                                     targetTemperature: p.number("target-temp") ?? 6500, targetTint: p.number("target-tint") ?? 0))]
    }
}
