import Foundation
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

    @Test("a region of a point-only recipe is cropped first, otherwise cut from the full render")
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
        #expect(a.note?.contains("crop first") == true)
        #expect(b.width == 100 && b.height == 50)
        #expect(b.note?.contains("rendered at full size and cut") == true)
    }
}
