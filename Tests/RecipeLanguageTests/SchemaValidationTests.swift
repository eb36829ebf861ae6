import Foundation
import RecipeCore
import RecipeLanguage
import Testing
import TestSupport

/// Grammar/recipe.schema.json checked by an independent validator (python-jsonschema, Draft
/// 2020-12, through Tests/Tools/validate_schema.py): every recipe of Recipes/ is valid, every
/// fixture of Fixtures/schema-invalid/ is rejected — and `recipe check` rejects those fixtures too,
/// with the diagnostic code the fixture's first line names (`# expect: R204 …`).
@Suite("the JSON Schema, checked by python-jsonschema")
struct SchemaValidationTests {
    static let script = TestPaths.packageRoot.appendingPathComponent("Tests/Tools/validate_schema.py").path

    static func recipeFiles(in folder: URL) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".recipe.yaml") }.sorted().map { folder.appendingPathComponent($0).path }
    }

    static let examples = recipeFiles(in: TestPaths.packageRoot.appendingPathComponent("Recipes"))
    static let invalidFixtures = recipeFiles(in: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/schema-invalid"))

    /// What every validator test needs: reported as skipped without it (Requirement).
    static let needsValidator = Requirement.python("jsonschema", "yaml")

    /// python3, which the test declared with `needsValidator`.
    static func python() throws -> String { try Requirement.path("python3") }

    /// Runs the script; the per-file lines keyed by path.
    static func validate(_ python: String, _ files: [String], expectInvalid: Bool) throws -> (ToolResult, [String: String]) {
        let result = try ExternalTool.run(python, [script] + (expectInvalid ? ["--expect-invalid"] : []) + files)
        var lines: [String: String] = [:]
        for line in String(decoding: result.stdout, as: UTF8.self).split(separator: "\n") {
            for file in files where line.hasPrefix(file + ": ") {
                lines[file] = String(line.dropFirst(file.count + 2))
            }
        }
        return (result, lines)
    }

    @Test("the fixture folders are populated")
    func fixturesExist() {
        #expect(Self.examples.count >= 9, "Recipes/ has \(Self.examples.count) recipes")
        #expect(Self.invalidFixtures.count >= 10, "schema-invalid/ has \(Self.invalidFixtures.count) fixtures")
    }

    @Test("every recipe of Recipes/ is valid against the schema", needsValidator)
    func examplesAreValid() throws {
        let python = try Self.python()
        let (result, lines) = try Self.validate(python, Self.examples, expectInvalid: false)
        #expect(result.status == 0, "validate_schema.py exited \(result.status): \(result.stderr)\n\(String(decoding: result.stdout, as: UTF8.self))")
        for file in Self.examples {
            #expect(lines[file] == "ok", "\(file): \(lines[file] ?? "no line printed")")
        }
    }

    @Test("every invalid fixture is rejected by the schema", needsValidator)
    func fixturesAreRejected() throws {
        let python = try Self.python()
        let (result, lines) = try Self.validate(python, Self.invalidFixtures, expectInvalid: true)
        #expect(result.status == 0, "validate_schema.py --expect-invalid exited \(result.status): \(result.stderr)\n\(String(decoding: result.stdout, as: UTF8.self))")
        for file in Self.invalidFixtures {
            let line = lines[file] ?? "no line printed"
            #expect(line.hasPrefix("invalid: at $"), "\(file): \(line)")
        }
    }

    @Test("the script's exit status follows the expectation (a rejected recipe fails a normal run, and the reverse)", needsValidator)
    func scriptExitStatus() throws {
        let python = try Self.python()
        let valid = try #require(Self.examples.first), invalid = try #require(Self.invalidFixtures.first)
        let (mixed, _) = try Self.validate(python, [valid, invalid], expectInvalid: false)
        #expect(mixed.status == 1, "a run with a rejected file must exit 1: \(mixed.stderr)")
        let (inverted, _) = try Self.validate(python, [invalid, valid], expectInvalid: true)
        #expect(inverted.status == 1, "--expect-invalid with an accepted file must exit 1: \(inverted.stderr)")
        let usage = try ExternalTool.run(python, [Self.script])
        #expect(usage.status == 2, "no files is a usage error")
    }

    @Test("generated recipes that recipe check accepts are valid against the schema too", needsValidator)
    func generatedRecipesAreValid() throws {
        let python = try Self.python()
        let dir = TestPaths.temporaryDirectory("schema-generated")
        defer { try? FileManager.default.removeItem(at: dir) }
        let recipes = GeneratedRecipesTests.generate(count: 150)
        var files: [String] = []
        for (i, text) in recipes.enumerated() {
            let path = dir.appendingPathComponent("generated-\(i).recipe.yaml").path
            #expect(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
            files.append(path)
        }
        let (result, lines) = try Self.validate(python, files, expectInvalid: false)
        var failures = 0
        for (i, file) in files.enumerated() where lines[file] != "ok" && failures < 5 {
            failures += 1
            Issue.record("generated recipe \(i) passes recipe check but not the schema: \(lines[file] ?? "no line printed")\n\(recipes[i])")
        }
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test("an angle written with `deg` is valid for rotate as for straighten and hue", needsValidator)
    func rotateDegrees() throws {
        let python = try Self.python()
        let dir = TestPaths.temporaryDirectory("schema-deg")
        defer { try? FileManager.default.removeItem(at: dir) }
        var files: [String] = []
        for op in ["rotate: 90deg", "straighten: -1.5deg", "hue: 15deg"] {
            let text = "format: dev.recipe.edit\nversion: 1.1\nstages:\n  - \(op)\n"
            #expect(!RecipeChecker.check(SourceFile(path: "deg.recipe.yaml", text: text)).hasErrors, "recipe check rejects `\(op)`")
            let path = dir.appendingPathComponent("\(files.count).recipe.yaml").path
            _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
            files.append(path)
        }
        let (_, lines) = try Self.validate(python, files, expectInvalid: false)
        // The schema once gave rotate's angle as an enum of numbers only, rejecting `90deg`.
        for file in files { #expect(lines[file] == "ok", "\(file): \(lines[file] ?? "no line")") }
    }

    @Test("recipe check rejects every invalid fixture with the code its first line names", arguments: invalidFixtures)
    func checkerRejects(_ path: String) throws {
        let checked = RecipeChecker.load(path: path)
        let first = checked.file.line(1)
        let code = try #require(first.firstMatch(of: #/^# expect: (R[0-9]{3})/#)?.output.1,
                                "\(path): the first line must be `# expect: Rnnn …`, not `\(first)`")
        #expect(checked.hasErrors, "\(path): recipe check accepts it")
        #expect(checked.graph == nil)
        let codes = checked.diagnostics.filter { $0.severity == .error }.map(\.code.rawValue)
        #expect(codes.contains(String(code)), "\(path): expected \(code), got \(codes)")
    }
}
