import Foundation
import RecipeCore
@testable import RecipeLanguage
import Testing
import TestSupport

/// The checker's meaning: the DAG, inputs, knobs, geometry and the file-reference fence.
@Suite("semantic checks and the filter graph")
struct SemaTests {
    func check(_ stages: String, params: String = "", options: CheckOptions = {
        var o = CheckOptions()
        o.checkFilesExist = false
        return o
    }(), path: String = "t.recipe.yaml") -> CheckedRecipe {
        let text = "format: dev.recipe.edit\nversion: 1.1\n" + params + "stages:\n" + stages
        return RecipeChecker.check(SourceFile(path: path, text: text), options: options)
    }

    @Test("a colour band or grading zone that does not exist is named, with the ones that do")
    func unknownBand() {
        func unknown(_ c: CheckedRecipe) -> Diagnostic? { c.diagnostics.first { $0.code == .unknownKey } }
        let mixer = check("  - color-mixer: {teal-hue: 10}\n")
        #expect(unknown(mixer) != nil)
        #expect(unknown(mixer)?.notes.last?.message.hasPrefix("`teal` is not a band of `color-mixer`: the bands are `red`, `orange`") == true,
                "\(mixer.diagnostics)")
        let grade = check("  - color-grade: {lowlights-hue: 30}\n")
        #expect(unknown(grade)?.notes.last?.message.hasPrefix("`lowlights` is not a zone of `color-grade`: the zones are `shadows`") == true,
                "\(grade.diagnostics)")
        // A misspelt band is a guess, not a list.
        let typo = check("  - color-mixer: {blu-hue: 10}\n")
        #expect(unknown(typo)?.notes.first?.message == "did you mean `blue-hue`?", "\(typo.diagnostics)")
    }

    @Test("a list of stages is a chain; sizes follow the geometric ops")
    func chain() throws {
        let c = check("  - exposure: 0.3\n  - crop: {aspect: \"1:1\"}\n  - resize: {long-edge: 1000}\n  - rotate: 90\n")
        let g = try #require(c.graph, "\(c.diagnostics)")
        #expect(g.nodes.map(\.op) == ["source", "exposure", "crop", "resize", "rotate"])
        #expect(g.nodes.map(\.inputs) == [[], [0], [1], [2], [3]])
        #expect(g.nodes[2].size == CanvasSize(width: 4000, height: 4000))
        #expect(g.nodes[3].size == CanvasSize(width: 1000, height: 1000))
        #expect(g.output == 4)
    }

    @Test("input: and blend's with: make a DAG; a disabled stage passes its input through")
    func dag() throws {
        let c = check("""
              - id: base
                exposure: 0.2
              - id: soft
                blur: {sigma: 1%}
              - enabled: false
                sepia: 1
              - input: base
                blend: {with: soft, mode: soft-light, opacity: 0.5}

            """)
        let g = try #require(c.graph, "\(c.diagnostics)")
        #expect(g.nodes.map(\.op) == ["source", "exposure", "blur", "blend"])
        #expect(g.nodes[3].inputs == [1, 2])
        #expect(c.stages.map(\.enabled) == [true, true, false, true])
        #expect(c.diagnostics.isEmpty)
    }

    @Test("a branch nobody reads is warned about (R302), not an error")
    func unusedStage() throws {
        let c = check("  - id: base\n    exposure: 0.2\n  - blur: {sigma: 3}\n  - input: base\n    sepia: 1\n")
        #expect(c.graph != nil)
        #expect(c.diagnostics.map(\.code) == [.unusedStage])
        #expect(c.diagnostics.first?.range?.start.line == 6)
    }

    @Test("input: naming a later stage or itself is a cycle (R213); an unknown id dangles (R212)")
    func cycles() {
        let later = check("  - input: b\n    exposure: 1\n  - id: b\n    sepia: 1\n")
        #expect(later.diagnostics.first?.code == .cyclicInput)
        let itself = check("  - id: a\n    input: a\n    exposure: 1\n")
        #expect(itself.diagnostics.first?.code == .cyclicInput)
        let dangling = check("  - id: base\n    exposure: 1\n  - input: bsae\n    sepia: 1\n")
        #expect(dangling.diagnostics.first?.code == .danglingInput)
        #expect(dangling.diagnostics.first?.notes.first?.message == "did you mean `base`?")
        #expect(dangling.graph == nil)
    }

    @Test("blend of two differently sized images is R224")
    func sizes() {
        let c = check("  - id: big\n    exposure: 0\n  - id: small\n    resize: {scale: 0.5}\n  - input: big\n    blend: {with: small}\n")
        #expect(c.diagnostics.map(\.code) == [.sizeMismatch])
    }

    @Test("params: knobs are typed where used, overridable, and unused ones warned about")
    func knobs() throws {
        let params = "params:\n  warmth: {default: 5200, doc: scene light}\n  unused: 3\n"
        let c = check("  - white-balance: {temp: $warmth}\n", params: params)
        let g = try #require(c.graph)
        #expect(g.nodes[1].params["temp"] == .number(5200))
        #expect(g.nodes[1].bindings["temp"] == "warmth")
        #expect(c.diagnostics.map(\.code) == [.unusedParam])

        var options = CheckOptions()
        options.overrides = ["warmth": "6100"]
        let o = check("  - white-balance: {temp: $warmth}\n", params: "params:\n  warmth: 5200\n", options: options)
        #expect(o.graph?.nodes[1].params["temp"] == .number(6100))

        options.overrides = ["warmth": "90000"]
        let bad = check("  - white-balance: {temp: $warmth}\n", params: "params:\n  warmth: 5200\n", options: options)
        #expect(bad.diagnostics.first?.code == .outOfRange)

        let undefined = check("  - exposure: $ev\n")
        #expect(undefined.diagnostics.first?.code == .undefinedParam)
        options.overrides = ["nope": "1"]
        let unknownOverride = check("  - exposure: 1\n", options: options)
        #expect(unknownOverride.diagnostics.first?.code == .undefinedParam)
    }

    @Test("all errors of a file are reported, in source order")
    func allErrors() {
        let c = check("  - exposure: 11\n  - saturaton: 1\n  - blur: {sigma: 2pt}\n  - curve: {channel: x}\n")
        #expect(c.diagnostics.map(\.code) == [.outOfRange, .unknownOperation, .badUnit, .invalidChoice])
        #expect(c.diagnostics.map { $0.range!.start.line } == [4, 5, 6, 7])
    }

    @Test("LUT files must stay inside the recipe's folder unless allowed; missing ones are R220")
    func fileFence() throws {
        let dir = TestPaths.temporaryDirectory("fence")
        defer { try? FileManager.default.removeItem(at: dir) }
        let inner = dir.appendingPathComponent("recipes")
        try FileManager.default.createDirectory(at: inner.appendingPathComponent("luts"), withIntermediateDirectories: true)
        try "LUT_3D_SIZE 2\n".write(to: inner.appendingPathComponent("luts/a.cube"), atomically: true, encoding: .utf8)
        try "LUT_3D_SIZE 2\n".write(to: dir.appendingPathComponent("outside.cube"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: inner.appendingPathComponent("luts/link.cube").path,
                                                   withDestinationPath: dir.appendingPathComponent("outside.cube").path)
        let path = inner.appendingPathComponent("r.recipe.yaml").path
        func lut(_ file: String, allow: Bool = false) -> [DiagnosticCode] {
            var o = CheckOptions()
            o.allowFilesOutside = allow
            return check("  - lut: \(file)\n", options: o, path: path).diagnostics.map(\.code)
        }
        #expect(lut("luts/a.cube") == [])
        #expect(lut("../outside.cube") == [.fileOutsideRecipe])
        #expect(lut(dir.appendingPathComponent("outside.cube").path) == [.fileOutsideRecipe])
        #expect(lut("luts/link.cube") == [.fileOutsideRecipe])
        #expect(lut("luts/../../outside.cube") == [.fileOutsideRecipe])
        #expect(lut("../outside.cube", allow: true) == [])
        #expect(lut("luts/missing.cube") == [.missingFile])
    }

    @Test("an empty file, a non-mapping and a missing header are clear errors")
    func headers() {
        #expect(RecipeChecker.check(SourceFile(path: "e", text: "")).diagnostics.map(\.code) == [.missingKey])
        #expect(RecipeChecker.check(SourceFile(path: "e", text: "- exposure: 1\n")).diagnostics.map(\.code) == [.wrongType])
        #expect(RecipeChecker.check(SourceFile(path: "e", text: "version: 1.1\nstages: []\n")).diagnostics.map(\.code) == [.missingKey])
        #expect(RecipeChecker.check(SourceFile(path: "e", text: "format: dev.recipe.edit\nversion: one\nstages: []\n")).diagnostics.map(\.code) == [.invalidVersion])
        let ok = RecipeChecker.check(SourceFile(path: "e", text: "format: dev.recipe.edit\nversion: 1.1\nstages: []\n"))
        #expect(ok.diagnostics.isEmpty && ok.graph?.nodes.count == 1)
    }

    @Test("near-miss names get suggestions across spellings")
    func suggestions() {
        #expect(Suggestions.closest(to: "saturaton", in: ["saturation", "sepia"]) == "saturation")
        #expect(Suggestions.closest(to: "white_balance", in: ["white-balance"]) == "white-balance")
        #expect(Suggestions.closest(to: "whiteBalance", in: ["white-balance"]) == "white-balance")
        #expect(Suggestions.closest(to: "zzzz", in: ["exposure"]) == nil)
    }
}
