import Foundation
import RecipeCodecs
import RecipeCore
import RecipeSession
import Testing
import TestSupport
@testable import RecipePreview

/// One engine: the preview's render is `recipe render`'s, byte for byte, even from the rows it
/// keeps decoded; a cancelled render stops.
@Suite("PreviewRenderer")
struct PreviewRendererTests {
    let recipeText = """
        format: dev.recipe.edit
        version: 1.1
        params:
          lift: 0.3
        stages:
          - exposure: $lift
          - saturation: 1.3
          - vignette: {amount: 0.4}

        """

    /// A scratch folder with the recipe's path in it, the sample photo and a renderer.
    struct Fixture {
        let folder = TestPaths.temporaryDirectory("preview-render")
        var recipe: String { folder.appendingPathComponent("look.recipe.yaml").path }
        let photoPath = TestPaths.samples.appendingPathComponent("Landscape_1.jpg").path
        let photo: CachedPhoto
        var renderer: PreviewRenderer { PreviewRenderer(recipePath: recipe, scratch: folder.path) }

        init() throws { photo = try CachedPhoto(path: photoPath) }
        func remove() { try? FileManager.default.removeItem(at: folder) }

        /// The bytes `recipe render PHOTO ARGUMENTS` writes (to cli.jpg in the folder).
        func rendered(_ photo: String, _ arguments: [String], sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> [UInt8] {
            let out = folder.appendingPathComponent("cli.jpg").path
            let cli = try ExternalTool.run(TestPaths.recipeBinary, ["render", photo] + arguments + ["-o", out])
            #expect(cli.status == 0, "\(cli.stderr)", sourceLocation: sourceLocation)
            return [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        }
    }

    @Test("the display render equals `recipe render --size`, the first time and from kept rows")
    func sameBytesAsRender() throws {
        let f = try Fixture()
        defer { f.remove() }
        let (recipe, photo, photoPath, renderer) = (f.recipe, f.photo, f.photoPath, f.renderer)
        try recipeText.write(toFile: recipe, atomically: false, encoding: .utf8)
        var request = PreviewRequest(size: .longEdge(400))
        request.overrides = ["lift": "0.6"]
        var images: [[UInt8]] = []
        for _ in 0..<2 {
            guard case .image(let image) = renderer.render(request, text: recipeText, photo: photo, cancel: CancelFlag()) else {
                Issue.record("no image")
                return
            }
            #expect(image.width == 400 && image.height == 267)
            #expect(image.fullWidth == 1800 && image.fullHeight == 1200)
            // The photo's upright size (`file` says 1800x1200, orientation upper-left): the page lays
            // the after over the before only when the two are equal.
            #expect(image.sourceWidth == 1800 && image.sourceHeight == 1200)
            images.append(image.jpeg)
        }
        #expect(photo.keptBytes > 0, "the decoded photo is kept")
        let out = f.folder.appendingPathComponent("cli.jpg").path
        let cli = try ExternalTool.run(TestPaths.recipeBinary,
                                       ["render", photoPath, "--recipe", recipe, "--set", "lift=0.6", "--size", "400", "-o", out])
        #expect(cli.status == 0, "\(cli.stderr)")
        let expected = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        #expect(images[0] == expected)
        #expect(images[1] == expected)
    }

    @Test("a raw is developed at the reduced size and kept, one develop at a time: a save that changes the develop develops again; each render is `recipe render`'s")
    func rawKeptDevelop() throws {
        let f = try Fixture()
        defer { f.remove() }
        let raw = TestPaths.fixture("raw/kodim03-crop.dng")
        let photo = try CachedPhoto(path: raw)
        let renderer = f.renderer
        let request = PreviewRequest(size: .longEdge(64))
        func text(_ develop: String, _ exposure: Double) -> String {
            "format: dev.recipe.edit\nversion: 1.1\nstages:\n  - develop: {\(develop)}\n  - exposure: \(exposure)\n"
        }
        var kept: [Int] = []
        for (develop, exposure) in [("white-balance: as-shot", 0.0), ("white-balance: as-shot", 0.5), ("white-balance: tungsten", 0.5)] {
            let recipe = text(develop, exposure)
            try recipe.write(toFile: f.recipe, atomically: false, encoding: .utf8)
            guard case .image(let image) = renderer.render(request, text: recipe, photo: photo, cancel: CancelFlag()) else {
                Issue.record("no image for \(develop), exposure \(exposure)")
                return
            }
            kept.append(photo.keptBytes)
            #expect(image.jpeg == (try f.rendered(raw, ["--recipe", f.recipe, "--size", "64"])), "\(develop), exposure \(exposure): not recipe render's bytes")
        }
        // 128×96 kept rows (half size) of 16-bit RGB, one develop at a time.
        #expect(kept.allSatisfy { $0 > 0 && $0 == kept[0] }, "kept bytes \(kept)")
    }

    /// The before side and a recipe without a develop go through the one planner too: a raw gets
    /// the default look there as `recipe render` gives it (before, the preview's before was the
    /// neutral develop while `render` gave the look).
    @Test("a raw's before is `recipe render` without a recipe (the default look), and a recipe without a develop runs after that look, as `recipe render --recipe` does")
    func rawDefaultLook() throws {
        let f = try Fixture()
        defer { f.remove() }
        let raw = TestPaths.fixture("raw/kodim03-crop.dng")
        let photo = try CachedPhoto(path: raw)
        try recipeText.write(toFile: f.recipe, atomically: false, encoding: .utf8)
        var before = PreviewRequest(size: .longEdge(64))
        before.recipe = false
        for (request, arguments) in [(before, [String]()), (PreviewRequest(size: .longEdge(64)), ["--recipe", f.recipe])] {
            guard case .image(let image) = f.renderer.render(request, text: recipeText, photo: photo, cancel: CancelFlag()) else {
                Issue.record("no image for \(arguments)")
                continue
            }
            #expect(image.jpeg == (try f.rendered(raw, ["--size", "64"] + arguments)), "\(arguments): not recipe render's bytes")
        }
        guard case .ready(let plan?, _, _) = f.renderer.prepare(before, text: recipeText, photo: photo) else {
            Issue.record("the before of a raw has no plan")
            return
        }
        #expect(plan.defaultLook != nil && plan.checked.isEmpty)
    }

    /// The one planner sizes a half-size develop as the render makes it: before, the preview
    /// planned the full sensor's size over rows of half of it.
    @Test("a half-size develop in the preview is `recipe render`'s picture, at half the sensor's size, at full and display size")
    func halfSizeDevelop() throws {
        let f = try Fixture()
        defer { f.remove() }
        let raw = TestPaths.fixture("raw/kodim03-crop.dng")
        let photo = try CachedPhoto(path: raw)
        let text = "format: dev.recipe.edit\nversion: 1.1\nstages:\n  - develop: {demosaic: half-size}\n  - exposure: 0.4\n"
        try text.write(toFile: f.recipe, atomically: false, encoding: .utf8)
        let (w, h) = photo.info.uprightSize
        for (size, argument) in [(RenderSize.full, "full"), (.longEdge(64), "64")] {
            guard case .image(let image) = f.renderer.render(PreviewRequest(size: size), text: text, photo: photo, cancel: CancelFlag()) else {
                Issue.record("no image at \(argument)")
                continue
            }
            #expect(image.fullWidth == (w + 1) / 2 && image.fullHeight == (h + 1) / 2, "full render \(image.fullWidth)×\(image.fullHeight) of a \(w)×\(h) sensor")
            let out = f.folder.appendingPathComponent("half-\(argument).jpg").path
            let cli = try ExternalTool.run(TestPaths.recipeBinary, ["render", raw, "--recipe", f.recipe, "--size", argument, "-o", out])
            #expect(cli.status == 0, "\(cli.stderr)")
            #expect(image.jpeg == [UInt8](try Data(contentsOf: URL(fileURLWithPath: out))), "--size \(argument): not recipe render's bytes")
        }
    }

    /// The preview keeps the raw's mosaic: a develop change runs from it, with the file gone
    /// meanwhile (nothing is unpacked again), and gives `recipe render`'s bytes.
    @Test("a white-balance change develops again from the kept mosaic, without the file, to `recipe render`'s picture")
    func developFromKeptMosaic() throws {
        let f = try Fixture()
        defer { f.remove() }
        let raw = f.folder.appendingPathComponent("photo.dng").path
        try FileManager.default.copyItem(atPath: TestPaths.fixture("raw/kodim03-crop.dng"), toPath: raw)
        let photo = try CachedPhoto(path: raw)
        func text(_ develop: String) -> String { "format: dev.recipe.edit\nversion: 1.2\nstages:\n  - develop: {\(develop)}\n  - exposure: 0.3\n" }
        let request = PreviewRequest(size: .longEdge(64))
        guard case .image = f.renderer.render(request, text: text("white-balance: as-shot"), photo: photo, cancel: CancelFlag()) else {
            Issue.record("no first image")
            return
        }
        let away = raw + ".away"
        try FileManager.default.moveItem(atPath: raw, toPath: away)
        var images: [String: [UInt8]] = [:]
        var kept = photo.keptDecodes
        for develop in ["temp: 3400", "white-balance: tungsten, exposure: 0.5"] {
            guard case .image(let image) = f.renderer.render(request, text: text(develop), photo: photo, cancel: CancelFlag()) else {
                Issue.record("\(develop): no image without the file")
                continue
            }
            images[develop] = image.jpeg
            // The develop streamed through the render was kept as it passed: one develop, the new one.
            #expect(photo.keptDecodes.count == 1 && photo.keptDecodes != kept, "\(develop): kept \(photo.keptDecodes), before \(kept)")
            kept = photo.keptDecodes
        }
        try FileManager.default.moveItem(atPath: away, toPath: raw)
        for (develop, jpeg) in images {
            try text(develop).write(toFile: f.recipe, atomically: false, encoding: .utf8)
            let out = f.folder.appendingPathComponent("cli.jpg").path
            let cli = try ExternalTool.run(TestPaths.recipeBinary, ["render", raw, "--recipe", f.recipe, "--size", "64", "-o", out])
            #expect(cli.status == 0, "\(cli.stderr)")
            #expect(jpeg == [UInt8](try Data(contentsOf: URL(fileURLWithPath: out))), "\(develop): not recipe render's bytes")
        }
    }

    /// `recipe preview --max-memory`: a render over it is refused with the budget named, as
    /// `recipe render` refuses it, and the page shows that message.
    @Test("a render over the preview's budget is refused with the budget named; within it, rendered")
    func budget() throws {
        let f = try Fixture()
        defer { f.remove() }
        // A blur of 20% of the short side holds many rows of floats at full size.
        let text = "format: dev.recipe.edit\nversion: 1.1\nstages:\n  - rotate: 90\n  - blur: {sigma: 20%}\n"
        try text.write(toFile: f.recipe, atomically: false, encoding: .utf8)
        let tight = PreviewRenderer(recipePath: f.recipe, scratch: f.folder.path, budget: MemoryBudget(argument: "16M")!)
        guard case .failed(let message) = tight.render(PreviewRequest(size: .full), text: text, photo: f.photo, cancel: CancelFlag()) else {
            Issue.record("rendered over a 16 MiB budget")
            return
        }
        #expect(message.contains("16 MiB") && message.contains("--max-memory"), "\(message)")
        let cli = try ExternalTool.run(TestPaths.recipeBinary, ["render", f.photoPath, "--recipe", f.recipe, "--max-memory", "16M",
                                                                "-o", f.folder.appendingPathComponent("x.jpg").path])
        #expect(cli.status == 1, "recipe render over the same budget: \(cli.status) \(cli.stderr)")
        let roomy = PreviewRenderer(recipePath: f.recipe, scratch: f.folder.path, budget: MemoryBudget(argument: "4G")!)
        guard case .image = roomy.render(PreviewRequest(size: .longEdge(300)), text: text, photo: f.photo, cancel: CancelFlag()) else {
            Issue.record("not rendered within 4 GiB")
            return
        }
    }

    @Test("errors come back as `recipe check` prints them; a cancelled render stops")
    func diagnosticsAndCancel() throws {
        let f = try Fixture()
        defer { f.remove() }
        let (recipe, photo, renderer) = (f.recipe, f.photo, f.renderer)
        let broken = recipeText.replacingOccurrences(of: "exposure: $lift", with: "exposre: $lift")
        guard case .diagnostics(let text) = renderer.render(PreviewRequest(size: .longEdge(200)), text: broken, photo: photo,
                                                            cancel: CancelFlag()) else {
            Issue.record("no diagnostics")
            return
        }
        try broken.write(toFile: recipe, atomically: false, encoding: .utf8)
        let check = try ExternalTool.run(TestPaths.recipeBinary, ["check", recipe])
        #expect(check.status == 2)
        #expect(text + "\n" == String(decoding: check.stdout, as: UTF8.self))
        #expect(text.contains("did you mean `exposure`"))

        let cancel = CancelFlag()
        cancel.cancel()
        guard case .cancelled = renderer.render(PreviewRequest(size: .longEdge(200)), text: recipeText, photo: photo, cancel: cancel) else {
            Issue.record("not cancelled")
            return
        }
    }

    @Test("a region of a point-only recipe is cropped first; one with a resize is cut from the full render")
    func region() throws {
        let f = try Fixture()
        defer { f.remove() }
        let (photo, renderer) = (f.photo, f.renderer)
        var request = PreviewRequest(size: .full)
        request.region = Region(x: 1700, y: 100, width: 300, height: 50)
        let pointOnly = recipeText.replacingOccurrences(of: "  - vignette: {amount: 0.4}\n", with: "")
        guard case .image(let a) = renderer.render(request, text: pointOnly, photo: photo, cancel: CancelFlag()),
              case .image(let b) = renderer.render(request, text: recipeText, photo: photo, cancel: CancelFlag()) else {
            Issue.record("no image")
            return
        }
        #expect(a.width == 100 && a.height == 50, "clamped to the photo")
        #expect(a.note?.contains("pixels only") == true)
        #expect(b.width == 100 && b.height == 50)
        #expect(b.note?.contains("pixels only") == true, "a vignette is moved with the region, not rendered in full")
        let turned = recipeText + "  - rotate: 90\n"
        request.region = Region(x: 100, y: 100, width: 300, height: 50)
        guard case .image(let c) = renderer.render(request, text: turned, photo: photo, cancel: CancelFlag()) else {
            Issue.record("no image")
            return
        }
        #expect(c.note?.contains("comes from") == true, "a quarter turn is followed back to the photo: \(c.note ?? "")")
        let resized = recipeText + "  - resize: {width: 900px}\n"
        guard case .image(let d) = renderer.render(request, text: resized, photo: photo, cancel: CancelFlag()) else {
            Issue.record("no image")
            return
        }
        #expect(d.width == 300 && d.height == 50)
        #expect(d.note?.contains("and cut") == true, "\(d.note ?? "")")
    }

    /// The 1:1 view renders a window around the region, not the photo: every bundled recipe
    /// whose stages do not move pixels (blurs, shadows-highlights, clarity, sharpen, vignettes,
    /// gradient masks, blends) gives the region the pixels the full render gives it. Both
    /// renders are written as PNG, so only the window can make them differ.
    @Test("a region renders only the window its stages read, and matches the full render there")
    func regionWindowMatchesFullRender() throws {
        let f = try Fixture()
        defer { f.remove() }
        let region = Region(x: 1100, y: 700, width: 260, height: 180)
        var windowed = 0
        let recipes = try FileManager.default.contentsOfDirectory(atPath: TestPaths.recipes.path)
            .filter { $0.hasSuffix(".recipe.yaml") }.sorted()
        for name in recipes {
            let path = TestPaths.recipes.appendingPathComponent(name).path
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let renderer = PreviewRenderer(recipePath: path, scratch: f.folder.path)
            var request = PreviewRequest(size: .full)
            guard case .ready(let fullPlan?, _, let size) = renderer.prepare(request, text: text, photo: f.photo) else {
                Issue.record("\(name): not planned")
                continue
            }
            request.region = region
            guard size.width >= region.x + region.width && size.height >= region.y + region.height else { continue }
            guard case .ready(let regionPlan?, let note?, _) = renderer.prepare(request, text: text, photo: f.photo) else {
                Issue.record("\(name): region not planned")
                continue
            }
            guard note.contains("around them") || note.contains("pixels only") || note.contains("comes from") else {
                #expect(note.contains("and cut"), "\(name): \(note)")
                continue
            }
            windowed += 1
            let whole = try Self.render(fullPlan.render, photo: f.photoPath, to: f.folder.appendingPathComponent("\(name)-full.png").path)
            let part = try Self.render(regionPlan.render, photo: f.photoPath, to: f.folder.appendingPathComponent("\(name)-region.png").path)
            #expect(part.width == region.width && part.height == region.height)
            var largest = 0
            for y in 0..<region.height {
                for x in 0..<(3 * region.width) {
                    let a = Int(part.samples[(y * region.width) * 3 + x])
                    let b = Int(whole.samples[((region.y + y) * whole.width + region.x) * 3 + x])
                    largest = max(largest, abs(a - b))
                }
            }
            // A decimated blur's clamp at the window's edge reaches the region through tails
            // below 1e-4 of the weight: a code at most.
            #expect(largest <= 1, "\(name): the region differs from the full render by \(largest) codes (\(note))")
        }
        #expect(windowed >= 5, "the bundled recipes without geometry render windows (\(windowed))")
    }

    /// Recipes that crop, flip, turn and straighten, with local and positional stages between: the region is
    /// followed back through them to a window of the photo, and gets the full render's pixels.
    @Test("a region follows crops, flips, turns and straightens back to a window of the photo",
          arguments: [
              "  - crop: {x: 300px, y: 100px, width: 1200px, height: 900px}\n  - blur: {sigma: 3px}\n  - flip: horizontal\n  - vignette: 0.3\n",
              "  - exposure: 0.2\n  - rotate: 90\n  - clarity: 0.3\n  - crop: {x: 100px, y: 250px, width: 900px, height: 1200px}\n  - flip: vertical\n",
              "  - rotate: 270\n  - shadows-highlights: {shadows: 0.3, radius: 2%}\n  - rotate: 180\n  - crop: {x: 20px, y: 40px, width: 1000px, height: 1100px}\n  - sharpen: {amount: 0.5, sigma: 1px}\n",
              "  - exposure: 0.3\n  - straighten: -2.5\n  - crop: {aspect: \"4:3\", anchor: center}\n  - flip: horizontal\n  - clarity: 0.2\n  - vignette: 0.3\n",
              "  - blur: {sigma: 2px}\n  - straighten: {angle: 7, fill: expand}\n  - vignette: 0.4\n  - flip: vertical\n",
          ])
    func regionThroughGeometry(stages: String) throws {
        let f = try Fixture()
        defer { f.remove() }
        let text = "format: dev.recipe.edit\nversion: 1.1\nstages:\n" + stages
        try text.write(toFile: f.recipe, atomically: false, encoding: .utf8)
        let region = Region(x: 410, y: 330, width: 240, height: 170)
        var request = PreviewRequest(size: .full)
        guard case .ready(let fullPlan?, _, _) = f.renderer.prepare(request, text: text, photo: f.photo) else {
            Issue.record("not planned")
            return
        }
        request.region = region
        guard case .ready(let regionPlan?, let note?, _) = f.renderer.prepare(request, text: text, photo: f.photo) else {
            Issue.record("region not planned")
            return
        }
        #expect(note.contains("comes from"), "\(note)")
        // The window decoded is a small part of the photo: the first stage crops it.
        guard case .barrier(.geometric(.crop(_, _, let w, let h), _)) = regionPlan.render.stages.first else {
            Issue.record("the region plan does not start with a window: \(note)")
            return
        }
        #expect(w * h < 1800 * 1200 / 4, "window \(w)x\(h)")
        let whole = try Self.render(fullPlan.render, photo: f.photoPath, to: f.folder.appendingPathComponent("full.png").path)
        let part = try Self.render(regionPlan.render, photo: f.photoPath, to: f.folder.appendingPathComponent("region.png").path)
        #expect(part.width == region.width && part.height == region.height)
        var largest = 0
        for y in 0..<min(part.height, region.height) {
            for x in 0..<(3 * min(part.width, region.width)) {
                let a = Int(part.samples[(y * part.width) * 3 + x])
                let b = Int(whole.samples[((region.y + y) * whole.width + region.x) * 3 + x])
                largest = max(largest, abs(a - b))
            }
        }
        #expect(largest <= 1, "the region differs from the full render by \(largest) codes (\(note))")
    }

    /// Renders `plan` of `photo` to the PNG `path`, and reads its pixels back.
    static func render(_ plan: PlannedRender, photo: String, to path: String) throws -> (width: Int, height: Int, samples: [UInt8]) {
        var job = RenderJob(input: photo, output: path, size: .full)
        job.take(plan)
        _ = try job.run()
        let decoder = try ImageDecoders.open(path)
        try decoder.start(scaleDenominator: 1)
        let strip = PixelBuffer(width: decoder.width, rowCapacity: 16, format: decoder.format)
        var samples: [UInt8] = []
        while try decoder.readRows(into: strip) > 0 {
            for r in 0..<strip.rowCount { samples += strip.samples(r, as: UInt8.self).prefix(3 * decoder.width) }
        }
        return (decoder.width, decoder.height, samples)
    }

    @Test("a region is clamped to the render whatever its numbers: no overflow at Int.max or Int.min")
    func regionClamped() {
        #expect(Region(x: 10, y: 20, width: 30, height: 40).clamped(width: 100, height: 100) == Region(x: 10, y: 20, width: 30, height: 40))
        #expect(Region(x: 90, y: -5, width: 30, height: 10).clamped(width: 100, height: 100) == Region(x: 90, y: 0, width: 10, height: 5))
        #expect(Region(x: Int.max, y: 0, width: 1, height: 1).clamped(width: 100, height: 100) == nil)
        #expect(Region(x: 50, y: 50, width: Int.max, height: Int.max).clamped(width: 100, height: 100) == Region(x: 50, y: 50, width: 50, height: 50))
        #expect(Region(x: Int.min, y: Int.min, width: Int.max, height: 1).clamped(width: 100, height: 100) == nil)
        #expect(Region(x: 0, y: 0, width: -5, height: 1).clamped(width: 100, height: 100) == nil)
    }
}
