import Foundation
import Testing
import TestSupport

/// A raw rendered without a recipe gets the default look (Recipes/raw-default.recipe.yaml), and
/// what it promises, measured in CIE L*a*b* by the formula (`CIELab`): lighter than the scene as
/// measured (raw-neutral), neutrals kept neutral, clipped highlights white. References: the
/// neutral develop of the same file, and for highlights the photo a DNG was made from.
@Suite("the default look of a raw, rendered")
struct RawDefaultLookRenderTests: CLITest {
    static let bundled = TestPaths.samples.appendingPathComponent("kodim03-bayer.dng").path
    static let neutral = TestPaths.recipes.appendingPathComponent("raw-neutral.recipe.yaml").path
    static let makeDNG = TestPaths.packageRoot.appendingPathComponent("Tests/Tools/make_bayer_dng.py").path
    /// How much lighter (mean L*) the default look must be than the neutral develop.
    static let lift = 4.0

    /// A 16-bit PNG render as L*a*b*.
    func lab(_ path: String) throws -> LabImage {
        let s = try decodedSamples(path)
        return LabImage(width: s.width, height: s.height, samples: s.values, channels: s.channels, maximum: (1 << s.bits) - 1)
    }

    /// `raw` rendered without a recipe and with raw-neutral (16-bit PNGs in `dir`).
    func renders(_ raw: String, in dir: URL) throws -> (look: LabImage, neutral: LabImage) {
        let look = dir.appendingPathComponent("look.png").path, neutral = dir.appendingPathComponent("neutral.png").path
        _ = try ok(["render", raw, "-o", look])
        _ = try ok(["render", raw, "--recipe", Self.neutral, "-o", neutral])
        return (try lab(look), try lab(neutral))
    }

    /// `photo` through make_bayer_dng.py's test camera (`arguments` added), as `dng`.
    func makeDNG(_ photo: String, _ dng: String, _ arguments: [String] = []) throws {
        let r = try ExternalTool.run("/usr/bin/env", ["python3", Self.makeDNG, photo, dng] + arguments)
        #expect(r.status == 0, "make_bayer_dng.py: \(r.stderr)")
    }

    @Test("the bundled kodim03-bayer.dng without a recipe is at least 4 L* lighter than raw-neutral's develop of it")
    func liftBundled() throws {
        let dir = TestPaths.temporaryDirectory("default-look-kodim03")
        defer { try? FileManager.default.removeItem(at: dir) }
        let (look, neutral) = try renders(Self.bundled, in: dir)
        #expect(look.meanLightness >= neutral.meanLightness + Self.lift, "mean L* \(look.meanLightness), raw-neutral \(neutral.meanLightness)")
        testNote("kodim03-bayer.dng: mean L* \(look.meanLightness) (raw-neutral \(neutral.meanLightness))")
    }

    @Test("Kodak photos as Bayer DNGs: the default look is at least 4 L* lighter than raw-neutral on each",
          Requirement.corpus, Requirement.python("png", "numpy", "pidng"), arguments: ["kodim01", "kodim05", "kodim12", "kodim21"])
    func liftKodak(_ name: String) throws {
        let dir = TestPaths.temporaryDirectory("default-look-" + name)
        defer { try? FileManager.default.removeItem(at: dir) }
        let dng = dir.appendingPathComponent(name + ".dng").path
        try makeDNG(try Requirement.corpusURL().appendingPathComponent("kodak/\(name).png").path, dng)
        let (look, neutral) = try renders(dng, in: dir)
        #expect(look.meanLightness >= neutral.meanLightness + Self.lift, "\(name): mean L* \(look.meanLightness), raw-neutral \(neutral.meanLightness)")
        testNote("\(name): mean L* \(look.meanLightness) (raw-neutral \(neutral.meanLightness))")
    }

    /// The ColorChecker Passport DNG (1734×1156 developed): the six grey patches of its 24-patch
    /// chart, white to black, are 40×40 boxes centred on row 926, found by looking at the render.
    static let greys = [704, 814, 922, 1032, 1142, 1252].map { (x: $0 - 20, y: 906) }
    /// The lamp at the left of the background, the brightest thing in it: its red reaches white in
    /// the neutral develop (its sensor does not clip).
    static let lamp = (x: 520, y: 380, width: 24, height: 50)
    /// The multipliers that make the chart's greys grey (the scene's light is far warmer than the
    /// camera's as-shot balance of R 2.477, B 1.694): fitted once so that the four lighter
    /// patches' mean a* and b* are 0 in the neutral develop.
    static let chartBalance = "red-multiplier: 1.481, blue-multiplier: 2.284"

    @Test("the ColorChecker DNG: at least 4 L* lighter than raw-neutral; with the chart's own white balance the look leaves the six greys grey (C*ab ≤ 3); the lamp gets no pinker or darker",
          Requirement.corpus)
    func colorChecker() throws {
        let dir = TestPaths.temporaryDirectory("default-look-chart")
        defer { try? FileManager.default.removeItem(at: dir) }
        let chart = try Requirement.corpusURL().appendingPathComponent("raw/tinydng_colorchart.dng").path
        let (look, neutral) = try renders(chart, in: dir)
        #expect(look.meanLightness >= neutral.meanLightness + Self.lift, "mean L* \(look.meanLightness), raw-neutral \(neutral.meanLightness)")

        // The look's own stages keep a neutral neutral: the default recipe with the chart's white
        // balance in place of the camera's (as shot, the greys are C*ab 8 to 23 in every develop).
        let text = try String(contentsOf: TestPaths.recipes.appendingPathComponent("raw-default.recipe.yaml"), encoding: .utf8)
        let balanced = text.replacingOccurrences(of: "white-balance: as-shot", with: Self.chartBalance)
        #expect(balanced != text)
        let recipe = dir.appendingPathComponent("balanced.recipe.yaml").path, out = dir.appendingPathComponent("balanced.png").path
        try write(balanced, recipe)
        _ = try ok(["render", chart, "--recipe", recipe, "-o", out])
        let greys = try lab(out)
        for (i, box) in Self.greys.enumerated() {
            let grey = greys.mean(x: box.x, y: box.y, width: 40, height: 40)
            #expect(grey.chroma <= 3, "grey patch \(i + 1): L* \(grey.l) a* \(grey.a) b* \(grey.b)")
            testNote("grey patch \(i + 1): L* \(grey.l), C*ab \(grey.chroma); as shot: \(look.mean(x: box.x, y: box.y, width: 40, height: 40).chroma), raw-neutral \(neutral.mean(x: box.x, y: box.y, width: 40, height: 40).chroma)")
        }

        let (x, y, w, h) = Self.lamp
        let lamp = look.mean(x: x, y: y, width: w, height: h), before = neutral.mean(x: x, y: y, width: w, height: h)
        #expect(lamp.l >= before.l && lamp.chroma <= before.chroma, "lamp: L* \(lamp.l) C*ab \(lamp.chroma); raw-neutral L* \(before.l) C*ab \(before.chroma)")
        testNote("chart: mean L* \(look.meanLightness) (raw-neutral \(neutral.meanLightness)); lamp L* \(lamp.l) a* \(lamp.a) b* \(lamp.b)")
    }

    /// kodim03 overexposed by 3 stops: wherever each of the photo's channels is at least 137
    /// (linear 0.25), the test camera's three channels (its white at 0.55, 1, 0.72 of the sensor's
    /// white) all clip. Those pixels, 2 px in from the region's edge (the demosaic reads across
    /// it), must come out white: unclipped they are pink (L* 85, a* +32, b* −22).
    @Test("clipped highlights stay white: a Bayer DNG overexposed 3 stops, every channel clipped where the photo is bright, renders there at L* ≥ 98 and C*ab ≤ 3, not pink or grey",
          Requirement.python("png", "numpy", "pidng"))
    func clippedHighlights() throws {
        let dir = TestPaths.temporaryDirectory("default-look-clipped")
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = TestPaths.samples.appendingPathComponent("kodim03.png").path
        let dng = dir.appendingPathComponent("over.dng").path, out = dir.appendingPathComponent("over.png").path
        try makeDNG(photo, dng, ["--gain", "3"])
        _ = try ok(["render", dng, "-o", out])
        let rendered = try lab(out), source = try decodedSamples(photo)
        let (width, height) = (rendered.width, rendered.height)
        #expect(source.width == width && source.height == height)
        let bright = 137 * ((1 << source.bits) - 1) / 255
        func clipped(_ x: Int, _ y: Int) -> Bool {
            (0..<3).allSatisfy { source.values[(y * width + x) * source.channels + $0] >= bright }
        }
        var inside: [CIELab] = []
        for y in 2..<(height - 2) {
            for x in 2..<(width - 2) where (-2...2).allSatisfy({ dy in (-2...2).allSatisfy { dx in clipped(x + dx, y + dy) } }) {
                inside.append(rendered[x, y])
            }
        }
        #expect(inside.count > 5000, "\(inside.count) pixels clipped")
        let mean = CIELab.mean(inside)
        let darkest = inside.map(\.l).min() ?? 0, most = inside.map(\.chroma).max() ?? 0
        #expect(darkest >= 98 && most <= 3, "clipped highlights: L* down to \(darkest), C*ab up to \(most); mean L* \(mean.l) a* \(mean.a) b* \(mean.b)")
        testNote("\(inside.count) clipped pixels: mean L* \(mean.l) a* \(mean.a) b* \(mean.b); L* down to \(darkest), C*ab up to \(most)")
    }

    @Test("who gets it: `explain` names the default look for a raw's recipe without a develop, not for raw-neutral or a JPEG; a JPEG without a recipe renders its own pixels")
    func whoGetsIt() throws {
        let dir = TestPaths.temporaryDirectory("default-look-who")
        defer { try? FileManager.default.removeItem(at: dir) }
        let lift = dir.appendingPathComponent("lift.recipe.yaml").path
        try write("format: dev.recipe.edit\nversion: 1.2\nstages:\n  - exposure: 0.3\n", lift)
        let withLook = try ok(["explain", lift, "--photo", Self.bundled])
        #expect(withLook.contains("default look: raw-default.recipe.yaml runs first") && withLook.contains("develop, curve, vibrance, sharpen"), "\(withLook)")
        #expect(withLook.contains("stage 1 of raw-default.recipe.yaml") && withLook.contains("(raw-default.recipe.yaml's: the recipe has no develop stage)"), "\(withLook)")
        for explained in [try ok(["explain", Self.neutral, "--photo", Self.bundled]),
                          try ok(["explain", lift, "--photo", TestPaths.samples.appendingPathComponent("Landscape_1.jpg").path])] {
            #expect(!explained.contains("raw-default"), "\(explained)")
        }
        // The look is not the scene: a raw without a recipe is not raw-neutral's picture.
        let look = dir.appendingPathComponent("look.png").path, neutral = dir.appendingPathComponent("neutral.png").path
        _ = try ok(["render", Self.bundled, "-o", look])
        _ = try ok(["render", Self.bundled, "--recipe", Self.neutral, "-o", neutral])
        #expect(try decodedSamples(look).values != decodedSamples(neutral).values)
        // A JPEG without a recipe: the decoder's own pixels, untouched.
        let jpeg = TestPaths.samples.appendingPathComponent("Landscape_1.jpg").path, png = dir.appendingPathComponent("jpeg.png").path
        _ = try ok(["render", jpeg, "-o", png])
        #expect(try decodedPixels(png) == decodedPixels(jpeg), "a JPEG without a recipe changed")
    }
}
