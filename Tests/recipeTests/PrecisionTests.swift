import Foundation
import RecipeCodecs
import RecipeCore
import Testing
import TestSupport

/// Samples cross stage boundaries at full precision (floats between stages, 16 bits kept from a
/// 16-bit photo to a 16-bit output): Grammar/semantics.md, "Precision".
@Suite("precision between stages")
struct PrecisionTests: CLITest {
    func render(_ photo: String, _ stages: String, to name: String, in dir: URL, as ext: String = "png", _ extra: [String] = []) throws -> String {
        let recipePath = dir.appendingPathComponent("\(name).recipe.yaml").path
        try ("format: dev.recipe.edit\nversion: 1.1\nstages:\n" + stages).write(toFile: recipePath, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("\(name).\(ext)").path
        let r = try recipe(["render", photo, "--recipe", recipePath, "-o", out] + extra)
        #expect(r.status == 0, "\(r.stderr)")
        return out
    }

    /// Every sample of a PNG as integers (8 or 16 bits), with its bit depth.
    func samples(_ path: String) throws -> (values: [Int], bits: Int, channels: Int) {
        let d = try decodedSamples(path)
        return (d.values, d.bits, d.channels)
    }

    /// The dodge-and-burn shape: darken 3 stops, local work, brighten 3 stops. With 8 bits between
    /// the stages this left 99 distinct green levels of kodim01 where the blur alone leaves 245
    /// (max error 7 codes); with floats it is the blur alone to within rounding.
    @Test("exposure −3, blur 0.5, exposure +3 keeps ≥ 97 % of the distinct levels of the blur alone, within 2 codes",
          arguments: [TestPaths.samples.appendingPathComponent("kodim03.png").path]
              + TestPaths.corpusFiles("kodak", extensions: ["png"]).filter { $0.hasSuffix("kodim01.png") })
    func darkenBlurBrighten(photo: String) throws {
        let dir = TestPaths.temporaryDirectory("precision")
        defer { try? FileManager.default.removeItem(at: dir) }
        let round = try samples(render(photo, "  - exposure: -3\n  - blur: {sigma: 0.5}\n  - exposure: 3\n", to: "round", in: dir))
        let alone = try samples(render(photo, "  - blur: {sigma: 0.5}\n", to: "alone", in: dir))
        try #require(round.values.count == alone.values.count && round.channels == 3)
        let worst = zip(round.values, alone.values).map { abs($0 - $1) }.max() ?? 0
        for c in 0..<3 {
            let levelsRound = Set(stride(from: c, to: round.values.count, by: 3).map { round.values[$0] }).count
            let levelsAlone = Set(stride(from: c, to: alone.values.count, by: 3).map { alone.values[$0] }).count
            testNote("\((photo as NSString).lastPathComponent) channel \(c): \(levelsRound) of \(levelsAlone) levels, max error \(worst)")
            #expect(Double(levelsRound) >= 0.97 * Double(levelsAlone), "channel \(c): \(levelsRound) of \(levelsAlone) levels")
        }
        #expect(worst <= 2, "max error \(worst) codes")
    }

    @Test("a 16-bit PNG through the identity recipe is bit-exact in a 16-bit PNG")
    func identity16() throws {
        let dir = TestPaths.temporaryDirectory("precision16")
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["basn2c16.png", "basn0g16.png"] {
            let photo = TestPaths.fixture("png/" + name)
            let out = try render(photo, "  []\n", to: "identity-" + name, in: dir)
            let a = try samples(photo), b = try samples(out)
            #expect(b.bits == 16 && a.values == b.values, "\(name)")
        }
    }

    /// 16 bits in, a stage, 16 bits out: every sample within one 16-bit step of the formula on the
    /// 16-bit source. basn2c16.png carries gAMA 1.0 (linear samples), which the render honours:
    /// exposure +0.5 EV is then v·2^0.5 on the samples themselves, written back in the photo's own
    /// space. Through 8 bits it would be up to 128 steps off.
    @Test("a 16-bit PNG (gAMA 1.0) through a stage stays 16-bit, within 1/65535 of the formula")
    func stage16() throws {
        let dir = TestPaths.temporaryDirectory("precision16")
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = TestPaths.fixture("png/basn2c16.png")
        let out = try render(photo, "  - exposure: 0.5\n", to: "exposure", in: dir)
        let a = try samples(photo), b = try samples(out)
        try #require(b.bits == 16 && a.values.count == b.values.count)
        var worst = 0
        for (x, y) in zip(a.values, b.values) {
            let expected = Int((min(Double(x) / 65535 * pow(2, 0.5), 1) * 65535).rounded())
            worst = max(worst, abs(expected - y))
        }
        testNote("16-bit exposure: max \(worst)/65535 from the formula")
        #expect(worst <= 1)
    }

    /// vips' decode of a file (`vips copy` to a 16-bit PNG when the file is deep), read with
    /// libpng: the TIFFs below are judged by a reader that is not ours.
    func vipsSamples(_ path: String, in dir: URL) throws -> DecodedSamples {
        let png = dir.appendingPathComponent(UUID().uuidString + ".png").path
        let r = try ExternalTool.run(ExternalTool.find("vips")!, ["copy", path, png])
        try #require(r.status == 0, "vips copy \(path): \(r.stderr)")
        return try decodedSamples(png)
    }


    /// Before, only a PNG output got the 16-bit samples: a TIFF (and a HEIC) was rendered to 8 bits
    /// and widened (every sample a multiple of 257).
    @Test("a 16-bit PNG through a stage into a 16-bit TIFF holds the samples the 16-bit PNG output holds (vips' decode)",
          Requirement.tool("vips"))
    func stage16TIFF() throws {
        let dir = TestPaths.temporaryDirectory("precision16-tiff")
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = TestPaths.fixture("png/basn2c16.png")
        let png = try vipsSamples(render(photo, "  - exposure: 0.1\n", to: "exposure", in: dir), in: dir)
        let tiff = try vipsSamples(render(photo, "  - exposure: 0.1\n", to: "exposure", in: dir, as: "tif"), in: dir)
        #expect(png.bits == 16 && tiff.bits == 16)
        #expect(tiff.values == png.values, "the TIFF's samples differ from the PNG's")
        let wide = tiff.values.filter { $0 % 257 != 0 }.count
        testNote("basn2c16 exposure 0.1 → TIFF: \(wide) of \(tiff.values.count) samples off the 8-bit grid")
        #expect(wide > tiff.values.count / 2, "the TIFF holds 8 bits of information: \(wide) samples off multiples of 257")
    }

    /// The tester's case: 220 distinct levels in the TIFF against 23,381 in the PNG.
    @Test("ljt_monkey16 through exposure 0.1: each channel of the TIFF has within 1 % of the PNG's distinct 16-bit levels, and ≥ 20,000",
          Requirement.corpus, Requirement.tool("vips"))
    func monkeyLevels() throws {
        let dir = TestPaths.temporaryDirectory("precision16-monkey")
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = try #require(TestPaths.corpusFiles("photos", extensions: ["png"]).first { $0.hasSuffix("ljt_monkey16.png") })
        let png = try vipsSamples(render(photo, "  - exposure: 0.1\n", to: "monkey", in: dir), in: dir)
        let tiff = try vipsSamples(render(photo, "  - exposure: 0.1\n", to: "monkey", in: dir, as: "tif"), in: dir)
        #expect(tiff.bits == 16 && tiff.channels == 3 && png.channels == 3)
        for c in 0..<3 {
            let levelsPNG = Set(stride(from: c, to: png.values.count, by: 3).map { png.values[$0] }).count
            let levelsTIFF = Set(stride(from: c, to: tiff.values.count, by: 3).map { tiff.values[$0] }).count
            testNote("ljt_monkey16 exposure 0.1, channel \(c): \(levelsTIFF) distinct levels in the TIFF, \(levelsPNG) in the PNG")
            #expect(levelsTIFF >= 20_000, "channel \(c): \(levelsTIFF) levels")
            #expect(abs(Double(levelsTIFF - levelsPNG)) <= 0.01 * Double(levelsPNG), "channel \(c): TIFF \(levelsTIFF), PNG \(levelsPNG)")
        }
    }

    /// A deep photo's HEIC is 10-bit: the rendered 16 bits rounded once to 10, not 8 bits widened.
    /// Lossless, so the file's codes can be checked one by one against the 16-bit PNG render.
    @Test("a 16-bit PNG through a stage into a lossless HEIC holds the 16-bit render rounded to 10 bits")
    func stage16HEIC() throws {
        let dir = TestPaths.temporaryDirectory("precision16-heic")
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = TestPaths.fixture("png/basn2c16.png")
        let png = try decodedSamples(render(photo, "  - exposure: 0.1\n", to: "exposure", in: dir))
        let heic = try decodedSamples(render(photo, "  - exposure: 0.1\n", to: "exposure", in: dir, as: "heic", ["--lossless"]))
        try #require(png.bits == 16 && heic.bits == 16 && png.values.count == heic.values.count)
        // Our decoder widens the 10-bit codes to 16 bits (c·65535/1023, rounded): undo that.
        let codes = heic.values.map { ($0 * 1023 + 32767) / 65535 }
        let expected = png.values.map { ($0 * 1023 + 32767) / 65535 }
        let worst = zip(codes, expected).map { abs($0 - $1) }.max() ?? 0
        testNote("basn2c16 exposure 0.1 → lossless 10-bit HEIC: max \(worst) codes from the 16-bit render rounded")
        #expect(worst == 0)
    }
}
