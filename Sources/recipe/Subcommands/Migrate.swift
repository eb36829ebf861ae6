import ArgumentParser
import RecipeCore
import RecipeLanguage
import RecipeSession

struct Migrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Rewrite recipes of an older format version to the current one, so the upgrade is a visible diff.",
        discussion: """
        Migrations run one version step at a time; the file is then written in the canonical form \
        (comments kept). A file of an older version that no migration changes is left as it is, \
        unless it uses an operation newer than its version (then only its version moves). With \
        --check nothing is written: files that need migrating are listed and the exit status is 1.
        """)

    @Argument(help: "Recipe files, or folders to search for *.recipe.yaml.", completion: .file())
    var paths: [String]

    @Flag(help: "Write nothing; list the files that need migrating and exit 1 if there are any.")
    var check = false

    @Flag(name: .customLong("stdout"), help: "Print the migrated recipe instead of rewriting the file.")
    var toStdout = false

    func run() throws {
        let (files, missing) = RecipeFiles.expand(paths)
        var failed = !missing.isEmpty
        for path in missing { Console.error("\(path): no such file or folder") }
        var pending = 0
        for path in files {
            let checked = RecipeChecker.load(path: path)
            if checked.hasErrors {
                for d in checked.diagnostics where d.severity == .error {
                    Console.printError(DiagnosticPrinter.render(d, source: checked.file))
                }
                Console.error("\(path): not migrated: fix the errors first")
                failed = true
                continue
            }
            guard let from = checked.declaredVersion, from < RecipeFormat.current, checked.needsMigration else {
                if toStdout, let text = RecipePrinter.format(checked) { print(text, terminator: "") }
                continue
            }
            pending += 1
            if check {
                print(path)
                continue
            }
            guard let write = MigrationEdit.migrated(checked) else { continue }
            let text = write.text
            if let note = write.note { Console.warning(note) }
            if toStdout {
                print(text, terminator: "")
                continue
            }
            try TextOutput.replace(path, with: text, ifStill: checked.file.bytes)
            Console.printError("migrated \(path): \(from) → \(RecipeFormat.current)")
            for line in checked.migrations { Console.printError("  \(line)") }
        }
        // Errors and missing files first (nothing could be done for them), then --check's answer.
        if failed { throw CommandFailure.usage }
        if check && pending > 0 {
            Console.printError("\(pending) file\(pending == 1 ? " needs" : "s need") migrating to \(RecipeFormat.current)")
            throw CommandFailure.partial
        }
    }
}
