import RecipeCodecs
import RecipeColor
import RecipeCore
import RecipeKernels
import RecipeOptimizer

/// The colour an output is written in (`--profile`): the photo's own (`keep`), a built-in RGB
/// space, or an ICC file.
package enum OutputProfile: Equatable, Sendable, CustomStringConvertible {
    case keep
    case named(String)
    case file(String)

    package static let names = ["srgb", "display-p3", "adobe-rgb", "rec2020"]

    package init?(argument: String) {
        let word = argument.lowercased()
        if word == "keep" { self = .keep }
        else if Self.names.contains(word) { self = .named(word) }
        else if word.hasSuffix(".icc") || word.hasSuffix(".icm") { self = .file(argument) }
        else { return nil }
    }

    package static var allValueStrings: [String] { ["keep"] + names + ["FILE.icc"] }

    package var description: String {
        switch self {
        case .keep: "keep"
        case .named(let name): name
        case .file(let path): path
        }
    }
}

/// How a render handles colour: where the photo's colours come from, which profile the output is
/// written in, and the point steps between them and the working space (linear light with sRGB
/// primaries, extended range; Grammar/semantics.md "Colour").
///
/// The photo's colour comes from, in order: its embedded ICC profile (JPEG APP2, PNG iCCP), the
/// PNG sRGB, cHRM and gAMA chunks, EXIF's interoperability index `R03` (Adobe RGB), else sRGB. A
/// profile that cannot be used is a warning naming the file and the problem; the photo is then
/// treated as sRGB. sRGB in and sRGB out converts nothing, so it costs nothing.
///
/// ```swift
/// let color = try PhotoColor(photo: "IMG_0001.jpg", info: decoder.info, output: .named("srgb"), intent: .relative)
/// color.endpoints      // → linear, matrix (Display P3 → working space); nothing at the output end
/// ```
package struct PhotoColor: Sendable {
    /// The photo's profile (nil: sRGB, or a profile that encodes as sRGB does).
    package var source: ColorProfile?
    /// What the photo's colours are, and where that was read.
    package var sourceName: String
    /// The output's profile (nil: sRGB).
    package var output: ColorProfile?
    package var outputName: String
    /// The conversions at the plan's ends.
    package var endpoints = ColorEndpoints()
    /// The ICC profile the output file carries: the photo's (nothing converted), another one
    /// (converted; or synthesized from PNG chunks or EXIF), or none (the photo's could not be used
    /// and its pixels are written as sRGB: a file never carries a profile its pixels are not in).
    package enum ICC: Sendable, Equatable {
        case asPhoto
        case replace([UInt8])
        case remove
    }
    package var outputICC = ICC.asPhoto
    /// Whether the pixels change colour space (false: the photo's own colours are written).
    package var converts: Bool { endpoints.converts }
    /// Whether the output is in the photo's own space (then a render without stages touches no
    /// pixel).
    package var sameSpace: Bool { source === output }
    /// Problems with the photo's colour information (a damaged profile, one for other pixels).
    package var warnings: [ImageWarning] = []
    /// A CMYK photo's profile: the decoder converts its rows through it into sRGB (16 bits), the
    /// photo's colours from then on.
    package var cmyk: ColorProfile?

    /// Reads the photo's colour from `info` and plans the conversions to `output`.
    package init(photo: String, info: ImageInfo, output choice: OutputProfile = .keep, intent: RenderingIntent = .relative,
                 develop: RawDevelop? = nil) throws {
        if let raw = info.raw {
            self = try Self.raw(raw, develop: develop ?? RawDevelop(), output: choice, intent: intent, info: info, photo: photo)
            return
        }
        (source, sourceName, warnings) = Self.sourceProfile(photo: photo, info: info)
        if let profile = source, profile.colorModel == .cmyk {
            cmyk = profile
            source = nil
        }
        let rejected = info.metadata.icc != nil && !warnings.isEmpty
        let wanted: ColorProfile?
        switch choice {
        case .keep:
            // A grey or CMYK profile cannot describe the RGB pixels the stages make.
            wanted = source?.colorModel == .rgb ? source : nil
            outputName = wanted == nil ? "sRGB" : sourceName
        case .named(let name):
            let profile = ColorProfile.named(name)!
            wanted = profile.isSRGBEquivalent ? nil : profile
            outputName = wanted == nil ? "sRGB" : profile.description
        case .file(let path):
            let bytes: [UInt8]
            do { bytes = try InputFile.readAll(path, limit: 16 << 20) } catch {
                throw ImageError(.unreadable, path: path, "cannot read the output profile: \(error)")
            }
            let profile: ColorProfile
            do { profile = try ColorProfile(icc: bytes) } catch {
                throw ImageError(.unsupported, path: path, "\(error)")
            }
            guard profile.colorModel == .rgb else {
                throw ImageError(.unsupported, path: path, "is a \(profile.colorModel.rawValue) profile; --profile takes an RGB one")
            }
            wanted = profile.isSRGBEquivalent ? nil : profile
            outputName = profile.description.isEmpty ? path : profile.description
        }
        output = wanted
        endpoints.sourceName = sourceName
        endpoints.outputName = outputName
        if let source {
            endpoints.source = try Self.toWorking(source, intent: intent)
        }
        if let wanted {
            endpoints.output = try Self.fromWorking(wanted, intent: intent)
        }
        if wanted != nil && wanted === source && info.metadata.icc != nil {
            outputICC = .asPhoto  // written in its own space: its own bytes
        } else if converts || (wanted != nil && wanted === source) || cmyk != nil {
            outputICC = .replace((wanted ?? ColorProfile.sRGB).iccData)
        } else if rejected {
            outputICC = .remove
        }
    }

    /// Where a CMYK photo that embeds no profile finds one: a press characterisation of the
    /// system's stands in for the unknown press (Ghostscript's default, from Debian's libgs-common,
    /// then colord's FOGRA39 and SWOP), as libvips and ImageMagick fall back to a default CMYK
    /// profile. None is bundled: the free ones are a few hundred KiB each, and their licences
    /// (AGPL for Ghostscript's) are not this package's. Without any, the device formula.
    package static let systemCMYKPaths = ["/usr/share/color/icc/ghostscript/default_cmyk.icc",
                                          "/usr/share/color/icc/colord/FOGRA39L_coated.icc",
                                          "/usr/share/color/icc/colord/SWOP_TR005_coated.icc"]

    /// The first usable profile of `systemCMYKPaths`, read once.
    package static let systemCMYKProfile: (path: String, profile: ColorProfile)? = {
        for path in systemCMYKPaths {
            guard let bytes = try? InputFile.readAll(path, limit: 16 << 20), let profile = try? ColorProfile(icc: bytes),
                  profile.colorModel == .cmyk else { continue }
            return (path, profile)
        }
        return nil
    }()

    /// The photo's profile, its name, and what was wrong with its colour information.
    package static func sourceProfile(photo: String, info: ImageInfo) -> (ColorProfile?, String, [ImageWarning]) {
        let meta = info.metadata
        var warnings: [ImageWarning] = []
        // A PNG's cICP chunk outranks its iCCP, sRGB, cHRM and gAMA chunks (PNG third edition).
        if info.format == .png, let cicp = meta.cicp {
            let (profile, name, problem) = Self.profile(cicp)
            if let problem { warnings.append(ImageWarning(path: photo, problem)) }
            let said = name.hasSuffix("(nclx)") ? String(name.dropLast("(nclx)".count)) + "(PNG cICP)" : name
            return (profile, said, warnings)
        }
        if let icc = meta.icc {
            do {
                let profile = try ColorProfile(icc: icc)
                let pixels: ProfileColorModel = info.fileColorSpace.hasPrefix("CMYK") || info.fileColorSpace.hasPrefix("YCCK") ? .cmyk
                    : info.colorModel.withoutAlpha == .gray ? .gray : .rgb
                if profile.colorModel != pixels {
                    warnings.append(ImageWarning(path: photo, "ICC profile \"\(profile.description)\" is for \(profile.colorModel.rawValue) pixels, the photo's are \(pixels.rawValue); treated as sRGB"))
                } else if pixels == .cmyk {
                    return (profile, "\(profile.description) (CMYK; converted to sRGB on decode)", warnings)
                } else {
                    let name = profile.description.isEmpty ? "embedded ICC profile" : profile.description
                    if profile.colorModel == .rgb && profile.isSRGBEquivalent { return (nil, "sRGB", warnings) }
                    return (profile, name, warnings)
                }
            } catch {
                warnings.append(ImageWarning(path: photo, "\(error); treated as sRGB"))
            }
        } else if let cicp = meta.cicp {
            let (profile, name, problem) = Self.profile(cicp)
            if let problem { warnings.append(ImageWarning(path: photo, problem)) }
            return (profile, name, warnings)
        } else if info.fileColorSpace.hasPrefix("CMYK") || info.fileColorSpace.hasPrefix("YCCK") {
            if let (path, profile) = systemCMYKProfile {
                warnings.append(ImageWarning(path: photo, "CMYK photo without a profile: converted through the system's default CMYK profile (\(path)), colours approximate"))
                return (profile, "\(profile.description) (system default for CMYK without a profile; converted to sRGB on decode)", warnings)
            }
            warnings.append(ImageWarning(path: photo, "CMYK photo without a profile and no system CMYK profile (\(systemCMYKPaths.joined(separator: ", "))): converted to RGB with the plain device formula, colours approximate"))
            return (nil, "CMYK without a profile (device formula)", warnings)
        } else if meta.pngSRGBIntent != nil {
            return (nil, "sRGB (PNG sRGB chunk)", warnings)
        } else if let c = meta.pngChromaticities {
            // gAMA 0.45455 is what writers put for sRGB's curve (PNG's fallback for the sRGB chunk).
            let gamma = meta.pngGamma.flatMap { abs($0 - 1 / 2.2) < 1e-3 ? nil : 1 / $0 }
            if let profile = ColorProfile.synthesized(white: (c[0], c[1]), red: (c[2], c[3]), green: (c[4], c[5]), blue: (c[6], c[7]), gamma: gamma) {
                let name = "PNG cHRM" + (gamma.map { " and gamma \(NumberFormatting.shortest(($0 * 1000).rounded() / 1000))" } ?? "")
                return (profile.isSRGBEquivalent ? nil : profile, profile.isSRGBEquivalent ? "sRGB (PNG cHRM and gAMA)" : name, warnings)
            }
            warnings.append(ImageWarning(path: photo, "PNG cHRM chromaticities describe no colour space; treated as sRGB"))
        } else if let g = meta.pngGamma, abs(g - 1 / 2.2) > 1e-3 {
            // gAMA 0.45455 is what writers put for sRGB; another value says the curve.
            let s = (0.64, 0.33), green = (0.30, 0.60), blue = (0.15, 0.06), d65 = (0.3127, 0.3290)
            if let profile = ColorProfile.synthesized(white: d65, red: s, green: green, blue: blue, gamma: 1 / g) {
                return (profile, "sRGB primaries, PNG gamma \(NumberFormatting.shortest((1000 / g).rounded() / 1000))", warnings)
            }
        }
        if let exif = meta.exif.flatMap(EXIF.init), exif.interopIndex == "R03" {
            return (ColorProfile.adobeRGB, "Adobe RGB (EXIF interoperability index R03)", warnings)
        }
        return (nil, "sRGB", warnings)
    }

    /// The colour a HEIF's `nclx` box (or another H.273 description) names: its primaries and
    /// white (1 BT.709/sRGB, 4 BT.470M, 5 BT.470BG, 6/7 SMPTE 170M/240M, 9 BT.2020, 11 DCI-P3,
    /// 12 Display P3) with the sRGB curve for the sRGB and BT.709-family transfers (13, 1, 6, 14, 15,
    /// and 2 unspecified: stills are shown that way by libvips and the browsers' image decoders),
    /// a power for 4 (2.2), 5 (2.8) and 8 (linear). HDR transfers (PQ, HLG) are not tone-mapped.
    /// nil for sRGB itself; a problem to warn about when the description cannot be followed.
    package static func profile(_ c: CICP) -> (ColorProfile?, String, String?) {
        let d65 = (0.3127, 0.3290)
        let primaries: (name: String, white: (Double, Double), r: (Double, Double), g: (Double, Double), b: (Double, Double))?
            = switch c.primaries {
            case 1, 2: ("BT.709", d65, (0.64, 0.33), (0.30, 0.60), (0.15, 0.06))
            case 4: ("BT.470 M", (0.310, 0.316), (0.67, 0.33), (0.21, 0.71), (0.14, 0.08))
            case 5: ("BT.470 B/G", d65, (0.64, 0.33), (0.29, 0.60), (0.15, 0.06))
            case 6, 7: ("SMPTE 170M", d65, (0.630, 0.340), (0.310, 0.595), (0.155, 0.070))
            case 9: ("BT.2020", d65, (0.708, 0.292), (0.170, 0.797), (0.131, 0.046))
            case 11: ("DCI-P3", (0.314, 0.351), (0.680, 0.320), (0.265, 0.690), (0.150, 0.060))
            case 12: ("Display P3", d65, (0.680, 0.320), (0.265, 0.690), (0.150, 0.060))
            default: nil
            }
        guard let primaries else {
            return (nil, "sRGB", "nclx colour primaries \(c.primaries) are not supported; treated as sRGB")
        }
        var problem: String?
        var gamma: Double?
        switch c.transfer {
        case 4: gamma = 2.2
        case 5: gamma = 2.8
        case 8: gamma = 1
        case 1, 2, 6, 13, 14, 15: gamma = nil
        case 16, 18: problem = "HDR transfer (\(c.transfer == 16 ? "PQ" : "HLG")) is shown without tone mapping; highlights clip"
        default: problem = "nclx transfer characteristics \(c.transfer) are not supported; the sRGB curve is used"
        }
        guard let profile = ColorProfile.synthesized(white: primaries.white, red: primaries.r, green: primaries.g, blue: primaries.b, gamma: gamma)
        else { return (nil, "sRGB", "nclx colour description \(c) describes no colour space; treated as sRGB") }
        if profile.isSRGBEquivalent { return (nil, "sRGB (nclx)", problem) }
        let curve = gamma.map { $0 == 1 ? "linear" : "gamma \(NumberFormatting.shortest($0))" } ?? "sRGB curve"
        return (profile, "\(primaries.name) primaries, \(curve) (nclx)", problem)
    }

    /// Steps from `profile`'s encoded values to the working space's linear light.
    package static func toWorking(_ profile: ColorProfile, intent: RenderingIntent) throws -> [PointStep] {
        if profile.colorModel == .gray {
            // A grey photo's samples are repeated into three channels before the stages: its tone
            // curve (as lcms2 converts grey into the working space) as three tables.
            let t = try ColorTransform(from: profile, to: .linearSRGB, input: .grayFloat, output: .rgbFloat, intent: intent)
            let size = 4097
            var grey = (0..<size).map { Float($0) / Float(size - 1) }
            var rgb = [Float](repeating: 0, count: 3 * size)
            grey.withUnsafeMutableBytes { g in rgb.withUnsafeMutableBytes { t.convert(g.baseAddress!, $0.baseAddress!, pixels: size) } }
            let table = (0..<3).flatMap { c in (0..<size).map { rgb[3 * $0 + c] } }
            return [.curves(table: table, size: size)]
        }
        if let shaper = profile.matrixShaper(intent: intent) {
            return curves(shaper.curves, inverse: false) + [.matrix(matrix34(shaper.toWorking))]
        }
        let t = try ColorTransform(from: profile, to: .linearSRGB, input: .rgbFloatPlanar, output: .rgbFloatPlanar, intent: intent)
        return [.colorTransform(PlanarColorTransform(name: "\(profile.description) → working space (lcms2, \(intent.rawValue))") { r, g, b, n in
            t.convertPlanar(r, g, b, count: n)
        })]
    }

    /// Steps from the working space's linear light to `profile`'s encoded values.
    package static func fromWorking(_ profile: ColorProfile, intent: RenderingIntent) throws -> [PointStep] {
        if let shaper = profile.matrixShaper(intent: intent), let encode = curves(shaper.curves, inverse: true).first {
            return [.matrix(matrix34(shaper.fromWorking)), encode]
        }
        let t = try ColorTransform(from: .linearSRGB, to: profile, input: .rgbFloatPlanar, output: .rgbFloatPlanar, intent: intent)
        return [.colorTransform(PlanarColorTransform(name: "working space → \(profile.description) (lcms2, \(intent.rawValue))") { r, g, b, n in
            t.convertPlanar(r, g, b, count: n)
        })]
    }

    /// A profile's three tone curves as steps: the sRGB curve or a power when all three are that
    /// (sign-symmetric, so out-of-gamut values keep their meaning), else sampled tables. The
    /// inverse of sampled curves is not made here (nil: the caller lets lcms2 do it).
    package static func curves(_ curves: [MatrixShaper.Curve], inverse: Bool) -> [PointStep] {
        if curves.allSatisfy({ $0 == .srgb }) { return [inverse ? .toEncoded : .toLinear] }
        if case .gamma(let g) = curves[0], curves.allSatisfy({ $0 == curves[0] }) { return [.power(Float(inverse ? 1 / g : g))] }
        guard !inverse else { return [] }
        let size = 4097
        let table = curves.flatMap { curve in (0..<size).map { Float(MatrixShaper.evaluate(curve, Double($0) / Double(size - 1))) } }
        return [.curves(table: table, size: size)]
    }

    /// A row-major 3×3 as the 3×4 of a matrix step (no offset).
    package static func matrix34(_ m: [Double]) -> [Float] {
        [m[0], m[1], m[2], 0, m[3], m[4], m[5], 0, m[6], m[7], m[8], 0].map { Float($0) }
    }
}
