import Foundation
import RecipeCore
@testable import RecipeLanguage
import RecipeOps
import Testing
import TestSupport

/// Old format versions keep loading, one migration step at a time; `migrate` writes the new shape.
@Suite("migrations")
struct MigrationTests {
    static let folder = TestPaths.packageRoot.appendingPathComponent("Tests/RecipeLanguageTests/Fixtures/migrations").path

    func load(_ name: String) -> CheckedRecipe {
        RecipeChecker.load(path: "\(Self.folder)/\(name)")
    }

    @Test("vignette 1.0 `intensity` loads as `amount`, with an R300 warning and no error")
    func vignette() throws {
        let checked = load("vignette-v1.recipe.yaml")
        #expect(!checked.hasErrors, "\(checked.diagnostics)")
        #expect(checked.diagnostics.map(\.code) == [.olderVersion])
        #expect(checked.declaredVersion == FormatVersion(1, 0))
        let graph = try #require(checked.graph)
        let vignette = try #require(graph.nodes.first { $0.op == "vignette" })
        #expect(vignette.params["amount"] == .number(0.8))
        #expect(vignette.params["radius"] == .number(0.6))
        #expect(checked.migrations.count == 1)
    }

    @Test("sharpen 1.0 `radius` loads as `sigma`")
    func sharpen() throws {
        let checked = load("sharpen-v1.recipe.yaml")
        #expect(!checked.hasErrors, "\(checked.diagnostics)")
        let sharpen = try #require(checked.graph?.nodes.first { $0.op == "sharpen" })
        #expect(sharpen.params["sigma"] == .length(.px(1.2)))
    }

    @Test("migrate writes the current version with the new keys and the comments, and it loads the same")
    func migratedText() throws {
        let checked = load("vignette-v1.recipe.yaml")
        let text = try #require(RecipePrinter.format(checked))
        #expect(text == """
            # A recipe of format 1.0: vignette version 1 called its strength `intensity`
            # (as Core Image's CIVignette does). Must keep loading (STYLE.md rule 8).
            format: dev.recipe.edit
            version: 1.1
            stages:
              - exposure: 0.2
              - vignette: {amount: 0.8, radius: 0.6}  # darker corners

            """)
        let again = RecipeChecker.check(SourceFile(path: "\(Self.folder)/m.recipe.yaml", text: text))
        #expect(again.diagnostics.isEmpty, "\(again.diagnostics)")
        #expect(again.graph?.signature == checked.graph?.signature)
    }

    @Test("the old key is an error in the current version, with a hint")
    func oldKeyInNewVersion() {
        let text = "format: dev.recipe.edit\nversion: 1.1\nstages:\n  - vignette: {intensity: 0.8}\n"
        let checked = RecipeChecker.check(SourceFile(path: "t.recipe.yaml", text: text))
        #expect(checked.diagnostics.first?.code == .unknownKey)
    }

    @Test("every format step has a fixture: each op migration's old keys appear in a fixture")
    func fixturesCoverMigrations() throws {
        var fixtures = ""
        for name in ["vignette-v1.recipe.yaml", "sharpen-v1.recipe.yaml"] {
            fixtures += try String(contentsOfFile: "\(Self.folder)/\(name)", encoding: .utf8)
        }
        for op in Operations.all {
            for m in op.migrations {
                let renamed = m.steps.compactMap { step -> String? in
                    if case .rename(let from, _) = step { return from }
                    return nil
                }
                for key in renamed { #expect(fixtures.contains("\(key):"), "no fixture for \(op.name) `\(key)` (format \(m.sinceFormat))") }
            }
        }
    }

    @Test("foreign data: another identifier or major version is R201/R202 and marked foreign; a newer minor is refused")
    func foreign() {
        func check(_ header: String) -> CheckedRecipe {
            RecipeChecker.check(SourceFile(path: "t.recipe.yaml", text: header + "stages: []\n"))
        }
        let other = check("format: com.shinobicontrols.filster\nversion: 1.0\n")
        #expect(other.isForeign && other.diagnostics.map(\.code) == [.foreignFormat])
        let major = check("format: dev.recipe.edit\nversion: 2.0\n")
        #expect(major.isForeign && major.diagnostics.map(\.code) == [.unsupportedVersion])
        let newer = check("format: dev.recipe.edit\nversion: 1.7\n")
        #expect(!newer.isForeign && newer.diagnostics.map(\.code) == [.unsupportedVersion])
        let typo = check("format: dev.recipe.edti\nversion: 1.1\n")
        #expect(typo.diagnostics.first?.notes.first?.message == "did you mean `dev.recipe.edit`?")
    }
}
