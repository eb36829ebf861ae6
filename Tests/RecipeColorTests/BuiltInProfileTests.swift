import Foundation
import Testing
import TestSupport
@testable import RecipeColor

@Suite("Built-in profiles")
struct BuiltInProfileTests {
    typealias XY = (Double, Double)

    /// Published chromaticities: IEC 61966-2.1, SMPTE EG 432-1 (Display P3), Adobe RGB (1998)
    /// specification §4.3, ITU-R BT.2020 table 3; all with the D65 white (0.3127, 0.3290).
    static let published: [(String, ColorProfile, [XY])] = [
        ("sRGB", .sRGB, [(0.64, 0.33), (0.30, 0.60), (0.15, 0.06)]),
        ("Display P3", .displayP3, [(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)]),
        ("Adobe RGB", .adobeRGB, [(0.64, 0.33), (0.21, 0.71), (0.15, 0.06)]),
        ("Rec. 2020", .rec2020, [(0.708, 0.292), (0.170, 0.797), (0.131, 0.046)]),
        ("linear sRGB", .linearSRGB, [(0.64, 0.33), (0.30, 0.60), (0.15, 0.06)]),
    ]
    static let d65: XY = (0.3127, 0.3290)
    static let d50XYZ = [0.9642, 1.0, 0.8249]

    static func xyz(_ c: XY) -> [Double] { [c.0 / c.1, 1, (1 - c.0 - c.1) / c.1] }

    /// RGB → XYZ for the primaries, scaled so (1,1,1) is the white: the textbook construction.
    static func rgbToXYZ(_ p: [XY], white: XY) -> Matrix3 {
        let raw = Matrix3(columns: xyz(p[0]), xyz(p[1]), xyz(p[2]))
        let s = raw.inverse!.apply(xyz(white))
        return raw * Matrix3([s[0], 0, 0, 0, s[1], 0, 0, 0, s[2]])
    }

    /// Bradford adaptation from `source` to `destination` white (XYZ), written out from its definition.
    static func bradford(_ source: [Double], _ destination: [Double]) -> Matrix3 {
        let m = Matrix3([0.8951, 0.2664, -0.1614, -0.7502, 1.7135, 0.0367, 0.0389, -0.0685, 1.0296])
        let s = m.apply(source), d = m.apply(destination)
        return m.inverse! * Matrix3([d[0] / s[0], 0, 0, 0, d[1] / s[1], 0, 0, 0, d[2] / s[2]]) * m
    }

    @Test("colorants are the published primaries, Bradford-adapted from D65 to D50; the chad tag undoes to D65")
    func primariesAndWhite() throws {
        let adapt = Self.bradford(Self.xyz(Self.d65), Self.d50XYZ)
        for (name, profile, primaries) in Self.published {
            let expected = adapt * Self.rgbToXYZ(primaries, white: Self.d65)
            let colorants = try #require(profile.colorants)
            let worst = zip(colorants.m, expected.m).map { abs($0 - $1) }.max()!
            #expect(worst <= 1e-4, "\(name) colorants off by \(worst)")
            // The white the profile was made for: chad⁻¹ · D50.
            let chad = try #require(profile.adaptationMatrix)
            let w = chad.inverse!.apply(Self.d50XYZ)
            let wxy = (w[0] / (w[0] + w[1] + w[2]), w[1] / (w[0] + w[1] + w[2]))
            #expect(abs(wxy.0 - Self.d65.0) <= 1e-4 && abs(wxy.1 - Self.d65.1) <= 1e-4, "\(name) white \(wxy)")
            // Each primary, un-adapted, has the published chromaticity.
            var worstXY = 0.0
            for i in 0..<3 {
                let c = chad.inverse!.apply([colorants.m[i], colorants.m[3 + i], colorants.m[6 + i]])
                let sum = c[0] + c[1] + c[2]
                worstXY = max(worstXY, abs(c[0] / sum - primaries[i].0), abs(c[1] / sum - primaries[i].1))
            }
            #expect(worstXY <= 1e-4, "\(name) primaries off by \(worstXY)")
            testNote("\(name): colorants within \(worst) of the Bradford reference, primaries' xy within \(worstXY)")
        }
    }

    @Test("the matrix to the working space is inverse(M_sRGB) · M_profile from the published chromaticities")
    func toWorkingFromChromaticities() throws {
        let sRGB = Self.rgbToXYZ(Self.published[0].2, white: Self.d65)
        for (name, profile, primaries) in Self.published {
            // Both spaces are D65, so the D50 round trip lcms2 makes cancels: no adaptation here.
            let expected = sRGB.inverse! * Self.rgbToXYZ(primaries, white: Self.d65)
            let shaper = try #require(profile.matrixShaper(intent: .relative))
            let worst = zip(shaper.toWorking, expected.m).map { abs($0 - $1) }.max()!
            #expect(worst <= 2e-4, "\(name) toWorking off by \(worst)")
            let product = Matrix3(shaper.fromWorking) * Matrix3(shaper.toWorking)
            #expect(zip(product.m, [1.0, 0, 0, 0, 1, 0, 0, 0, 1]).allSatisfy { abs($0 - $1) < 1e-12 })
        }
        // The usual quoted figure: P3 red in linear sRGB.
        let red = try #require(ColorProfile.displayP3.matrixShaper(intent: .relative)).toWorking
        #expect(abs(red[0] - 1.2249) < 5e-4 && abs(red[3] + 0.0420) < 5e-4 && abs(red[6] + 0.0196) < 5e-4, "\([red[0], red[3], red[6]])")
    }

    @Test("wide gamut: sRGB no, Display P3, Adobe RGB and Rec. 2020 yes")
    func wideGamut() {
        #expect(!ColorProfile.sRGB.isWideGamut)
        #expect(ColorProfile.displayP3.isWideGamut)
        #expect(ColorProfile.adobeRGB.isWideGamut)
        #expect(ColorProfile.rec2020.isWideGamut)
        #expect(!ColorProfile.linearSRGB.isWideGamut)
        #expect(!ColorProfile.grayGammaSRGB.isWideGamut)
        #expect(!ColorFixtures.sRGB2014.isWideGamut)
        #expect(ColorFixtures.adobeRGB1998.isWideGamut)
    }

    @Test("sRGB-equivalent: the built-in sRGB and ICC's sRGB2014 (1024-entry tables) are; the others are not")
    func sRGBEquivalent() throws {
        let builtIn = try #require(ColorProfile.sRGB.toneCurveDeviationFromSRGB())
        let ofICC = try #require(ColorFixtures.sRGB2014.toneCurveDeviationFromSRGB())
        testNote("TRC vs the sRGB formula: built-in \(builtIn * 65535)/65535, sRGB2014 \(ofICC * 65535)/65535")
        #expect(ColorProfile.sRGB.isSRGBEquivalent)
        #expect(ColorFixtures.sRGB2014.isSRGBEquivalent)
        #expect(!ColorProfile.displayP3.isSRGBEquivalent)      // same curve, other primaries
        #expect(!ColorProfile.linearSRGB.isSRGBEquivalent)     // same primaries, other curve
        #expect(!ColorProfile.adobeRGB.isSRGBEquivalent)
        #expect(!ColorProfile.rec2020.isSRGBEquivalent)
        #expect(!ColorProfile.grayGammaSRGB.isSRGBEquivalent)
        #expect(ColorProfile.synthesized(white: (0.3127, 0.3290), red: (0.64, 0.33), green: (0.30, 0.60), blue: (0.15, 0.06), gamma: nil)?
            .isSRGBEquivalent == true)
        // A pure 2.2 power is several 8-bit steps from the sRGB curve in the shadows: not sRGB.
        #expect(ColorProfile.synthesized(white: (0.3127, 0.3290), red: (0.64, 0.33), green: (0.30, 0.60), blue: (0.15, 0.06), gamma: 2.2)?
            .isSRGBEquivalent == false)
        // Gamma 2.2 is within 0.011 of the sRGB curve, far beyond 2/65535.
        #expect(ColorProfile.synthesized(white: (0.3127, 0.3290), red: (0.64, 0.33), green: (0.30, 0.60), blue: (0.15, 0.06), gamma: 2.2)?
            .isSRGBEquivalent == false)
    }

    @Test("names, descriptions, classes, versions and curves")
    func identity() throws {
        #expect(ColorProfile.named("srgb") === ColorProfile.sRGB)
        #expect(ColorProfile.named("display-p3") === ColorProfile.displayP3)
        #expect(ColorProfile.named("adobe-rgb") === ColorProfile.adobeRGB)
        #expect(ColorProfile.named("rec2020") === ColorProfile.rec2020)
        #expect(ColorProfile.named("sRGB") == nil && ColorProfile.named("prophoto") == nil)
        #expect(ColorProfile.sRGB.description == "sRGB IEC61966-2.1 (recipe)")
        #expect(ColorProfile.displayP3.description == "Display P3 (recipe)")
        #expect(ColorProfile.adobeRGB.description == "Adobe RGB (1998) compatible (recipe)")
        #expect(ColorProfile.rec2020.description == "Rec. ITU-R BT.2020 (recipe)")
        #expect(ColorProfile.linearSRGB.description == "Linear sRGB (recipe working space)")
        #expect(ColorProfile.grayGammaSRGB.description == "Gray, sRGB tone curve (recipe)")
        for p in [ColorProfile.sRGB, .displayP3, .adobeRGB, .rec2020, .linearSRGB, .grayGammaSRGB] {
            // lcms2 2.14 writes ICC v4.4 (earlier releases 4.3).
            #expect(p.version.hasPrefix("4.") && p.deviceClass == "display", "\(p.version) \(p.deviceClass)")
            // iccData reopens as the same profile.
            #expect(try ColorProfile(icc: p.iccData).description == p.description)
        }
        #expect(ColorProfile.grayGammaSRGB.colorModel == .gray && ColorProfile.sRGB.colorModel == .rgb)
        #expect(ColorFixtures.adobeRGB1998.version == "2.1" && ColorFixtures.adobeRGB1998.description == "Adobe RGB (1998)")
        #expect(ColorFixtures.sRGB2014.version == "2.0" && ColorFixtures.sRGB2014.description == "sRGB2014")

        #expect(ColorProfile.sRGB.matrixShaper(intent: .relative)?.curves == [.srgb, .srgb, .srgb])
        #expect(ColorProfile.displayP3.matrixShaper(intent: .perceptual)?.curves == [.srgb, .srgb, .srgb])
        #expect(ColorProfile.adobeRGB.matrixShaper(intent: .relative)?.curves == Array(repeating: .gamma(563.0 / 256), count: 3))
        #expect(ColorProfile.linearSRGB.matrixShaper(intent: .relative)?.curves == Array(repeating: .gamma(1), count: 3))
        #expect(ColorFixtures.adobeRGB1998.matrixShaper(intent: .relative)?.curves == Array(repeating: .gamma(563.0 / 256), count: 3))
        guard case .sampled(let table)? = ColorFixtures.sRGB2014.matrixShaper(intent: .relative)?.curves[0] else {
            Issue.record("sRGB2014's 1024-entry curv should be sampled")
            return
        }
        #expect(table.count == 4097 && table[0] == 0 && table[4096] == 1)
        #expect(ColorProfile.sRGB.matrixShaper(intent: .absolute) == nil)
        #expect(ColorProfile.grayGammaSRGB.matrixShaper(intent: .relative) == nil)
    }

    @Test("gray with the sRGB curve shows level v as sRGB (v, v, v)")
    func grayIsNeutral() throws {
        let t = try ColorTransform(from: .grayGammaSRGB, to: .sRGB, input: .grayFloat, output: .rgbFloat, intent: .relative)
        let levels: [Float] = [0, 0.02, 0.1, 0.25, 0.5, 0.75, 0.9, 1]
        let rgb = convert(t, floats: levels, outChannels: 3, pixels: levels.count)
        let worst = (0..<levels.count).map { i in (0..<3).map { abs(rgb[3 * i + $0] - levels[i]) }.max()! }.max()!
        #expect(worst <= 2e-4, "gray → sRGB off neutral by \(worst)")
        testNote("gray → sRGB: max deviation from (v, v, v) \(worst)")
    }

    @Test("synthesized profiles: gamma and sRGB curves; degenerate input gives nil")
    func synthesized() throws {
        let p = try #require(ColorProfile.synthesized(white: (0.3127, 0.3290), red: (0.64, 0.33), green: (0.30, 0.60), blue: (0.15, 0.06),
                                                      gamma: 1 / 0.45455))
        guard case .gamma(let g)? = p.matrixShaper(intent: .relative)?.curves[0] else {
            Issue.record("a synthesized gamma profile should have a gamma curve")
            return
        }
        #expect(abs(g - 1 / 0.45455) < 2e-5)  // s15Fixed16 in the 'para' tag
        let white: (Double, Double) = (0.3127, 0.3290)
        #expect(ColorProfile.synthesized(white: white, red: (0.3, 0.3), green: (0.3, 0.3), blue: (0.3, 0.3), gamma: nil) == nil)
        #expect(ColorProfile.synthesized(white: white, red: (0.64, 0), green: (0.30, 0.60), blue: (0.15, 0.06), gamma: nil) == nil)
        #expect(ColorProfile.synthesized(white: (0.3, 0), red: (0.64, 0.33), green: (0.30, 0.60), blue: (0.15, 0.06), gamma: nil) == nil)
        #expect(ColorProfile.synthesized(white: white, red: (0.64, 0.33), green: (0.30, 0.60), blue: (0.15, 0.06), gamma: 0) == nil)
        #expect(ColorProfile.synthesized(white: white, red: (.nan, 0.33), green: (0.30, 0.60), blue: (0.15, 0.06), gamma: nil) == nil)
        // Collinear primaries: a singular matrix.
        #expect(ColorProfile.synthesized(white: white, red: (0.6, 0.3), green: (0.4, 0.3), blue: (0.2, 0.3), gamma: 2.2) == nil)
    }

    @Test("the sRGB profile written into outputs carries IEC 61966-2-1's curve: its rTRC/gTRC/bTRC `para` parameters read from the bytes")
    func srgbCurveParametersInTheBytes() throws {
        // Read without lcms2 or our own parser: ICC.1 tag table at byte 128, a `para` tag is its
        // type, 2 reserved bytes... the function type (3 = sRGB's form), then s15Fixed16 numbers.
        let bytes = ColorProfile.sRGB.iccData
        func u32(_ at: Int) -> UInt32 { bytes[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) } }
        func s15(_ at: Int) -> Double { Double(Int32(bitPattern: u32(at))) / 65536 }
        let count = Int(u32(128))
        var found = 0
        for k in 0..<count {
            let entry = 132 + 12 * k
            let signature = String(decoding: bytes[entry..<entry + 4], as: UTF8.self)
            guard ["rTRC", "gTRC", "bTRC"].contains(signature) else { continue }
            let offset = Int(u32(entry + 4))
            #expect(String(decoding: bytes[offset..<offset + 4], as: UTF8.self) == "para", "\(signature)")
            #expect(bytes[offset + 8] == 0 && bytes[offset + 9] == 3, "\(signature): function type \(bytes[offset + 9])")
            // g, a, b, c, d of Y = (aX + b)^g for X >= d, cX below, from the standard's numbers.
            let want = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
            for (i, w) in want.enumerated() {
                let got = s15(offset + 12 + 4 * i)
                #expect(abs(got - w) <= 1.0 / 65536, "\(signature) parameter \(i): \(got), IEC says \(w)")
            }
            found += 1
        }
        #expect(found == 3)
    }
}
