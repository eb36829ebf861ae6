import RecipeCore
@testable import RecipeLanguage
import Testing

/// The YAML layer: positions, and the bounds on what hostile input may cost.
@Suite("YAML reader")
struct ReaderTests {
    func read(_ text: String, limits: YAMLReader.Limits = .init()) -> (YAMLNode?, [Diagnostic]) {
        YAMLReader.read(SourceFile(path: "t.yaml", text: text), limits: limits)
    }

    @Test("every node has line and column; columns count characters, offsets bytes")
    func positions() throws {
        let (root, diagnostics) = read("a: 1\nnote: \"héllo\"\nb: [x, 2]\n")
        #expect(diagnostics.isEmpty)
        let pairs = try #require(root?.mapping)
        #expect(pairs[0].value.range.start.line == 1 && pairs[0].value.range.start.column == 4)
        #expect(pairs[1].value.range.start == SourceLocation(line: 2, column: 7, offset: 11))
        #expect(pairs[1].value.range.end.column == 14)  // 7 characters "héllo" with quotes
        let list = try #require(pairs[2].value.sequence)
        #expect(list[1].range.start.line == 3 && list[1].range.start.column == 8)
        #expect(pairs[2].value.flow)
    }

    @Test("a UTF-8 byte order mark (as some Windows editors save) is skipped: the recipe checks, positions stay right")
    func byteOrderMark() throws {
        let text = "\u{FEFF}format: dev.recipe.edit\nversion: 1.1\nstages:\n  - exposure: 0.3\n"
        let (root, diagnostics) = read(text)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        let pairs = try #require(root?.mapping)
        // The first key is `format`, not "\u{FEFF}format"; its value after "<BOM>format: " is column 10
        // (the mark is a character of line 1), byte 11 (the mark is 3 bytes).
        #expect(pairs.map(\.key.scalar) == ["format", "version", "stages"])
        #expect(pairs[0].value.range.start == SourceLocation(line: 1, column: 10, offset: 11))
        #expect(!RecipeChecker.check(SourceFile(path: "bom.recipe.yaml", text: text)).hasErrors)
        // An error on line 1 still points at its column.
        let bad = RecipeChecker.check(SourceFile(path: "bom.recipe.yaml", text: "\u{FEFF}format: [\n"))
        #expect(bad.hasErrors)
    }

    @Test("duplicate keys are reported with the first one (libyaml accepts them silently)")
    func duplicates() {
        let (_, d) = read("stages:\n  - exposure: 1\n    exposure: 2\n")
        #expect(d.count == 1)
        #expect(d.first?.code == .duplicateKey)
        #expect(d.first?.range?.start.line == 3)
        #expect(d.first?.notes.first?.range?.start.line == 2)
    }

    @Test("billion laughs: alias expansion past the budget is refused")
    func aliasBomb() {
        var text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for i in 1...9 { text += "a\(i): &a\(i) [" + Array(repeating: "*a\(i - 1)", count: 10).joined(separator: ", ") + "]\n" }
        // 10^10 nodes if expanded; the budget stops it after 10,000.
        let result = read(text)
        #expect(result.1.contains { $0.code == .aliasBudget })
        #expect(result.0 == nil)
    }

    @Test("a few aliases within the budget expand to copies")
    func smallAliases() throws {
        let (root, d) = read("base: &b {ev: 0.3}\nother: *b\n")
        #expect(d.isEmpty)
        let pairs = try #require(root?.mapping)
        #expect(pairs[1].value.mapping?.first?.value.scalar == "0.3")
        #expect(pairs[1].value.range.start.line == 2)  // reported where the alias is used
    }

    @Test("an alias naming no anchor is an error, not a crash")
    func undefinedAlias() {
        let (_, d) = read("a: *nowhere\n")
        #expect(d.first?.code == .yamlSyntax)
        #expect(d.first?.message.contains("nowhere") == true)
    }

    @Test("nesting deeper than the limit is refused without recursion")
    func depth() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let (root, d) = read("a: " + deep + "\n")
        #expect(root == nil)
        #expect(d.first?.code == .nestingTooDeep)
        let (ok, d2) = read("a: " + String(repeating: "[", count: 60) + String(repeating: "]", count: 60) + "\n")
        #expect(ok != nil && d2.isEmpty)
    }

    @Test("files over the size limit are refused before parsing")
    func size() {
        var limits = YAMLReader.Limits()
        limits.maxBytes = 100
        let (root, d) = read(String(repeating: "# padding\n", count: 20), limits: limits)
        #expect(root == nil)
        #expect(d.first?.code == .fileTooLarge)
    }

    @Test("tags beyond YAML's core schema are refused; core tags pass")
    func tags() {
        #expect(read("a: !!python/object:os.system x\n").1.first?.code == .unknownTag)
        #expect(read("a: !custom 3\n").1.first?.code == .unknownTag)
        #expect(read("a: !!str 3\n").1.isEmpty)
    }

    @Test("a second document is reported at its start")
    func documents() {
        let d = read("a: 1\n---\nb: 2\n").1
        #expect(d.first?.code == .multipleDocuments)
        #expect(d.first?.range?.start.line == 2)
        #expect(read("---\na: 1\n...\n").1.isEmpty)
    }

    @Test("syntax errors carry libyaml's problem and position; tabs get a note")
    func syntax() {
        let d = read("a: [1, 2\nb: 3\n").1
        #expect(d.first?.code == .yamlSyntax)
        #expect(d.first?.range != nil)
        let tabs = read("a:\n\tb: 1\n").1
        #expect(tabs.first?.notes.contains { $0.message.contains("tabs") } == true)
    }

    @Test("invalid UTF-8 and NUL bytes are errors, not crashes")
    func bytes() {
        let bad = SourceFile(path: "t.yaml", bytes: Array("a: ".utf8) + [0xFF, 0xFE, 0x00, 0x41] + [0x0A])
        let (_, d) = YAMLReader.read(bad)
        #expect(d.first?.code == .yamlSyntax)
    }
}
