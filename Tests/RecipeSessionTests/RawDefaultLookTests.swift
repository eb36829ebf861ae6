import Foundation
import RecipeCore
import RecipeLanguage
import RecipeSession
import Testing
import TestSupport

/// The default look of a camera raw (`RawDefaultLook`) and the one rule that applies it
/// (`RenderPlanner.plan`): a raw whose recipes have no `develop` stage gets its stages first; a
/// recipe with a develop of its own gets none; a photo that is not a raw never does.
@Suite("the default look of a raw")
struct RawDefaultLookTests {
    static let raw = TestPaths.samples.appendingPathComponent("kodim03-bayer.dng").path
    static let jpeg = TestPaths.samples.appendingPathComponent("Landscape_1.jpg").path
    static let neutral = TestPaths.recipes.appendingPathComponent("raw-neutral.recipe.yaml").path
    static let look = ["develop", "curve", "vibrance", "sharpen"]

    /// A recipe without a develop stage, written to a temporary folder.
    static func exposureRecipe(in dir: URL) throws -> String {
        let path = dir.appendingPathComponent("lift.recipe.yaml").path
        try "format: dev.recipe.edit\nversion: 1.2\nstages:\n  - exposure: 0.3\n".write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func plan(_ photo: String, _ recipes: [String]) throws -> RenderPlan {
        var request = RenderRequest(photo: photo)
        request.recipes = recipes.map { RenderRequest.Recipe(path: $0) }
        return try RenderPlanner.plan(request)
    }

    static func ops(_ plan: RenderPlan) -> [String] { plan.graph.map { $0.nodes.dropFirst().map(\.op) } ?? [] }

    @Test("the text recipe carries is Recipes/raw-default.recipe.yaml, byte for byte")
    func shippedCopy() throws {
        let file = try String(contentsOf: TestPaths.recipes.appendingPathComponent(RawDefaultLook.name), encoding: .utf8)
        #expect(file == RawDefaultLook.text, "Recipes/\(RawDefaultLook.name) and RawDefaultLook.text differ")
    }

    @Test("it checks with no diagnostic for a photo of any size (3:2, this many pixels wide)", arguments: [3, 64, 768, 6000])
    func checksEverywhere(_ width: Int) throws {
        var options = CheckOptions()
        options.sourceSize = CanvasSize(width: width, height: width * 2 / 3)
        let checked = RecipeChecker.check(SourceFile(path: RawDefaultLook.name, text: RawDefaultLook.text), options: options)
        #expect(checked.diagnostics.isEmpty, "\(checked.diagnostics.map { DiagnosticPrinter.render($0, source: checked.file) })")
        #expect(checked.graph?.nodes.dropFirst().map(\.op) == Self.look)
    }

    @Test("a raw without a recipe is planned with the default look; its develop is the look's, nothing of it is a diagnostic")
    func rawWithoutRecipe() throws {
        let plan = try Self.plan(Self.raw, [])
        #expect(plan.defaultLook != nil)
        #expect(Self.ops(plan) == Self.look)
        #expect(plan.checked.isEmpty && plan.diagnostics.isEmpty)
        let develop = try #require(plan.render.develop)
        #expect(develop.highlights == .clip && develop.exposure == 0 && develop.demosaic == .directional, "\(develop)")
        #expect(plan.render.recipeName == RawDefaultLook.name)
    }

    @Test("a raw's recipe without a develop stage runs after the default look; with two recipes, the look comes before both")
    func rawRecipeWithoutDevelop() throws {
        let dir = TestPaths.temporaryDirectory("default-look-plan")
        defer { try? FileManager.default.removeItem(at: dir) }
        let lift = try Self.exposureRecipe(in: dir)
        let one = try Self.plan(Self.raw, [lift])
        #expect(one.defaultLook != nil && one.checked.count == 1)
        #expect(Self.ops(one) == Self.look + ["exposure"])
        let two = try Self.plan(Self.raw, [lift, lift])
        #expect(Self.ops(two) == Self.look + ["exposure", "exposure"])
    }

    @Test("a recipe with a develop stage of its own owns the develop: no default look, before or after it")
    func developOwnsIt() throws {
        let dir = TestPaths.temporaryDirectory("default-look-own")
        defer { try? FileManager.default.removeItem(at: dir) }
        let plan = try Self.plan(Self.raw, [Self.neutral])
        #expect(plan.defaultLook == nil)
        #expect(Self.ops(plan) == ["develop"])
        // The develop may come from any recipe of the chain (a sidecar's, a look's).
        let chained = try Self.plan(Self.raw, [try Self.exposureRecipe(in: dir), Self.neutral].reversed())
        #expect(chained.defaultLook == nil && Self.ops(chained) == ["develop", "exposure"])
    }

    @Test("a photo that is not a raw never gets it: without a recipe there is nothing to plan, with one only the recipe")
    func notRaw() throws {
        let dir = TestPaths.temporaryDirectory("default-look-jpeg")
        defer { try? FileManager.default.removeItem(at: dir) }
        let alone = try Self.plan(Self.jpeg, [])
        #expect(alone.graph == nil && alone.defaultLook == nil && alone.render.stages.isEmpty)
        let lifted = try Self.plan(Self.jpeg, [try Self.exposureRecipe(in: dir)])
        #expect(lifted.defaultLook == nil && Self.ops(lifted) == ["exposure"])
        // No photo at all (explain without --photo): nothing to say it is a raw.
        var nominal = RenderRequest(photo: "")
        nominal.recipes = [RenderRequest.Recipe(path: try Self.exposureRecipe(in: dir))]
        nominal.header = .nominal(nil)
        #expect(try RenderPlanner.plan(nominal).defaultLook == nil)
    }
}
