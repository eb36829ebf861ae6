import ArgumentParser
import RecipePreviewOptions
import RecipeSession
#if canImport(Glibc)
import Glibc
#endif

/// `recipe preview`: parsed here (help, completions, usage errors), served by `recipe-preview`,
/// which this process becomes (execv: the same process id, stdout, stdin and signals). The web
/// stack (Hummingbird, NIO, Foundation) stays out of `recipe`, whose every other command it made
/// 3.5 ms slower to start and 6.5 MiB larger (identity render of photo24 0.54× → 0.58× the
/// decode + encode floor).
struct Preview: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "preview", abstract: PreviewOptions.abstract, discussion: PreviewOptions.discussion)

    @OptionGroup var options: PreviewOptions

    func run() throws {
        guard let server = Self.serverPath() else {
            Console.error("recipe-preview is not installed beside recipe (\(Self.executableFolder() ?? "?")) nor on PATH; it serves `recipe preview`")
            throw CommandFailure.usage
        }
        // Everything after the subcommand's name, as given.
        let all = CommandLine.arguments
        let rest = all.firstIndex(of: "preview").map { Array(all[($0 + 1)...]) } ?? []
        let argv = ([server] + rest).map { strdup($0) } + [nil]
        execv(server, argv)
        Console.error("cannot run \(server): \(String(cString: strerror(errno)))")
        throw CommandFailure.usage
    }

    /// The folder of this executable (/proc/self/exe), nil when it cannot be read.
    static func executableFolder() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        let path = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
    }

    /// `recipe-preview` beside this executable, else the first on PATH.
    static func serverPath() -> String? {
        let name = "recipe-preview"
        var candidates = executableFolder().map { [$0 + "/" + name] } ?? []
        if let path = getenv("PATH") {
            candidates += String(cString: path).split(separator: ":").map { "\($0)/\(name)" }
        }
        return candidates.first { access($0, X_OK) == 0 }
    }
}
