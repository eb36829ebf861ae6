import Foundation
import RecipeCore
@testable import RecipeLanguage
import Testing
import TestSupport

/// Tools write into a recipe a person keeps by editing only what changes (`SourceEditor`,
/// `TextRewriter`, `MigrationEdit`). Measured over a corpus of hand-formatted recipes
/// (Fixtures/hand-formatted: indents of 1 to 4 spaces, flow and block stages, quoted and plain
/// keys, `0.30`, `1.0`, `.5`, `+1`, comments in a column and on their own lines, blank lines), with
/// every one-number edit generated from the file itself, so the counts are real.
@Suite("format-preserving writes over hand-formatted recipes")
struct FormatPreservingTests {
    static let fixtures = TestPaths.packageRoot.appendingPathComponent("Tests/RecipeLanguageTests/Fixtures")
    static let folder = fixtures.appendingPathComponent("hand-formatted").path

    static func corpus(_ folder: String = folder) throws -> [(name: String, text: String)] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".recipe.yaml") }.sorted()
        return try names.map { ($0, try String(contentsOfFile: folder + "/" + $0, encoding: .utf8)) }
    }

    // MARK: - one-value edits, generated

    /// A number written in the file under `params:` or `stages:`: where it is, and the value it
    /// belongs to as a merge sees it (a knob, a stage's parameter or mask), whose lines it spans.
    struct Token {
        var range: Range<Int>
        var text: String
        var unit: [String]
        var unitLines: ClosedRange<Int>
    }

    static func tokens(_ text: String) -> [Token] {
        let (root, _) = YAMLReader.read(SourceFile(path: "t.recipe.yaml", text: text))
        var out: [Token] = []
        func visit(_ node: YAMLNode, path: [String], unit: (path: [String], lines: ClosedRange<Int>)?) {
            let depth = path.first == "params" ? 2 : path.count > 2 && path[2] == "mask" ? 3 : 4
            switch node.content {
            case .scalar(let s, .plain):
                if number(s) != nil, let unit {
                    out.append(Token(range: node.range.start.offset..<node.range.end.offset, text: s, unit: unit.path, unitLines: unit.lines))
                }
            case .scalar: break
            case .sequence(let items):
                for (i, item) in items.enumerated() {
                    let p = path + ["\(i)"]
                    visit(item, path: p, unit: unit ?? (p.count == depth ? (p, item.range.start.line...item.lastLine) : nil))
                }
            case .mapping(let pairs):
                for pair in pairs {
                    let p = path + [pair.key.scalar ?? "?"]
                    let here = p.count == depth || (p.count == 3 && p[0] == "stages" && pair.value.mapping == nil && p[2] != "mask")
                    visit(pair.value, path: p, unit: unit ?? (here ? (p, pair.key.range.start.line...pair.value.lastLine) : nil))
                }
            }
        }
        for pair in root?.mapping ?? [] where pair.key.scalar == "params" || pair.key.scalar == "stages" {
            visit(pair.value, path: [pair.key.scalar!], unit: nil)
        }
        return out
    }

    /// `0.30` → 0.3, `2%` → (2, "%"), `1px` → (1, "px"); nil for anything else.
    static func number(_ s: String) -> (value: Double, unit: String)? {
        var body = s, unit = ""
        for u in ["px", "%"] where s.hasSuffix(u) {
            body = String(s.dropLast(u.count))
            unit = u
        }
        guard let first = body.first, "+-.0123456789".contains(first), let v = Double(body) else { return nil }
        return (v, unit)
    }

    static func splice(_ text: String, _ edits: [(Range<Int>, String)]) -> String {
        var bytes = Array(text.utf8)
        for (range, s) in edits.sorted(by: { $0.0.lowerBound > $1.0.lowerBound }) { bytes.replaceSubrange(range, with: Array(s.utf8)) }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func canonical(_ text: String) -> String? { RecipeDocument.canonicalText(SourceFile(path: "t.recipe.yaml", text: text)) }

    /// Whether two texts check and mean the same (`RecipeDocument.means`: comments and formatting aside).
    static func sameMeaning(_ a: String, _ b: String) -> Bool {
        guard let x = try? RecipeDocument.parse(SourceFile(path: "a.recipe.yaml", text: a)),
              let y = try? RecipeDocument.parse(SourceFile(path: "b.recipe.yaml", text: b)) else { return false }
        return x.means(y)
    }

    /// New values for a token, in canonical spelling, that keep the recipe valid and change what it means.
    static func newValues(_ text: String, _ token: Token) -> [String] {
        guard let (v, unit) = number(token.text) else { return [] }
        let original = canonical(text)
        var out: [String] = []
        for c in [v / 2, v + 0.05, v - 0.05, v * 2, v + 1, v - 1] {
            let t = NumberFormatting.shortest((c * 1e6).rounded() / 1e6) + unit
            guard !out.contains(t), let edited = canonical(splice(text, [(token.range, t)])), edited != original else { continue }
            out.append(t)
        }
        return out
    }

    static func merge(_ base: String, _ ours: String, _ theirs: String, keepOurs: Bool) throws -> RecipeMerge {
        func load(_ text: String, _ name: String) throws -> RecipeDocument {
            try RecipeDocument.parse(SourceFile(path: name, text: text), canonical: true)
        }
        return RecipeMerge(base: try load(base, "base.recipe.yaml"), ours: try load(ours, "ours.recipe.yaml"),
                           theirs: try load(theirs, "theirs.recipe.yaml"),
                           oursText: keepOurs ? SourceFile(path: "ours.recipe.yaml", text: ours) : nil)
    }

    /// The lines only `a` has and the lines only `b` has (a line diff, as `git diff --stat` counts).
    static func changed(_ a: String, _ b: String) -> (removed: [String], added: [String]) {
        let lines = LineDiff.lines(old: a, new: b).filter { !$0.hasPrefix("@@") }
        return (lines.filter { $0.hasPrefix("-") }, lines.filter { $0.hasPrefix("+") })
    }

    @Test("the corpus: at least 20 hand-formatted recipes, each valid and not in fmt's form")
    func corpusIsHandFormatted() throws {
        let corpus = try Self.corpus()
        #expect(corpus.count >= 20)
        for (name, text) in corpus {
            let canonical = Self.canonical(text)
            #expect(canonical != nil, "\(name) does not check clean")
            #expect(canonical != text, "\(name) is already canonical: it tests nothing")
            #expect(Self.tokens(text).count >= 2, "\(name) has too few numbers to edit")
        }
    }

    @Test("merge-file: ours and theirs each change one number; the result is ours with theirs' one line, and fmt of it is the canonical merge")
    func oneValueEditsMergeIntoOursText() throws {
        var recipes = 0, merges = 0, linesChanged = 0, exact = 0, sameFmt = 0
        for (name, base) in try Self.corpus() {
            let edits = Self.tokens(base).compactMap { t in Self.newValues(base, t).first.map { (token: t, value: $0) } }
            recipes += 1
            for (k, theirsEdit) in edits.enumerated() {
                // Ours changes the next number that is part of another value (else it is a conflict).
                guard let oursEdit = (edits[(k + 1)...] + edits[..<k]).first(where: { $0.token.unit != theirsEdit.token.unit }) else { continue }
                let ours = Self.splice(base, [(oursEdit.token.range, oursEdit.value)])
                let theirs = Self.splice(base, [(theirsEdit.token.range, theirsEdit.value)])
                let merge = try Self.merge(base, ours, theirs, keepOurs: true)
                let afresh = try Self.merge(base, ours, theirs, keepOurs: false)
                let what = "\(name): ours \(oursEdit.token.text)→\(oursEdit.value), theirs \(theirsEdit.token.text)→\(theirsEdit.value)"
                #expect(merge.isClean, "\(what): \(merge.conflicts)")
                #expect(merge.notes.isEmpty, "\(what): \(merge.notes)")
                // Exactly the line of theirs' number differs from ours.
                let diff = Self.changed(ours, merge.text)
                let line = ours.utf8.prefix(theirsEdit.token.range.lowerBound).filter { $0 == 0x0A }.count
                let oursLine = ours.split(separator: "\n", omittingEmptySubsequences: false)[line]
                #expect(diff.removed == ["-" + oursLine] && diff.added.count == 1, "\(what): \(diff)")
                // It means what the merge written afresh means, and fmt of it is that text.
                #expect(Self.sameMeaning(merge.text, afresh.text), "\(what): \(merge.text)")
                let expected = Self.splice(base, [(oursEdit.token.range, oursEdit.value), (theirsEdit.token.range, theirsEdit.value)])
                if merge.text == expected { exact += 1 }
                #expect(Self.canonical(merge.text) == afresh.text, "\(what): fmt of the merge is not the merge written afresh")
                if Self.canonical(merge.text) == afresh.text { sameFmt += 1 }
                merges += 1
                linesChanged += diff.removed.count
            }
        }
        #expect(recipes >= 20)
        #expect(merges >= 100, "only \(merges) merges")
        #expect(exact * 10 >= merges * 9, "only \(exact) of \(merges) merges replace exactly theirs' number token")
        testNote("merge-file, clean: \(recipes) recipes, \(merges) one-value merges, \(linesChanged) lines changed against ours (\(merges) expected); \(exact) are ours with theirs' number token spliced in byte for byte; fmt of the result equals the merge written afresh (in fmt's form) byte for byte in \(sameFmt)")
    }

    @Test("merge-file: both sides change the same number differently; only that value is marked, and each side resolves to its own file")
    func conflictsStayLocal() throws {
        var conflicts = 0, oneLine = 0, totalRemoved = 0, multiLine: Set<String> = []
        for (name, base) in try Self.corpus() {
            for token in Self.tokens(base) {
                let values = Self.newValues(base, token)
                guard values.count >= 2 else { continue }
                let ours = Self.splice(base, [(token.range, values[0])]), theirs = Self.splice(base, [(token.range, values[1])])
                let merge = try Self.merge(base, ours, theirs, keepOurs: true)
                let what = "\(name): \(token.text) → ours \(values[0]), theirs \(values[1])"
                #expect(merge.conflicts.count == 1, "\(what): \(merge.conflicts)")
                #expect(merge.notes.isEmpty, "\(what): \(merge.notes)")
                let diff = Self.changed(ours, merge.text)
                #expect(diff.added.count == 1, "\(what): \(diff)")
                #expect(diff.removed.count <= token.unitLines.count, "\(what): only the lines of the conflicting value change: \(diff)")
                let oursLines = ours.split(separator: "\n", omittingEmptySubsequences: false).map { "-" + $0 }
                let unitText = token.unitLines.map { oursLines[$0 - 1] }
                #expect(diff.removed.allSatisfy(unitText.contains), "\(what): \(diff.removed) outside lines \(token.unitLines)")
                var options = CheckOptions()
                options.checkFilesExist = false
                let codes = RecipeChecker.check(SourceFile(path: "m.recipe.yaml", text: merge.text), options: options).diagnostics
                    .filter { $0.severity == .error }.map(\.code)
                #expect(codes == [.unresolvedConflict], "\(what): \(codes)")
                for (side, text) in [("ours", ours), ("theirs", theirs)] {
                    let resolved = ConflictMarker.resolved(SourceFile(path: "m.recipe.yaml", text: merge.text), side: side)
                    #expect(resolved.map { Self.sameMeaning($0, text) } == true, "\(what): resolved to \(side)")
                }
                conflicts += 1
                if diff.removed.count == 1 {
                    oneLine += 1
                } else {
                    // A block list is one value (a curve's points): the marker replaces its lines.
                    // Anything else (a `{default, doc}` knob's default, a parameter) is one line.
                    #expect(token.unit.last == "points", "\(what): more than its own line changed: \(diff)")
                    multiLine.insert(token.unit.joined(separator: "."))
                }
                totalRemoved += diff.removed.count
            }
        }
        #expect(conflicts >= 100, "only \(conflicts) conflicts")
        testNote("merge-file, conflicts: \(conflicts) one-value conflicts, \(oneLine) changed exactly one line of ours, \(totalRemoved) lines replaced in all (each by one marker line); more than one line only for block lists, which are one value: \(multiLine.sorted())")
    }

    @Test("merge-file on a `{default, doc}` knob: a default changed on both sides marks only `default:`; a default on one side and a doc on the other both merge")
    func knobPartsMergeOnTheirOwnLines() throws {
        let base = """
            format: dev.recipe.edit
            version: 1.2
            params:
                strength:
                    default: 0.30     # at the corners
                    doc: darkening at the corners
                lift: 0.1
            stages:
                - vignette: {amount: $strength, radius: 1.2}
                - brightness: $lift

            """
        func edited(_ old: String, _ new: String) -> String { base.replacingOccurrences(of: old, with: new) }
        let oursDefault = edited("default: 0.30", "default: 0.40")

        // Both change the default: only that line holds a marker; each side resolves to its file.
        let theirsDefault = edited("default: 0.30", "default: 0.5")
        let conflict = try Self.merge(base, oursDefault, theirsDefault, keepOurs: true)
        #expect(conflict.conflicts == ["param `strength` (default): ours 0.4, theirs 0.5, base 0.3"], "\(conflict.conflicts)")
        #expect(conflict.notes.isEmpty, "\(conflict.notes)")
        #expect(Self.changed(oursDefault, conflict.text) == (["-        default: 0.40     # at the corners"],
                                                           ["+        default: {conflict: {ours: 0.4, theirs: 0.5, base: 0.3}}     # at the corners"]),
                "\(conflict.text)")
        for (side, text) in [("ours", oursDefault), ("theirs", theirsDefault)] {
            let resolved = ConflictMarker.resolved(SourceFile(path: "m.recipe.yaml", text: conflict.text), side: side)
            #expect(resolved.map { Self.sameMeaning($0, text) } == true, "resolved to \(side): \(resolved ?? "nil")")
        }
        var options = CheckOptions()
        options.checkFilesExist = false
        let diagnostics = RecipeChecker.check(SourceFile(path: "m.recipe.yaml", text: conflict.text), options: options).diagnostics
        #expect(diagnostics.filter { $0.severity == .error }.map(\.message) == ["unresolved merge conflict in param `strength` (`default`): ours 0.4, theirs 0.5, base 0.3"])

        // Ours changes the default, theirs the doc: no conflict; ours' text with theirs' doc line.
        let theirsDoc = edited("doc: darkening at the corners", "doc: how dark the corners get")
        let clean = try Self.merge(base, oursDefault, theirsDoc, keepOurs: true)
        #expect(clean.isClean && clean.notes.isEmpty, "\(clean.conflicts) \(clean.notes)")
        #expect(clean.text == oursDefault.replacingOccurrences(of: "doc: darkening at the corners", with: "doc: how dark the corners get"), "\(clean.text)")
        // The merge written afresh means the same.
        let afresh = try Self.merge(base, oursDefault, theirsDoc, keepOurs: false)
        #expect(afresh.isClean && Self.sameMeaning(afresh.text, clean.text), "\(afresh.text)")
        #expect(afresh.text.contains("strength: {default: 0.4, doc: how dark the corners get}"), "\(afresh.text)")

        // Both change both parts differently: the whole knob is one marker.
        let theirsBoth = edited("default: 0.30", "default: 0.5").replacingOccurrences(of: "darkening at", with: "dark")
        let oursBoth = oursDefault.replacingOccurrences(of: "darkening at", with: "light")
        let whole = try Self.merge(base, oursBoth, theirsBoth, keepOurs: true)
        #expect(whole.conflicts.count == 1 && whole.conflicts[0].hasPrefix("param `strength`: "), "\(whole.conflicts)")
    }

    @Test("merge-file: theirs adds a stage or deletes one while ours changes a number; a stage deleted on one side and changed on the other is one marker item")
    func stagesAddedAndDeletedByTheirs() throws {
        var added = 0, deleted = 0, conflicted = 0
        for (name, base) in try Self.corpus() {
            let file = SourceFile(path: "t.recipe.yaml", text: base)
            let stages = try #require(YAMLReader.read(file).0?.mapping?.first { $0.key.scalar == "stages" }?.value.sequence)
            let last = try #require(stages.last)
            let lastLines = last.range.start.line...last.lastLine
            let edits = Self.tokens(base).compactMap { t in Self.newValues(base, t).first.map { (token: t, value: $0) } }
            let lineOf = { (t: Token) in base.utf8.prefix(t.range.lowerBound).filter { $0 == 0x0A }.count + 1 }
            guard let outside = edits.first(where: { !lastLines.contains(lineOf($0.token)) }) else { continue }
            let ours = Self.splice(base, [(outside.token.range, outside.value)])

            // Theirs appends a stage written like the last one.
            let dash = String(file.line(last.range.start.line).prefix(last.range.start.column - 1))
            var editor = SourceEditor(file)
            editor.insert(lines: [dash + "sepia: 0.3"], before: last.lastLine + 1)
            let theirsAdd = try #require(editor.apply())
            let add = try Self.merge(base, ours, theirsAdd, keepOurs: true)
            #expect(add.isClean && add.notes.isEmpty, "\(name): \(add.conflicts) \(add.notes)")
            #expect(Self.changed(ours, add.text) == ([], ["+" + dash + "sepia: 0.3"]), "\(name):\n\(add.text)")
            added += 1

            // Theirs deletes the last stage (its lines; comments above it may go with it).
            guard stages.count >= 2 else { continue }
            editor = SourceEditor(file)
            editor.delete(lines: lastLines)
            let theirsDelete = try #require(editor.apply())
            guard Self.canonical(theirsDelete) != nil else { continue }  // another stage reads it
            let delete = try Self.merge(base, ours, theirsDelete, keepOurs: true)
            #expect(delete.isClean && delete.notes.isEmpty, "\(name): \(delete.conflicts) \(delete.notes)")
            let gone = Self.changed(ours, delete.text)
            let oursLines = ours.split(separator: "\n", omittingEmptySubsequences: false).map { "-" + $0 }
            let piece = (stages[stages.count - 2].lastLine + 1)...last.lastLine
            #expect(gone.added.isEmpty && gone.removed == piece.map { oursLines[$0 - 1] }, "\(name): \(gone)")
            deleted += 1

            // Ours changes the stage theirs deleted: a conflict, as one marker item in its place.
            guard let inside = edits.first(where: { lastLines.contains(lineOf($0.token)) }) else { continue }
            let oursChanged = Self.splice(base, [(inside.token.range, inside.value)])
            let conflict = try Self.merge(base, oursChanged, theirsDelete, keepOurs: true)
            #expect(conflict.conflicts.count == 1 && conflict.notes.isEmpty, "\(name): \(conflict.conflicts) \(conflict.notes)")
            let marked = Self.changed(oursChanged, conflict.text)
            #expect(marked.removed.count <= piece.count && marked.added.contains { $0.drop { "+ -".contains($0) }.hasPrefix("conflict:") }, "\(name): \(marked)")
            for (side, text) in [("ours", oursChanged), ("theirs", theirsDelete)] {
                let resolved = ConflictMarker.resolved(SourceFile(path: "m.recipe.yaml", text: conflict.text), side: side)
                #expect(resolved.map { Self.sameMeaning($0, text) } == true, "\(name): resolved to \(side)")
            }
            conflicted += 1
        }
        #expect(added >= 20 && deleted >= 15 && conflicted >= 10)
        testNote("merge-file, stages: \(added) stages added by theirs (1 line each), \(deleted) deleted (their lines only), \(conflicted) deleted-vs-changed conflicts marked in place")
    }

    // MARK: - stages added and removed (recipe edit --stage, revert)

    @Test("a stage appended to the canonical text is written into each hand-formatted file as one added line, nothing else changed")
    func appendedStageAddsOneLine() throws {
        var count = 0
        for (name, text) in try Self.corpus() {
            let canonical = try #require(Self.canonical(text), "\(name)")
            // As `recipe edit --stage` makes it: the canonical text with one more item after the last stage.
            let canonicalFile = SourceFile(path: "t.recipe.yaml", text: canonical)
            let last = try #require(YAMLReader.read(canonicalFile).0?.mapping?.first { $0.key.scalar == "stages" }?.value.sequence?.last)
            var editor = SourceEditor(canonicalFile)
            editor.insert(lines: ["  - sepia: 0.25"], before: last.lastLine + 1)
            let intended = try #require(editor.apply())
            let write = FormatPreservingWrite.write(intended, over: SourceFile(path: "t.recipe.yaml", text: text))
            #expect(write.note == nil, "\(name): \(write.note ?? "")")
            let diff = Self.changed(text, write.text)
            #expect(diff.removed.isEmpty && diff.added.count == 1, "\(name): \(diff)")
            #expect(diff.added.first?.hasSuffix("sepia: 0.25") == true, "\(name): \(diff.added)")
            #expect(Self.sameMeaning(write.text, intended), "\(name)")
            count += 1
        }
        testNote("stage appended: \(count) recipes, 1 line added to each")
    }

    @Test("a stage removed from the canonical text is removed from each hand-formatted file with its own lines only")
    func removedStageRemovesItsLines() throws {
        var count = 0
        for (name, text) in try Self.corpus() {
            let file = SourceFile(path: "t.recipe.yaml", text: text)
            let (root, _) = YAMLReader.read(file)
            let stages = try #require(root?.mapping?.first { $0.key.scalar == "stages" }?.value.sequence)
            // The last stage (no stage names it as input or blend partner in the corpus).
            guard stages.count >= 2, let last = stages.last else { continue }
            var editor = SourceEditor(file)
            editor.delete(lines: last.range.start.line...last.lastLine)
            let intended = try #require(editor.apply())
            guard let meaning = Self.canonical(intended) else { continue }  // another stage needs it
            let write = FormatPreservingWrite.write(meaning, over: file)
            #expect(write.note == nil, "\(name): \(write.note ?? "")")
            let diff = Self.changed(text, write.text)
            #expect(diff.added.isEmpty, "\(name): \(diff)")
            // Its lines and the comments and blank lines right above it: the piece that is the stage.
            let piece = (stages[stages.count - 2].lastLine + 1)...last.lastLine
            #expect(diff.removed.count == piece.count, "\(name): \(diff)")
            #expect(Self.sameMeaning(write.text, meaning), "\(name)")
            count += 1
        }
        #expect(count >= 20)
        testNote("stage removed: \(count) recipes")
    }

    @Test("a key added to a hand-formatted stage goes in the style of its neighbours")
    func keysInTheStyleOfNeighbours() throws {
        let block = "format: dev.recipe.edit\nversion: 1.2\nstages:\n    - vignette:\n          amount: 0.30   # corners\n    - exposure: 0.1\n"
        let intended = "format: dev.recipe.edit\nversion: 1.2\nstages:\n  - vignette: {amount: 0.3, radius: 0.8}\n  - exposure: 0.1\n"
        let write = FormatPreservingWrite.write(intended, over: SourceFile(path: "t.recipe.yaml", text: block))
        #expect(write.text == "format: dev.recipe.edit\nversion: 1.2\nstages:\n    - vignette:\n          amount: 0.30   # corners\n          radius: 0.8\n    - exposure: 0.1\n")
        let flow = "format: dev.recipe.edit\nversion: 1.2\nstages:\n   - vignette: { amount: 0.30 }  # corners\n   - exposure: 0.1\n"
        let written = FormatPreservingWrite.write(intended, over: SourceFile(path: "t.recipe.yaml", text: flow))
        #expect(written.text == "format: dev.recipe.edit\nversion: 1.2\nstages:\n   - vignette: { amount: 0.30, radius: 0.8 }  # corners\n   - exposure: 0.1\n")
        // A shorthand that gains a second parameter becomes a flow mapping on its own line.
        let short = "format: dev.recipe.edit\nversion: 1.2\nstages:\n   - vignette: 0.30   # corners\n   - exposure: 0.1\n"
        let third = FormatPreservingWrite.write(intended, over: SourceFile(path: "t.recipe.yaml", text: short))
        #expect(third.text == "format: dev.recipe.edit\nversion: 1.2\nstages:\n   - vignette: {amount: 0.3, radius: 0.8}   # corners\n   - exposure: 0.1\n")
    }

    @Test("a new stage is written at its neighbours' indent and with their space after the dash")
    func newStageLikeNeighbours() throws {
        let text = "format: dev.recipe.edit\nversion: 1.2\nstages:\n    -   exposure: 0.30   # stops\n"
        let intended = "format: dev.recipe.edit\nversion: 1.2\nstages:\n  - exposure: 0.3\n  - id: old\n    sepia: 0.4\n"
        let write = FormatPreservingWrite.write(intended, over: SourceFile(path: "t.recipe.yaml", text: text))
        #expect(write.note == nil, "\(write.note ?? "")")
        #expect(write.text == text + "    -   id: old\n        sepia: 0.4\n", "\(write.text)")
    }

    @Test("a stage theirs added below a closing comment both sides have is added without that comment again")
    func closingCommentNotDoubled() throws {
        let base = "format: dev.recipe.edit\nversion: 1.2\nstages:\n  - exposure: 0.2\n  - clarity: -0.15\n# The end.\n"
        let ours = base.replacingOccurrences(of: "0.2\n", with: "0.25\n")
        let theirs = base + "  - sepia: 0.3\n"
        let merge = try Self.merge(base, ours, theirs, keepOurs: true)
        #expect(merge.text == ours.replacingOccurrences(of: "-0.15\n", with: "-0.15\n  - sepia: 0.3\n"), "\(merge.text)")
    }

    @Test("an edit that cannot be placed clearly (stages swapped) falls back to the canonical text, with a note")
    func unclearFallsBack() throws {
        let text = "format: dev.recipe.edit\nversion: 1.2\nstages:\n    - exposure: 0.30\n    - sepia: 0.4\n"
        let intended = "format: dev.recipe.edit\nversion: 1.2\nstages:\n  - sepia: 0.4\n  - exposure: 0.3\n"
        let write = FormatPreservingWrite.write(intended, over: SourceFile(path: "t.recipe.yaml", text: text))
        #expect(write.text == intended)
        #expect(write.note?.contains("canonical form") == true, "\(write.note ?? "no note")")
    }

    // MARK: - migrate

    @Test("migrate of hand-formatted 1.0 recipes changes only the migrated spans: the version and the renamed keys")
    func migrationChangesOnlyMigratedSpans() throws {
        let folder = Self.fixtures.appendingPathComponent("hand-formatted-1.0").path
        let expected: [String: [(String, String)]] = [
            "vignette-four-space.recipe.yaml": [("version: 1.0", "version: 1.5"), ("intensity: 0.80", "amount: 0.80")],
            "sharpen-flow-quoted.recipe.yaml": [("version: \"1.0\"", "version: \"1.5\""), ("radius: 1.2px", "sigma: 1.2px"), ("intensity: .3", "amount: .3")],
            "version-only.recipe.yaml": [("version: 1.0", "version: 1.5")],
        ]
        let corpus = try Self.corpus(folder)
        #expect(corpus.count == expected.count)
        var spans = 0
        for (name, text) in corpus {
            let checked = RecipeChecker.check(SourceFile(path: name, text: text))
            #expect(!checked.hasErrors, "\(name): \(checked.diagnostics)")
            let write = try #require(MigrationEdit.migrated(checked), "\(name)")
            #expect(write.note == nil, "\(name): \(write.note ?? "")")
            var want = text
            for (old, new) in expected[name] ?? [] { want = want.replacingOccurrences(of: old, with: new) }
            #expect(write.text == want, "\(name):\n\(write.text)")
            #expect(Self.sameMeaning(write.text, try #require(RecipePrinter.migrated(checked))), "\(name)")
            spans += expected[name]?.count ?? 0
        }
        testNote("migrate: \(corpus.count) recipes of format 1.0, \(spans) spans changed, no other byte")
    }
}
