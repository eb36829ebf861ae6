import RecipeCore
@testable import RecipeLanguage
import Testing

/// `recipe merge-file` (RecipeMerge): hand-written base/ours/theirs triples, the exact merged text,
/// and whether it checks (clean merges must; conflicted ones must fail with R225 only).
@Suite("recipe merge-file: three-way merges")
struct RecipeMergeTests {
    static let header = "format: dev.recipe.edit\nversion: 1.1\nstages:\n"

    /// Merges three recipes given whole, as merge-file reads them (canonical form first).
    static func merge(_ base: String, _ ours: String, _ theirs: String) throws -> RecipeMerge {
        func load(_ text: String, _ name: String) throws -> RecipeDocument {
            try RecipeDocument.parse(SourceFile(path: name, text: text), canonical: true)
        }
        return RecipeMerge(base: try load(base, "base.recipe.yaml"), ours: try load(ours, "ours.recipe.yaml"),
                           theirs: try load(theirs, "theirs.recipe.yaml"))
    }

    /// Merges three lists of stages (the header is added to each and to the expected text).
    static func mergeStages(_ base: String, _ ours: String, _ theirs: String) throws -> RecipeMerge {
        try merge(header + base, header + ours, header + theirs)
    }

    /// Merges three lists of stages and expects a clean result, exactly `expected` (stages), that checks.
    func expectClean(_ base: String, _ ours: String, _ theirs: String, _ expected: String,
                     sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let merge = try Self.mergeStages(base, ours, theirs)
        #expect(merge.isClean, "conflicts: \(merge.conflicts)", sourceLocation: sourceLocation)
        #expect(merge.text == Self.header + expected, sourceLocation: sourceLocation)
        #expect(Self.checkCodes(merge.text).isEmpty, sourceLocation: sourceLocation)
    }

    /// The codes `recipe check` reports for a merged text.
    static func checkCodes(_ text: String) -> [String] {
        var options = CheckOptions()
        options.checkFilesExist = false
        let checked = RecipeChecker.check(SourceFile(path: "merged.recipe.yaml", text: text), options: options)
        return checked.diagnostics.filter { $0.severity == .error }.map(\.code.rawValue)
    }

    @Test("edits of different stages merge clean, in canonical form, and check")
    func disjointEdits() throws {
        let base = "  - exposure: 0.3\n  - sepia: 0.4\n  - vignette: 0.3\n"
        let ours = "  - exposure: {ev: 0.50}\n  - sepia: 0.4\n  - vignette: 0.3\n"
        let theirs = "  - exposure: 0.3\n  - sepia: 0.4\n  - vignette: {amount: 0.3, radius: 0.8}\n"
        try expectClean(base, ours, theirs, "  - exposure: 0.5\n  - sepia: 0.4\n  - vignette: {amount: 0.3, radius: 0.8}\n")
    }

    @Test("different parameters of one stage merge clean")
    func sameStageDifferentParameters() throws {
        let base = "  - id: v\n    vignette: {amount: 0.3}\n"
        let ours = "  - id: v\n    vignette: {amount: 0.5}\n"
        let theirs = "  - id: v\n    vignette: {amount: 0.3, radius: 0.8}\n    note: softer\n"
        try expectClean(base, ours, theirs, "  - id: v\n    vignette: {amount: 0.5, radius: 0.8}\n    note: softer\n")
    }

    @Test("the same change on both sides is taken once")
    func bothSidesSame() throws {
        let base = "  - exposure: 0.3\n"
        let both = "  - exposure: 0.5\n  - sepia: 0.4\n"
        try expectClean(base, both, "  - exposure: {ev: 0.5}\n  - sepia: {amount: 0.40}\n", both)
    }

    @Test("stages added on both sides are both kept, ours first")
    func bothAdded() throws {
        let base = "  - exposure: 0.3\n  - vignette: 0.3\n"
        let ours = "  - exposure: 0.3\n  - sepia: 0.4\n  - vignette: 0.3\n"
        let theirs = "  - exposure: 0.3\n  - blur: 2px\n  - vignette: 0.3\n  - sharpen: 0.5\n"
        try expectClean(base, ours, theirs, "  - exposure: 0.3\n  - sepia: 0.4\n  - blur: 2px\n  - vignette: 0.3\n  - sharpen: 0.5\n")
    }

    @Test("a stage deleted on one side and unchanged on the other is deleted")
    func deleteUnchanged() throws {
        let base = "  - exposure: 0.3\n  - sepia: 0.4\n  - vignette: 0.3\n"
        let ours = "  - exposure: 0.3\n  - vignette: 0.3\n"
        let theirs = "  - exposure: 0.7\n  - sepia: 0.4\n  - vignette: 0.3\n"
        try expectClean(base, ours, theirs, "  - exposure: 0.7\n  - vignette: 0.3\n")
    }

    @Test("theirs moves a stage while ours edits another: both happen")
    func moveAndEdit() throws {
        let base = "  - exposure: 0.3\n  - sepia: 0.4\n  - id: sky\n    exposure: -0.7\n"
        let ours = "  - exposure: 0.3\n  - sepia: 0.6\n  - id: sky\n    exposure: -0.7\n"
        let theirs = "  - id: sky\n    exposure: -0.7\n  - exposure: 0.3\n  - sepia: 0.4\n"
        try expectClean(base, ours, theirs, "  - id: sky\n    exposure: -0.7\n  - exposure: 0.3\n  - sepia: 0.6\n")
    }

    @Test("a parameter changed differently on both sides is marked with every value, and check fails with R225")
    func parameterConflict() throws {
        let base = "  - id: sky\n    exposure: 0.3\n  - sepia: 0.4\n"
        let ours = "  - id: sky\n    exposure: 0.5\n  - sepia: 0.4\n"
        let theirs = "  - id: sky\n    exposure: 0.7\n  - sepia: 0.5\n"
        let merge = try Self.mergeStages(base, ours, theirs)
        #expect(!merge.isClean)
        #expect(merge.conflicts == ["stage 1 `sky` (exposure): ev: ours 0.5, theirs 0.7, base 0.3"])
        let expected = Self.header + """
              - id: sky
                exposure:
                  ev: {conflict: {ours: 0.5, theirs: 0.7, base: 0.3}}
              - sepia: 0.5

            """
        #expect(merge.text == expected)
        #expect(Self.checkCodes(merge.text) == ["R225"])
    }

    @Test("deleted on one side and changed on the other: the whole stage is marked")
    func deleteModifyConflict() throws {
        let base = "  - exposure: 0.3\n  - sepia: 0.4\n"
        let ours = "  - exposure: 0.3\n"
        let theirs = "  - exposure: 0.3\n  - sepia: 0.6\n"
        let merge = try Self.mergeStages(base, ours, theirs)
        #expect(merge.conflicts == ["stage 2: ours deleted it, theirs changed it to sepia 0.6"])
        let expected = Self.header + """
              - exposure: 0.3
              - conflict:
                  ours: null
                  theirs: {sepia: 0.6}
                  base: {sepia: 0.4}

            """
        #expect(merge.text == expected)
        #expect(Self.checkCodes(merge.text) == ["R225"])
        // Picking theirs resolves it.
        let resolved = merge.text.replacingOccurrences(of: "  - conflict:\n      ours: null\n      theirs: {sepia: 0.6}\n      base: {sepia: 0.4}\n", with: "  - sepia: 0.6\n")
        #expect(Self.checkCodes(resolved).isEmpty)
    }

    @Test("comments stay with the stages they belong to")
    func comments() throws {
        let base = "# the look\n" + Self.header + "  - exposure: 0.3\n  - sepia: 0.4\n"
        let ours = "# the look\n" + Self.header + "  - exposure: 0.5  # brighter\n  - sepia: 0.4\n"
        let theirs = "# the look\n" + Self.header + "  - exposure: 0.3\n  # old film\n  - sepia: 0.6\n"
        let merge = try Self.merge(base, ours, theirs)
        #expect(merge.isClean)
        #expect(merge.text == "# the look\n" + Self.header + "  - exposure: 0.5  # brighter\n  # old film\n  - sepia: 0.6\n")
    }

    @Test("header and params: one-sided changes are taken, different ones conflict")
    func header() throws {
        let base = "format: dev.recipe.edit\nversion: 1.1\nparams:\n  warmth: 5200\n  strength: 0.3\nstages:\n  - white-balance: $warmth\n  - vignette: $strength\n"
        let ours = "format: dev.recipe.edit\nversion: 1.1\nnote: warmer\nparams:\n  warmth: 5600\n  strength: 0.3\nstages:\n  - white-balance: $warmth\n  - vignette: $strength\n"
        let theirs = "format: dev.recipe.edit\nversion: 1.1\nparams:\n  warmth: 5200\n  strength: 0.5\nstages:\n  - white-balance: $warmth\n  - vignette: $strength\n"
        let clean = try Self.merge(base, ours, theirs)
        #expect(clean.isClean)
        #expect(clean.text == "format: dev.recipe.edit\nversion: 1.1\nnote: warmer\nparams:\n  warmth: 5600\n  strength: 0.5\nstages:\n  - white-balance: $warmth\n  - vignette: $strength\n")

        let other = theirs.replacingOccurrences(of: "warmth: 5200", with: "warmth: 6000")
        let conflicted = try Self.merge(base, ours, other)
        #expect(conflicted.conflicts == ["param `warmth`: ours 5600, theirs 6000, base 5200"])
        #expect(conflicted.text.contains("  warmth: {conflict: {ours: 5600, theirs: 6000, base: 5200}}\n"))
        #expect(Self.checkCodes(conflicted.text) == ["R225"])
    }

    @Test("a stage kind this build does not know merges field by field")
    func unknownKind() throws {
        func recipe(_ version: String, _ ev: String) -> String {
            Self.header + "  - id: imported\n    foreign-layer: {format: com.adobe.crs, version: \"\(version)\", data: aGVsbG8=}\n  - exposure: \(ev)\n"
        }
        let merge = try Self.merge(recipe("1.5", "0.3"), recipe("1.5", "0.5"), recipe("1.6", "0.3"))
        #expect(merge.isClean)
        #expect(merge.text == recipe("1.6", "0.5"))
        let conflicted = try Self.merge(recipe("1.5", "0.3"), recipe("1.7", "0.3"), recipe("1.6", "0.3"))
        #expect(conflicted.conflicts == ["stage 1 `imported` (foreign-layer): version: ours \"1.7\", theirs \"1.6\", base \"1.5\""])
    }
}
