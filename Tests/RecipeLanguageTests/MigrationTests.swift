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
            version: 1.5
            stages:
              - exposure: 0.2
              - vignette: {amount: 0.8, radius: 0.6}  # darker corners

            """)
        let again = RecipeChecker.check(SourceFile(path: "\(Self.folder)/m.recipe.yaml", text: text))
        #expect(again.diagnostics.isEmpty, "\(again.diagnostics)")
        #expect(again.graph?.signature == checked.graph?.signature)
    }

    @Test("a 1.1 file that no migration changes reads silently and keeps its version; fmt leaves it 1.1")
    func olderVersionWithoutMigrations() throws {
        let text = "format: dev.recipe.edit\nversion: 1.1\nstages:\n  - exposure: 0.3\n"
        let checked = RecipeChecker.check(SourceFile(path: "t.recipe.yaml", text: text))
        #expect(checked.diagnostics.isEmpty, "\(checked.diagnostics)")
        #expect(checked.declaredVersion == FormatVersion(1, 1))
        #expect(!checked.needsMigration)
        #expect(RecipePrinter.format(checked) == text)
    }

    @Test("`develop` in a file that says 1.1 is warned (R304), and migrate moves only the version to the current one")
    func newerOperationInOlderFile() throws {
        let text = "format: dev.recipe.edit\nversion: 1.1\nstages:\n  - develop: daylight\n  - exposure: 0.3\n"
        let checked = RecipeChecker.check(SourceFile(path: "t.recipe.yaml", text: text))
        #expect(checked.diagnostics.map(\.code) == [.newerOperation], "\(checked.diagnostics)")
        #expect(!checked.hasErrors)
        #expect(checked.needsMigration)
        let migrated = try #require(RecipePrinter.migrated(checked))
        #expect(migrated == text.replacingOccurrences(of: "version: 1.1", with: "version: \(RecipeFormat.current)"))
        let again = RecipeChecker.check(SourceFile(path: "t.recipe.yaml", text: migrated))
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

/// Inputs the fuzzer (recipe-fuzz) found; each once changed meaning through `fmt`.
@Suite("fuzz regressions")
struct FuzzRegressionTests {
    func fmtRoundTrip(_ text: String) throws -> (CheckedRecipe, String) {
        let checked = RecipeChecker.check(SourceFile(path: "f.recipe.yaml", text: text))
        let formatted = try #require(RecipePrinter.format(checked), "\(checked.diagnostics)")
        let again = RecipeChecker.check(SourceFile(path: "f.recipe.yaml", text: formatted))
        #expect(!again.hasErrors, "\(again.diagnostics)\n\(formatted)")
        #expect(again.graph?.signature == checked.graph?.signature, "fmt changed the meaning:\n\(formatted)")
        #expect(RecipePrinter.format(again) == formatted, "fmt is not idempotent:\n\(formatted)")
        return (checked, formatted)
    }

    @Test("a 1.0 file giving an old key and its new name is an error, not a silent choice")
    func oldAndNewKey() {
        for stage in ["vignette: {intensity: 0, amount: 0.6}", "sharpen: {sigma: 2, radius: 1}"] {
            let c = RecipeChecker.check(SourceFile(path: "f", text: "format: dev.recipe.edit\nversion: 1.0\nstages:\n  - \(stage)\n"))
            #expect(c.diagnostics.filter { $0.severity == .error }.map(\.code) == [.conflictingParameters], "\(stage)")
        }
    }

    @Test("line breaks libyaml knows (CR, NEL, LS, PS) keep line numbers and comments in place",
          arguments: ["\r", "\u{85}", "\u{2028}", "\u{2029}", "\r\n"])
    func lineBreaks(_ br: String) throws {
        let text = "format: dev.recipe.edit\(br)version: 1.1\(br)stages:\(br)  - exposure: 0.5  # a\(br)  - exposure: 0.2\(br)  - saturaton: 1\(br)"
        let c = RecipeChecker.check(SourceFile(path: "f", text: text))
        #expect(c.diagnostics.first?.range?.start.line == 6)
        let ok = text.replacingOccurrences(of: "saturaton", with: "saturation")
        let (_, formatted) = try fmtRoundTrip(ok)
        #expect(formatted.contains("  - exposure: 0.5  # a\n  - exposure: 0.2\n"))
    }

    @Test("NEL, LS and PS in text are escaped by fmt", arguments: ["\\N", "\\L", "\\P", "\\u2028"])
    func escapes(_ escape: String) throws {
        _ = try fmtRoundTrip("format: dev.recipe.edit\nversion: 1.1\nnote: \"a\(escape)b\"\nstages: []\n")
    }

    @Test("a comment on the closing line of a multi-line flow value stays with its stage")
    func closingLineComment() throws {
        let (_, formatted) = try fmtRoundTrip("format: dev.recipe.edit\nversion: 1.1\nstages:\n  - vignette: {amount: 0.6\n    }  # c\n  - sepia: 1\n")
        #expect(formatted.contains("# c\n  - sepia: 1") || formatted.contains("0.6  # c"), "\(formatted)")
    }

    @Test("wide or commented shorthand matrices keep their values", arguments: [
        "  - matrix: [[2, 0, 0], [0, 1, 0],\n      [0, 0, 1]]  # c\n",
        "  - matrix: [[0.3931, 0.7692, 0.1893, 0.0105], [0.3494, 0.6866, 0.1687, 0.0105], [0.2723, 0.5344, 0.1315, 0.0105]]\n",
    ])
    func matrices(_ stage: String) throws {
        _ = try fmtRoundTrip("format: dev.recipe.edit\nversion: 1.1\nstages:\n" + stage)
    }

    /// No time is asserted (the machines are shared); the quadratic reader took minutes on this
    /// input, which would stall the test run visibly. `recipe-fuzz --max-len 65536` flags it too.
    @Test("a list of 200,000 items is read whole")
    func longList() throws {
        let text = "x: [" + Array(repeating: "1", count: 200_000).joined(separator: ",") + "]\n"
        let (root, diagnostics) = YAMLReader.read(SourceFile(path: "f", text: text))
        #expect(diagnostics.isEmpty)
        #expect(try #require(root?.mapping?.first?.value.sequence).count == 200_000)
    }

    @Test("thousands of dangling inputs: one error each, short notes, no quadratic suggestion work")
    func manyDanglingInputs() throws {
        var text = "format: dev.recipe.edit\nversion: 1.1\nstages:\n"
        for i in 0..<2000 { text += "  - id: stage-\(i)\n    input: nope-\(i)\n    exposure: 1\n" }
        // Over the 256-stage bound (R108) on purpose: the checker itself must scale.
        var options = CheckOptions()
        options.limits.maxStages = 2000
        let c = RecipeChecker.check(SourceFile(path: "f", text: text), options: options)
        #expect(c.diagnostics.count == 2000)
        let notes = try #require(c.diagnostics.first?.notes)
        #expect(notes.count == 1)  // no guess among 2000 ids; the list is cut
        #expect(notes[0].message.hasSuffix("and 1992 more"))
    }
}
