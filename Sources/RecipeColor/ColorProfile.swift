internal import CLCMS2
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An ICC colour profile, opened and checked by lcms2: an RGB, gray or CMYK colour space that can
/// be read with the relative colorimetric intent. The bytes are kept, so the profile can be
/// embedded in an output unchanged.
///
/// ```swift
/// let profile = try ColorProfile(icc: iccBytesFromTheJPEG)
/// print(profile.description, profile.version, profile.isWideGamut)   // "Adobe RGB (1998)" "2.1" true
/// if !profile.isSRGBEquivalent, let m = profile.matrixShaper(intent: .relative) { /* fast path */ }
/// ```
///
/// Immutable after `init`; lcms2 locks its own tag reads, so one profile may be shared by threads.
public final class ColorProfile: @unchecked Sendable {
    let context: LCMSContext
    let handle: cmsHPROFILE

    /// The profile's bytes: those given to `init(icc:)`, or lcms2's serialisation for a built-in.
    public let iccData: [UInt8]
    /// The profile's description (its `desc` tag, English), trimmed; "" when it has none.
    public let description: String
    /// The ICC device class in words: "display", "input", "output", "colour space", …
    public let deviceClass: String
    /// Whether the profile describes RGB, gray or CMYK pixels.
    public let colorModel: ProfileColorModel
    /// The ICC version from the header, "major.minor" (with ".bugfix" when that is not 0): "4.3", "2.1".
    public let version: String

    private struct Derived {
        var isWideGamut: Bool?
        var isSRGBEquivalent: Bool?
    }
    // Answers that need a transform or 12 288 curve evaluations, worked out on first use.
    private let derived = Mutex(Derived())

    /// Opens and checks an ICC profile.
    ///
    /// Refuses, with a message naming the problem: an empty, short or truncated buffer, bytes lcms2
    /// cannot parse, a device link, abstract or named-colour profile, a colour space other than RGB,
    /// gray or CMYK, a profile lcms2 cannot use as an input with the relative colorimetric intent, and
    /// a matrix-shaper whose colorant matrix is singular.
    ///
    /// ```swift
    /// let p = try ColorProfile(icc: [UInt8](try Data(contentsOf: url)))
    /// ```
    public init(icc: [UInt8]) throws(ColorProfileError) {
        guard !icc.isEmpty else { throw ColorProfileError("ICC profile is empty") }
        // 128-byte header and the tag count.
        guard icc.count >= 132 else {
            throw ColorProfileError("ICC profile is too short: \(icc.count) bytes, less than a header")
        }
        // lcms2 checks this too, but its size check would come first and call garbage "truncated".
        guard icc[36..<40].elementsEqual("acsp".utf8) else {
            throw ColorProfileError("ICC profile could not be parsed: no 'acsp' signature, not an ICC profile")
        }
        let declared = icc[0..<4].reduce(0) { $0 << 8 | Int($1) }
        // lcms2 would silently drop the tags past the end; say what happened instead.
        guard declared <= icc.count else {
            throw ColorProfileError("ICC profile is truncated: its header declares \(declared) bytes but \(icc.count) are present")
        }
        let context = LCMSContext()
        let opened = icc.withUnsafeBytes { cmsOpenProfileFromMemTHR(context.handle, $0.baseAddress, cmsUInt32Number($0.count)) }
        guard let handle = opened else {
            throw ColorProfileError("ICC profile could not be parsed" + lcmsReason(context))
        }
        let model: ProfileColorModel
        do {
            model = try Self.check(handle, context)
        } catch {
            cmsCloseProfile(handle)
            throw error
        }
        self.context = context
        self.handle = handle
        self.iccData = icc
        self.colorModel = model
        self.description = Self.descriptionText(handle)
        self.deviceClass = Self.deviceClassName(cmsGetDeviceClass(handle))
        let v = cmsGetEncodedICCversion(handle)
        let (major, minor, fix) = (v >> 24 & 0xFF, v >> 20 & 0xF, v >> 16 & 0xF)
        self.version = fix == 0 ? "\(major).\(minor)" : "\(major).\(minor).\(fix)"
    }

    deinit {
        cmsCloseProfile(handle)
    }

    /// Whether some colour of the profile's gamut lies outside sRGB's: the device primaries
    /// (1,0,0), (0,1,0), (0,0,1), converted to linear sRGB (relative colorimetric, float), have a
    /// component below −0.01 or above 1.01. Always false for gray and CMYK.
    ///
    /// ```swift
    /// ColorProfile.displayP3.isWideGamut   // true: P3 red is (1.2249, −0.0421, −0.0196) in linear sRGB
    /// ```
    public var isWideGamut: Bool {
        if let known = derived.withLock({ $0.isWideGamut }) { return known }
        let answer = computeWideGamut()
        derived.withLock { $0.isWideGamut = answer }
        return answer
    }

    /// Whether pixels in this profile are already sRGB, so need no conversion at all: an RGB
    /// matrix-shaper (no tables, for the relative intent) whose D50 colorants match sRGB's within
    /// 2e-3 each and whose three tone curves, encoded back through the sRGB curve, stay within half
    /// an 8-bit step (0.5/255) of the identity at 4096 points of [0, 1] (on the 16-bit grid, where
    /// lcms2 evaluates tabulated curves). The compact sRGB profiles phones and web services embed
    /// ("c2": a 26-point curve, 0.44/255 off) are sRGB; converting through them would rewrite
    /// every sRGB photo's samples by a fraction of a step and cost a colour transform a pixel.
    ///
    /// ```swift
    /// if profile.isSRGBEquivalent { /* keep the decoded samples as they are */ }
    /// ```
    public var isSRGBEquivalent: Bool {
        // The built-in sRGB is by construction (its curve is the formula, parametric type 4): no
        // 12,288 evaluations before a render to sRGB (0.4 ms, on the critical path).
        if self === ColorProfile.sRGB { return true }
        if let known = derived.withLock({ $0.isSRGBEquivalent }) { return known }
        let answer = computeSRGBEquivalent()
        derived.withLock { $0.isSRGBEquivalent = answer }
        return answer
    }

    // MARK: - Checks made once, in init

    /// The colour model, or the reason the profile cannot be used.
    private static func check(_ h: cmsHPROFILE, _ context: LCMSContext) throws(ColorProfileError) -> ProfileColorModel {
        switch cmsGetDeviceClass(h) {
        case cmsSigLinkClass: throw ColorProfileError("ICC profile is a device link, not a colour space")
        case cmsSigAbstractClass: throw ColorProfileError("ICC profile is an abstract profile, not a colour space")
        case cmsSigNamedColorClass: throw ColorProfileError("ICC profile is a named-colour list, not a colour space")
        default: break
        }
        let space = cmsGetColorSpace(h)
        let model: ProfileColorModel
        let inputFormat: Int
        switch space {
        case cmsSigRgbData: (model, inputFormat) = (.rgb, RCP_TYPE_RGB_FLT)
        case cmsSigGrayData: (model, inputFormat) = (.gray, RCP_TYPE_GRAY_FLT)
        case cmsSigCmykData: (model, inputFormat) = (.cmyk, RCP_TYPE_CMYK_FLT)
        default:
            throw ColorProfileError("ICC profile's colour space is \(signatureText(space.rawValue)), not RGB, gray or CMYK")
        }
        // A matrix-shaper used as an output needs its matrix inverted; lcms2 would refuse then, and
        // MatrixShaper.fromWorking could not exist, so refuse now.
        if model == .rgb, usesMatrixShaper(h, intent: INTENT_RELATIVE_COLORIMETRIC), let m = colorantMatrix(h), m.inverse == nil {
            throw ColorProfileError("ICC profile's colorant matrix is singular (determinant \(m.determinant))")
        }
        // The real test of "usable as an input": let lcms2 link it to XYZ. This reads the tags the
        // transform needs, so a damaged tone curve or table is found here rather than mid-render.
        _ = context.drain()
        guard let xyz = cmsCreateXYZProfileTHR(context.handle) else { preconditionFailure("lcms2 could not build an XYZ profile") }
        defer { cmsCloseProfile(xyz) }
        let flags = cmsUInt32Number(cmsFLAGS_NOCACHE | cmsFLAGS_NOOPTIMIZE)
        guard let t = cmsCreateTransformTHR(context.handle, h, cmsUInt32Number(inputFormat), xyz, cmsUInt32Number(RCP_TYPE_XYZ_FLT),
                                            cmsUInt32Number(INTENT_RELATIVE_COLORIMETRIC), flags) else {
            throw ColorProfileError("ICC profile cannot be used as an input with the relative colorimetric intent" + lcmsReason(context))
        }
        cmsDeleteTransform(t)
        return model
    }

    private static func descriptionText(_ h: cmsHPROFILE) -> String {
        let needed = cmsGetProfileInfoASCII(h, cmsInfoDescription, "en", "US", nil, 0)
        guard needed > 0 else { return "" }
        var buffer = [CChar](repeating: 0, count: Int(needed) + 1)
        _ = cmsGetProfileInfoASCII(h, cmsInfoDescription, "en", "US", &buffer, needed)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.trimmingSpaces()
    }

    private static func deviceClassName(_ c: cmsProfileClassSignature) -> String {
        switch c {
        case cmsSigDisplayClass: "display"
        case cmsSigInputClass: "input"
        case cmsSigOutputClass: "output"
        case cmsSigColorSpaceClass: "colour space"
        case cmsSigAbstractClass: "abstract"
        case cmsSigLinkClass: "device link"
        case cmsSigNamedColorClass: "named colour"
        default: signatureText(c.rawValue)
        }
    }

    // MARK: - Derived answers

    private func computeWideGamut() -> Bool {
        guard colorModel == .rgb,
              let t = try? ColorTransform(from: self, to: .linearSRGB, input: .rgbFloat, output: .rgbFloat, intent: .relative)
        else { return false }
        let primaries: [Float] = [1, 0, 0, 0, 1, 0, 0, 0, 1]
        var linear = [Float](repeating: 0, count: 9)
        primaries.withUnsafeBytes { src in linear.withUnsafeMutableBytes { t.convert(src.baseAddress!, $0.baseAddress!, pixels: 3) } }
        return linear.contains { $0 < -0.01 || $0 > 1.01 }
    }

    private func computeSRGBEquivalent() -> Bool {
        guard matrixShaper(intent: .relative) != nil, let own = Self.colorantMatrix(handle),
              let reference = Self.colorantMatrix(ColorProfile.sRGB.handle)
        else { return false }
        guard zip(own.m, reference.m).allSatisfy({ abs($0 - $1) <= 2e-3 }) else { return false }
        guard let deviation = toneCurveDeviationFromSRGB() else { return false }
        return deviation <= 0.5 / 255
    }

    /// The largest difference, in encoded values, between any of the three RGB tone curves (as
    /// lcms2 evaluates them, then encoded with the sRGB formula) and the identity, over 4096 points
    /// of [0, 1]; nil without the TRC tags.
    func toneCurveDeviationFromSRGB() -> Double? {
        var worst = 0.0
        for tag in [cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag] {
            guard let curve = cmsReadTag(handle, tag) else { return nil }
            let c = OpaquePointer(curve)
            for i in 0..<4096 {
                // The 16-bit code nearest i/4095, so a tabulated curve is compared without lcms2's
                // own rounding of the input to 16 bits counting against it.
                let x = (Double(i) * 65535 / 4095).rounded() / 65535
                let l = Double(cmsEvalToneCurveFloat(c, Float(x)))
                let encoded = l <= 0.0031308 ? 12.92 * l : 1.055 * pow(max(l, 0), 1 / 2.4) - 0.055
                worst = max(worst, abs(encoded - x))
            }
        }
        return worst
    }
}

extension ColorProfile {
    /// The D50-adapted colorant matrix (columns red, green, blue), or nil without the three tags.
    static func colorantMatrix(_ h: cmsHPROFILE) -> Matrix3? {
        func xyz(_ tag: cmsTagSignature) -> [Double]? {
            guard let p = cmsReadTag(h, tag) else { return nil }
            let v = p.assumingMemoryBound(to: cmsCIEXYZ.self).pointee
            return [v.X, v.Y, v.Z]
        }
        guard let r = xyz(cmsSigRedColorantTag), let g = xyz(cmsSigGreenColorantTag), let b = xyz(cmsSigBlueColorantTag) else { return nil }
        return Matrix3(columns: r, g, b)
    }

    /// Whether lcms2 builds this profile's pipelines for `intent` from its matrix and tone curves in
    /// both directions. lcms2 prefers a D2Bx/B2Dx float table, then the A2Bx/B2Ax table for the
    /// intent, then falls back to A2B0/B2A0, and only then to the matrix-shaper (cmsio1.c,
    /// _cmsReadInputLUT/_cmsReadOutputLUT): cmsIsCLUT alone misses the fallback.
    static func usesMatrixShaper(_ h: cmsHPROFILE, intent: Int32) -> Bool {
        guard cmsIsMatrixShaper(h) != 0 else { return false }
        let i = Int(intent)
        let d2b = [cmsSigDToB0Tag, cmsSigDToB1Tag, cmsSigDToB2Tag, cmsSigDToB3Tag]
        let a2b = [cmsSigAToB0Tag, cmsSigAToB1Tag, cmsSigAToB2Tag, cmsSigAToB1Tag]
        let b2d = [cmsSigBToD0Tag, cmsSigBToD1Tag, cmsSigBToD2Tag, cmsSigBToD3Tag]
        let b2a = [cmsSigBToA0Tag, cmsSigBToA1Tag, cmsSigBToA2Tag, cmsSigBToA1Tag]
        let tables = [d2b[i], a2b[i], cmsSigAToB0Tag, b2d[i], b2a[i], cmsSigBToA0Tag]
        return !tables.contains { cmsIsTag(h, $0) != 0 }
    }

    /// The chromatic adaptation matrix (`chad` tag, row-major), or nil when the profile has none.
    var adaptationMatrix: Matrix3? {
        guard let p = cmsReadTag(handle, cmsSigChromaticAdaptationTag) else { return nil }
        let d = p.assumingMemoryBound(to: Double.self)
        return Matrix3((0..<9).map { d[$0] })
    }

    /// The D50-adapted colorant matrix, for tests and for `MatrixShaper`.
    var colorants: Matrix3? { Self.colorantMatrix(handle) }
}

/// A four-character ICC signature as text, trailing spaces dropped ("Lab ", "YCbr" → "Lab", "YCbr").
func signatureText(_ value: UInt32) -> String {
    let bytes = (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
    let printable = bytes.allSatisfy { $0 >= 32 && $0 < 127 }
    return printable ? String(decoding: bytes, as: UTF8.self).trimmingSpaces() : "0x" + String(value, radix: 16)
}

extension String {
    func trimmingSpaces() -> String {
        let scalars = unicodeScalars.drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        var end = scalars.endIndex
        while end > scalars.startIndex {
            let previous = scalars.index(before: end)
            guard [" ", "\t", "\n", "\r"].contains(scalars[previous]) else { break }
            end = previous
        }
        return String(String.UnicodeScalarView(scalars[scalars.startIndex..<end]))
    }
}
