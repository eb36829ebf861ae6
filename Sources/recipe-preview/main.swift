import ArgumentParser
import RecipePreview
import RecipePreviewOptions
import RecipeSession
#if canImport(Glibc)
import Glibc
#endif

/// The `recipe preview` server: `recipe preview …` runs this executable in its place (see
/// Sources/recipe/Subcommands/Preview.swift); it can also be run directly with the same arguments.
struct PreviewServerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recipe preview", abstract: PreviewOptions.abstract, discussion: PreviewOptions.discussion)

    @OptionGroup var options: PreviewOptions

    func run() throws {
        do {
            let run = try PreviewRun(arguments: options.arguments, host: options.host, port: options.port, size: .longEdge(options.size),
                                     budget: options.memory.budget)
            try run.run()
        } catch let error as PreviewError {
            Console.error(error.description)
            throw CommandFailure.usage
        }
    }
}

do {
    var command = try PreviewServerCommand.parseAsRoot()
    try command.run()
} catch let failure as CommandFailure {
    exit(failure.exitCode)
} catch {
    let code = PreviewServerCommand.exitCode(for: error)
    let message = PreviewServerCommand.fullMessage(for: error)
    if code == .success {
        if !message.isEmpty { print(message) }
        exit(0)
    }
    if !message.isEmpty { Console.printError(message) }
    exit(ExitStatus.forParser(code.rawValue))
}
