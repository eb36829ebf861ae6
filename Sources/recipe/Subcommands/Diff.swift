import ArgumentParser
import RecipeCore
import RecipeLanguage
import RecipeSession

struct Diff: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Show what changed between two recipes: stages added, removed, moved, parameters changed.",
        discussion: """
        Compares meaning, not text: formatting, comments, key order and shorthand do not count \
        (`exposure: 0.3` is `exposure: {ev: 0.30}`). Stages with an `id` are matched by it, the \
        others by aligning the lists. Exit status: 0 when the recipes mean the same, 1 when they \
        differ, 2 for usage errors and files that cannot be read or are not valid recipes.

        As git's diff driver (`git config diff.recipe.command 'recipe diff --git'` with \
        `*.recipe.yaml diff=recipe` in .gitattributes) it takes git's seven arguments \
        (path old-file old-hex old-mode new-file new-hex new-mode), shows a line diff for a file \
        that is not a valid recipe, and exits 0 (git stops at a driver that does not). The simpler \
        alternative, `git config diff.recipe.textconv 'recipe diff --textconv'`, makes git compare \
        the canonical text of each version line by line.
        """)

    @Flag(help: "Run as git's external diff driver (also assumed when given exactly seven files).")
    var git = false

    @Flag(help: "Print one recipe's canonical text for git's textconv (as written when it does not check); always exit 0.")
    var textconv = false

    @Argument(help: "OLD NEW; git's seven (or nine, for a rename) arguments with --git; one file with --textconv.", completion: .file())
    var files: [String]

    var gitMode: Bool { git || files.count == 7 }

    func validate() throws {
        if textconv {
            guard files.count == 1, !git else { throw ValidationError("--textconv takes one file") }
        } else if gitMode {
            guard files.count == 7 || files.count == 9 else {
                throw ValidationError("--git takes git's 7 arguments: path old-file old-hex old-mode new-file new-hex new-mode")
            }
        } else if files.count != 2 {
            throw ValidationError("give two recipes to compare: OLD NEW")
        }
    }

    func run() throws {
        if textconv { return runForTextconv() }
        if gitMode { return runForGit() }
        let old: RecipeDocument, new: RecipeDocument
        do {
            old = try RecipeDocument.load(path: files[0])
            new = try RecipeDocument.load(path: files[1])
        } catch {
            Self.report(error)
            throw CommandFailure.usage
        }
        for note in Set(old.notes + new.notes).sorted() { Console.warning(note) }
        let diff = RecipeDiff(old: old, new: new)
        for line in diff.lines { print(line) }
        if !diff.isEmpty { throw CommandFailure.partial }
    }

    /// `recipe: a.recipe.yaml: not a valid recipe: …` and the checker's errors with their lines.
    static func report(_ failure: RecipeDocument.Failure) {
        Console.error(failure.description)
        for d in failure.diagnostics.prefix(5) { Console.printError(DiagnosticPrinter.render(d, source: failure.source)) }
    }

    /// The canonical form, so git's line diff ignores formatting; never fails (git would stop).
    func runForTextconv() {
        let bytes = (try? InputFile.readAll(files[0], limit: 1 << 24)) ?? []
        let file = SourceFile(path: files[0], bytes: bytes)
        print(RecipeDocument.canonicalText(file) ?? String(decoding: bytes, as: UTF8.self), terminator: "")
    }

    /// git's arguments: path old-file old-hex old-mode new-file new-hex new-mode [new-path info].
    func runForGit() {
        let path = files.count == 9 ? files[7] : files[0]
        let (oldFile, newFile) = (files[1], files[4])
        print("recipe diff a/\(files[0]) b/\(path)")
        if oldFile == "/dev/null" { print("new recipe") }
        if newFile == "/dev/null" { print("deleted recipe") }
        do {
            let old = try RecipeDocument.load(path: oldFile)
            let new = try RecipeDocument.load(path: newFile)
            let diff = RecipeDiff(old: old, new: new)
            for line in diff.lines { print(line) }
            if diff.isEmpty { print("(the same recipe: only formatting or comments changed)") }
        } catch {
            // Not comparable by meaning: say why, then show the lines.
            print("(\(error.path == oldFile ? "old" : "new") version: \(error.reason); the lines that differ:)")
            let read = { (p: String) in (try? InputFile.readAll(p, limit: 1 << 24)).map { String(decoding: $0, as: UTF8.self) } ?? "" }
            for line in LineDiff.lines(old: read(oldFile), new: read(newFile)) { print(line) }
        }
    }
}
