import Foundation
import RecipeCore
import RecipeLanguage
import Testing
import TestSupport
@testable import RecipePreview

/// The page's "Write into the recipe as defaults" on recipes formatted by hand: only the value
/// token of each knob's default changes; indents, spellings, comments and blank lines stay.
@Suite("PreviewSession: write-back keeps the recipe's text")
struct PreviewWriteBackTests {
    static let corpus = TestPaths.packageRoot.appendingPathComponent("Tests/RecipeLanguageTests/Fixtures/hand-formatted").path

    /// Each knob's default value node: `name: 5600`, or the `default:` of `name: {default: …}`.
    static func defaults(_ text: String) -> [(name: String, range: Range<Int>, line: Int, value: String)] {
        let (root, _) = YAMLReader.read(SourceFile(path: "look.recipe.yaml", text: text))
        let knobs = root?.mapping?.first { $0.key.scalar == "params" }?.value.mapping ?? []
        return knobs.compactMap { knob in
            let node = knob.value.mapping?.first { $0.key.scalar == "default" }?.value ?? knob.value
            guard let name = knob.key.scalar, let value = node.scalar else { return nil }
            return (name, node.range.start.offset..<node.range.end.offset, node.range.start.line, value)
        }
    }

    @Test("over the hand-formatted corpus, the file changes on the lines of the defaults and nowhere else")
    func onlyDefaultLinesChange() async throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.corpus).filter { $0.hasSuffix(".recipe.yaml") }.sorted()
        var recipes = 0, knobs = 0, lines = 0
        for name in names {
            let text = try String(contentsOfFile: Self.corpus + "/" + name, encoding: .utf8)
            let defaults = Self.defaults(text)
            guard !defaults.isEmpty else { continue }
            let folder = TestPaths.temporaryDirectory("preview-write-back")
            defer { try? FileManager.default.removeItem(at: folder) }
            let recipe = folder.appendingPathComponent("look.recipe.yaml").path
            try text.write(toFile: recipe, atomically: true, encoding: .utf8)
            let session = PreviewSession(recipePath: recipe, photos: [], folderMode: false, size: .longEdge(64), scratch: folder.path)
            await session.recipeMayHaveChanged()
            var values: [String: String] = [:], bytes = Array(text.utf8)
            for d in defaults.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
                let value = try #require(Double(d.value), "\(name): \(d.name)")
                values[d.name] = NumberFormatting.shortest(value / 2)
                bytes.replaceSubrange(d.range, with: Array(values[d.name]!.utf8))
            }
            try await session.setParams(values)
            let written = try await session.writeParams()
            #expect(written.count == defaults.count, "\(name): \(written)")
            let after = try String(contentsOfFile: recipe, encoding: .utf8)
            #expect(after == String(decoding: bytes, as: UTF8.self), "\(name):\n\(after)")
            let before = text.split(separator: "\n", omittingEmptySubsequences: false), now = after.split(separator: "\n", omittingEmptySubsequences: false)
            let changed = Set(zip(before, now).enumerated().filter { $0.element.0 != $0.element.1 }.map { $0.offset + 1 })
            #expect(before.count == now.count && changed == Set(defaults.map(\.line)), "\(name): lines \(changed.sorted())")
            recipes += 1
            knobs += defaults.count
            lines += changed.count
        }
        #expect(recipes >= 5)
        testNote("preview write-back: \(recipes) hand-formatted recipes with params, \(knobs) defaults written, \(lines) lines changed")
    }
}
