import ArgumentParser
import Glibc
import RecipeOptions

/// The command line of `recipe-fuzz`.
///
/// ```
/// recipe-fuzz --runs 1000000 --corpus Recipes --save-findings /tmp/findings
/// recipe-fuzz --seed 7 --max-len 1024
/// recipe-fuzz --replay /tmp/findings/finding-1-fmt-errors.recipe.yaml
/// ```
struct FuzzOptions: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recipe-fuzz",
        abstract: "Mutation-fuzz the recipe language's reader, checker and printer, in process.",
        discussion: """
            Mutates recipes in process and checks each one with RecipeChecker. For every input without \
            errors, `RecipePrinter.format` must give text that checks with no errors to the same graph \
            signature and formats to itself. Crashes and hangs (the watchdog) are caught with the input; \
            an input slower than 1 s and a peak RSS above the limit are findings too. Deterministic for \
            a given seed, corpus and max length. Exits 0 with no findings, 1 with findings, 2 for usage.

            Every input without errors is then rendered as `recipe render` would (the same planning \
            and render job, 2 threads, to a JPEG) on a --render-size photo, and its time and peak \
            memory are recorded: the peak is the growth of the resident high-water mark over the \
            render (Linux VmHWM, reset before each render through /proc/self/clear_refs). Findings: \
            a render above the memory budget (--max-memory), one whose peak exceeds 1.5 times its own \
            estimate (less the process's share) and 8 MiB, one slower than 1 s plus its estimated work \
            at 100 M pixel-ops a second, one that fails. A render estimated above the budget is \
            refused, as `recipe` refuses it, and counted; one estimated at more than 1 G pixel-ops is \
            not run here (its memory estimate still is). Each input's estimate for a 6000×4000 photo \
            is recorded too.

            Other modes:
              recipe-fuzz --replay FILE...   check each FILE once and print the verdict
              recipe-fuzz --dump-seeds DIR   write the built-in seeds to DIR
            """)

    @Option(help: ArgumentHelp("Random seed.", valueName: "n"))
    var seed: UInt64 = 1

    @Option(help: ArgumentHelp("Inputs to run, the unmutated seeds included.", valueName: "n"))
    var runs = 1_000_000

    @Option(name: .customLong("max-len"), help: ArgumentHelp("Longest input in bytes, at least 16.", valueName: "n"))
    var maxLength = 4096

    @Option(
        name: .customLong("corpus"),
        help: ArgumentHelp(
            "Also seed from every *.recipe.yaml under this folder (repeatable; a file is taken as given); the built-in seeds are always used.",
            valueName: "dir"))
    var corpusFolders: [String] = []

    @Option(
        name: .customLong("save-findings"),
        help: ArgumentHelp("Write each finding's input (minimized, and the original) to this folder.", valueName: "dir"))
    var findingsFolder: String?

    @Option(name: .customLong("max-rss-mib"), help: ArgumentHelp("Peak RSS limit for a memory finding, at least 16.", valueName: "n"))
    var maxRSSMiB = 512

    @Option(help: ArgumentHelp("Kill and report an input running this long, at least 2.", valueName: "n"))
    var hangSeconds = 10

    @Option(name: .customLong("render-size"), help: ArgumentHelp("The photo every valid input is rendered on, WIDTHxHEIGHT.", valueName: "size"))
    var renderSizeText = "96x64"

    @Flag(help: "Check and format only: render nothing.")
    var noRender = false

    @OptionGroup var memory: MemoryOptions

    @Option(
        parsing: .upToNextOption,
        help: ArgumentHelp("Check each file once, print what the oracle says, and exit (--replay a b c, or repeated).", valueName: "file"))
    var replay: [String] = []

    @Option(help: ArgumentHelp("Write the built-in seeds to this folder as NAME.recipe.yaml, and exit.", valueName: "dir"))
    var dumpSeeds: String?

    /// Inputs slower than this (but finishing) are `slow` findings.
    var slowSeconds: Double { 1.0 }

    /// The render probe's photo size (nil: not given as WIDTHxHEIGHT).
    var renderSize: (width: Int, height: Int)? {
        let parts = renderSizeText.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (1...8192).contains(w), (1...8192).contains(h) else { return nil }
        return (w, h)
    }

    func validate() throws {
        let counts = [("--runs", runs, 1), ("--max-len", maxLength, 16), ("--max-rss-mib", maxRSSMiB, 16), ("--hang-seconds", hangSeconds, 2)]
        for (name, value, minimum) in counts where value < minimum {
            throw ValidationError("\(name) must be a whole number ≥ \(minimum), not '\(value)'")
        }
        let paths: [(String, String?)] = [("--save-findings", findingsFolder), ("--dump-seeds", dumpSeeds)]
            + corpusFolders.map { ("--corpus", $0) } + replay.map { ("--replay", $0) }
        for (name, value) in paths where value?.isEmpty == true {
            throw ValidationError("\(name) needs a non-empty value")
        }
        guard renderSize != nil else { throw ValidationError("--render-size must be WIDTHxHEIGHT, each 1…8192, not '\(renderSizeText)'") }
    }

    /// The options on the command line; exits after printing help (status 0) or a usage error
    /// (status 2; argument-parser's own code for it is 64).
    static func parseCommandLine() -> FuzzOptions {
        do {
            return try parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { print(message) }
                Glibc.exit(0)
            }
            if !message.isEmpty { FuzzSystem.note(message) }
            Glibc.exit(code == .validationFailure ? 2 : code.rawValue)
        }
    }
}
