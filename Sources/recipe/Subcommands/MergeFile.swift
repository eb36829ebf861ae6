import ArgumentParser
import RecipeCore
import RecipeLanguage
import RecipeSession

struct MergeFile: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge-file",
        abstract: "Merge two edits of a recipe three-way, stage by stage and parameter by parameter.",
        discussion: """
        BASE is the common ancestor, OURS and THEIRS the two edits. The result replaces OURS (as \
        `git merge-file` does; -p prints it instead): OURS' own text with only what the merge \
        changes edited in, so its indents, quoting, number spellings and comments stay (where an \
        edit in place is not clear, the canonical form is written and a warning says so). A change made on one \
        side is taken, the same change on both sides once; stages both sides added are both kept. \
        A value changed differently on both sides, or a stage deleted on one side and changed on \
        the other, is written as `{conflict: {ours: …, theirs: …, base: …}}` in its place (still \
        valid YAML; `recipe check` reports it as R225 until it is resolved). Exit status: 0 for a \
        clean merge, 1 when conflicts are left, 2 for usage errors and files that cannot be read or \
        are not valid recipes (OURS is then left as it was).

        As git's merge driver: `git config merge.recipe.driver 'recipe merge-file --name %P %O %A %B'` \
        with `*.recipe.yaml merge=recipe` in .gitattributes (--name: git hands the driver temporary \
        files, and messages name the recipe instead).
        """)

    @Flag(name: [.customShort("p"), .customLong("stdout")], help: "Print the result instead of writing it into OURS.")
    var toStdout = false

    @Argument(help: "The common ancestor.", completion: .file())
    var base: String

    @Argument(help: "Our version; the result is written here.", completion: .file())
    var ours: String

    @Argument(help: "Their version.", completion: .file())
    var theirs: String

    @Option(help: ArgumentHelp("The recipe's path in messages, for the three files (git's %P: git hands a merge driver temporary files named .merge_file_XXXXXX).", valueName: "path"))
    var name: String?

    /// The YAML comments of `text` (`# …`, at a line's start or after a space, outside quotes),
    /// with their 1-based lines.
    static func comments(_ text: String) -> [(line: Int, text: String)] {
        var out: [(Int, String)] = []
        for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var quote: Character?
            var previous: Character = " "
            for (i, c) in zip(line.indices, line) {
                if let q = quote {
                    if c == q { quote = nil }
                } else if c == "\"" || c == "'" {
                    quote = c
                } else if c == "#", previous == " " || previous == "\t" {
                    out.append((n + 1, String(String(line[i...]).trimmingPrefix { $0 == "#" || $0 == " " })))
                    break
                }
                previous = c
            }
        }
        return out.filter { !$0.1.isEmpty }
    }

    /// `text` with the three files' paths replaced by `--name`'s (base) / (ours) / (theirs).
    func relabel(_ text: String) -> String {
        guard let name else { return text }
        var out = text
        for (path, side) in [(base, "base"), (ours, "ours"), (theirs, "theirs")] where !path.isEmpty {
            out = out.replacing(path, with: side == "ours" ? name : "\(name) (\(side))")
        }
        return out
    }

    func run() throws {
        let documents: [RecipeDocument]
        do {
            documents = try [base, ours, theirs].map { path throws(RecipeDocument.Failure) in try RecipeDocument.load(path: path, canonical: true) }
        } catch {
            Console.error(relabel(error.description))
            for d in error.diagnostics.prefix(5) { Console.printError(relabel(DiagnosticPrinter.render(d, source: error.source))) }
            throw CommandFailure.usage
        }
        // Each side must be a recipe `check` accepts (files it names aside: git's copies lie
        // elsewhere, and a side that still holds an earlier merge's conflicts counts as valid
        // here): a side that is no recipe (`x: 1` at the top) is refused, OURS left as it was.
        var options = CheckOptions()
        options.checkFilesExist = false
        options.allowFilesOutside = true
        // Each side's text, read once (nil for git's /dev/null).
        let sources = [base, ours, theirs].map { RecipeDocument.source(path: $0) }
        for case let file? in sources {
            let path = file.path
            let errors = RecipeChecker.check(file, options: options).diagnostics.filter { $0.severity == .error && $0.code != .unresolvedConflict }
            guard errors.isEmpty else {
                Console.error(relabel("\(path): not a valid recipe; nothing merged, \(ours) left as it was"))
                for d in errors.prefix(5) { Console.printError(relabel(DiagnosticPrinter.render(d, source: file))) }
                throw CommandFailure.usage
            }
        }
        let merge = RecipeMerge(base: documents[0], ours: documents[1], theirs: documents[2],
                                oursText: sources[1])
        if toStdout {
            print(merge.text, terminator: "")
        } else {
            try TextOutput.replace(ours, with: merge.text)
        }
        for note in merge.notes { Console.warning(relabel(note)) }
        // THEIRS' comments on a stage neither side changed the meaning of come with that stage
        // (RecipeMerge); one elsewhere (the file's opening lines, a header key, a stage ours
        // changed too) is not carried. Said, not dropped silently.
        func text(_ file: SourceFile?) -> String { file.map { String(decoding: $0.bytes, as: UTF8.self) } ?? "" }
        let theirsText = text(sources[2])
        let baseComments = Set(Self.comments(text(sources[0])).map(\.text))
        let mergedComments = Set(Self.comments(merge.text).map(\.text))
        for comment in Self.comments(theirsText) where !baseComments.contains(comment.text) && !mergedComments.contains(comment.text) {
            Console.warning(relabel("\(theirs):\(comment.line): its comment `\(comment.text.prefix(80))` is not in the merge (outside the stages, or on a stage OURS changed too): add it by hand"))
        }
        if !merge.conflicts.isEmpty {
            let n = merge.conflicts.count
            Console.error(relabel("\(ours): \(n) conflict\(n == 1 ? "" : "s") marked with `conflict:` (resolve, then `recipe check`):"))
            for line in merge.conflicts { Console.printError("  " + relabel(line)) }
        }
        if !merge.problems.isEmpty {
            Console.error(relabel("\(ours): each side checks, but the merge does not:"))
            let source = SourceFile(path: ours, text: merge.text)
            for d in merge.problems { Console.printError(relabel(DiagnosticPrinter.render(d, source: source))) }
        }
        if !merge.isClean { throw CommandFailure.partial }
    }
}
