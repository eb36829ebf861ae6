import Foundation
import RecipeCore
@testable import RecipeLanguage
import Testing
import TestSupport

/// `output:`: the colour and export settings as checked, and each mistake's diagnostic.
@Suite("output: settings")
struct OutputSettingsTests {
    func check(_ output: String, path: String = "t.recipe.yaml", existing: Bool = false) -> CheckedRecipe {
        var options = CheckOptions()
        options.checkFilesExist = existing
        let text = "format: dev.recipe.edit\nversion: 1.2\noutput: \(output)\nstages:\n  - exposure: 0.1\n"
        return RecipeChecker.check(SourceFile(path: path, text: text), options: options)
    }

    @Test("every setting is read: format, quality, max-bytes with its unit, sharpen in both forms, watermark with defaults, metadata in both forms")
    func readsEverySetting() throws {
        let c = check("""
            {profile: srgb, intent: perceptual, format: webp, quality: 80, max-bytes: 1.5M, sharpen: {for: matte, amount: high},
                     watermark: {image: marks/logo.png, position: top, scale: 30%, opacity: 0.5},
                     metadata: {keep: copyright, strip: [location, serials], copyright: "© 2026 Zoë", creator: A. Person}}
            """, path: "looks/t.recipe.yaml")
        #expect(!c.hasErrors, "\(c.diagnostics)")
        let o = try #require(c.output)
        #expect(o.profile == "srgb" && o.intent == "perceptual" && o.format == "webp" && o.quality == 80)
        #expect(o.maxBytes == 1_572_864)
        #expect(o.sharpen == CheckedRecipe.Sharpening(target: "matte", amount: "high"))
        let w = try #require(o.watermark)
        #expect(w.image == "marks/logo.png" && w.path == "looks/marks/logo.png" && w.position == "top")
        #expect(abs(w.scale - 0.3) < 1e-12 && w.margin == 0.02 && w.opacity == 0.5)
        let m = try #require(o.metadata)
        #expect(m.keep == "copyright" && m.stripLocation && m.stripSerials && m.copyright == "© 2026 Zoë" && m.creator == "A. Person")
        let short = check("{sharpen: screen, metadata: none, max-bytes: 300K, watermark: {image: l.png}}")
        #expect(short.output?.sharpen == CheckedRecipe.Sharpening(target: "screen", amount: "standard"))
        #expect(short.output?.metadata?.keep == "none" && short.output?.maxBytes == 307_200)
        #expect(short.output?.watermark?.position == "bottom-right" && short.output?.watermark?.scale == 0.2 && short.output?.watermark?.opacity == 0.7)
    }

    @Test("a later recipe's settings win one by one (merged)")
    func merging() {
        var first = CheckedRecipe.Output(profile: "srgb")
        first.quality = 70
        first.format = "png"
        var later = CheckedRecipe.Output(intent: "absolute")
        later.format = "jpeg"
        let both = first.merged(with: later)
        #expect(both.profile == "srgb" && both.intent == "absolute" && both.quality == 70 && both.format == "jpeg")
        // The signature's first line is the colour line apply's keys always had.
        #expect(CheckedRecipe.Output(profile: "srgb").signature == "output srgb -\n")
        #expect(both.signature.contains("format jpeg\n") && both.signature.contains("quality 70\n"))
    }

    @Test("each mistake is its diagnostic, at the value", arguments: [
        ("{format: jpg}", DiagnosticCode.invalidChoice, "did you mean `jpeg`?"),
        ("{quality: 0}", .outOfRange, "outside 1…100"),
        ("{quality: 85.5}", .wrongType, "a whole number"),
        ("{max-bytes: 300X}", .badUnit, "such as `300K`"),
        ("{max-bytes: 10}", .outOfRange, "outside 1K…1G"),
        ("{sharpen: print}", .invalidChoice, "`screen`, `matte` or `glossy`"),
        ("{sharpen: {amount: high}}", .missingParameter, "needs `for`"),
        ("{sharpen: {for: screen, amount: max}}", .invalidChoice, "`low`, `standard` or `high`"),
        ("{watermark: {position: top}}", .missingParameter, "needs `image`"),
        ("{watermark: {image: logo.jpg}}", .wrongType, "must name a .png"),
        ("{watermark: {image: ../logo.png}}", .fileOutsideRecipe, "outside the recipe's folder"),
        ("{watermark: {image: l.png, scale: 200%}}", .outOfRange, "outside 1%…100%"),
        ("{watermark: {image: l.png, opacity: 2}}", .outOfRange, "outside 0…1"),
        ("{watermark: {image: l.png, place: top}}", .unknownKey, "valid keys of `watermark`"),
        ("{metadata: {strip: [gps]}}", .invalidChoice, "`location` or `serials`"),
        ("{metadata: {copyright: [a]}}", .wrongType, "one line of text"),
        ("{metadata: some}", .invalidChoice, "`all`, `copyright` or `none`"),
        ("{colour: srgb}", .unknownKey, "valid keys of `output`"),
    ])
    func mistakes(_ output: String, _ code: DiagnosticCode, _ words: String) {
        let c = check(output)
        let d = c.diagnostics.first { $0.code == code }
        let text = c.diagnostics.map { DiagnosticPrinter.render($0, source: c.file) }.joined(separator: "\n")
        #expect(d != nil && text.contains(words), "\(output): \(text)")
        #expect(d?.range?.start.line == 3, "\(output): not on the output line")
    }

    @Test("a watermark that is not there is R220, as a LUT's")
    func missingWatermark() {
        let c = check("{watermark: {image: nowhere.png}}", path: "/nonexistent-folder/t.recipe.yaml", existing: true)
        #expect(c.diagnostics.contains { $0.code == .missingFile })
    }
}
