/// Writes typical sidecar recipes, the kind a photo library keeps one of beside each photo: 3 to 12
/// stages of the common ops with realistic values (white balance, exposure, contrast, tone, colour,
/// detail, a vignette, a crop or straighten, sometimes a resize for export), a comment or two, some
/// stage ids and local masks, sometimes a `note` or a `params:` knob. Every file is valid (no
/// errors and no warnings) and 300 to 1,500 bytes long. Deterministic: the same `seed` and index give
/// the same text.
///
/// ```swift
/// var generator = SidecarGenerator(seed: 2024)
/// let text = generator.recipe(index: 17)   // "# IMG_00017.jpg, edited 2024-…\nformat: dev.recipe.edit\n…"
/// ```
struct SidecarGenerator {
    /// SplitMix64: small, seedable, the same on every platform.
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    static let minBytes = 300
    static let maxBytes = 1500

    private mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private mutating func below(_ n: Int) -> Int { n <= 1 ? 0 : Int(next() % UInt64(n)) }
    private mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    private mutating func pick(_ items: [String]) -> String { items[below(items.count)] }

    /// A value in `low...high` in steps of `step`, written without trailing zeros (`0.25`, `-1.5`, `5200`).
    private mutating func value(_ low: Double, _ high: Double, step: Double) -> String {
        let steps = Int(((high - low) / step).rounded())
        let v = low + Double(below(steps + 1)) * step
        return Self.decimal(v, step: step)
    }

    /// `v` with as many decimals as `step` has (at most 3), trailing zeros dropped.
    static func decimal(_ v: Double, step: Double) -> String {
        let decimals = step >= 1 ? 0 : step >= 0.1 ? 1 : step >= 0.01 ? 2 : 3
        var text = Format.fixed(v, decimals)
        guard decimals > 0 else { return text }
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// One stage: its lines (without the list indentation) and whether it can carry a mask.
    private typealias Stage = (lines: [String], maskable: Bool)

    private mutating func whiteBalance(knob: Bool) -> Stage {
        let temp = knob ? "$warmth" : value(2800, 9000, step: 50)
        return (["white-balance: {temp: \(temp), tint: \(value(-20, 20, step: 1))}"], false)
    }

    private mutating func tone() -> Stage {
        switch below(7) {
        case 0: return (["exposure: \(value(-1.5, 1.5, step: 0.05))"], true)
        case 1: return (["exposure: {ev: \(value(-1.5, 1.5, step: 0.05))}"], true)
        case 2: return (["contrast: \(value(0.8, 1.4, step: 0.05))"], true)
        case 3: return (["contrast: {amount: \(value(0.8, 1.4, step: 0.05)), pivot: \(value(0.4, 0.6, step: 0.05))}"], true)
        case 4:
            return (["shadows-highlights: {shadows: \(value(0, 0.5, step: 0.05)), highlights: \(value(-0.5, 0, step: 0.05)), "
                + "radius: \(value(1, 3, step: 0.5))%}"], true)
        case 5:
            let a = value(0, 0.06, step: 0.01), b = value(0.2, 0.3, step: 0.01), c = value(0.7, 0.8, step: 0.01)
            return (["curve: {points: [[0, \(a)], [0.25, \(b)], [0.75, \(c)], [1, \(value(0.94, 1, step: 0.01))]]}"], true)
        default:
            return (["levels: {black: \(value(0, 0.05, step: 0.01)), white: \(value(0.95, 1, step: 0.01)), gamma: \(value(0.9, 1.1, step: 0.05))}"], true)
        }
    }

    private mutating func colour() -> Stage {
        switch below(6) {
        case 0: return (["saturation: \(value(0.7, 1.3, step: 0.05))"], true)
        case 1: return (["vibrance: \(value(-0.3, 0.5, step: 0.05))"], true)
        case 2: return (["hue: \(value(-10, 10, step: 1))"], true)
        case 3: return (["saturation: {amount: \(value(0.7, 1.3, step: 0.05))}"], true)
        case 4: return (["grayscale: {amount: \(value(0.5, 1, step: 0.1))}"], false)
        default: return (["sepia: \(value(0.1, 0.6, step: 0.05))"], false)
        }
    }

    private mutating func detail() -> Stage {
        switch below(4) {
        case 0: return (["clarity: \(value(-0.3, 0.5, step: 0.05))"], true)
        case 1: return (["sharpen: {amount: \(value(0.3, 1.5, step: 0.1)), sigma: \(value(0.6, 1.5, step: 0.1))px}"], false)
        case 2:
            return (["sharpen:", "  amount: \(value(0.3, 1.5, step: 0.1))", "  sigma: \(value(0.6, 1.5, step: 0.1))px",
                     "  threshold: \(value(0, 0.05, step: 0.01))"], false)
        default: return (["blur: {sigma: \(value(0.5, 3, step: 0.5))px}"], true)
        }
    }

    private mutating func vignette() -> Stage {
        (["vignette: {amount: \(value(0.1, 0.5, step: 0.05)), radius: \(value(0.8, 1.3, step: 0.05)), "
            + "feather: \(value(0.4, 0.8, step: 0.05))}"], false)
    }

    private mutating func geometry() -> Stage {
        switch below(4) {
        case 0: return (["straighten: {angle: \(value(-3, 3, step: 0.1))}"], false)
        case 1: return (["crop: {aspect: \"\(pick(["3:2", "4:3", "1:1", "16:9", "5:4"]))\"}"], false)
        case 2:
            return (["crop: {x: \(value(0, 5, step: 0.5))%, y: \(value(0, 5, step: 0.5))%, width: \(value(85, 95, step: 0.5))%, "
                + "height: \(value(85, 95, step: 0.5))%}"], false)
        default: return (["straighten: \(value(-2, 2, step: 0.1))"], false)
        }
    }

    private mutating func mask() -> String {
        switch below(3) {
        case 0: return "mask: {gradient: {from: [0.5, 0], to: [0.5, \(value(0.3, 0.6, step: 0.05))]}}"
        case 1:
            return "mask: {radial: {center: [\(value(0.3, 0.7, step: 0.05)), \(value(0.3, 0.7, step: 0.05))], "
                + "radius: \(value(0.2, 0.5, step: 0.05)), feather: \(value(0.3, 0.8, step: 0.05))}}"
        default: return "mask: {luminance: {min: \(value(0, 0.3, step: 0.05)), max: \(value(0.6, 1, step: 0.05))}}"
        }
    }

    static let comments = [
        "# lift the shadows a little", "# the sky", "# warmer than the camera thought", "# client wants it punchier",
        "# from the preset 'Evening'", "# TODO: check the skin tones", "# matches the rest of the series",
        "# export for the web gallery", "# straighten the horizon",
    ]
    static let trailing = ["  # lift", "  # warmer", "  # a touch", "  # subject", "  # horizon", "  # too much?"]
    static let ids = ["sky", "subject", "face", "background", "foreground", "base", "warm-base", "sky-fix", "corner"]

    /// The recipe text for photo `index`: regenerated until it is 300 to 1,500 bytes long.
    mutating func recipe(index: Int) -> String {
        while true {
            let text = attempt(index: index)
            if text.utf8.count >= Self.minBytes && text.utf8.count <= Self.maxBytes { return text }
        }
    }

    private mutating func attempt(index: Int) -> String {
        var lines: [String] = []
        let name = "IMG_" + Format.padded(index, 5) + ".jpg"
        if chance(70) {
            lines.append("# \(name), edited 2024-\(value(1, 12, step: 1))-\(value(10, 28, step: 1))")
            if chance(30) {
                lines.append("# \(pick(["X-T4", "EOS R6", "Z 6II", "A7 IV", "GR III"])), \(pick(["35mm f/1.4", "24-70mm f/2.8", "50mm f/1.8", "18.3mm f/2.8"])); "
                    + "started from the preset '\(pick(["Evening", "Portra", "Clean", "Matte"]))'")
            }
        }
        lines.append("format: dev.recipe.edit")
        lines.append("version: 1.1")
        if chance(30) { lines.append("note: \(pick(["keeper", "for the print", "web gallery", "second pass", "client pick"]))") }
        let knob = chance(15)
        if knob { lines.append("params: {warmth: {default: \(value(4000, 7000, step: 100)), doc: light of the scene in kelvin}}") }
        lines.append("stages:")

        let count = 3 + below(10)  // 3...12
        var stages: [Stage] = [whiteBalance(knob: knob)]
        while stages.count < count {
            switch below(10) {
            case 0..<3: stages.append(tone())
            case 3..<6: stages.append(colour())
            case 6, 7: stages.append(detail())
            case 8: stages.append(vignette())
            default: stages.append(geometry())
            }
        }
        if chance(15) { stages.append((["resize: {long-edge: \(pick(["1600", "2048", "2560", "3840"]))}"], false)) }

        var usedIDs = Set<String>()
        var comments = 0
        for (i, stage) in stages.enumerated() {
            if comments < 2, i > 0, chance(12) {
                lines.append("  " + pick(Self.comments))
                comments += 1
            }
            var body = stage.lines
            var meta: [String] = []
            if chance(25) {
                let id = pick(Self.ids)
                if usedIDs.insert(id).inserted { meta.append("id: \(id)") }
            }
            if chance(5) { meta.append("enabled: false") }
            if stage.maskable, chance(25) { body.append(mask()) }
            if comments < 2, chance(10) {
                body[0] += pick(Self.trailing)
                comments += 1
            }
            let all = meta + body
            for (j, line) in all.enumerated() { lines.append((j == 0 ? "  - " : "    ") + line) }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
