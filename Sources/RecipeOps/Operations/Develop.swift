import RecipeCore

extension Operations {
    /// How a camera raw file is developed into linear light: white balance, demosaic, highlights
    /// and the other raw-domain settings LibRaw runs before any pixel reaches the engine. The
    /// first stage of a recipe for raw photos; a JPEG, PNG, HEIC, WebP or TIFF ignores it (so one
    /// recipe serves a mixed folder), and `explain` says so.
    ///
    /// ```yaml
    /// - develop: {white-balance: as-shot, demosaic: directional, highlights: clip}
    /// ```
    ///
    /// Without the stage a raw photo develops with the defaults below: as-shot white balance, the
    /// directional demosaic,
    /// highlights clipped, no exposure change: the scene as measured (Grammar/semantics.md "Camera
    /// raw photos").
    public static let develop = OperationSpec(
        name: "develop",
        summary: "Develops a camera raw file (LibRaw): white balance, demosaic, highlights, raw exposure; scene-referred linear light out. Ignored for other photos.",
        opClass: .develop, space: .none, primary: "white-balance",
        params: [
            ParamSpec("white-balance", .choice(["as-shot", "auto"] + RawDevelop.presets.map(\.name)), default: .choice("as-shot"),
                      "the light the photo is balanced for: as the camera recorded it, auto: measured from the photo's near-grey pixels (the camera's multipliers, once per photo), or a named light (daylight 5500 K, cloudy 6500 K, shade 7500 K, tungsten 2850 K, fluorescent 3800 K, flash 5500 K)"),
            ParamSpec("temp", .number(2000...50000, unit: .kelvin),
                      "instead of white-balance: the colour temperature of the light, through the camera matrix"),
            ParamSpec("tint", .number(-150...150, unit: .none),
                      "with temp: the green–magenta offset of the light, in Adobe tint units (default 0)"),
            ParamSpec("red-multiplier", .number(0.05...20, unit: .factor),
                      "instead of white-balance: the multiplier of the camera's red channel, green being 1 (with blue-multiplier)"),
            ParamSpec("blue-multiplier", .number(0.05...20, unit: .factor),
                      "instead of white-balance: the multiplier of the camera's blue channel, green being 1 (with red-multiplier)"),
            ParamSpec("demosaic", .choice(RawDevelop.Demosaic.allCases.map(\.rawValue)), default: .choice("directional"),
                      "directional: recipe's own (colour differences to green along rows and columns, weighted by how little they change; streamed, a third of LibRaw's memory; sensors other than a plain Bayer mosaic fall back to ahd); LibRaw's linear (bilinear), vng, ppg, ahd, dcb, dht, aahd; half-size makes each 2×2 cell of the mosaic one pixel (half the width and height, no demosaic)"),
            ParamSpec("highlights", .choice(["clip", "unclip", "blend", "rebuild"]), default: .choice("clip"),
                      "light above the sensor's white level: clipped to white, kept unclipped (it may tint), blended, or rebuilt from the channels that did not clip"),
            ParamSpec("rebuild-level", .integer(3...9), default: .integer(5),
                      "with highlights: rebuild, how far the rebuild reaches (LibRaw's -H 3 to 9)"),
            ParamSpec("exposure", .number(-5...5, unit: .stops), default: .number(0),
                      "exposure of the raw data in stops, before any stage; nothing clips (the develop's output is float)"),
            ParamSpec("red-scale", .number(0.99...1.01, unit: .factor), default: .number(1),
                      "chromatic aberration: the scale of the red plane against green (LibRaw's -C)"),
            ParamSpec("blue-scale", .number(0.99...1.01, unit: .factor), default: .number(1),
                      "chromatic aberration: the scale of the blue plane against green (LibRaw's -C)"),
            ParamSpec("noise-threshold", .number(0...5000, unit: .none), default: .number(0),
                      "LibRaw's wavelet denoising before its own demosaic (-n; 100 to 1000 is useful, 0 none); recipe's own is `denoise`"),
            ParamSpec("denoise", .number(0...4, unit: .factor), default: .number(0),
                      "recipe's denoise of the mosaic before the demosaic, luma and chroma at this strength (1: tuned on photos with a known answer; 0 none): the sensor's noise model, estimated from the mosaic, stabilised, and each 2×2 cell's luma and chroma smoothed (docs/denoise.md)"),
            ParamSpec("denoise-luma", .number(0...4, unit: .factor),
                      "the strength for luma (detail and grain) alone; default: `denoise`'s"),
            ParamSpec("denoise-chroma", .number(0...4, unit: .factor),
                      "the strength for chroma (colour blotches) alone; default: `denoise`'s"),
            ParamSpec("noise-gain", .number(0.0001...10000, unit: .none),
                      "the noise model instead of its estimate: the variance a raw unit of signal adds (photon noise; about the ISO / the camera's unity-gain ISO), with noise-floor"),
            ParamSpec("noise-floor", .number(0...100_000_000, unit: .none),
                      "with noise-gain: the variance at black, in raw units squared (read noise)"),
        ],
        example: "develop: {white-balance: as-shot, demosaic: directional, highlights: clip}",
        sinceFormat: FormatVersion(1, 2),
        validate: { p in
            var problems: [ParamProblem] = []
            let named = p.isGiven("white-balance")
            let temperature = p.isGiven("temp") || p.isGiven("tint")
            let multipliers = p.isGiven("red-multiplier") || p.isGiven("blue-multiplier")
            if [named, temperature, multipliers].filter({ $0 }).count > 1 {
                problems.append(ParamProblem(p.isGiven("temp") ? "temp" : p.isGiven("tint") ? "tint" : "red-multiplier",
                    "give the white balance one way: `white-balance`, or `temp` and `tint`, or `red-multiplier` and `blue-multiplier`"))
            }
            if p.isGiven("tint") && !p.isGiven("temp") {
                problems.append(ParamProblem("tint", "`tint` goes with `temp`", notes: ["for example `temp: 5200, tint: 8`"]))
            }
            if p.isGiven("red-multiplier") != p.isGiven("blue-multiplier") {
                problems.append(ParamProblem(p.isGiven("red-multiplier") ? "red-multiplier" : "blue-multiplier",
                    "give both `red-multiplier` and `blue-multiplier` (green is 1)"))
            }
            if p.isGiven("noise-gain") != p.isGiven("noise-floor") {
                problems.append(ParamProblem(p.isGiven("noise-gain") ? "noise-gain" : "noise-floor",
                    "give the noise model as both `noise-gain` and `noise-floor`, or neither (then it is estimated)",
                    notes: ["for example `noise-gain: 8.5, noise-floor: 290`"]))
            }
            let strengths = ["denoise", "denoise-luma", "denoise-chroma"]
            if p.isGiven("noise-gain") && !strengths.contains(where: { p.isGiven($0) && (p.number($0) ?? 0) > 0 }) {
                problems.append(ParamProblem("noise-gain", "a noise model goes with a denoise strength", notes: ["for example `denoise: 1`"]))
            }
            if strengths.contains(where: { p.isGiven($0) && (p.number($0) ?? 0) > 0 }) && (p.number("noise-threshold") ?? 0) > 0 {
                problems.append(ParamProblem("noise-threshold", "use one denoise: recipe's `denoise` or LibRaw's `noise-threshold`"))
            }
            if p.isGiven("rebuild-level") && p.choice("highlights") != "rebuild" {
                problems.append(ParamProblem("rebuild-level", "`rebuild-level` goes with `highlights: rebuild`"))
            }
            return problems
        })

    /// The develop a checked `develop` stage states.
    public static func rawDevelop(_ p: ParamSet) -> RawDevelop {
        var d = RawDevelop()
        if let t = p.number("temp") {
            d.whiteBalance = .temperature(t, tint: p.number("tint") ?? 0)
        } else if let r = p.number("red-multiplier"), let b = p.number("blue-multiplier") {
            d.whiteBalance = .multipliers([r, 1, b])
        } else {
            switch p.choice("white-balance") ?? "as-shot" {
            case "as-shot": d.whiteBalance = .asShot
            case "auto": d.whiteBalance = .auto
            case let name: d.whiteBalance = .preset(name)
            }
        }
        d.demosaic = RawDevelop.Demosaic(rawValue: p.choice("demosaic") ?? "directional") ?? .directional
        switch p.choice("highlights") ?? "clip" {
        case "unclip": d.highlights = .unclip
        case "blend": d.highlights = .blend
        case "rebuild":
            var level = 5
            if case .integer(let l)? = p["rebuild-level"] { level = l }
            d.highlights = .rebuild(level)
        default: d.highlights = .clip
        }
        d.exposure = p.number("exposure") ?? 0
        d.chromaticAberration = (p.number("red-scale") ?? 1, p.number("blue-scale") ?? 1)
        d.noiseThreshold = p.number("noise-threshold") ?? 0
        let both = p.number("denoise") ?? 0
        let luma = p.number("denoise-luma") ?? both, chroma = p.number("denoise-chroma") ?? both
        if luma > 0 || chroma > 0 {
            let model = p.number("noise-gain").map { NoiseModel(gain: $0, floor: p.number("noise-floor") ?? 0) }
            d.denoise = RawDenoise(luma: luma, chroma: chroma, model: model)
        }
        return d
    }
}

extension FilterGraph {
    /// The develop the graph's `develop` stages state (nil: none; a raw then develops with the
    /// defaults). A graph composed of a photo's sidecar and a shared look can hold two: a setting
    /// the first states wins (the photo's own white balance over the look's), and the white
    /// balance, however it is given, counts as one setting.
    public var develop: RawDevelop? {
        let stages = nodes.filter { $0.opClass == .develop }
        guard !stages.isEmpty else { return nil }
        let whiteBalance: Set = ["white-balance", "temp", "tint", "red-multiplier", "blue-multiplier"]
        var merged = ParamSet()
        var balanced = false
        for node in stages {
            let given = node.params.names.filter { node.params.isGiven($0) }
            let states = given.contains(where: whiteBalance.contains)
            for name in given where !merged.isGiven(name) {
                if whiteBalance.contains(name) && balanced { continue }
                if let value = node.params[name] { merged.set(name, value, given: true) }
            }
            balanced = balanced || states
        }
        return Operations.rawDevelop(merged)
    }
}
