import ArgumentParser
import Glibc

/// The command line of `recipe-bench`: one mode per subcommand; without one, the help.
///
/// ```
/// recipe-bench engine --runs 5 --out bench-results/engine.md
/// recipe-bench check --files 50000 --runs 3
/// recipe-bench apply --files 2000 --runs 3 --keep
/// recipe-bench display --photos Bridge --out bench-results/display.md
/// ```
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recipe-bench",
        abstract: "Time the recipe CLI, as separate processes, against the libjpeg-turbo floor and peers.",
        discussion: """
            The timing modes measure the median wall time of N runs after 1 warm-up and the largest \
            peak RSS (ru_maxrss from wait4) of those runs; display measures how close display renders \
            come to the full renders downscaled (PSNR). Every mode prints a Markdown report with the \
            issues' checks (PASS/MISS), and exits 0 even when a target is missed, 1 if a command \
            fails, 2 for a command-line mistake.

            Without a mode, recipe-bench prints this help and exits 0. The identity renders against \
            the libjpeg-turbo floor and peers are measured by .ci/bench-identity (hyperfine and GNU time).
            """,
        subcommands: [EngineBenchmark.self, CheckBenchmark.self, ApplyBenchmark.self, DisplayBenchmark.self])

    /// Parses the command line, runs the mode and exits with its status: help on stdout with 0,
    /// a command-line mistake on stderr with 2 (argument-parser's own code for it is 64).
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { print(message) }
                Glibc.exit(0)
            }
            if !message.isEmpty { note(message) }
            Glibc.exit(code == .validationFailure ? 2 : code.rawValue)
        }
    }

    /// Ends a mode's `run()` with `status`: returns for 0, throws the exit code otherwise.
    static func finish(_ status: Int32) throws {
        if status != 0 { throw ExitCode(status) }
    }

    /// Prints a mode's Markdown `report` and writes it to each of `files` given; false (after saying
    /// why) when a write failed.
    static func publish(_ report: String, mode: String, to files: String?...) -> Bool {
        print(report, terminator: "")
        var written = true
        for case let file? in files where !FileSystem.writeFile(report, to: file) {
            note("recipe-bench \(mode): cannot write \(file): \(FileSystem.errorText())")
            written = false
        }
        return written
    }

    /// Throws unless `value`, the value of option `name`, is at least `minimum`.
    static func requireCount(_ value: Int, of name: String, minimum: Int = 1) throws {
        guard value >= minimum else { throw ValidationError("\(name) must be a whole number ≥ \(minimum), not '\(value)'") }
    }

    /// Throws when one of the options given has an empty value (`--out ""`): no mode takes one.
    static func requireValues(_ values: KeyValuePairs<String, String?>) throws {
        for (name, value) in values where value?.isEmpty == true {
            throw ValidationError("\(name) needs a non-empty value")
        }
    }
}
