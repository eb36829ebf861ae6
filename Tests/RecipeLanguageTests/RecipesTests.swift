import Foundation
import RecipeCore
import RecipeLanguage
import Testing
import TestSupport

/// The example library in Recipes/ (STYLE.md rule 7): every recipe checks with no diagnostic at all,
/// is already in its canonical `recipe fmt` form, and compiles to the graph its comments promise.
@Suite("the recipes of Recipes/")
struct RecipesTests {
    static let folder = TestPaths.packageRoot.appendingPathComponent("Recipes")

    static let files: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".recipe.yaml") }.sorted()
    }()

    static func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    static func load(_ name: String, options: CheckOptions = CheckOptions()) -> CheckedRecipe {
        RecipeChecker.load(path: path(name), options: options)
    }

    static func render(_ checked: CheckedRecipe) -> String {
        checked.diagnostics.map { DiagnosticPrinter.render($0, source: checked.file) }.joined(separator: "\n")
    }

    /// The graph's nodes after the source, as `op` names.
    static func ops(_ graph: FilterGraph) -> [String] { graph.nodes.dropFirst().map(\.op) }

    @Test("the library has the recipes the README promises")
    func library() {
        let expected = ["basic-corrections", "black-and-white", "warm-portrait", "graduated-sky", "film-look",
                        "web-export", "square-crop", "soft-glow", "filtster"]
        for name in expected {
            #expect(Self.files.contains("\(name).recipe.yaml"), "Recipes/\(name).recipe.yaml is missing")
        }
    }

    @Test("checks with no error and no warning, and compiles to a graph", arguments: files)
    func checks(_ name: String) {
        let checked = Self.load(name)
        #expect(checked.diagnostics.isEmpty, "\(name):\n\(Self.render(checked))")
        #expect(checked.graph != nil, "\(name) compiles to no graph")
        #expect(checked.declaredVersion == RecipeFormat.current, "\(name) is not written in format \(RecipeFormat.current)")
        #expect(!checked.isForeign)
    }

    @Test("starts with the schema line and the header", arguments: files)
    func header(_ name: String) {
        let file = Self.load(name).file
        #expect(file.line(1) == "# yaml-language-server: $schema=../Grammar/recipe.schema.json")
        let lines = (1...file.lineCount).map(file.line)
        #expect(lines.contains("format: \(RecipeFormat.identifier)"))
        #expect(lines.contains("version: \(RecipeFormat.current)"))
    }

    @Test("is in canonical form: fmt leaves it unchanged, fmt is idempotent and keeps the meaning", arguments: files)
    func canonical(_ name: String) throws {
        let checked = Self.load(name)
        let original = String(decoding: checked.file.bytes, as: UTF8.self)
        let formatted = try #require(RecipePrinter.format(checked), "fmt refuses \(name):\n\(Self.render(checked))")
        #expect(formatted == original, "\(name) is not canonical; `recipe fmt Recipes/\(name)` gives:\n\(formatted)")
        let reparsed = RecipeChecker.check(SourceFile(path: Self.path(name), text: formatted))
        #expect(RecipePrinter.format(reparsed) == formatted, "fmt(fmt(x)) != fmt(x) for \(name)")
        let before = try #require(checked.graph), after = try #require(reparsed.graph, "\(Self.render(reparsed))")
        #expect(after.signature == before.signature, "fmt changed the meaning of \(name)")
    }

    @Test("film-look: the LUT is found beside the recipe, and a missing LUT is an error")
    func filmLookLUT() throws {
        var options = CheckOptions()
        options.checkFilesExist = true
        let checked = Self.load("film-look.recipe.yaml", options: options)
        #expect(!checked.hasErrors, "\(Self.render(checked))")
        let graph = try #require(checked.graph)
        let lut = try #require(graph.nodes.first { $0.op == "lut" })
        guard case .file(let file)? = lut.params["file"] else {
            Issue.record("lut has no file: \(lut.params)")
            return
        }
        #expect(FileManager.default.isReadableFile(atPath: Self.folder.appendingPathComponent(file).path), "\(file) is not in Recipes/")
        #expect(FileManager.default.fileExists(atPath: Self.folder.appendingPathComponent("luts/LICENSES.md").path))

        // The same text elsewhere: the LUT is not beside it, and the check says so.
        let elsewhere = TestPaths.temporaryDirectory("film-look")
        defer { try? FileManager.default.removeItem(at: elsewhere) }
        let moved = RecipeChecker.check(SourceFile(path: elsewhere.appendingPathComponent("film-look.recipe.yaml").path,
                                                   bytes: checked.file.bytes), options: options)
        #expect(moved.diagnostics.map(\.code) == [.missingFile], "\(Self.render(moved))")
    }

    @Test("filtster: CIVignette radius 0.5 intensity 1, then CISepiaTone intensity 1, cited")
    func filtster() throws {
        let checked = Self.load("filtster.recipe.yaml")
        let graph = try #require(checked.graph)
        #expect(Self.ops(graph) == ["vignette", "sepia"])
        #expect(graph.nodes[1].params["amount"] == .number(1))
        #expect(graph.nodes[1].params["radius"] == .number(0.5))
        #expect(graph.nodes[1].params.isGiven("amount") && graph.nodes[1].params.isGiven("radius"))
        #expect(graph.nodes[2].params["amount"] == .number(1))
        let text = String(decoding: checked.file.bytes, as: UTF8.self)
        #expect(text.contains("objcio/issue-21-photo-extensions-Filtster"))
        #expect(text.contains("com.shinobicontrols.filster"))
        #expect(text.contains("  - vignette: {amount: 1, radius: 0.5}"))
        #expect(text.contains("  - sepia: 1"))
    }

    @Test("warm-portrait: the temperature is the `warmth` knob, and --set overrides it")
    func warmPortrait() throws {
        let graph = try #require(Self.load("warm-portrait.recipe.yaml").graph)
        let wb = try #require(graph.nodes.first { $0.op == "white-balance" })
        #expect(wb.bindings["temp"] == "warmth")
        #expect(wb.params["temp"] == .number(7500))
        var options = CheckOptions()
        options.overrides = ["warmth": "8500"]
        let overridden = try #require(Self.load("warm-portrait.recipe.yaml", options: options).graph)
        #expect(overridden.nodes.first { $0.op == "white-balance" }?.params["temp"] == .number(8500))
    }

    @Test("graduated-sky: local stages with gradient masks")
    func graduatedSky() throws {
        let graph = try #require(Self.load("graduated-sky.recipe.yaml").graph)
        let sky = try #require(graph.nodes.first { $0.stageID == "sky" })
        #expect(sky.op == "exposure" && sky.params["ev"] == .number(-0.7))
        #expect(sky.mask?.kind == "gradient")
        #expect(sky.mask?.params["from"] == .point(CanvasPoint(0.5, 0)))
        #expect(sky.mask?.params["to"] == .point(CanvasPoint(0.5, 0.45)))
    }

    @Test("soft-glow: two branches from `base`, joined by a soft-light blend")
    func softGlow() throws {
        let graph = try #require(Self.load("soft-glow.recipe.yaml").graph)
        let base = try #require(graph.nodes.firstIndex { $0.stageID == "base" })
        let glow = try #require(graph.nodes.firstIndex { $0.stageID == "glow" })
        let blend = try #require(graph.nodes.first { $0.op == "blend" })
        #expect(graph.nodes[glow].inputs == [base])
        #expect(blend.inputs == [base, glow])
        #expect(blend.params["mode"] == .choice("soft-light"))
    }

    @Test("web-export and square-crop: output sizes for a 6000×4000 photo")
    func geometry() throws {
        let web = try #require(Self.load("web-export.recipe.yaml").graph)
        #expect(web.nodes[web.output].size == CanvasSize(width: 2048, height: 1365))
        #expect(Self.ops(web).last == "sharpen", "sharpen after the downscale")
        let square = try #require(Self.load("square-crop.recipe.yaml").graph)
        #expect(square.nodes[square.output].size == CanvasSize(width: 1080, height: 1080))
        let crop = try #require(square.nodes.first { $0.op == "crop" })
        #expect(crop.size == CanvasSize(width: 4000, height: 4000))
    }
}
