import Foundation
import Testing
import TestSupport

/// Measured `auto` values, rendered: the ColorChecker DNG's greys in CIE L*a*b* by the formula
/// (`CIELab`), levels against ImageMagick's `-contrast-stretch`, and the same bytes whenever a
/// photo is rendered again (twice, from a sidecar that recorded its values, after a revert).
@Suite("auto values, rendered")
struct AutoValuesTests: CLITest {
    /// The six greys of the chart, white to black (`RawDefaultLookRenderTests.greys`).
    static let greys = RawDefaultLookRenderTests.greys

    func recipeFile(_ stages: String, in dir: URL, name: String = "auto") throws -> String {
        let path = dir.appendingPathComponent(name + ".recipe.yaml").path
        try write("format: dev.recipe.edit\nversion: 1.4\nstages:\n" + stages, path)
        return path
    }

    func lab(_ path: String) throws -> LabImage {
        let s = try decodedSamples(path)
        return LabImage(width: s.width, height: s.height, samples: s.values, channels: s.channels, maximum: (1 << s.bits) - 1)
    }

    /// The numbers of an `explain` auto line after its stage (`auto (stage 2 exposure): …`).
    static func numbers(after line: Substring) -> [Double] {
        let values = line.split(separator: "): ", maxSplits: 1).last ?? ""
        return values.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "(" || $0 == ")" }).compactMap { Double($0) }
    }

    func chart() throws -> String { try Requirement.corpusURL().appendingPathComponent("raw/tinydng_colorchart.dng").path }

    /// The greys' L*a*b* in a 16-bit PNG render of the chart.
    func greys(_ png: String) throws -> [CIELab] {
        let image = try lab(png)
        return Self.greys.map { image.mean(x: $0.x, y: $0.y, width: 40, height: 40) }
    }

    @Test("the ColorChecker DNG: the develop's measured white balance leaves the six greys at C*ab ≤ 2.5 (as shot: 8 to 23; the chart's own fitted balance: ≤ 1.9); its multipliers within 3% of that fit",
          Requirement.corpus)
    func whiteBalance() throws {
        let dir = TestPaths.temporaryDirectory("auto-wb")
        defer { try? FileManager.default.removeItem(at: dir) }
        let recipe = try recipeFile("  - develop: {white-balance: auto}\n", in: dir)
        let out = dir.appendingPathComponent("wb.png").path
        _ = try ok(["render", try chart(), "--recipe", recipe, "-o", out])
        for (i, grey) in try greys(out).enumerated() {
            #expect(grey.chroma <= 2.5, "grey patch \(i + 1): L* \(grey.l) a* \(grey.a) b* \(grey.b)")
            testNote("grey patch \(i + 1): L* \(grey.l), C*ab \(grey.chroma)")
        }
        // The multipliers the chart's four lighter greys were fitted to (RawDefaultLookRenderTests).
        let explained = try ok(["explain", recipe, "--photo", try chart()])
        let line = try #require(explained.split(separator: "\n").first { $0.hasPrefix("auto (stage 1 develop)") })
        // "red-multiplier R (measured R), blue-multiplier B (measured B) on W×H"
        let numbers = Self.numbers(after: line)
        try #require(numbers.count == 4, "\(line)")
        #expect(abs(numbers[0] / 1.481 - 1) < 0.03 && abs(numbers[2] / 2.284 - 1) < 0.03, "\(line)")
        testNote(String(line))
    }

    @Test("the ColorChecker DNG: white balance, then exposure, both measured: the mid-grey patch (N5) at L* 50 ± 3",
          Requirement.corpus)
    func exposure() throws {
        let dir = TestPaths.temporaryDirectory("auto-ev")
        defer { try? FileManager.default.removeItem(at: dir) }
        let recipe = try recipeFile("  - develop: {white-balance: auto}\n  - exposure: auto\n", in: dir)
        let out = dir.appendingPathComponent("ev.png").path
        _ = try ok(["render", try chart(), "--recipe", recipe, "-o", out])
        let n5 = try greys(out)[3]
        #expect(abs(n5.l - 50) <= 3, "N5: L* \(n5.l)")
        testNote("N5: L* \(n5.l) a* \(n5.a) b* \(n5.b)")
        // The working-space white balance measures the same light: the greys as neutral.
        let working = try recipeFile("  - develop: {white-balance: as-shot}\n  - white-balance: auto\n  - exposure: auto\n", in: dir, name: "working")
        let out2 = dir.appendingPathComponent("working.png").path
        _ = try ok(["render", try chart(), "--recipe", working, "-o", out2])
        let light = try greys(out2)
        #expect(light[0].chroma <= 2 && light[1].chroma <= 2 && light[2].chroma <= 2, "\(light)")
        #expect(abs(light[3].l - 50) <= 3, "N5: L* \(light[3].l)")
    }

    @Test("auto levels equal ImageMagick's -contrast-stretch with the same clip fractions within 1 code",
          Requirement.corpus, Requirement.imageMagick, arguments: ["kodim01", "kodim05", "kodim12", "kodim21"])
    func levelsAgainstImageMagick(_ name: String) throws {
        let dir = TestPaths.temporaryDirectory("auto-levels-" + name)
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = try Requirement.corpusURL().appendingPathComponent("kodak/\(name).png").path
        for (black, white) in [(0.005, 0.01), (0.001, 0.001)] {
            let recipe = try recipeFile("  - levels: {black: auto, white: auto, black-clip: \(black), white-clip: \(white)}\n", in: dir)
            let ours = dir.appendingPathComponent("ours.png").path, theirs = dir.appendingPathComponent("im.png").path
            _ = try ok(["render", photo, "--recipe", recipe, "-o", ours])
            let r = try ExternalTool.run("/usr/bin/convert", [photo, "-contrast-stretch", "\(black * 100)%x\(white * 100)%", theirs])
            try #require(r.status == 0, "convert: \(r.stderr)")
            let a = try decodedSamples(ours), b = try decodedSamples(theirs)
            try #require(a.values.count == b.values.count)
            let worst = zip(a.values, b.values).map { abs($0 - $1) }.max() ?? 0
            #expect(worst <= 1, "\(name) \(black)x\(white): \(worst) codes")
            testNote("\(name) -contrast-stretch \(black * 100)%x\(white * 100)%: at most \(worst) code")
        }
    }

    @Test("the same photo rendered twice gives the same bytes; `edit` records the measured values in the sidecar, so the render from it, and after a revert of a later stage, is the same picture")
    func reproducible() throws {
        let dir = TestPaths.temporaryDirectory("auto-same")
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = dir.appendingPathComponent("kodim03.png").path
        try FileManager.default.copyItem(atPath: TestPaths.samples.appendingPathComponent("kodim03.png").path, toPath: photo)
        let recipe = try recipeFile("  - white-balance: auto\n  - exposure: auto-0.3\n  - levels: {black: auto, white: auto}\n", in: dir)
        let a = dir.appendingPathComponent("a.png").path, b = dir.appendingPathComponent("b.png").path
        _ = try ok(["render", photo, "--recipe", recipe, "-o", a])
        _ = try ok(["render", photo, "--recipe", recipe, "-o", b, "--threads", "1"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: a)) == Data(contentsOf: URL(fileURLWithPath: b)))

        // The edit: the same three stages, recorded as numbers with what was measured.
        let edited = dir.appendingPathComponent("kodim03.edited.png").path
        let said = try ok(["edit", photo, "--add", recipe, "-o", edited])
        #expect(said.contains("auto values: stage 1 (white-balance): recorded {temp: "), "\(said)")
        let sidecar = try String(contentsOfFile: photo + ".recipe.yaml", encoding: .utf8)
        #expect(!sidecar.contains(": auto"), "\(sidecar)")
        #expect(sidecar.contains("# ev auto-0.3: measured "), "\(sidecar)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: edited)) == Data(contentsOf: URL(fileURLWithPath: a)))
        // A stage after them, taken back: the same picture as before it.
        _ = try ok(["edit", photo, "--stage", "sepia: 0.5", "-o", edited])
        #expect(try Data(contentsOf: URL(fileURLWithPath: edited)) != Data(contentsOf: URL(fileURLWithPath: a)))
        _ = try ok(["revert", photo, "--stage", "4", "-o", edited])
        #expect(try Data(contentsOf: URL(fileURLWithPath: edited)) == Data(contentsOf: URL(fileURLWithPath: a)))
    }

    @Test("explain --photo and info --auto show the measured values; explain without a photo says they are measured at render time; the relative form adds its offset")
    func shown() throws {
        let dir = TestPaths.temporaryDirectory("auto-shown")
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = TestPaths.samples.appendingPathComponent("kodim03.png").path
        let recipe = try recipeFile("  - exposure: auto\n  - exposure: auto-0.5\n", in: dir)
        let plan = try ok(["explain", recipe, "--photo", photo])
        let lines = plan.split(separator: "\n").filter { $0.hasPrefix("auto (stage") }
        try #require(lines.count == 2, "\(plan)")
        // Stage 2 reads stage 1's output, brought to 18% grey already: it measures about 0, then −0.5.
        // "ev V (measured M, then -0.5) on W×H"
        let second = Self.numbers(after: lines[1])
        #expect(second.count == 3 && abs(second[0] - (second[1] - 0.5)) < 1e-9 && abs(second[1]) < 0.05, "\(lines[1])")
        let bare = try ok(["explain", recipe])
        #expect(bare.contains("auto (stage 1 exposure): measured when a photo is rendered"), "\(bare)")
        let info = try ok(["info", "--auto", photo])
        #expect(info.contains("auto white-balance: temp ") && info.contains("auto exposure: ev ") && info.contains("auto levels: black "), "\(info)")
        let plain = try ok(["info", photo])
        #expect(!plain.contains("auto exposure"))
    }

    @Test("apply records the measured values in its manifest, and a re-render takes them from there rather than measuring again")
    func manifest() throws {
        let dir = TestPaths.temporaryDirectory("auto-apply")
        defer { try? FileManager.default.removeItem(at: dir) }
        let photos = dir.appendingPathComponent("in").path, out = dir.appendingPathComponent("out").path
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: TestPaths.samples.appendingPathComponent("kodim03.png").path, toPath: photos + "/kodim03.png")
        let recipe = try recipeFile("  - exposure: auto\n", in: dir)
        _ = try ok(["apply", recipe, photos, "-o", out])
        let names = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasPrefix(".recipe-manifest") }
        let manifest = try names.map { try String(contentsOfFile: out + "/" + $0, encoding: .utf8) }.joined()
        let value = try #require(manifest.range(of: #""auto":"1:exposure.ev=[-0-9.e]+""#, options: .regularExpression), "\(manifest)")
        testNote(String(manifest[value]))
        // The record is what a render of the same photo and recipe takes: an edited record is used.
        let forced = manifest.replacingOccurrences(of: String(manifest[value]), with: #""auto":"1:exposure.ev=-2""#)
        try write(forced, out + "/" + names[0])
        let first = try Data(contentsOf: URL(fileURLWithPath: out + "/kodim03.png"))
        _ = try ok(["apply", recipe, photos, "-o", out, "--force"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/kodim03.png")) != first, "the recorded −2 EV was not taken")
    }
}
