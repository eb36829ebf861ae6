import RecipeLanguage

/// Lightroom's and Camera Raw's develop settings turned into recipe stages, with a report of what
/// each key became. The formulas, and what is approximate, are in docs/lightroom.md; every key the
/// translation does not render is listed (`untranslated`) and the XMP it came from is kept
/// verbatim by the caller, never dropped.
///
/// ```swift
/// let settings = try CameraRawSettings.read("IMG_0001.CR2.xmp")
/// let t = try LightroomTranslation(settings, options: .init(photo: .raw))
/// t.stagesYAML        // "  - id: exposure\n    exposure: 0.35\n    note: …"
/// t.untranslated      // [("Dehaze", "+12", "no haze-removal stage")]
/// ```
public struct LightroomTranslation: Sendable {
    /// What the settings will be applied to: Lightroom stores white balance as kelvin for a raw
    /// and as an offset for a rendered photo, and a crop relative to the stored frame.
    public enum Photo: Sendable { case unknown, raw, rendered }

    public struct Options: Sendable {
        public var photo: Photo
        /// The photo's width over its height as it is stored (before its EXIF orientation).
        public var storedAspect: Double?
        /// The photo's own EXIF orientation (1–8), when known.
        public var exifOrientation: Int?
        /// The stages (as recipe items) that follow a raw's `develop` in the default look: a
        /// `develop` stage the translation writes turns the default look off, and Lightroom's
        /// sliders are relative to Adobe's default rendering, which the default look stands for.
        public var rawLookStages: [String]

        public init(photo: Photo = .unknown, storedAspect: Double? = nil, exifOrientation: Int? = nil, rawLookStages: [String] = []) {
            self.photo = photo
            self.storedAspect = storedAspect
            self.exifOrientation = exifOrientation
            self.rawLookStages = rawLookStages
        }
    }

    /// One stage written: its id, the operation as YAML (`exposure: 0.35`), an optional mask and
    /// the Lightroom keys it comes from.
    public struct Stage: Sendable {
        public var id: String
        public var operation: String
        public var mask: String?
        public var keys: [String]
        /// Written as the stage's note: what it came from.
        public var note: String
    }

    /// What became of one key that was set.
    public enum Outcome: Sendable, Equatable {
        /// A stage renders it.
        case translated
        /// At the value that has no effect in Lightroom, or without effect because another key
        /// turns its panel off: no stage is needed.
        case neutral
        /// A name, a version, a digest: nothing to render.
        case informational
        /// Not rendered; the reason says why.
        case untranslated(String)
    }

    public struct KeyReport: Sendable {
        public var key: String
        public var value: String
        public var outcome: Outcome
    }

    public var stages: [Stage] = []
    /// Every Camera Raw key that was set (and `tiff:Orientation`), in document order.
    public var report: [KeyReport] = []
    public let settings: CameraRawSettings
    public let options: Options
    var outcomes: [String: Outcome] = [:]
    /// Whether a `develop` stage was written (then the default look's stages follow the exposure).
    var developWritten = false

    /// Translates; throws (naming the file and the key) on a malformed value.
    public init(_ settings: CameraRawSettings, options: Options = Options()) throws {
        self.settings = settings
        self.options = options
        if let pv = settings.processVersion, pv < 6.7 {
            for key in settings.keys where !CameraRawRanges.informational.contains(key) {
                outcomes[key] = .untranslated("process version \(settings.text("ProcessVersion") ?? "?") (before 2012): its sliders mean other things")
            }
        } else {
            try translateWhiteBalance()
            try translateGeometry()
            try translateTone()
            try translateCurves()
            try translatePresence()
            try translateColor()
            try translateLocal()
            try translateCrop()
            try translateEffects()
            try translateDetail()
        }
        for property in settings.document.properties where !property.key.contains(":") || property.key == "tiff:Orientation" {
            let value = property.value.text ?? (property.value.items.map { "\($0.count) item\($0.count == 1 ? "" : "s")" } ?? "a structure")
            let outcome = outcomes[property.key] ?? defaultOutcome(property.key, property.value)
            report.append(KeyReport(key: property.key, value: value, outcome: outcome))
        }
    }

    /// Keys that no family claimed: informational, neutral at their no-effect value, or not
    /// translated.
    func defaultOutcome(_ key: String, _ value: CameraRawXMP.Value) -> Outcome {
        if CameraRawRanges.informational.contains(key) || CameraRawRanges.legacy2010.contains(key) { return .informational }
        if let text = value.text, CameraRawRanges.isNeutral(key, text) { return .neutral }
        if key.hasPrefix("Enable"), value.text?.lowercased() == "true" { return .neutral }
        return .untranslated(Self.reasons[key] ?? Self.reasons.first { key.hasPrefix($0.key) }?.value ?? "no stage does this")
    }

    static let reasons: [String: String] = [
        "Dehaze": "no haze-removal stage (contrast and saturation would only imitate it)",
        "LuminanceNoiseReduction": "noise reduction contrast: `denoise` has no counterpart",
        "ColorNoiseReductionDetail": "colour noise reduction detail: `denoise` has no counterpart",
        "ColorNoiseReductionSmoothness": "colour noise reduction smoothness: `denoise` has no counterpart",
        "Grain": "no grain stage",
        "Defringe": "no defringe stage (lens TCA correction is another thing)",
        "Perspective": "no perspective (keystone) stage",
        "Upright": "no perspective (Upright) stage",
        "CameraProfile": "a camera profile other than Adobe's default has no counterpart",
        "Look": "a creative profile (look) has no counterpart",
        "ShadowTint": "camera calibration has no counterpart",
        "RedHue": "camera calibration has no counterpart", "RedSaturation": "camera calibration has no counterpart",
        "GreenHue": "camera calibration has no counterpart", "GreenSaturation": "camera calibration has no counterpart",
        "BlueHue": "camera calibration has no counterpart", "BlueSaturation": "camera calibration has no counterpart",
        "RetouchInfo": "spot healing has no counterpart", "RetouchAreas": "spot healing has no counterpart",
        "PaintBasedCorrections": "brush masks have no counterpart", "MaskGroupBasedCorrections": "AI and group masks have no counterpart",
        "LensManualDistortionAmount": "manual distortion has no counterpart (the lens stage corrects by profile)",
        "VignetteAmount": "manual lens vignetting has no counterpart (the lens stage corrects by profile)",
        "VignetteMidpoint": "manual lens vignetting has no counterpart",
        "AutoTone": "auto tone is Adobe's own measurement", "Auto": "auto settings are Adobe's own measurements",
        "PostCropVignetteRoundness": "the vignette stage is round over the half-diagonal; roundness has no counterpart",
        "PostCropVignetteStyle": "only one vignette style (a plain darkening in linear light)",
        "PostCropVignetteHighlightContrast": "only one vignette style (a plain darkening in linear light)",
        "HDREditMode": "no HDR editing", "ToneMapStrength": "no HDR tone mapping",
        "CurveRefineSaturation": "no counterpart",
    ]

    // MARK: reading keys, recording outcomes

    /// A number (range-checked); the key is recorded as translated, or neutral at its no-effect value.
    mutating func take(_ key: String) throws -> Double? {
        guard let v = try settings.number(key) else { return nil }
        let neutral = settings.text(key).map { CameraRawRanges.isNeutral(key, $0) } ?? false
        outcomes[key] = neutral ? .neutral : .translated
        return neutral ? nil : v
    }

    /// A number read as is (its neutral value included); recorded as translated.
    mutating func read(_ key: String) throws -> Double? {
        guard let v = try settings.number(key) else { return nil }
        outcomes[key] = .translated
        return v
    }

    mutating func mark(_ keys: [String], _ outcome: Outcome) {
        for key in keys where settings.document[key] != nil { outcomes[key] = outcome }
    }

    /// Adds a stage, its note naming the keys and values it comes from.
    mutating func add(_ id: String, _ operation: String, mask: String? = nil, keys: [String], note: String? = nil) {
        let used = Set(stages.map(\.id))
        let unique = used.contains(id) ? (2...).lazy.map { "\(id)-\($0)" }.first { !used.contains($0) }! : id
        let from = keys.compactMap { key in settings.text(key).map { "\(key) \($0)" } }.joined(separator: ", ")
        stages.append(Stage(id: unique, operation: operation, mask: mask, keys: keys, note: note ?? "Lightroom: " + from))
    }

    // MARK: the result

    /// The keys not rendered, with their values and why.
    public var untranslated: [(key: String, value: String, reason: String)] {
        report.compactMap { if case .untranslated(let why) = $0.outcome { ($0.key, $0.value, why) } else { nil } }
    }

    /// Keys set, by outcome: translated, neutral, informational, untranslated.
    public var counts: (translated: Int, neutral: Int, informational: Int, untranslated: Int) {
        var c = (0, 0, 0, 0)
        for r in report {
            switch r.outcome {
            case .translated: c.0 += 1
            case .neutral: c.1 += 1
            case .informational: c.2 += 1
            case .untranslated: c.3 += 1
            }
        }
        return c
    }

    /// The stages as the items of a recipe's `stages:` list.
    public var stagesYAML: String {
        stages.map { s in
            var item = "  - id: \(s.id)\n    \(s.operation)\n"
            if let mask = s.mask { item += "    mask: \(mask)\n" }
            item += "    note: \(SidecarText.scalar(s.note))\n"
            return item
        }.joined()
    }

    /// A number as recipe text: at most four decimals, no trailing zeros.
    static func n(_ v: Double) -> String {
        let r = (v * 10000).rounded() / 10000
        if r == r.rounded(), abs(r) < 1e9 { return String(Int(r)) }
        var s = String(format4: r)
        while s.hasSuffix("0") { s.removeLast() }
        return s
    }
}

extension String {
    /// `v` with four decimals, without Foundation.
    init(format4 v: Double) {
        let negative = v < 0
        let scaled = Int((abs(v) * 10000).rounded())
        let whole = scaled / 10000, fraction = scaled % 10000
        let digits = String(fraction)
        self = (negative ? "-" : "") + "\(whole)." + String(repeating: "0", count: 4 - digits.count) + digits
    }
}
