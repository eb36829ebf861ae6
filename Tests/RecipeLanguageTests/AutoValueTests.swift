import RecipeCore
@testable import RecipeLanguage
import Testing

/// Measured `auto` in the language: where it is taken, its relative form, its version, params,
/// and what `fmt` writes.
@Suite("measured auto values in recipes")
struct AutoValueTests {
    func check(_ stages: String, version: String = "1.4", params: String = "", overrides: [String: String] = [:]) -> CheckedRecipe {
        var options = CheckOptions()
        options.overrides = overrides
        return RecipeChecker.check(SourceFile(path: "a.recipe.yaml", text: "format: dev.recipe.edit\nversion: \(version)\n\(params)stages:\n\(stages)"),
                                   options: options)
    }

    func values(_ checked: CheckedRecipe, _ op: String) -> ParamSet? {
        checked.graph?.nodes.first { $0.op == op }?.params
    }

    @Test("exposure, white-balance's temp and tint and levels' black and white take auto and auto±n; the offset is kept as a number")
    func accepted() {
        let checked = check("  - exposure: auto\n  - exposure: auto-0.3\n  - white-balance: {temp: auto+500, tint: auto}\n  - levels: {black: auto, white: auto - 0.02, black-clip: 0.005}\n")
        #expect(!checked.hasErrors && checked.diagnostics.isEmpty, "\(checked.diagnostics.map(\.message))")
        let nodes = checked.graph?.nodes ?? []
        #expect(nodes.count == 5)
        #expect(nodes[1].params["ev"] == .auto && nodes[2].params["ev"] == .autoPlus(-0.3))
        #expect(nodes[3].params["temp"] == .autoPlus(500) && nodes[3].params["tint"] == .auto)
        #expect(nodes[4].params["black"] == .auto && nodes[4].params["white"] == .autoPlus(-0.02))
        #expect(ParamValue.autoPlus(-0.3).description == "auto-0.3" && ParamValue.autoPlus(500).description == "auto+500")
    }

    @Test("fmt writes the relative form canonically and reads it back the same")
    func formatted() throws {
        let checked = check("  - exposure: auto - 0.30\n  - levels: {white: auto+0.01, white-clip: 0.002}\n")
        let text = try #require(RecipePrinter.format(checked))
        #expect(text.contains("exposure: auto-0.3") && text.contains("white: auto+0.01"), "\(text)")
        let again = RecipeChecker.check(SourceFile(path: "b.recipe.yaml", text: text))
        #expect(again.graph?.signature == checked.graph?.signature)
    }

    @Test("mistakes: an offset beyond the range's width, a form that is not auto±number, a relative auto where auto is read rather than measured, clips without auto, black above white as numbers")
    func refused() {
        let cases: [(String, String)] = [
            ("  - exposure: auto+25\n", "the offset of `ev` of `exposure` is 25"),
            ("  - exposure: auto*2\n", "must be auto, auto plus or minus a number, or a number"),
            ("  - exposure: auto+-1\n", "must be auto, auto plus or minus a number"),
            ("  - lens: {focal: auto+5}\n", "`focal` of `lens`"),
            ("  - levels: {black: 0.1, black-clip: 0.01}\n", "`black-clip` goes with `black: auto`"),
            ("  - levels: {black: 0.6, white: 0.4}\n", "black (0.6) must be below white (0.4)"),
        ]
        for (stages, message) in cases {
            let checked = check(stages)
            #expect(checked.hasErrors && checked.diagnostics.contains { $0.message.contains(message) },
                    "\(stages): \(checked.diagnostics.map(\.message))")
        }
        // An auto point and a number: the measured one is not compared until it is measured.
        #expect(!check("  - levels: {black: auto, white: 0.01}\n").hasErrors)
    }

    @Test("a measured auto in a file of format 1.3 is read with warning R304, as a newer operation is")
    func version() {
        let checked = check("  - exposure: auto\n", version: "1.3")
        #expect(!checked.hasErrors)
        let warning = checked.diagnostics.first { $0.code == .newerOperation }
        #expect(warning?.message == "`auto` as `ev` of `exposure` came in format 1.4; this file says version 1.3", "\(checked.diagnostics.map(\.message))")
        // The lens's auto came with the lens, in 1.3.
        #expect(check("  - lens: {focal: auto}\n", version: "1.3").diagnostics.allSatisfy { $0.code != .newerOperation })
    }

    @Test("a param may hold auto, and --set gives it a number, auto or a relative auto")
    func params() {
        let params = "params: {ev: auto}\n"
        #expect(values(check("  - exposure: $ev\n", params: params), "exposure")?["ev"] == .auto)
        #expect(values(check("  - exposure: $ev\n", params: params, overrides: ["ev": "0.7"]), "exposure")?["ev"] == .number(0.7))
        #expect(values(check("  - exposure: $ev\n", params: "params: {ev: 0.2}\n", overrides: ["ev": "auto-0.3"]), "exposure")?["ev"] == .autoPlus(-0.3))
    }
}
