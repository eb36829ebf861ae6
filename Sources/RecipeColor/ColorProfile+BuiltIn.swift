internal import CLCMS2

extension ColorProfile {
    /// sRGB (IEC 61966-2.1): D65, Rec. 709 primaries, the sRGB tone curve as parametric type 4.
    ///
    /// ```swift
    /// let out = try ColorTransform(from: photo, to: .sRGB, input: .rgb8, output: .rgb8, intent: .relative)
    /// ```
    public static let sRGB = builtIn("sRGB IEC61966-2.1 (recipe)", red: (0.64, 0.33), green: (0.30, 0.60), blue: (0.15, 0.06), curve: .srgb)

    /// Display P3: D65, DCI-P3 primaries, the sRGB tone curve.
    ///
    /// ```swift
    /// ColorProfile.named("display-p3") === ColorProfile.displayP3   // true
    /// ```
    public static let displayP3 = builtIn("Display P3 (recipe)", red: (0.680, 0.320), green: (0.265, 0.690), blue: (0.150, 0.060), curve: .srgb)

    /// Compatible with Adobe RGB (1998): D65, its primaries, gamma 563/256 (2.19921875).
    ///
    /// ```swift
    /// ColorProfile.adobeRGB.matrixShaper(intent: .relative)?.curves[0]   // .gamma(2.19921875)
    /// ```
    public static let adobeRGB = builtIn("Adobe RGB (1998) compatible (recipe)", red: (0.64, 0.33), green: (0.21, 0.71), blue: (0.15, 0.06),
                                         curve: .gamma(563.0 / 256))

    /// Rec. ITU-R BT.2020: D65, its primaries, the BT.709/2020 transfer function as parametric type 4.
    ///
    /// ```swift
    /// ColorProfile.rec2020.isWideGamut   // true
    /// ```
    public static let rec2020 = builtIn("Rec. ITU-R BT.2020 (recipe)", red: (0.708, 0.292), green: (0.170, 0.797), blue: (0.131, 0.046),
                                        curve: .parametric4([1 / 0.45, 1 / 1.099, 0.099 / 1.099, 1 / 4.5, 0.081]))

    /// The working space: sRGB primaries and D65 with a linear tone curve (gamma 1.0).
    ///
    /// ```swift
    /// let toWorking = try ColorTransform(from: photo, to: .linearSRGB, input: .rgbFloat, output: .rgbFloat, intent: .relative)
    /// ```
    public static let linearSRGB = builtIn("Linear sRGB (recipe working space)", red: (0.64, 0.33), green: (0.30, 0.60), blue: (0.15, 0.06),
                                           curve: .gamma(1))

    /// Gray with the sRGB tone curve and a D65 white, for gray photos that carry no profile: gray
    /// level v shows as sRGB (v, v, v).
    ///
    /// ```swift
    /// let t = try ColorTransform(from: .grayGammaSRGB, to: .sRGB, input: .gray8, output: .rgb8, intent: .relative)
    /// ```
    public static let grayGammaSRGB: ColorProfile = {
        let context = LCMSContext()
        var white = d65
        guard let curve = Tone.srgb.build(context),
              let h = withExtendedLifetime(curve, { cmsCreateGrayProfileTHR(context.handle, &white, curve.handle) }),
              let profile = serialised(h, description: "Gray, sRGB tone curve (recipe)")
        else { preconditionFailure("the built-in gray profile could not be built") }
        return profile
    }()

    /// The built-in RGB profile for a CLI word: "srgb", "display-p3", "adobe-rgb" or "rec2020".
    ///
    /// ```swift
    /// guard let target = ColorProfile.named(word) else { /* diagnose the unknown name */ }
    /// ```
    public static func named(_ name: String) -> ColorProfile? {
        switch name {
        case "srgb": sRGB
        case "display-p3": displayP3
        case "adobe-rgb": adobeRGB
        case "rec2020": rec2020
        default: nil
        }
    }

    /// An RGB matrix-shaper profile from chromaticities, as a PNG's cHRM and gAMA describe one.
    /// `gamma` is the decoding exponent (1 / the PNG's gAMA value: 2.2 for gAMA 0.45455); nil means
    /// the sRGB curve. Returns nil for non-finite values, a white point with y ≤ 0, a primary with
    /// y = 0, a gamma ≤ 0, or primaries whose matrix is singular.
    ///
    /// ```swift
    /// let p = ColorProfile.synthesized(white: (0.3127, 0.3290), red: (0.64, 0.33), green: (0.30, 0.60),
    ///                                  blue: (0.15, 0.06), gamma: 1 / 0.45455)
    /// ```
    public static func synthesized(white: (Double, Double), red: (Double, Double), green: (Double, Double), blue: (Double, Double),
                                   gamma: Double?) -> ColorProfile? {
        let numbers = [white.0, white.1, red.0, red.1, green.0, green.1, blue.0, blue.1, gamma ?? 1]
        guard numbers.allSatisfy(\.isFinite), white.1 > 0, [red.1, green.1, blue.1].allSatisfy({ abs($0) > 1e-9 }),
              (gamma ?? 1) > 0
        else { return nil }
        let description = gamma.map { "Synthesized RGB, gamma \(($0 * 10_000).rounded() / 10_000) (recipe)" }
            ?? "Synthesized RGB, sRGB tone curve (recipe)"
        return make(description, white: white, red: red, green: green, blue: blue, curve: gamma.map { .gamma($0) } ?? .srgb)
    }
}

// MARK: - Building

extension ColorProfile {
    static let d65 = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)

    /// A tone curve for a built profile.
    enum Tone {
        case srgb
        case gamma(Double)
        case parametric4([Double])

        func build(_ context: LCMSContext) -> ToneCurve? {
            let curve: OpaquePointer? = switch self {
            case .srgb: cmsBuildParametricToneCurve(context.handle, 4, MatrixShaper.Curve.srgbParameters)
            case .gamma(let g): cmsBuildGamma(context.handle, g)
            case .parametric4(let p): cmsBuildParametricToneCurve(context.handle, 4, p)
            }
            return curve.map(ToneCurve.init)
        }
    }

    /// Owns an lcms2 tone curve while a profile is being built.
    final class ToneCurve {
        let handle: OpaquePointer
        init(_ handle: OpaquePointer) { self.handle = handle }
        deinit { cmsFreeToneCurve(handle) }
    }

    private static func builtIn(_ description: String, red: (Double, Double), green: (Double, Double), blue: (Double, Double),
                                curve: Tone) -> ColorProfile {
        guard let profile = make(description, white: (d65.x, d65.y), red: red, green: green, blue: blue, curve: curve) else {
            preconditionFailure("the built-in profile \"\(description)\" could not be built")
        }
        return profile
    }

    /// Builds with cmsCreateRGBProfileTHR (ICC v4.3: D50-adapted colorants and a Bradford `chad`),
    /// then serialises and reopens the bytes, so the profile is exactly what `iccData` says
    /// (s15Fixed16 numbers included) and passes the same checks as a photo's profile.
    private static func make(_ description: String, white: (Double, Double), red: (Double, Double), green: (Double, Double),
                             blue: (Double, Double), curve: Tone) -> ColorProfile? {
        let context = LCMSContext()
        var whitePoint = cmsCIExyY(x: white.0, y: white.1, Y: 1)
        var primaries = cmsCIExyYTRIPLE(Red: cmsCIExyY(x: red.0, y: red.1, Y: 1), Green: cmsCIExyY(x: green.0, y: green.1, Y: 1),
                                        Blue: cmsCIExyY(x: blue.0, y: blue.1, Y: 1))
        guard let tone = curve.build(context) else { return nil }
        let curves: [OpaquePointer?] = [tone.handle, tone.handle, tone.handle]
        let built = withExtendedLifetime(tone) { cmsCreateRGBProfileTHR(context.handle, &whitePoint, &primaries, curves) }
        guard let h = built else { return nil }
        return serialised(h, description: description)
    }

    /// Sets the description, saves `h` to memory, closes it and opens the bytes as a ColorProfile.
    private static func serialised(_ h: cmsHPROFILE, description: String) -> ColorProfile? {
        defer { cmsCloseProfile(h) }
        guard let mlu = cmsMLUalloc(cmsGetProfileContextID(h), 1) else { return nil }
        defer { cmsMLUfree(mlu) }
        guard cmsMLUsetASCII(mlu, "en", "US", description) != 0, cmsWriteTag(h, cmsSigProfileDescriptionTag, UnsafeRawPointer(mlu)) != 0 else { return nil }
        var size: cmsUInt32Number = 0
        guard cmsSaveProfileToMem(h, nil, &size) != 0, size > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        guard cmsSaveProfileToMem(h, &bytes, &size) != 0 else { return nil }
        bytes = Array(bytes.prefix(Int(size)))
        // lcms2 stamps the creation time into the header (bytes 24–35): a fixed date instead, so
        // a render's output bytes do not depend on when the process started (the profile ID, bytes
        // 84–99, is left zero: "not computed").
        let fixedDate: [UInt8] = [0x07, 0xEA, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0]  // 2026-01-01 00:00:00
        bytes.replaceSubrange(24..<36, with: fixedDate)
        precondition(bytes[84..<100].allSatisfy { $0 == 0 }, "lcms2 wrote a profile ID")
        return try? ColorProfile(icc: bytes)
    }
}
