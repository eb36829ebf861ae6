import Foundation
import Testing
import TestSupport

/// A lens correction with the geometry after it, which the optimiser composes into the one
/// resampling of the photo (FuseGeometry), against the same edits made in two renders: the
/// photo corrected alone, then that picture flipped, cropped or straightened by a render of its
/// own. Flips and crops move whole pixels, so the two agree to the last level. A straighten
/// resamples a picture already rounded to 8 bits, and at the picture's edge its taps reach past
/// the corrected frame, which the folded map samples from the photo and the second render clamps:
/// the two agree on average within half a level, and within 48 levels at the edge (measured
/// 0.49 and 37 for straighten then crop, 0.08 and 8 for crop then straighten).
@Suite("a lens correction folded with the flips, crops and straighten after it")
struct LensFoldRenderTests: CLITest {
    /// The grid photo of LensCommandTests as a Canon EOS 5D Mark II with the EF 24-70mm at 24 mm:
    /// lensfun's profile moves its lines.
    func photo(in dir: URL) throws -> String {
        let photo = try LensCommandTests().base(in: dir)
        try LensCommandTests().tag(photo, LensCommandTests.combinations[0])
        return photo
    }

    /// The photo rendered with `lens: auto` and then `stages`, in one render and in two: the
    /// differences of their samples (mean, largest), in levels of 255.
    func compare(_ stages: String, in dir: URL) throws -> (mean: Double, max: Int) {
        let source = try photo(in: dir)
        func recipeFile(_ name: String, _ body: String) throws -> String {
            let path = dir.appendingPathComponent(name + ".recipe.yaml").path
            try write("format: dev.recipe.edit\nversion: 1.3\nstages:\n" + body, path)
            return path
        }
        let folded = dir.appendingPathComponent("folded.png").path, corrected = dir.appendingPathComponent("corrected.png").path
        let twice = dir.appendingPathComponent("twice.png").path
        _ = try ok(["render", source, "--recipe", try recipeFile("folded", "  - lens: auto\n" + stages), "-o", folded])
        _ = try ok(["render", source, "--recipe", try recipeFile("lens", "  - lens: auto\n"), "-o", corrected])
        _ = try ok(["render", corrected, "--recipe", try recipeFile("after", stages), "-o", twice])
        let a = try decodedSamples(folded), b = try decodedSamples(twice)
        try #require(a.width == b.width && a.height == b.height, "\(a.width)×\(a.height) against \(b.width)×\(b.height)")
        let d = zip(a.values, b.values).map { abs($0 - $1) }
        return (Double(d.reduce(0, +)) / Double(max(d.count, 1)), d.max() ?? 0)
    }

    @Test("lens · flip left–right · crop off-centre: the same pixels as correcting, then flipping and cropping (±1 level)",
          Requirement.tool("exiftool"), Requirement.imageMagick)
    func flipThenCrop() throws {
        let dir = TestPaths.temporaryDirectory("lens-fold-flip")
        defer { try? FileManager.default.removeItem(at: dir) }
        let d = try compare("  - flip: horizontal\n  - crop: {x: 10px, y: 6px, width: 150px, height: 120px}\n", in: dir)
        testNote("lens · flip · crop against two renders: mean \(String(format: "%.3f", d.mean)), max \(d.max) levels")
        #expect(d.max <= 1, "mean \(d.mean), max \(d.max)")
    }

    @Test("lens · straighten 3° · crop: folded into one resampling, as correcting and then straightening and cropping (mean ≤ 0.6, max ≤ 48 levels)",
          Requirement.tool("exiftool"), Requirement.imageMagick)
    func straightenThenCrop() throws {
        let dir = TestPaths.temporaryDirectory("lens-fold-straighten")
        defer { try? FileManager.default.removeItem(at: dir) }
        let d = try compare("  - straighten: 3\n  - crop: {x: 20px, y: 10px, width: 160px, height: 100px}\n", in: dir)
        testNote("lens · straighten · crop against two renders: mean \(String(format: "%.3f", d.mean)), max \(d.max) levels")
        #expect(d.mean <= 0.6 && d.max <= 48, "mean \(d.mean), max \(d.max)")
    }

    @Test("lens · crop · straighten 3°: the straighten turns the cropped picture, not the whole frame (mean ≤ 0.6, max ≤ 48 levels)",
          Requirement.tool("exiftool"), Requirement.imageMagick)
    func cropThenStraighten() throws {
        let dir = TestPaths.temporaryDirectory("lens-fold-crop-straighten")
        defer { try? FileManager.default.removeItem(at: dir) }
        let d = try compare("  - crop: {x: 30px, y: 10px, width: 150px, height: 120px}\n  - straighten: 3\n", in: dir)
        testNote("lens · crop · straighten against two renders: mean \(String(format: "%.3f", d.mean)), max \(d.max) levels")
        #expect(d.mean <= 0.6 && d.max <= 48, "mean \(d.mean), max \(d.max)")
    }
}
