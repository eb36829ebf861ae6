import Foundation
import Testing
import TestSupport
@testable import RecipeColor

@Suite("Matrix-shaper")
struct MatrixShaperTests {
    static var profiles: [(String, ColorProfile)] {
        [("Display P3", .displayP3), ("Adobe RGB", .adobeRGB), ("Rec. 2020", .rec2020), ("sRGB", .sRGB),
         ("sRGB2014 fixture", ColorFixtures.sRGB2014), ("Adobe RGB (1998) fixture", ColorFixtures.adobeRGB1998),
         ("Display P3 v4 fixture (png_broken_iccp)", try! ColorProfile(icc: ColorFixtures.bytes("broken_iccp_inflated.icc"))),
         ("synthesized gamma 1.8", ColorProfile.synthesized(white: (0.3457, 0.3585), red: (0.7347, 0.2653), green: (0.1596, 0.8404),
                                                            blue: (0.0366, 0.0001), gamma: 1.8)!)]
    }

    @Test("curves then toWorking agree with lcms2's float transform to linear sRGB within 1e-4 on 1000 colours",
          arguments: 0..<8)
    func againstLCMS2(index: Int) throws {
        let (name, profile) = Self.profiles[index]
        let shaper = try #require(profile.matrixShaper(intent: .relative), "\(name) should be a matrix-shaper")
        let t = try ColorTransform(from: profile, to: .linearSRGB, input: .rgbFloat, output: .rgbFloat, intent: .relative)
        var rng = SplitMix64(seed: 0xC0105 &+ UInt64(index))
        let count = 1000
        var encoded = (0..<(3 * count)).map { _ in Float.random(in: 0...1, using: &rng) }
        encoded.replaceSubrange(0..<6, with: [0, 0, 0, 1, 1, 1])  // black and white too
        let reference = convert(t, floats: encoded, outChannels: 3, pixels: count)
        var worst = 0.0
        for p in 0..<count {
            let linear = (0..<3).map { MatrixShaper.evaluate(shaper.curves[$0], Double(encoded[3 * p + $0])) }
            for r in 0..<3 {
                let ours = (0..<3).reduce(0.0) { $0 + shaper.toWorking[3 * r + $1] * linear[$1] }
                worst = max(worst, abs(ours - Double(reference[3 * p + r])))
            }
        }
        #expect(worst <= 1e-4, "\(name): max difference \(worst)")
        testNote("matrix-shaper vs lcms2 float, \(name) (\(shaper.curves[0].kind)): max |Δ| \(worst)")
    }

    @Test("an A2B0 table (which lcms2 falls back to for every intent) means no matrix-shaper, though cmsIsCLUT(relative) is false")
    func tableTakesPrecedence() throws {
        var icc = ColorFixtures.bytes("AdobeRGB1998.icc")
        // The cprt tag's directory entry becomes an A2B0 pointing at an appended lutAToBType with
        // only identity B curves (ICC.1:2010 10.10): a valid table, so lcms2 must use it.
        let entry = try #require(BadProfileTests.tag(icc, "cprt")).entry
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        let curve = Array("para".utf8) + [0, 0, 0, 0, 0, 0, 0, 0] + be32(0x10000)
        let table = Array("mAB ".utf8) + [0, 0, 0, 0, 3, 3, 0, 0] + be32(32) + be32(0) + be32(0) + be32(0) + be32(0) + curve + curve + curve
        let offset = icc.count
        icc.replaceSubrange(entry..<(entry + 12), with: Array("A2B0".utf8) + be32(offset) + be32(table.count))
        icc += table
        icc.replaceSubrange(0..<4, with: be32(icc.count))
        let p = try ColorProfile(icc: icc)
        for intent in RenderingIntent.allCases { #expect(p.matrixShaper(intent: intent) == nil, "\(intent)") }
        #expect(!p.isSRGBEquivalent)
        // And lcms2 really does use the table: identity curves map device RGB straight to PCS XYZ,
        // which is nothing like what the Adobe RGB matrix gives.
        let viaTable = try ColorTransform(from: p, to: .linearSRGB, input: .rgbFloat, output: .rgbFloat, intent: .relative)
        let viaMatrix = try ColorTransform(from: ColorFixtures.adobeRGB1998, to: .linearSRGB, input: .rgbFloat, output: .rgbFloat, intent: .relative)
        let a = convert(viaTable, floats: [1, 0, 0], outChannels: 3, pixels: 1), b = convert(viaMatrix, floats: [1, 0, 0], outChannels: 3, pixels: 1)
        #expect(zip(a, b).contains { abs($0 - $1) > 0.05 }, "\(a) vs \(b)")
    }

    /// The built-in profiles' curves through `evaluate`, against their published formulas on both
    /// sides of each breakpoint (sRGB 0.04045, BT.709/2020 0.081): moving a breakpoint to 0.05 or
    /// 0.09 changes the values between by 1.4e-5 (sRGB, tolerance 1e-12) or 4.6e-5 (Rec. 2020,
    /// tolerance 2e-5: its parameters are stored in s15Fixed16).
    @Test("built-in profile curves equal IEC 61966-2-1, BT.709/BT.2020 and Adobe RGB's 563/256 power at their breakpoints")
    func builtInCurvesAtBreakpoints() throws {
        func iec(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
        // BT.709 (and BT.2020 at 10 bits) inverse OETF: V < 0.081 ? V / 4.5 : ((V + 0.099) / 1.099)^(1 / 0.45).
        func bt709(_ v: Double) -> Double { v < 0.081 ? v / 4.5 : pow((v + 0.099) / 1.099, 1 / 0.45) }
        let srgb = try #require(ColorProfile.sRGB.matrixShaper(intent: .relative)?.curves[0])
        for v in [0.04, 0.04045, 0.0405, 0.042, 0.045, 0.048, 0.05, 0.3] {
            #expect(abs(MatrixShaper.evaluate(srgb, v) - iec(v)) <= 1e-12, "sRGB at \(v)")
        }
        #expect(abs(iec(0.045) - 0.045 / 12.92) > 1e-5)
        let rec2020 = try #require(ColorProfile.rec2020.matrixShaper(intent: .relative)?.curves[0])
        for v in [0.05, 0.08, 0.081, 0.082, 0.085, 0.0875, 0.09, 0.095, 0.3, 0.7, 1] {
            // The profile stores its parameters in s15Fixed16: up to 1.3e-5 off the exact formula.
            #expect(abs(MatrixShaper.evaluate(rec2020, v) - bt709(v)) <= 2e-5, "Rec. 2020 at \(v): \(MatrixShaper.evaluate(rec2020, v)) vs \(bt709(v))")
        }
        #expect(abs(pow((0.085 + 0.099) / 1.099, 1 / 0.45) - 0.085 / 4.5) > 3e-5)
        let adobe = try #require(ColorProfile.adobeRGB.matrixShaper(intent: .relative)?.curves[0])
        for v in [0.01, 0.2, 0.5, 0.9] {
            #expect(abs(MatrixShaper.evaluate(adobe, v) - pow(v, 563.0 / 256)) <= 1e-12, "Adobe RGB at \(v)")
        }
    }

    @Test("evaluate: the sRGB and power formulas, odd symmetry, sampled interpolation and extrapolation")
    func evaluate() {
        // sRGB, from IEC 61966-2.1's formula by hand: ((0.5 + 0.055) / 1.055)^2.4 = 0.214041…
        #expect(abs(MatrixShaper.evaluate(.srgb, 0.5) - 0.21404114) < 1e-8)
        #expect(abs(MatrixShaper.evaluate(.srgb, 0.04) - 0.04 / 12.92) < 1e-12)
        #expect(MatrixShaper.evaluate(.srgb, -0.5) == -MatrixShaper.evaluate(.srgb, 0.5))
        #expect(abs(MatrixShaper.evaluate(.srgb, 1.2) - pow(1.255 / 1.055, 2.4)) < 1e-12)
        #expect(abs(MatrixShaper.evaluate(.gamma(2.2), 0.5) - 0.21763764) < 1e-8)
        #expect(MatrixShaper.evaluate(.gamma(2.2), -0.5) == -MatrixShaper.evaluate(.gamma(2.2), 0.5))
        let table: MatrixShaper.Curve = .sampled([0, 0.25, 1])
        #expect(MatrixShaper.evaluate(table, 0.25) == 0.125)
        #expect(MatrixShaper.evaluate(table, 0.75) == 0.625)
        #expect(MatrixShaper.evaluate(table, 1.5) == 1.75)     // last slope 1.5
        #expect(MatrixShaper.evaluate(table, -0.5) == -0.25)   // first slope 0.5
    }
}

extension MatrixShaper.Curve {
    var kind: String {
        switch self {
        case .srgb: "srgb"
        case .gamma(let g): "gamma \(g)"
        case .sampled(let s): "sampled \(s.count)"
        }
    }
}
