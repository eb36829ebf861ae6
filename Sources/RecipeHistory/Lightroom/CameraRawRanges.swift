/// Camera Raw's own ranges for its numeric settings (as its sliders allow them, process version
/// 2012 and later), the value at which each has no effect, and the keys that only describe
/// (names, digests, versions). A value outside its range is malformed XMP: it is reported with
/// the file and the key, and nothing is written.
///
/// ```swift
/// CameraRawRanges.range(of: "Exposure2012")     // -5...5
/// CameraRawRanges.neutral["Dehaze"]             // "0"
/// ```
public enum CameraRawRanges {
    static let hundred: ClosedRange<Double> = -100...100
    static let percent: ClosedRange<Double> = 0...100

    static let bands = ["Red", "Orange", "Yellow", "Green", "Aqua", "Blue", "Purple", "Magenta"]

    static let table: [String: ClosedRange<Double>] = {
        var t: [String: ClosedRange<Double>] = [
            "Exposure2012": -5...5, "Contrast2012": hundred, "Highlights2012": hundred, "Shadows2012": hundred,
            "Whites2012": hundred, "Blacks2012": hundred, "Temperature": 2000...50000, "Tint": -150...150,
            "IncrementalTemperature": hundred, "IncrementalTint": hundred, "Vibrance": hundred, "Saturation": hundred,
            "Clarity2012": hundred, "Texture": hundred, "Dehaze": hundred,
            "ParametricShadows": hundred, "ParametricDarks": hundred, "ParametricLights": hundred, "ParametricHighlights": hundred,
            "ParametricShadowSplit": percent, "ParametricMidtoneSplit": percent, "ParametricHighlightSplit": percent,
            "ColorGradeBlending": percent, "ColorGradeBalance": hundred, "SplitToningBalance": hundred,
            "SplitToningShadowHue": 0...360, "SplitToningShadowSaturation": percent,
            "SplitToningHighlightHue": 0...360, "SplitToningHighlightSaturation": percent,
            "Sharpness": 0...150, "SharpenRadius": 0.5...3, "SharpenDetail": percent, "SharpenEdgeMasking": percent,
            "PostCropVignetteAmount": hundred, "PostCropVignetteMidpoint": percent, "PostCropVignetteFeather": percent,
            "PostCropVignetteRoundness": hundred, "PostCropVignetteStyle": 1...3, "PostCropVignetteHighlightContrast": percent,
            "CropTop": 0...1, "CropLeft": 0...1, "CropBottom": 0...1, "CropRight": 0...1, "CropAngle": -45...45,
            "LensProfileDistortionScale": 0...200, "LensProfileVignettingScale": 0...200, "LensManualDistortionAmount": hundred,
            "VignetteAmount": hundred, "VignetteMidpoint": percent,
            "GrainAmount": percent, "GrainSize": percent, "GrainFrequency": percent,
            "LuminanceSmoothing": percent, "LuminanceNoiseReductionDetail": percent, "LuminanceNoiseReductionContrast": percent,
            "ColorNoiseReduction": percent, "ColorNoiseReductionDetail": percent, "ColorNoiseReductionSmoothness": percent,
            "ShadowTint": hundred, "RedHue": hundred, "RedSaturation": hundred, "GreenHue": hundred, "GreenSaturation": hundred,
            "BlueHue": hundred, "BlueSaturation": hundred,
            "DefringePurpleAmount": 0...20, "DefringeGreenAmount": 0...20,
            "PerspectiveVertical": hundred, "PerspectiveHorizontal": hundred, "PerspectiveRotate": -10...10,
            "PerspectiveScale": 50...150, "PerspectiveAspect": hundred, "PerspectiveX": hundred, "PerspectiveY": hundred,
            "tiff:Orientation": 1...8,
        ]
        for zone in ["Shadow", "Midtone", "Highlight", "Global"] {
            t["ColorGrade\(zone)Hue"] = 0...360
            t["ColorGrade\(zone)Sat"] = percent
            t["ColorGrade\(zone)Lum"] = hundred
        }
        for band in bands {
            for kind in ["Hue", "Saturation", "Luminance"] { t["\(kind)Adjustment\(band)"] = hundred }
            t["GrayMixer\(band)"] = hundred
        }
        return t
    }()

    /// Camera Raw's range for a numeric key, nil for other keys.
    public static func range(of key: String) -> ClosedRange<Double>? { table[key] }

    static func describe(_ r: ClosedRange<Double>) -> String {
        func n(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(v) }
        return "\(n(r.lowerBound))…\(n(r.upperBound))"
    }

    /// The value at which a key has no effect, as written (compared as numbers when both parse).
    public static let neutral: [String: String] = {
        var t: [String: String] = [:]
        for (key, _) in table { t[key] = "0" }
        for key in ["ColorGradeBlending", "PostCropVignetteMidpoint", "PostCropVignetteFeather", "ParametricMidtoneSplit",
                    "GrainFrequency", "LuminanceNoiseReductionDetail", "ColorNoiseReductionDetail", "ColorNoiseReductionSmoothness"] {
            t[key] = "50"
        }
        t["ParametricShadowSplit"] = "25"
        t["ParametricHighlightSplit"] = "75"
        t["GrainSize"] = "25"
        t["SharpenRadius"] = "1"
        t["SharpenDetail"] = "25"
        t["PostCropVignetteStyle"] = "1"
        t["LensProfileDistortionScale"] = "100"
        t["LensProfileVignettingScale"] = "100"
        t["PerspectiveScale"] = "100"
        t["tiff:Orientation"] = "1"
        t.removeValue(forKey: "Temperature")
        t.removeValue(forKey: "Tint")
        for key in ["ConvertToGrayscale", "AutoLateralCA", "LensProfileEnable", "HasCrop", "AutoTone", "AutoExposure",
                    "AutoContrast", "AutoShadows", "AutoBrightness", "HDREditMode", "UprightFourSegmentsCount", "RequiresRGBTables"] {
            t[key] = "False"
        }
        for key in ["DefringePurpleHueLo": "30", "DefringePurpleHueHi": "70", "DefringeGreenHueLo": "40", "DefringeGreenHueHi": "60",
                    "PerspectiveUpright": "0", "ToneMapStrength": "0", "LensManualDistortionAmount": "0", "GrainSeed": "0"] {
            t[key.key] = key.value
        }
        return t
    }()

    /// Whether a value is the key's neutral value.
    static func isNeutral(_ key: String, _ text: String) -> Bool {
        guard let neutral = neutral[key] else { return false }
        if let a = Double(text.hasPrefix("+") ? String(text.dropFirst()) : text), let b = Double(neutral) { return a == b }
        let t = text.lowercased(), n = neutral.lowercased()
        return t == n || (n == "false" && t == "0") || (n == "true" && t == "1")
    }

    /// Keys that name, date, version or describe, with nothing of their own to render (the
    /// process version decides how the others read; a tone curve's name repeats its points).
    public static let informational: Set<String> = [
        "Version", "ProcessVersion", "HasSettings", "AlreadyApplied", "RawFileName", "ToneCurveName", "ToneCurveName2012",
        "CameraProfileDigest", "PresetType", "UUID", "Cluster", "Name", "ShortName", "SortName", "Group", "Description",
        "Copyright", "ContactInfo", "Treatment", "SupportsAmount", "SupportsAmount2", "SupportsColor", "SupportsMonochrome",
        "SupportsHighDynamicRange", "SupportsNormalDynamicRange", "SupportsSceneReferred", "SupportsOutputReferred",
        "RequiresRenditionBehavior", "CameraModelRestriction", "CropConstrainToWarp", "CropConstrainToUnitSquare", "CropUnit",
        "CropWidth", "CropHeight", "LensProfileName", "LensProfileFilename", "LensProfileDigest", "LensProfileSetup",
        "LensProfileIsEmbedded", "AutoWhiteVersion", "OverrideLookVignette", "UprightVersion", "UprightPreview",
        "UprightCenterMode", "UprightFocalMode", "UprightTransformCount", "UprightFocalLength35mm", "UprightCenterNormX",
        "UprightCenterNormY", "UprightDependentDigest", "UprightGuidedDependentDigest", "UprightTransform_0", "UprightTransform_1",
        "UprightTransform_2", "UprightTransform_3", "UprightTransform_4", "UprightTransform_5", "JPEGHandling",
        "CompatibleVersion", "LensProfileMatchKeyExifMake", "LensProfileMatchKeyExifModel",
        "LensProfileMatchKeyCameraModelName", "LensProfileMatchKeyLensName", "LensProfileMatchKeyIsRaw", "LensProfileMatchKeySensorFormatFactor",
        "DefaultAutoTone", "DefaultAutoGray", "DefaultsSpecificToSerial", "DefaultsSpecificToISO", "ConvertToGrayscale2",
    ]

    /// Process version 2010's keys, which Lightroom keeps writing beside the 2012 ones and process
    /// version 2012 and later do not read (descriptive there; the settings of a 2010 edit).
    public static let legacy2010: Set<String> = [
        "ToneCurve", "ToneCurveRed", "ToneCurveGreen", "ToneCurveBlue", "Exposure", "Shadows", "Brightness", "Contrast",
        "FillLight", "HighlightRecovery", "Clarity", "ChromaticAberrationR", "ChromaticAberrationB", "Defringe",
    ]
}
