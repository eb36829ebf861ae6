import RecipeCore
import RecipeKernels

extension Operations {
    /// Lightroom's HSL / Color Mixer: a hue shift, a saturation and a luminance for each of eight
    /// colour bands, on OKLCh hue (`ColorMixer`): the blue sky deeper without touching skin.
    ///
    /// ```yaml
    /// - color-mixer: {blue-saturation: 0.3, blue-luminance: -0.4, orange-hue: -5}
    /// ```
    ///
    /// Band centres (OKLCh degrees): red 25, orange 55, yellow 100, green 140, aqua 190, blue 245,
    /// purple 290, magenta 330. A band reaches from its neighbour's centre on one side to its
    /// neighbour's on the other, fully at its own; neighbours blend without edges; greys
    /// (OKLCh chroma under 0.01) are left alone.
    public static let colorMixer = OperationSpec(
        name: "color-mixer",
        summary: "Per colour band (red, orange, yellow, green, aqua, blue, purple, magenta, centred at OKLCh hues 25, 55, 100, 140, 190, 245, 290, 330°): a hue shift, saturation (chroma ×(1 + s)) and luminance (lightness ×(1 + l/2)); weights blend smoothly between neighbouring centres; greys untouched.",
        opClass: .point, space: .linear,
        params: ColorMixer.bands.flatMap { band in [
            ParamSpec("\(band.name)-hue", .number(-ColorMixer.maxHueShift...ColorMixer.maxHueShift, unit: .degrees), default: .number(0),
                      "hue shift of the \(band.name)s (centre \(Int(band.centre))°), in OKLCh degrees; positive turns towards the next band up"),
            ParamSpec("\(band.name)-saturation", .number(-1...1, unit: .none), default: .number(0),
                      "saturation of the \(band.name)s: −1 grey, 0 unchanged, 1 twice the chroma"),
            ParamSpec("\(band.name)-luminance", .number(-1...1, unit: .none), default: .number(0),
                      "luminance of the \(band.name)s: −1 half the lightness, 1 one and a half times"),
        ] },
        example: "color-mixer: {blue-saturation: 0.3, blue-luminance: -0.4}",
        sinceFormat: FormatVersion(1, 4))
}

extension Operations {
    /// What a pixel becomes: the mixer on linear light, or nothing when every value is 0.
    static func colorMixerSteps(_ p: ParamSet, _ canvas: CanvasSize) -> [PointStep] {
        let names = ColorMixer.bands.map(\.name)
        let mixer = ColorMixer(hue: names.map { p.number("\($0)-hue") ?? 0 },
                               saturation: names.map { p.number("\($0)-saturation") ?? 0 },
                               luminance: names.map { p.number("\($0)-luminance") ?? 0 })
        return mixer.isIdentity ? [] : [.colorMixer(mixer)]
    }
}
