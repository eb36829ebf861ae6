import ArgumentParser
import RecipeBatch
import RecipeCore
import RecipeSession
#if canImport(Glibc)
import Glibc
#endif

/// `recipe`: the command-line front end.
///
/// Exit status: the one table of `ExitStatus` (0 success, 1 a photo failed or a question's answer
/// is no, 2 usage or recipe errors), printed by `--help`.
///
/// Every subcommand names itself (`commandName:`): without it ArgumentParser derives each name
/// from the type's description at every start, through reflection and protocol-conformance scans
/// of the whole binary (`recipe --version` 5.6 → 4.3 ms, a render of an 8×8 photo 8.9 → 8.1 ms).
@main
struct RecipeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recipe",
        abstract: "Render photos through hand-written edit recipes; originals are never modified.",
        discussion: ExitStatus.help,
        version: RecipeVersion.string,
        subcommands: [Preview.self, Render.self, Apply.self, Edit.self, Import.self, Revert.self, History.self, Relink.self, Info.self, Check.self, Fmt.self, Explain.self, Ops.self, Migrate.self, Schema.self, Diff.self, MergeFile.self])

    static func main() {
        TemporaryFiles.installSignalCleanup()
        // `recipe --version` alone prints the long report (the libraries too); the parser's own
        // --version, which `version:` above keeps in the help, would print the release only.
        if Array(CommandLine.arguments.dropFirst()) == ["--version"] {
            print(VersionReport.lines.joined(separator: "\n"))
            return
        }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let error as ImageError {
            Console.error(error.description)
            Glibc.exit(ExitStatus.partial)
        } catch let failure as CommandFailure {
            Glibc.exit(failure.exitCode)
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { print(message) }
                Glibc.exit(0)
            }
            if !message.isEmpty { Console.printError(message) }
            Glibc.exit(ExitStatus.forParser(code.rawValue))
        }
    }
}
