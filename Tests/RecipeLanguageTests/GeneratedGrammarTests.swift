import Foundation
import RecipeLanguage
import RecipeOps
import Testing
import TestSupport

/// Grammar/operations.md and Grammar/recipe.schema.json are generated from the op declarations
/// (STYLE.md rule 1). They are committed so that people and editors can read them without building;
/// these tests fail when a declaration changed and the committed file was not regenerated.
@Suite("generated Grammar files are up to date")
struct GeneratedGrammarTests {
    /// A committed generated file, its expected text, and the command that regenerates it.
    struct Generated: CustomStringConvertible, Sendable {
        var path: String
        var command: String
        var expected: @Sendable () -> String
        var description: String { path }
    }

    static let files: [Generated] = [
        Generated(path: "Grammar/operations.md", command: "swift run recipe ops --markdown > Grammar/operations.md",
                  expected: { OperationsDocument.markdown() }),
        Generated(path: "Grammar/recipe.schema.json", command: "swift run recipe schema > Grammar/recipe.schema.json",
                  expected: { SchemaDocument.json().pretty }),
    ]

    @Test("the committed file equals the generator's output byte for byte", arguments: files)
    func upToDate(_ file: Generated) throws {
        let url = TestPaths.packageRoot.appendingPathComponent(file.path)
        let committed = try #require(FileManager.default.contents(atPath: url.path),
                                     "\(file.path) is missing: regenerate it with `\(file.command)`")
        let expected = Array(file.expected().utf8)
        guard Array(committed) != expected else { return }
        let got = String(decoding: committed, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let want = String(decoding: expected, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let line = Array(zip(got, want)).firstIndex { $0 != $1 } ?? min(got.count, want.count)
        let committedLine = line < got.count ? String(got[line]) : "(end of file)"
        let expectedLine = line < want.count ? String(want[line]) : "(end of file)"
        Issue.record("""
            \(file.path) is stale: it differs from the op declarations from line \(line + 1) on.
              committed: \(committedLine)
              generated: \(expectedLine)
            Regenerate it with `\(file.command)` and commit it.
            """)
    }

    @Test("the generated texts are not empty and name every operation")
    func coverage() {
        let markdown = OperationsDocument.markdown()
        let schema = SchemaDocument.json().pretty
        for op in Operations.all.map(\.name) {
            #expect(markdown.contains("\n## \(op)\n"), "operations.md has no section for \(op)")
            #expect(schema.contains("\"op-\(op)\""), "the schema has no definition for \(op)")
        }
        #expect(schema.hasSuffix("}\n"))
        #expect(markdown.hasPrefix("# Operations\n"))
    }
}
