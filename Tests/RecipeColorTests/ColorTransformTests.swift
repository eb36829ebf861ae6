import Foundation
import Testing
import TestSupport
@testable import RecipeColor

@Suite("Colour transform")
struct ColorTransformTests {
    /// 4×4×4 RGB levels, 0…255 (greys, primaries, secondaries, mixed colours), then 200 random ones.
    static let rgbColours: [[UInt8]] = {
        let levels: [UInt8] = [0, 60, 170, 255]
        var rng = SplitMix64(seed: 255)
        return levels.flatMap { r in levels.flatMap { g in levels.map { b in [r, g, b] } } }
            + (0..<200).map { _ in (0..<3).map { _ in UInt8.random(in: 0...255, using: &rng) } }
    }()

    @Test("against transicc: 8-bit and float, several profile pairs and intents", Requirement.tool("transicc"), arguments: [
        ("Adobe RGB (1998) fixture → sRGB", 1), ("Adobe RGB (1998) fixture → sRGB", 0),
        ("sRGB2014 fixture → Display P3", 1), ("Rec. 2020 → sRGB", 1), ("Display P3 → Adobe RGB", 3),
    ])
    func againstTransicc(_ pair: String, _ intent: Int) throws {
        let (from, to): (ColorProfile, ColorProfile) = switch pair {
        case "Adobe RGB (1998) fixture → sRGB": (ColorFixtures.adobeRGB1998, .sRGB)
        case "sRGB2014 fixture → Display P3": (ColorFixtures.sRGB2014, .displayP3)
        case "Rec. 2020 → sRGB": (.rec2020, .sRGB)
        default: (.displayP3, .adobeRGB)
        }
        let ri = RenderingIntent.allCases[intent]
        let colours = Self.rgbColours
        let reference = try #require(try Transicc.run(from.iccData, to.iccData, intent: intent, values: colours.map { $0.map(Double.init) }))
        try #require(reference.count == colours.count && reference.allSatisfy { $0.count == 3 }, "transicc printed \(reference.prefix(3))")

        let t8 = try ColorTransform(from: from, to: to, input: .rgb8, output: .rgb8, intent: ri)
        let out8 = convert(t8, bytes: colours.flatMap { $0 }, outChannels: 3, pixels: colours.count)
        var worst8 = 0.0
        for (i, ref) in reference.enumerated() {
            for c in 0..<3 {
                // transicc is unbounded; an 8-bit output clips.
                worst8 = max(worst8, abs(Double(out8[3 * i + c]) - min(max(ref[c], 0), 255)))
            }
        }
        #expect(worst8 <= 1, "\(pair) 8-bit: max \(worst8)/255")

        let tf = try ColorTransform(from: from, to: to, input: .rgbFloat, output: .rgbFloat, intent: ri)
        let outF = convert(tf, floats: colours.flatMap { $0.map { Float($0) / 255 } }, outChannels: 3, pixels: colours.count)
        var worstF = 0.0
        for (i, ref) in reference.enumerated() {
            for c in 0..<3 { worstF = max(worstF, abs(Double(outF[3 * i + c]) - ref[c] / 255)) }
        }
        #expect(worstF <= 1e-3, "\(pair) float: max \(worstF)")
        testNote("vs transicc, \(pair) \(ri.rawValue): 8-bit max \(worst8)/255 (vs unrounded), float max \(worstF)")
    }

    @Test("16-bit agrees with the float transform within 2/65535 (lcms2's resampled 16-bit table was 5200/65535 off)")
    func sixteenBit() throws {
        let from = ColorFixtures.adobeRGB1998
        let t16 = try ColorTransform(from: from, to: .sRGB, input: .rgb16, output: .rgb16, intent: .relative)
        let tf = try ColorTransform(from: from, to: .sRGB, input: .rgbFloat, output: .rgbFloat, intent: .relative)
        var rng = SplitMix64(seed: 16)
        let n = 2000
        let src = (0..<(3 * n)).map { _ in UInt16.random(in: 0...65535, using: &rng) }
        var out = [UInt16](repeating: 0, count: 3 * n)
        src.withUnsafeBytes { s in out.withUnsafeMutableBytes { tf16(t16, s, $0, n) } }
        let f = convert(tf, floats: src.map { Float($0) / 65535 }, outChannels: 3, pixels: n)
        let worst = zip(out, f).map { abs(Double($0) - min(max(Double($1), 0), 1) * 65535) }.max()!
        #expect(worst <= 2, "16-bit vs float: \(worst)/65535")
        testNote("Adobe RGB fixture → sRGB, 16-bit vs float: max \(worst)/65535")
    }

    private func tf16(_ t: ColorTransform, _ s: UnsafeRawBufferPointer, _ d: UnsafeMutableRawBufferPointer, _ n: Int) {
        t.convert(s.baseAddress!, d.baseAddress!, pixels: n)
    }

    @Test("planar float: planes at unrelated addresses, across chunk boundaries, equal the packed transform exactly")
    func planar() throws {
        let planar = try ColorTransform(from: .displayP3, to: .linearSRGB, input: .rgbFloatPlanar, output: .rgbFloatPlanar, intent: .relative)
        let packed = try ColorTransform(from: .displayP3, to: .linearSRGB, input: .rgbFloat, output: .rgbFloat, intent: .relative)
        var rng = SplitMix64(seed: 7)
        let n = 2500
        var r = (0..<n).map { _ in Float.random(in: -0.1...1.1, using: &rng) }
        var g = (0..<n).map { _ in Float.random(in: -0.1...1.1, using: &rng) }
        var b = (0..<n).map { _ in Float.random(in: -0.1...1.1, using: &rng) }
        let interleaved = (0..<n).flatMap { [r[$0], g[$0], b[$0]] }
        let expected = convert(packed, floats: interleaved, outChannels: 3, pixels: n)
        r.withUnsafeMutableBufferPointer { rp in
            g.withUnsafeMutableBufferPointer { gp in
                b.withUnsafeMutableBufferPointer { bp in
                    planar.convertPlanar(rp.baseAddress!, gp.baseAddress!, bp.baseAddress!, count: n)
                }
            }
        }
        let planarResult: [Float] = (0..<n).flatMap { i -> [Float] in [r[i], g[i], b[i]] }
        #expect(planarResult == expected)
        // Out-of-range input stays unbounded through the matrix-shaper.
        #expect(r.contains { $0 < 0 } && r.contains { $0 > 1 })
    }

    @Test("a layout that does not fit its profile is refused with a message")
    func layoutMismatch() {
        #expect(throws: ColorProfileError.self) {
            try ColorTransform(from: .grayGammaSRGB, to: .sRGB, input: .rgb8, output: .rgb8, intent: .relative)
        }
        do {
            _ = try ColorTransform(from: .sRGB, to: .sRGB, input: .rgb8, output: .cmyk8, intent: .relative)
            Issue.record("rgb → cmyk8 layout into an RGB profile should throw")
        } catch {
            #expect(error.message.contains("output layout cmyk8 does not fit the rgb profile"), "\(error.message)")
        }
    }

    @Test("SWOP CMYK (inverted 8-bit, as Adobe JPEGs store it) → sRGB agrees with transicc within 1/255",
          Requirement.corpus, Requirement.tool("transicc"))
    func cmyk() throws {
        let swop = try #require(ColorFixtures.swop, "../shared/corpus/photos/jd_ycck.jpg (SWOP profile, 557 KB) not readable")
        #expect(swop.colorModel == .cmyk && swop.deviceClass == "output" && swop.description == "U.S. Web Coated (SWOP) v2")
        #expect(!swop.isWideGamut && !swop.isSRGBEquivalent && swop.matrixShaper(intent: .relative) == nil)
        // Ink amounts 0…255 (255 = full ink), stored inverted: solids, overprints, then 200 random.
        var rng = SplitMix64(seed: 4)
        let inks: [[UInt8]] = [[0, 0, 0, 0], [255, 0, 0, 0], [0, 255, 0, 0], [0, 0, 255, 0], [0, 0, 0, 255], [255, 255, 0, 0],
                               [0, 255, 255, 0], [255, 0, 255, 0], [128, 128, 128, 0], [64, 32, 16, 8], [200, 100, 50, 25],
                               [30, 200, 220, 10], [10, 20, 30, 200], [255, 255, 255, 255], [90, 60, 40, 120], [0, 0, 0, 128]]
            + (0..<200).map { _ in (0..<4).map { _ in UInt8.random(in: 0...255, using: &rng) } }
        for ri in [RenderingIntent.perceptual, .relative] {
            let intent = RenderingIntent.allCases.firstIndex(of: ri)!
            let reference = try #require(try Transicc.run(swop.iccData, ColorProfile.sRGB.iccData, intent: intent,
                                                          values: inks.map { $0.map { Double($0) / 255 * 100 } }))
            try #require(reference.count == inks.count)
            let t = try ColorTransform(from: swop, to: .sRGB, input: .cmyk8Inverted, output: .rgb8, intent: ri)
            let out = convert(t, bytes: inks.flatMap { $0.map { 255 - $0 } }, outChannels: 3, pixels: inks.count)
            var worst = 0.0
            for (i, ref) in reference.enumerated() {
                for c in 0..<3 { worst = max(worst, abs(Double(out[3 * i + c]) - min(max(ref[c], 0), 255))) }
            }
            #expect(worst <= 1, "SWOP → sRGB \(ri.rawValue): max \(worst)/255")
            testNote("SWOP cmyk8Inverted → sRGB rgb8 vs transicc, \(ri.rawValue): max \(worst)/255 (vs unrounded)")
        }
    }

    /// Ghostscript's default CMYK profile (libgs-common, which the build needs anyway): a LUT
    /// profile whose perceptual (A2B0) and relative (A2B1) tables differ — by 11/255 at full black
    /// — so a transform that ignores the intent, or swaps two, misses transicc by far more than 1/255.
    static let defaultCMYK = "/usr/share/color/icc/ghostscript/default_cmyk.icc"

    @Test("a LUT profile whose intents differ (Ghostscript's CMYK → sRGB): perceptual, relative, saturation and absolute each agree with transicc at that intent within 1/255",
          Requirement.tool("transicc"), Requirement.file(defaultCMYK))
    func lutIntents() throws {
        let profile = try ColorProfile(icc: [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.defaultCMYK))))
        #expect(profile.colorModel == .cmyk && profile.matrixShaper(intent: .relative) == nil)
        var rng = SplitMix64(seed: 7)
        let inks: [[UInt8]] = [[0, 0, 0, 0], [0, 0, 0, 255], [255, 0, 0, 0], [0, 255, 0, 0], [0, 0, 255, 0], [128, 128, 0, 0],
                               [51, 204, 77, 26], [200, 100, 50, 25], [10, 20, 30, 200], [255, 255, 255, 255]]
            + (0..<60).map { _ in (0..<4).map { _ in UInt8.random(in: 0...255, using: &rng) } }
        var references: [[[Double]]] = []
        for (intent, ri) in RenderingIntent.allCases.enumerated() {
            let reference = try #require(try Transicc.run(profile.iccData, ColorProfile.sRGB.iccData, intent: intent,
                                                          values: inks.map { $0.map { Double($0) / 255 * 100 } }))
            try #require(reference.count == inks.count && reference.allSatisfy { $0.count == 3 })
            references.append(reference)
            let t = try ColorTransform(from: profile, to: .sRGB, input: .cmyk8, output: .rgb8, intent: ri)
            let out = convert(t, bytes: inks.flatMap { $0 }, outChannels: 3, pixels: inks.count)
            var worst = 0.0
            for (i, ref) in reference.enumerated() {
                for c in 0..<3 { worst = max(worst, abs(Double(out[3 * i + c]) - min(max(ref[c], 0), 255))) }
            }
            #expect(worst <= 1, "default_cmyk → sRGB \(ri.rawValue): max \(worst)/255 from transicc -t\(intent)")
            testNote("default_cmyk → sRGB vs transicc, \(ri.rawValue): max \(worst)/255")
        }
        // The premise: the intents' references differ by much more than the tolerance.
        func spread(_ a: [[Double]], _ b: [[Double]]) -> Double {
            var worst = 0.0
            for (x, y) in zip(a, b) {
                for (p, q) in zip(x, y) { worst = max(worst, abs(min(max(p, 0), 255) - min(max(q, 0), 255))) }
            }
            return worst
        }
        #expect(spread(references[0], references[1]) > 5, "perceptual vs relative in transicc: \(spread(references[0], references[1]))")
        #expect(spread(references[1], references[3]) > 5, "relative vs absolute in transicc: \(spread(references[1], references[3]))")
    }

    @Test("one transform on two threads at once gives the single-threaded result", arguments: [false, true])
    func threads(sixteenBit: Bool) throws {
        let layout: ColorTransform.Layout = sixteenBit ? .rgb16 : .rgb8
        let t = try ColorTransform(from: ColorFixtures.adobeRGB1998, to: .displayP3, input: layout, output: layout, intent: .perceptual)
        let bytesPerPixel = sixteenBit ? 6 : 3
        let n = 1 << 18
        var rng = SplitMix64(seed: 99)
        // Runs of four equal pixels, which is what lcms2's one-pixel cache would serve.
        let src: [UInt8] = (0..<(n / 4)).flatMap { _ in
            let px = (0..<bytesPerPixel).map { _ in UInt8.random(in: 0...255, using: &rng) }
            return Array([[UInt8]](repeating: px, count: 4).joined())
        }
        let expected = convert(t, bytes: src, outChannels: bytesPerPixel, pixels: n)
        for _ in 0..<4 {
            let results = Results()
            DispatchQueue.concurrentPerform(iterations: 2) { k in
                // The two threads walk the image in opposite orders, so they disagree on the last pixel all the time.
                var out = [UInt8](repeating: 0, count: src.count)
                src.withUnsafeBytes { s in
                    out.withUnsafeMutableBytes { d in
                        let rows = 512, perRow = n / rows
                        for row in 0..<rows {
                            let y = k == 0 ? row : rows - 1 - row
                            let offset = y * perRow * bytesPerPixel
                            t.convert(s.baseAddress! + offset, d.baseAddress! + offset, pixels: perRow)
                        }
                    }
                }
                results.set(k, out)
            }
            #expect(results.get(0) == expected && results.get(1) == expected)
        }
    }

    final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [Int: [UInt8]] = [:]
        func set(_ k: Int, _ v: [UInt8]) { lock.withLock { values[k] = v } }
        func get(_ k: Int) -> [UInt8]? { lock.withLock { values[k] } }
    }
}
