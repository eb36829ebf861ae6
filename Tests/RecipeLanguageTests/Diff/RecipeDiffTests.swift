import RecipeCore
@testable import RecipeLanguage
import Testing

/// `recipe diff` (RecipeDiff): hand-written pairs of recipes and the exact lines expected.
@Suite("recipe diff: semantic differences")
struct RecipeDiffTests {
    static let header = "format: dev.recipe.edit\nversion: 1.1\nstages:\n"

    static func document(_ text: String, path: String = "test.recipe.yaml") throws(RecipeDocument.Failure) -> RecipeDocument {
        try RecipeDocument.parse(SourceFile(path: path, text: text))
    }

    /// The diff of two recipes given as their stages (the header is added).
    static func diff(_ old: String, _ new: String, header: String = header) throws -> [String] {
        let a = try document(header + old, path: "old.recipe.yaml")
        let b = try document(header + new, path: "new.recipe.yaml")
        return RecipeDiff(old: a, new: b).lines
    }

    @Test("shorthand, a mapping and another spelling of the number are the same value")
    func shorthandEqualsMapping() throws {
        let lines = try Self.diff("  - exposure: 0.3\n", "  - exposure: {ev: 0.30}\n")
        #expect(lines.isEmpty, "\(lines)")
        let explicitDefault = try Self.diff("  - vignette: 0.3\n", "  - vignette: {amount: 0.3, radius: 1}\n")
        #expect(explicitDefault.isEmpty, "\(explicitDefault)")
    }

    @Test("formatting, key order and comments are no difference")
    func formatOnly() throws {
        let old = """
              - exposure: 0.3
              - id: sky
                exposure: -0.7
                mask: {gradient: {from: [0.5, 0], to: [0.5, 0.45]}}
              - blur: 12

            """
        let new = """
              # brighter
              - exposure:
                  ev: 0.3     # a third of a stop
              - mask:
                  gradient: {to: [0.5, 0.450], from: [.5, 0]}
                exposure: {ev: -0.70}
                id: sky
              - blur: {sigma: 12px}

            """
        let lines = try Self.diff(old, new)
        #expect(lines.isEmpty, "\(lines)")
    }

    @Test("a changed parameter: old and new value, on the stage it belongs to")
    func parameterChanged() throws {
        let lines = try Self.diff("  - exposure: 0.3\n  - id: sky\n    exposure: 0.3\n", "  - exposure: 0.3\n  - id: sky\n    exposure: -0.7\n")
        #expect(lines == ["stage 2 `sky` (exposure): ev 0.3 → -0.7"])
        let fromDefault = try Self.diff("  - vignette: 0.3\n", "  - vignette: {amount: 0.3, radius: 0.8}\n")
        #expect(fromDefault == ["stage 1 (vignette): radius 1 (default) → 0.8"])
    }

    @Test("a colour written as numbers is compared by its numbers, not rounded to #rrggbb")
    func colourNumbersCount() throws {
        // 0.3 and 0.302 are both #4d in hex; they are different colours.
        let lines = try Self.diff("  - colorize: {color: [0.3, 0.4, 0.2], amount: 0.2}\n",
                                  "  - colorize: {color: [0.302, 0.4, 0.2], amount: 0.2}\n")
        #expect(lines == ["stage 1 (colorize): color [0.3, 0.4, 0.2] → [0.302, 0.4, 0.2]"], "\(lines)")
        // A triple that is exactly a hex colour is that colour.
        let same = try Self.diff("  - colorize: {color: [0.2, 0.4, 0.6], amount: 0.2}\n",
                                 "  - colorize: {color: \"#336699\", amount: 0.2}\n")
        #expect(same.isEmpty, "\(same)")
        #expect(ParamValue.color(RGBColor(0.3, 0.4, 0.2)).description == "[0.3, 0.4, 0.2]")
        #expect(ParamValue.color(RGBColor(0.2, 0.4, 0.6)).description == "\"#336699\"")
    }

    @Test("an inserted stage is one addition, not every later stage changed")
    func added() throws {
        let old = "  - exposure: 0.3\n  - sepia: 0.4\n  - vignette: 0.3\n"
        let new = "  - exposure: 0.3\n  - id: glow\n    blur: {sigma: 1%}\n  - sepia: 0.4\n  - vignette: 0.3\n"
        #expect(try Self.diff(old, new) == ["+ stage 2 `glow`: blur 1%"])
    }

    @Test("a removed stage is named by its old position")
    func removed() throws {
        let lines = try Self.diff("  - exposure: 0.3\n  - sepia: 0.4\n  - vignette: 0.3\n", "  - exposure: 0.3\n  - vignette: 0.3\n")
        #expect(lines == ["- stage 2: sepia 0.4"])
    }

    @Test("a stage moved up is reported as moved, the stages it passed are not")
    func moved() throws {
        let old = "  - exposure: 0.3\n  - sepia: 0.4\n  - id: sky\n    exposure: -0.7\n  - vignette: 0.3\n"
        let new = "  - id: sky\n    exposure: -0.7\n  - exposure: 0.3\n  - sepia: 0.4\n  - vignette: 0.3\n"
        #expect(try Self.diff(old, new) == ["~ stage `sky` moved 3 → 1"])
    }

    @Test("a stage without an id moved past another and a removal: one move, one removal")
    func movedWithoutID() throws {
        let old = "  - exposure: -0.4\n  - blur: 1px\n  - enabled: false\n    contrast: 0.4\n  - sepia: 0.6\n"
        let new = "  - enabled: false\n    contrast: 0.4\n  - exposure: -0.4\n  - sepia: 0.6\n"
        #expect(try Self.diff(old, new) == ["- stage 2: blur 1px", "~ stage (contrast) moved 3 → 1"])
    }

    @Test("a parameter change among stages without ids: the stage is matched by its op")
    func changedWithoutID() throws {
        let old = "  - exposure: 0.3\n  - sepia: 0.4\n  - vignette: 0.3\n"
        let new = "  - exposure: 0.3\n  - sepia: 0.6\n  - vignette: 0.3\n"
        #expect(try Self.diff(old, new) == ["stage 2 (sepia): amount 0.4 → 0.6"])
    }

    @Test("enabled, mask, note and the op itself")
    func metaChanges() throws {
        let old = "  - exposure: 0.3\n  - sepia: 0.4\n  - id: sky\n    exposure: -0.7\n"
        let new = "  - exposure: 0.3\n  - enabled: false\n    sepia: 0.4\n  - id: sky\n    contrast: 0.2\n    note: punchier\n"
        #expect(try Self.diff(old, new) == [
            "stage 2 (sepia): enabled true → false",
            "stage 3 `sky`: exposure -0.7 → contrast 0.2, note: punchier",
        ])
    }

    @Test("header: version, note and params")
    func headerChanges() throws {
        let old = "format: dev.recipe.edit\nversion: 1.0\nparams:\n  warmth: 5200\n  grain: 0.1\nstages:\n  - white-balance: {temp: $warmth}\n  - vignette: {intensity: 0.4}\n"
        let new = "format: dev.recipe.edit\nversion: 1.1\nnote: warmer\nparams:\n  warmth: 5600\n  glow: 0.2\nstages:\n  - white-balance: {temp: $warmth}\n  - vignette: 0.4\n"
        let lines = RecipeDiff(old: try Self.document(old), new: try Self.document(new)).lines
        // The 1.0 vignette is migrated (`intensity` is now `amount`): no change in meaning.
        #expect(lines == ["version 1.0 → 1.1", "+ note: warmer", "param `warmth` 5200 → 5600", "- param `grain`: 0.1", "+ param `glow`: 0.2"])
    }

    @Test("a stage kind and a top-level key this build does not know are compared as plain YAML")
    func unknownKinds() throws {
        let old = """
            format: dev.recipe.edit
            version: 1.1
            provenance: {path: IMG_1.jpg, sha256: abc}
            stages:
              - id: imported
                foreign-layer: {format: com.adobe.crs, version: "1.5", pixels: base/1.png, data: aGVsbG8=}
              - exposure: 0.3

            """
        let new = """
            format: dev.recipe.edit
            version: 1.1
            provenance: {path: IMG_1.jpg, sha256: abc}
            stages:
              - id: imported
                foreign-layer:
                  format: com.adobe.crs
                  version: "1.6"
                  pixels: base/1.png
                  data: aGVsbG8=
              - exposure: 0.3
              - foreign-layer: {format: other, version: "2"}

            """
        let a = try Self.document(old), b = try Self.document(new)
        #expect(a.notes.contains("stage 1: `foreign-layer` is not an operation this build knows; compared as plain YAML"))
        #expect(RecipeDiff(old: a, new: b).lines == [
            "stage 1 `imported` (foreign-layer): version \"1.5\" → \"1.6\"",
            "+ stage 3: foreign-layer {format: other, version: \"2\"}",
        ])
        #expect(RecipeDiff(old: a, new: a).isEmpty)
    }

    @Test("a sidecar's original binding and frozen base layers are known keys, compared field by field")
    func sidecarKeys() throws {
        let digest = String(repeating: "ab", count: 32), other = String(repeating: "cd", count: 32)
        func sidecar(_ size: Int, _ version: String) -> String {
            """
            format: dev.recipe.edit
            version: 1.1
            original: {file: IMG_1.jpg, sha256: \(digest), size: \(size)}
            stages:
              - id: base-1
                base:
                  format: com.apple.photo
                  version: "\(version)"
                  pixels: {sha256: \(other), size: 812}
                  data: plist text
              - exposure: 0.3

            """
        }
        let a = try Self.document(sidecar(100, "1.5")), b = try Self.document(sidecar(101, "1.6"))
        let quiet = a.notes.isEmpty && b.notes.isEmpty
        #expect(quiet)
        let lines = RecipeDiff(old: a, new: b).lines
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("original {file: IMG_1.jpg") == true)
        #expect(lines.last == "stage 1 `base-1` (base): version \"1.5\" → \"1.6\"")
    }

    @Test("an added file: everything is new")
    func addedFile() throws {
        let b = try Self.document(Self.header + "  - sepia: 0.4\n")
        let lines = RecipeDiff(old: .empty(path: "/dev/null"), new: b).lines
        #expect(lines == ["+ format: dev.recipe.edit", "+ version: 1.1", "+ stage 1: sepia 0.4"])
    }

    @Test("a file that is not a valid recipe is refused, naming the file and the reason")
    func invalid() throws {
        var failure: RecipeDocument.Failure?
        do {
            _ = try Self.document(Self.header + "  - exposure: 12\n", path: "bad.recipe.yaml")
        } catch {
            failure = error
        }
        let description = failure?.description ?? ""
        #expect(description.hasPrefix("bad.recipe.yaml: not a valid recipe: `ev` of `exposure`"))
        #expect(failure?.diagnostics.first?.code == .outOfRange)
    }

    // MARK: - the alignment underneath

    @Test("LCS: common ends first, then the table; longest in-order run prefers the stages that stayed")
    func alignment() {
        let a = Array("abcxdef"), b = Array("abdyef")
        let pairs = StageMatching.lcs(a.count, b.count) { a[$0] == b[$1] }
        #expect(pairs.map { String(a[$0.0]) }.joined() == "abdef")
        // 0→1, 1→2, 2→0: the stage that travelled two places moved, not the two that shifted by one.
        let kept = StageMatching.inOrder([(0, 1), (1, 2), (2, 0)])
        #expect(kept == [0, 1])
        #expect(StageMatching.longestIncreasing([3, 1, 2, 5, 4]).count == 3)
    }
}
