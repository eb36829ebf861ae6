import ArgumentParser
import RecipeCore
import RecipeLanguage
import RecipeSession

struct Fmt: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fmt",
        abstract: "Rewrite recipes in the canonical form (key order, numbers, units; comments kept).",
        discussion: """
        The canonical form is what the tools write, so diffs show only real edits. fmt never changes \
        meaning, and refuses a file with errors (run `recipe check`) or of an older format version \
        (run `recipe migrate`). With --check nothing is written: the files that are not canonical are \
        listed and the exit status is 1.
        """)

    @Argument(help: "Recipe files, or folders to search for *.recipe.yaml.", completion: .file())
    var paths: [String]

    @Flag(help: "Write nothing; list files that are not canonical and exit 1 if there are any (2 for errors).")
    var check = false

    @Flag(name: .customLong("stdout"), help: "Print the canonical form instead of rewriting the file.")
    var toStdout = false

    func run() throws {
        let (files, missing) = RecipeFiles.expand(paths)
        var failed = !missing.isEmpty
        for path in missing { Console.error("\(path): no such file or folder") }
        var changed: [String] = []
        for path in files {
            let checked = RecipeChecker.load(path: path)
            if !checked.formatBlockers.isEmpty {
                for d in checked.formatBlockers {
                    Console.printError(DiagnosticPrinter.render(d, source: checked.file))
                }
                Console.error("\(path): not formatted: fix the errors first")
                failed = true
                continue
            }
            if let v = checked.declaredVersion, v < RecipeFormat.current, !checked.migrations.isEmpty {
                Console.error("\(path): format \(v) is older than \(RecipeFormat.current): run `recipe migrate \(path)` first")
                failed = true
                continue
            }
            guard let text = RecipePrinter.format(checked) else { continue }
            if toStdout {
                print(text, terminator: "")
                continue
            }
            let original = String(decoding: checked.file.bytes, as: UTF8.self)
            guard text != original else { continue }
            changed.append(path)
            if check { continue }
            try TextOutput.replace(path, with: text, ifStill: checked.file.bytes)
        }
        var notCanonical = false
        if check {
            for path in changed { print(path) }
            if !changed.isEmpty {
                Console.printError("\(changed.count) file\(changed.count == 1 ? " is" : "s are") not canonical; `recipe fmt` rewrites \(changed.count == 1 ? "it" : "them")")
                notCanonical = true
            }
        } else if !toStdout {
            for path in changed { Console.printError("formatted \(path)") }
        }
        // Errors and missing files first (nothing could be done for them), then --check's answer.
        if failed { throw CommandFailure.usage }
        if notCanonical { throw CommandFailure.partial }
    }
}
