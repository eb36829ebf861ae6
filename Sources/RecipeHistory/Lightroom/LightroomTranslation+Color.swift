import Glibc
import RecipeCore

/// White balance, vibrance and saturation, the HSL mixer, colour grading and split toning, and
/// black & white with its mixer (docs/lightroom.md, "Colour").
extension LightroomTranslation {
    static let presetNames = ["Daylight": "daylight", "Cloudy": "cloudy", "Shade": "shade", "Tungsten": "tungsten",
                              "Fluorescent": "fluorescent", "Flash": "flash"]

    /// A raw's white balance is kelvin and tint of the light (in the develop, through the camera
    /// matrix, as Camera Raw does); a rendered photo's is an offset (IncrementalTemperature and
    /// IncrementalTint, ±100), applied as a white-balance stage from a light moved in mireds.
    mutating func translateWhiteBalance() throws {
        let n = Self.n
        let mode = settings.text("WhiteBalance")
        let temperature = try settings.number("Temperature"), tint = try settings.number("Tint")
        if options.photo != .rendered, mode != nil || temperature != nil {
            var develop: String?
            switch mode {
            case "As Shot", nil where temperature == nil:
                mark(["WhiteBalance", "Temperature", "Tint"], .neutral)
            case "Auto":
                develop = "develop: {white-balance: auto}"
            case let m? where Self.presetNames[m] != nil:
                develop = "develop: {white-balance: \(Self.presetNames[m]!)}"
            default:
                // "Custom", or kelvin without a mode.
                guard let t = temperature else {
                    outcomes["WhiteBalance"] = .untranslated("white balance `\(mode ?? "?")` without a Temperature")
                    break
                }
                develop = "develop: {temp: \(n(t)), tint: \(n(tint ?? 0))}"
            }
            if let develop {
                mark(["WhiteBalance", "Temperature", "Tint"], .translated)
                add("develop", develop, keys: ["WhiteBalance", "Temperature", "Tint"])
                developWritten = true
            }
        } else if options.photo == .rendered, mode != nil || temperature != nil {
            // A rendered photo has no kelvin: Lightroom keeps the offsets in Incremental*.
            mark(["WhiteBalance", "Temperature", "Tint"], mode == "As Shot" || mode == nil ? .neutral
                 : .untranslated("a raw's white balance, on a rendered photo"))
        }
        let dt = try take("IncrementalTemperature"), dtint = try take("IncrementalTint")
        if dt != nil || dtint != nil {
            let temp = Self.offsetTemperature(dt ?? 0)
            add("white-balance", "white-balance: {temp: \(Int(temp.rounded())), tint: \(n(dtint ?? 0))}",
                keys: ["IncrementalTemperature", "IncrementalTint"])
        }
    }

    /// The light whose adaptation to D65 warms (positive) or cools a picture as Lightroom's
    /// temperature offset does: 0.6 mired per step from 6500 K (±100 → about 10 700 K and 4700 K).
    static func offsetTemperature(_ offset: Double) -> Double { 1e6 / (1e6 / 6500 - 0.6 * offset) }

    mutating func translatePresence() throws {
        let n = Self.n
        if let v = try take("Vibrance") { add("vibrance", "vibrance: \(n(v / 100))", keys: ["Vibrance"]) }
        if let s = try take("Saturation") { add("saturation", "saturation: \(n(1 + s / 100))", keys: ["Saturation"]) }
        if let c = try take("Clarity2012") { add("clarity", "clarity: \(n(c / 100))", keys: ["Clarity2012"]) }
        if let t = try take("Texture") {
            add("texture", "clarity: {amount: \(n(t / 200)), sigma: 0.4%}", keys: ["Texture"],
                note: "Lightroom: Texture \(settings.text("Texture") ?? "") (as fine local contrast: a clarity of small sigma)")
        }
        // Adobe's default profile is what the default look stands for; others have no counterpart.
        for key in ["CameraProfile"] {
            if let name = settings.text(key), ["Adobe Standard", "Adobe Color", "Embedded", "Adobe Standard B&W"].contains(name) {
                outcomes[key] = .neutral
            }
        }
        if let look = settings.document["Look"]?.value, let name = look["Name"]?.text {
            if ["Adobe Color", "Adobe Standard"].contains(name) { outcomes["Look"] = .neutral }
            else { outcomes["Look"] = .untranslated("the creative profile `\(name)` has no counterpart") }
        }
    }

    mutating func translateColor() throws {
        let n = Self.n
        var mixer: [String] = []
        var keys: [String] = []
        for band in CameraRawRanges.bands {
            let name = band.lowercased()
            for (kind, param, scale) in [("Hue", "hue", 0.3), ("Saturation", "saturation", 0.01), ("Luminance", "luminance", 0.01)] {
                let key = "\(kind)Adjustment\(band)"
                if let v = try take(key) { mixer.append("\(name)-\(param): \(n(v * scale))"); keys.append(key) }
            }
        }
        if !mixer.isEmpty { add("color-mixer", "color-mixer: {\(mixer.joined(separator: ", "))}", keys: keys) }
        try translateColorGrade()
        try translateGrayscale()
    }

    /// Colour grading (and split toning, which Lightroom 10 and later writes as its shadows and
    /// highlights): hues turned from Lightroom's wheel (an HSV hue) into OKLCh hue, the angle the
    /// color-grade stage takes.
    mutating func translateColorGrade() throws {
        let n = Self.n
        var params: [String] = []
        var keys: [String] = []
        let zones = [("Shadow", "shadows"), ("Midtone", "midtones"), ("Highlight", "highlights"), ("Global", "global")]
        for (zone, name) in zones {
            let sat = try take("ColorGrade\(zone)Sat"), lum = try take("ColorGrade\(zone)Lum")
            let hue = try read("ColorGrade\(zone)Hue")
            if let sat {
                params.append("\(name)-hue: \(n(Self.okHue(hue ?? 0)))")
                params.append("\(name)-saturation: \(n(sat / 100))")
            } else if settings.document["ColorGrade\(zone)Hue"] != nil {
                outcomes["ColorGrade\(zone)Hue"] = .neutral   // a hue without saturation tints nothing
            }
            if let lum { params.append("\(name)-luminance: \(n(lum / 100))") }
            keys += ["ColorGrade\(zone)Hue", "ColorGrade\(zone)Sat", "ColorGrade\(zone)Lum"]
        }
        let graded = settings.document["ColorGradeShadowSat"] != nil || settings.document["ColorGradeHighlightSat"] != nil
        let splitKeys = ["SplitToningShadowHue", "SplitToningShadowSaturation", "SplitToningHighlightHue", "SplitToningHighlightSaturation"]
        if graded {
            // Lightroom 10+ writes split toning as the same values as the grade's shadows and highlights.
            for key in splitKeys where settings.document[key] != nil {
                _ = try settings.number(key)
                outcomes[key] = .translated
            }
        } else {
            for (zone, name) in [("Shadow", "shadows"), ("Highlight", "highlights")] {
                let hue = try read("SplitToning\(zone)Hue")
                if let sat = try take("SplitToning\(zone)Saturation") {
                    params.append("\(name)-hue: \(n(Self.okHue(hue ?? 0)))")
                    params.append("\(name)-saturation: \(n(sat / 100))")
                } else if settings.document["SplitToning\(zone)Hue"] != nil {
                    outcomes["SplitToning\(zone)Hue"] = .neutral
                }
            }
            keys += splitKeys
        }
        let balance = try take("ColorGradeBalance") ?? take("SplitToningBalance")
        if graded, settings.document["SplitToningBalance"] != nil { _ = try read("SplitToningBalance") }
        let blending = try take("ColorGradeBlending")
        guard !params.isEmpty else {
            mark(["ColorGradeBalance", "SplitToningBalance", "ColorGradeBlending"], .neutral)
            return
        }
        if let balance { params.append("balance: \(n(balance / 100))") }
        if let blending { params.append("blending: \(n(blending / 100))") }
        add("color-grade", "color-grade: {\(params.joined(separator: ", "))}", keys: keys + ["ColorGradeBalance", "SplitToningBalance", "ColorGradeBlending"])
    }

    /// Black & white: the gray mixer as the colour mixer's luminance per band, then grayscale.
    mutating func translateGrayscale() throws {
        let n = Self.n
        let mixerKeys = CameraRawRanges.bands.map { "GrayMixer\($0)" }
        guard try settings.flag("ConvertToGrayscale") == true else {
            // Without black & white the gray mixer does nothing.
            mark(mixerKeys + ["ConvertToGrayscale"], .neutral)
            return
        }
        outcomes["ConvertToGrayscale"] = .translated
        var params: [String] = []
        for (band, key) in zip(CameraRawRanges.bands, mixerKeys) {
            if let v = try take(key) { params.append("\(band.lowercased())-luminance: \(n(v / 100))") }
        }
        if !params.isEmpty { add("gray-mixer", "color-mixer: {\(params.joined(separator: ", "))}", keys: mixerKeys) }
        add("black-and-white", "grayscale: 1", keys: ["ConvertToGrayscale"])
    }

    /// The OKLCh hue (degrees) of the fully saturated sRGB colour of HSV hue `degrees`.
    static func okHue(_ degrees: Double) -> Double {
        let h = (degrees.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360) / 60
        let x = 1 - abs(h.truncatingRemainder(dividingBy: 2) - 1)
        let rgb: (Double, Double, Double) = switch Int(h) {
        case 0: (1, x, 0)
        case 1: (x, 1, 0)
        case 2: (0, 1, x)
        case 3: (0, x, 1)
        case 4: (x, 0, 1)
        default: (1, 0, x)
        }
        // sRGB primaries are exact at 0 and 1, so the encoded values are already linear.
        let (r, g, b) = rgb
        let l = cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b)
        let m = cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b)
        let s = cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b)
        let a = 1.9779984951 * l - 2.4285922050 * m + 0.4505937099 * s
        let bb = 0.0259040371 * l + 0.7827717662 * m - 0.8086757660 * s
        let angle = atan2(bb, a) * 180 / Double.pi
        return angle < 0 ? angle + 360 : angle
    }
}
