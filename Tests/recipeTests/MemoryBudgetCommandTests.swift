import Foundation
import Testing
import TestSupport

/// The memory budget as a user meets it (issue 24): `recipe explain --photo` shows a render's
/// estimate, `render` and `apply` refuse one above `--max-memory` per photo (exit 1, the stages
/// named, nothing written), and the estimate holds against the peak RSS the render really reaches.
@Suite("memory budget: the estimate, --max-memory and refusals")
struct MemoryBudgetCommandTests: CLITest {
    static let head = "format: dev.recipe.edit\nversion: 1.1\nstages:\n"
    /// A branch whose top is flipped top–bottom: the flip holds its whole image, and so does the
    /// branch point for the base, which waits for the flip's first row. On Landscape_1 doubled
    /// (3600×2400 floats) that is two images of 104 MB: the estimate cannot be right by accident.
    static let wholeImages = head + """
          - resize: {scale: 2}
          - id: base
            exposure: 0.1
          - id: top
            input: base
            flip: vertical
          - input: base
            blend: {with: top, mode: screen, opacity: 0.5}

        """
    static let landscape = TestPaths.samples.appendingPathComponent("Landscape_1.jpg").path

    /// The estimate `explain --photo` prints, in bytes (from `memory: ~N MiB estimated peak`).
    func estimate(_ recipe: String, photo: String) throws -> Int {
        let text = try ok(["explain", recipe, "--photo", photo])
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("memory: ~") }) else {
            Issue.record("no memory line in explain's output:\n\(text)")
            return 0
        }
        let words = line.dropFirst("memory: ~".count).split(separator: " ")
        let scale: Double = switch words[1] { case "KiB": 1024; case "MiB": 1048576; case "GiB": 1073741824; default: 1 }
        return Int((Double(words[0]) ?? 0) * scale)
    }

    /// The peak RSS of `recipe args` in bytes (GNU time's %M), or nil without /usr/bin/time.
    func peakRSS(_ args: [String]) throws -> Int {
        let r = try ExternalTool.run("/usr/bin/time", ["-f", "%M", TestPaths.recipeBinary] + args)
        #expect(r.status == 0, "recipe \(args.joined(separator: " ")): \(r.stderr)")
        return try #require(r.stderr.split(separator: "\n").last.flatMap { Int($0) }.map { $0 * 1024 }, "no peak RSS from GNU time: \(r.stderr)")
    }

    @Test("explain --photo shows the estimate, the budget and what takes the most")
    func explain() throws {
        let dir = TestPaths.temporaryDirectory("budget-explain")
        defer { try? FileManager.default.removeItem(at: dir) }
        let recipeFile = dir.appendingPathComponent("whole.recipe.yaml").path
        try write(Self.wholeImages, recipeFile)
        let text = try ok(["explain", recipeFile, "--photo", Self.landscape, "--max-memory", "3G", "--memory-detail"])
        #expect(text.contains("estimated peak (budget 3 GiB); work: ~"), "\(text)")
        #expect(text.contains("the most: flip (stage 3)") || text.contains("the most: branch point `base`"), "\(text)")
        let small = try ok(["explain", recipeFile, "--photo", Self.landscape, "--max-memory", "64M"])
        #expect(small.contains("over the budget: `recipe render` and `apply` refuse it"), "\(small)")
    }

    @Test("render refuses a photo over the budget before decoding it: exit 1, the stages and the option named, nothing written")
    func renderRefuses() throws {
        let dir = TestPaths.temporaryDirectory("budget-render")
        defer { try? FileManager.default.removeItem(at: dir) }
        let recipeFile = dir.appendingPathComponent("whole.recipe.yaml").path
        let output = dir.appendingPathComponent("out.jpg").path
        try write(Self.wholeImages, recipeFile)
        let refused = try recipe(["render", Self.landscape, "--recipe", recipeFile, "-o", output, "--max-memory", "100M"])
        #expect(refused.status == 1, "a render over the budget is the photo's failure: \(refused.stderr)")
        for words in [Self.landscape + ": not rendered", "whole.recipe.yaml", "over the memory budget of 100 MiB (--max-memory 100 MiB)",
                      "flip (stage 3)", "branch point `base`", "Raise the budget with --max-memory (e.g. --max-memory "] {
            #expect(refused.stderr.contains(words), "\(refused.stderr) lacks \(words)")
        }
        #expect(!FileManager.default.fileExists(atPath: output), "nothing is written")
        let allowed = try recipe(["render", Self.landscape, "--recipe", recipeFile, "-o", output, "--max-memory", "1GiB"])
        #expect(allowed.status == 0 && FileManager.default.fileExists(atPath: output), "\(allowed.stderr)")
        for bad in ["lots", "12X", "-1G", "8"] {
            let r = try recipe(["render", Self.landscape, "--recipe", recipeFile, "-o", output, "--max-memory", bad])
            #expect(r.status == 2 && r.stderr.contains("max-memory"), "--max-memory \(bad): \(r.status) \(r.stderr)")
        }
    }

    @Test("apply refuses only the photos over the budget; the others are rendered, exit 1")
    func applyRefusesPerPhoto() throws {
        let dir = TestPaths.temporaryDirectory("budget-apply")
        defer { try? FileManager.default.removeItem(at: dir) }
        let photos = dir.appendingPathComponent("photos").path
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        let small = photos + "/small.jpg"
        #expect(try recipe(["render", Self.landscape, "-o", small, "--size", "300"]).status == 0)
        try FileManager.default.copyItem(atPath: Self.landscape, toPath: photos + "/large.jpg")
        let recipeFile = dir.appendingPathComponent("whole.recipe.yaml").path
        try write(Self.wholeImages, recipeFile)
        // The small photo needs about 20 MiB, the large one about 240 MiB.
        let out = dir.appendingPathComponent("out").path
        let r = try recipe(["apply", recipeFile, photos, "-o", out, "--max-memory", "100M", "--jobs", "1", "--progress", "lines"])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: out + "/small.jpg"))
        #expect(!FileManager.default.fileExists(atPath: out + "/large.jpg"))
        #expect(r.stderr.contains("large.jpg") && r.stderr.contains("over the memory budget"), "\(r.stderr)")
        // Two photos at once share the budget: each gets half.
        let shared = try recipe(["apply", recipeFile, photos, "-o", out + "2", "--max-memory", "400M", "--jobs", "2", "--progress", "none"])
        #expect(shared.status == 1 && shared.stderr.contains("200 MiB (400 MiB for 2 photos at once"), "\(shared.stderr)")
    }

    /// The estimate against the peak RSS the render reaches, measured in a subprocess (GNU time):
    /// both less the same binary's identity render of a 15×15 photo, which takes out the process's
    /// own memory (larger in the debug build the tests run than in the release build the estimate
    /// is made for). The estimate must be an upper bound within 10 %, and within 1.5× of what is
    /// measured. Measured with the release build (README, "Memory budget"): estimate / peak RSS
    /// 1.01–1.26 over the bundled recipes on photo24 at full size and 1600 px and on the sample
    /// photos, 1.01 for this recipe without the resize on photo24; here (debug build, Landscape_1
    /// doubled) 215 MiB estimated and 209 measured.
    @Test("the estimate bounds the peak RSS the render reaches, within 1.5×", Requirement.file("/usr/bin/time"))
    func estimateAgainstMeasured() throws {
        let dir = TestPaths.temporaryDirectory("budget-measured")
        defer { try? FileManager.default.removeItem(at: dir) }
        let recipeFile = dir.appendingPathComponent("whole.recipe.yaml").path
        let identity = dir.appendingPathComponent("identity.recipe.yaml").path
        try write(Self.wholeImages, recipeFile)
        try write(Self.head + "  - exposure: 0\n", identity)
        let tiny = TestPaths.fixture("jpeg/moz_jpg-size-15x15.jpg")
        let base = try peakRSS(["render", tiny, "-o", dir.appendingPathComponent("tiny.jpg").path])
        let peak = try peakRSS(["render", Self.landscape, "--recipe", recipeFile, "-o", dir.appendingPathComponent("out.jpg").path])
        let estimate = try estimate(recipeFile, photo: Self.landscape) - (try estimate(identity, photo: tiny))
        let measured = peak - base
        testNote("memory budget: Landscape_1 doubled, two whole images: estimate \(estimate >> 20) MiB, measured \(measured >> 20) MiB "
                 + "(both less the identity render of 15×15)")
        #expect(measured > 150 << 20, "the recipe holds two 104 MB images: \(measured >> 20) MiB measured")
        #expect(Double(measured) <= Double(estimate) * 1.1, "the render took \(measured >> 20) MiB, estimated \(estimate >> 20) MiB")
        #expect(Double(estimate) <= Double(measured) * 1.5, "estimated \(estimate >> 20) MiB, the render took \(measured >> 20) MiB")
    }

    /// A large `.cube` is read whole and parsed before the photo is decoded: its text and its
    /// table (twice, parsed and the pass's copy) are the render's peak. The estimate counts them
    /// (`RenderEstimate.beforeDecoding`) and must bound the measured peak within 1.2×. Measured
    /// with the release build for a 129³ cube (58 MB of text) on photo24: 120 MiB estimated, 93
    /// measured; before, 47 estimated (the table only).
    @Test("a large .cube's reading is in the estimate, which bounds the peak RSS within 1.2×", Requirement.file("/usr/bin/time"))
    func largeCubeEstimate() throws {
        let dir = TestPaths.temporaryDirectory("budget-cube")
        defer { try? FileManager.default.removeItem(at: dir) }
        let n = 65
        var text = "LUT_3D_SIZE \(n)\n"
        text.reserveCapacity(n * n * n * 27)
        for b in 0..<n { for g in 0..<n { for r in 0..<n {
            text += "\(Double(r) / Double(n - 1)) \(Double(g) / Double(n - 1)) \(Double(b) / Double(n - 1))\n"
        } } }
        try write(text, dir.appendingPathComponent("big.cube").path)
        let recipeFile = dir.appendingPathComponent("cube.recipe.yaml").path
        let identity = dir.appendingPathComponent("identity.recipe.yaml").path
        try write(Self.head + "  - lut: {file: big.cube}\n", recipeFile)
        try write(Self.head + "  - exposure: 0\n", identity)
        let tiny = TestPaths.fixture("jpeg/moz_jpg-size-15x15.jpg")
        let explained = try ok(["explain", recipeFile, "--photo", tiny])
        #expect(explained.contains("the peak comes before decoding: reading big.cube"), "\(explained)")
        let base = try peakRSS(["render", tiny, "-o", dir.appendingPathComponent("tiny.jpg").path])
        let peak = try peakRSS(["render", tiny, "--recipe", recipeFile, "-o", dir.appendingPathComponent("out.jpg").path])
        let estimate = try estimate(recipeFile, photo: tiny) - (try estimate(identity, photo: tiny))
        let measured = peak - base
        testNote("memory budget: a 65³ .cube (\(text.utf8.count >> 20) MiB of text) on 15×15: estimate \(estimate >> 20) MiB, measured \(measured >> 20) MiB (both less the identity render)")
        #expect(Double(measured) <= Double(estimate) * 1.2, "reading the cube took \(measured >> 20) MiB, estimated \(estimate >> 20) MiB")
        #expect(Double(estimate) <= Double(measured) * 1.6, "estimated \(estimate >> 20) MiB, reading the cube took \(measured >> 20) MiB")
    }
}
