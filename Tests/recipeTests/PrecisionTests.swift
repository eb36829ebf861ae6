import Foundation
import RecipeCodecs
import RecipeCore
import Testing
import TestSupport

/// Samples cross stage boundaries at full precision (floats between stages, 16 bits kept from a
/// 16-bit photo to a 16-bit output): Grammar/semantics.md, "Precision".
@Suite("precision between stages")
struct PrecisionTests: CLITest {
    func render(_ photo: String, _ stages: String, to name: String, in dir: URL) throws -> String {
        let recipePath = dir.appendingPathComponent("\(name).recipe.yaml").path
        try ("format: dev.recipe.edit\nversion: 1.1\nstages:\n" + stages).write(toFile: recipePath, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("\(name).png").path
        let r = try recipe(["render", photo, "--recipe", recipePath, "-o", out])
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
}
