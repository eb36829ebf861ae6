import Foundation
import Testing
@testable import RecipeLanguage
import RecipeCore
import RecipeOps
import TestSupport

/// Every diagnostic code has a fixture recipe under `Fixtures/diagnostics/` (named
/// `Rnnn-what.recipe.yaml`) with the expected diagnostics marked in the file itself, right below
/// the offending line (STYLE.md rule 7):
///
/// ```yaml
///   - saturaton: 1.2
/// #   ^ R204 unknown operation `saturaton`
/// ```
///
/// A marker is a comment line `#`, blanks, `^`, a space, the code, a space and the exact message.
/// The column of the `^` (1-based, in characters) is the expected column; the expected line is
/// the nearest line above that is not itself a marker. A diagnostic at column 1, where the marker's
/// own `#` has to stand, is marked `#<` at the start of the line. R105 (file too large) and R107
/// (unreadable file) need a file system, so their cases are generated here instead.
///
/// Grammar/diagnostics.md is kept true here too: one `## Rnnn title` heading per code and none
/// for codes that do not exist, each section quoting the message the tool prints.
@Suite struct DiagnosticFixtureTests {
    static let testsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let fixtureFolder = testsFolder.appendingPathComponent("Fixtures/diagnostics")
    static let packageRoot = testsFolder.deletingLastPathComponent().deletingLastPathComponent()

    /// The fixture file names, sorted.
    static let fixtureNames: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: fixtureFolder.path)) ?? []
        return names.filter { $0.hasSuffix(".recipe.yaml") }.sorted()
    }()

    /// The codes whose cases are built in the tests below rather than committed.
    static let generatedCodes: Set<DiagnosticCode> = [.fileTooLarge, .unreadableFile, .tooManyStages]

    // MARK: - markers

    /// One expected diagnostic, as a marker line states it.
    struct Marker: Hashable, CustomStringConvertible {
        var line: Int
        var column: Int
        var code: String
        var message: String
        /// The marker's own line, for failure messages.
        var markerLine: Int

        var description: String { "\(line):\(column) \(code) \(message) (marker on line \(markerLine))" }
    }

    enum MarkerLine: Equatable {
        case marker(column: Int, code: String, message: String)
        /// Looks like a marker (`#` … `^` or `#<`) but has no `Rnnn message` after it.
        case malformed
    }

    /// Parses one source line: nil when it is not a marker line.
    static func parseMarker(_ line: String) -> MarkerLine? {
        let s = Array(line.unicodeScalars)
        var i = 0
        while i < s.count, s[i] == " " { i += 1 }
        guard i < s.count, s[i] == "#" else { return nil }
        var j = i + 1
        let column: Int
        if i == 0, j < s.count, s[j] == "<" {
            column = 1
            j += 1
        } else {
            while j < s.count, s[j] == " " { j += 1 }
            guard j < s.count, s[j] == "^" else { return nil }
            column = j + 1
            j += 1
        }
        let rest = String(String.UnicodeScalarView(s[j...]))
        guard rest.hasPrefix(" R"), rest.count > 6 else { return .malformed }
        let code = String(rest.dropFirst().prefix(4))
        let digits = code.dropFirst()
        guard digits.count == 3, digits.allSatisfy(\.isNumber), rest.dropFirst(5).first == " " else { return .malformed }
        let message = String(rest.dropFirst(6))
        guard !message.isEmpty else { return .malformed }
        return .marker(column: column, code: code, message: message)
    }

    /// Every marker of a fixture's text, and the line numbers of malformed ones.
    static func markers(in text: String) -> (markers: [Marker], malformed: [Int]) {
        var markers: [Marker] = [], malformed: [Int] = []
        var target = 0  // the last line that is not a marker
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            switch parseMarker(String(line)) {
            case nil:
                target = number
            case .malformed?:
                malformed.append(number)
            case .marker(let column, let code, let message)?:
                markers.append(Marker(line: target, column: column, code: code, message: message, markerLine: number))
            }
        }
        return (markers, malformed)
    }

    static func checkFixture(_ name: String) throws -> (SourceFile, CheckedRecipe) {
        let path = fixtureFolder.appendingPathComponent(name).path
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var options = CheckOptions()
        // R219 and R220 fixtures name files outside the folder or missing ones; no fixture names
        // a file that exists, so existence is checked for all of them.
        options.checkFilesExist = true
        options.allowFilesOutside = false
        let file = SourceFile(path: path, bytes: bytes)
        return (file, RecipeChecker.check(file, options: options))
    }

    static func show(_ d: Diagnostic) -> String {
        let at = d.range.map { "\($0.start.line):\($0.start.column)" } ?? "-"
        return "\(at) \(d.severity.rawValue)[\(d.code.rawValue)] \(d.message)"
    }

    // MARK: - the fixtures

    @Test("marker lines are read as documented")
    func markerSyntax() {
        #expect(Self.parseMarker("#   ^ R204 unknown operation `saturaton`")
                == .marker(column: 5, code: "R204", message: "unknown operation `saturaton`"))
        #expect(Self.parseMarker("#< R203 unknown key `notes` in the recipe")
                == .marker(column: 1, code: "R203", message: "unknown key `notes` in the recipe"))
        #expect(Self.parseMarker("    #  ^ R106 duplicate key `amount`")
                == .marker(column: 8, code: "R106", message: "duplicate key `amount`"))
        #expect(Self.parseMarker("# a plain comment") == nil)
        #expect(Self.parseMarker("  - exposure: 0.3") == nil)
        #expect(Self.parseMarker("#   ^ unknown operation") == .malformed)
        #expect(Self.parseMarker("#   ^ R20 unknown") == .malformed)
        let text = "stages:\n  - saturaton: 1.2\n#   ^ R204 first\n#   ^ R300 second\n  - x: 1\n"
        let (markers, malformed) = Self.markers(in: text)
        #expect(malformed.isEmpty)
        #expect(markers.map(\.line) == [2, 2])
        #expect(markers.map(\.code) == ["R204", "R300"])
    }

    @Test("each fixture gives exactly its marked diagnostics", arguments: fixtureNames)
    func fixture(_ name: String) throws {
        let (file, checked) = try Self.checkFixture(name)
        let text = String(decoding: file.bytes, as: UTF8.self)
        let (markers, malformed) = Self.markers(in: text)
        #expect(malformed.isEmpty, "malformed marker lines \(malformed) in \(name)")
        #expect(!markers.isEmpty, "\(name) marks no diagnostic")
        let named = String(name.prefix(4))
        #expect(markers.contains { $0.code == named }, "\(name) marks no \(named) diagnostic")

        var matched = Set<Int>()  // indices into checked.diagnostics
        for marker in markers {
            #expect(DiagnosticCode(rawValue: marker.code) != nil, "\(name): marker for a code that does not exist: \(marker)")
            let hit = checked.diagnostics.indices.first { i in
                let d = checked.diagnostics[i]
                return !matched.contains(i) && d.code.rawValue == marker.code && d.message == marker.message
                    && d.range?.start.line == marker.line && d.range?.start.column == marker.column
            }
            if let hit {
                matched.insert(hit)
                #expect(checked.diagnostics[hit].file == file.path)
            } else {
                let found = checked.diagnostics.map(Self.show).joined(separator: "\n  ")
                Issue.record("\(name): no diagnostic matches the marker \(marker)\n  the check gave:\n  \(found)")
            }
        }
        for (i, d) in checked.diagnostics.enumerated() where d.severity == .error && !matched.contains(i) {
            Issue.record("\(name): error not marked in the fixture: \(Self.show(d))")
        }
        // A file with errors compiles to no graph; one with only warnings does.
        #expect((checked.graph == nil) == checked.hasErrors || checked.root == nil)
    }

    @Test("every diagnostic code has a fixture or a generated case")
    func everyCodeIsCovered() {
        #expect(Set(Self.fixtureNames.map { String($0.prefix(4)) }).count >= DiagnosticCode.allCases.count - Self.generatedCodes.count)
        for code in DiagnosticCode.allCases {
            let fixtures = Self.fixtureNames.filter { $0.hasPrefix(code.rawValue + "-") }
            if Self.generatedCodes.contains(code) {
                #expect(fixtures.isEmpty, "\(code.rawValue) is generated in the tests; its fixture would go untested")
            } else {
                #expect(!fixtures.isEmpty, "no fixture Fixtures/diagnostics/\(code.rawValue)-….recipe.yaml")
            }
        }
        for name in Self.fixtureNames {
            #expect(DiagnosticCode(rawValue: String(name.prefix(4))) != nil, "fixture \(name) is named for no code")
        }
    }

    // MARK: - generated cases (R105, R107)

    static let tooLargeBytes = (1 << 20) + 1
    static let tooLargeMessage = "recipe file is \(tooLargeBytes) bytes; the limit is \(1 << 20)"
    static let unreadableMessage = "cannot open the recipe: no such file or directory"

    /// A recipe padded with comment lines to just over 1 MiB.
    static func oversizedRecipe() -> [UInt8] {
        var text = "format: dev.recipe.edit\nversion: 1.1\nstages:\n  - exposure: 0.3\n"
        let filler = "# " + String(repeating: "x", count: 77) + "\n"
        while text.utf8.count + filler.utf8.count <= tooLargeBytes { text += filler }
        text += String(repeating: "#", count: tooLargeBytes - text.utf8.count)
        return Array(text.utf8)
    }

    @Test("R105: a file over 1 MiB is refused, in memory and on disk")
    func fileTooLarge() throws {
        let bytes = Self.oversizedRecipe()
        #expect(bytes.count == Self.tooLargeBytes)
        let inMemory = RecipeChecker.check(SourceFile(path: "big.recipe.yaml", bytes: bytes))
        #expect(inMemory.diagnostics.map(\.code) == [.fileTooLarge])
        #expect(inMemory.diagnostics.first?.message == Self.tooLargeMessage)
        #expect(inMemory.diagnostics.first?.range == nil)
        #expect(inMemory.diagnostics.first?.file == "big.recipe.yaml")

        let dir = TestPaths.temporaryDirectory("recipe-r105")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("big.recipe.yaml").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let loaded = RecipeChecker.load(path: path)
        #expect(loaded.diagnostics.map(\.code) == [.fileTooLarge])
        #expect(loaded.diagnostics.first?.message == Self.tooLargeMessage)
        #expect(loaded.diagnostics.first?.file == path)

        // Exactly at the limit is still read (and is a fine, if long, recipe).
        let atLimit = Array(bytes.dropLast())
        #expect(!RecipeChecker.check(SourceFile(path: "limit.recipe.yaml", bytes: atLimit)).hasErrors)
    }

    static let tooManyStagesMessage = "stage 257 is over the limit of 256 stages (the recipe has 10000)"

    @Test("R108: a recipe of 10,000 stages is refused at the 257th, before any stage is checked; 256 are fine")
    func tooManyStages() throws {
        let header = "format: dev.recipe.edit\nversion: 1.1\nstages:\n"
        let many = RecipeChecker.check(SourceFile(path: "many.recipe.yaml", text: header + String(repeating: "  - blur: 5%\n", count: 10_000)))
        #expect(many.diagnostics.map(\.code) == [.tooManyStages])
        #expect(many.diagnostics.first?.message == Self.tooManyStagesMessage)
        #expect(many.diagnostics.first?.range?.start.line == 4 + 256)
        #expect(many.graph == nil)
        let limit = RecipeChecker.check(SourceFile(path: "limit.recipe.yaml", text: header + String(repeating: "  - exposure: 0.01\n", count: 256)))
        #expect(!limit.hasErrors && limit.stages.count == 256)
    }

    @Test("R107: a missing path or a folder cannot be read")
    func unreadableFile() throws {
        let dir = TestPaths.temporaryDirectory("recipe-r107")
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = dir.appendingPathComponent("gone.recipe.yaml").path
        let checked = RecipeChecker.load(path: missing)
        #expect(checked.diagnostics.count == 1)
        let d = try #require(checked.diagnostics.first)
        #expect(d.code == .unreadableFile)
        #expect(d.severity == .error)
        #expect(d.range == nil)
        #expect(d.message == Self.unreadableMessage)
        #expect(d.file == missing)
        // The message does not depend on where the file was looked for; the position is the path.
        #expect(DiagnosticPrinter.render(d, source: nil) == "\(missing): error[R107]: \(Self.unreadableMessage)\n")

        let folder = RecipeChecker.load(path: dir.path)
        #expect(folder.diagnostics.map(\.code) == [.unreadableFile])
        #expect(folder.diagnostics.first?.message == "is a directory, not a regular file")
    }

    // MARK: - rendered and JSON forms

    @Test("the rendered form: position, severity and code, source line, caret under the name")
    func renderedForm() throws {
        let name = "R204-unknown-operation.recipe.yaml"
        let bytes = try [UInt8](Data(contentsOf: Self.fixtureFolder.appendingPathComponent(name)))
        let file = SourceFile(path: name, bytes: bytes)
        let checked = RecipeChecker.check(file)
        let d = try #require(checked.diagnostics.first { $0.code == .unknownOperation })
        let expected = """
            R204-unknown-operation.recipe.yaml:6:5: error[R204]: unknown operation `saturaton`
              |
            6 |   - saturaton: 1.2
              |     ^~~~~~~~~
              = note: did you mean `saturation`?

            """
        #expect(DiagnosticPrinter.render(d, source: file) == expected)
        #expect(d.description == "R204-unknown-operation.recipe.yaml:6:5: error[R204]: unknown operation `saturaton`")
    }

    @Test("the JSON form has file, line, column, severity, code, title, message and notes")
    func jsonForm() throws {
        let name = "R204-unknown-operation.recipe.yaml"
        let bytes = try [UInt8](Data(contentsOf: Self.fixtureFolder.appendingPathComponent(name)))
        let checked = RecipeChecker.check(SourceFile(path: name, bytes: bytes))
        let d = try #require(checked.diagnostics.first { $0.code == .unknownOperation })
        let json = DiagnosticPrinter.json(d).compact
        for field in ["file", "line", "column", "severity", "code", "title", "message", "notes"] {
            #expect(json.contains("\"\(field)\":"), "no `\(field)` in \(json)")
        }
        #expect(json == #"{"file":"R204-unknown-operation.recipe.yaml","line":6,"column":5,"end_line":6,"end_column":14,"severity":"error","code":"R204","title":"unknown operation","message":"unknown operation `saturaton`","notes":[{"message":"did you mean `saturation`?"}]}"#)
    }

    // MARK: - Grammar/diagnostics.md

    /// The sections of Grammar/diagnostics.md: heading line → body.
    static func diagnosticsDocument() throws -> [(heading: String, body: String)] {
        let text = try String(contentsOf: packageRoot.appendingPathComponent("Grammar/diagnostics.md"), encoding: .utf8)
        var sections: [(String, String)] = []
        var inFence = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inFence.toggle() }
            if !inFence, line.hasPrefix("## ") {
                sections.append((String(line), ""))
            } else if !sections.isEmpty {
                sections[sections.count - 1].1 += line + "\n"
            }
        }
        return sections
    }

    @Test("Grammar/diagnostics.md has a `## Rnnn title` section for every code and no other")
    func diagnosticsDocumentHeadings() throws {
        let sections = try Self.diagnosticsDocument()
        let codeHeadings = sections.map(\.heading).filter { $0.hasPrefix("## R") }
        let documented = codeHeadings.map { String($0.dropFirst(3).prefix(4)) }
        for code in DiagnosticCode.allCases {
            #expect(codeHeadings.contains("## \(code.rawValue) \(code.title)"), "no heading `## \(code.rawValue) \(code.title)`")
        }
        for heading in codeHeadings {
            let code = String(heading.dropFirst(3).prefix(4))
            #expect(DiagnosticCode(rawValue: code) != nil, "heading for a code that does not exist: \(heading)")
        }
        #expect(documented == DiagnosticCode.allCases.map(\.rawValue), "headings out of order or repeated")
    }

    @Test("each section of Grammar/diagnostics.md quotes a message the tool prints for its fixture")
    func diagnosticsDocumentMessages() throws {
        let sections = try Self.diagnosticsDocument()
        var printed: [String: [String]] = [:]  // code → "error[Rnnn]: message" lines the fixtures expect
        for name in Self.fixtureNames {
            let text = try String(contentsOf: Self.fixtureFolder.appendingPathComponent(name), encoding: .utf8)
            for m in Self.markers(in: text).markers {
                guard let code = DiagnosticCode(rawValue: m.code) else { continue }
                printed[m.code, default: []].append("\(code.defaultSeverity.rawValue)[\(m.code)]: \(m.message)")
            }
        }
        printed["R105", default: []].append("error[R105]: \(Self.tooLargeMessage)")
        printed["R107", default: []].append("error[R107]: \(Self.unreadableMessage)")
        printed["R108", default: []].append("error[R108]: \(Self.tooManyStagesMessage)")
        for code in DiagnosticCode.allCases {
            guard let body = sections.first(where: { $0.heading.hasPrefix("## \(code.rawValue) ") })?.body else { continue }
            let expected = printed[code.rawValue] ?? []
            #expect(expected.contains { body.contains($0) },
                    "the section of \(code.rawValue) quotes none of the messages of its fixtures: \(expected)")
        }
    }

    // MARK: - the rest of Grammar/ agrees with the checker

    @Test("recipe.ebnf and semantics.md name the keys, limits and version the checker uses")
    func grammarAgreesWithChecker() throws {
        let grammar = Self.packageRoot.appendingPathComponent("Grammar")
        let ebnf = try String(contentsOf: grammar.appendingPathComponent("recipe.ebnf"), encoding: .utf8)
        let semantics = try String(contentsOf: grammar.appendingPathComponent("semantics.md"), encoding: .utf8)
        for key in RecipeChecker.topLevelKeys + RecipeChecker.metaKeys {
            #expect(ebnf.contains("\"\(key)\""), "recipe.ebnf does not spell the key \"\(key)\"")
        }
        for kind in Operations.masks.map(\.name) {
            #expect(ebnf.contains("\"\(kind)\""), "recipe.ebnf does not spell the mask \"\(kind)\"")
        }
        // The `operation name` rule lists exactly the registered operations.
        let rule = try #require(ebnf.range(of: "operation name    ="))
        let end = try #require(ebnf[rule.upperBound...].firstIndex(of: ";"))
        let names = ebnf[rule.upperBound..<end].split(separator: "\"").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        #expect(names.sorted() == Operations.all.map(\.name).sorted())
        #expect(names.count == Set(names).count)
        #expect(ebnf.contains("\"\(RecipeFormat.identifier)\""))
        let limits = YAMLReader.Limits()
        #expect(limits.maxBytes == 1 << 20 && semantics.contains("1 MiB"))
        #expect(semantics.contains("\(limits.maxDepth)"))
        #expect(semantics.contains("10,000") && limits.maxAliasNodes == 10_000)
        #expect(semantics.contains("\(limits.maxStages) stages"))
        #expect(semantics.contains("`\(RecipeFormat.identifier)`"))
        #expect(semantics.contains("\(RecipeFormat.current)"))
        for version in RecipeFormat.history {
            #expect(semantics.contains(version.description), "semantics.md does not mention format \(version)")
        }
    }
}
