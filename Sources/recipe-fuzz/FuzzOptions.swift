/// The command line of `recipe-fuzz`.
///
/// ```
/// recipe-fuzz --runs 1000000 --corpus Recipes --save-findings /tmp/findings
/// recipe-fuzz --seed 7 --max-len 1024
/// recipe-fuzz --replay /tmp/findings/finding-1-fmt-errors.recipe.yaml
/// ```
struct FuzzOptions {
    var seed: UInt64 = 1
    var runs = 1_000_000
    var maxLength = 4096
    var corpusFolders: [String] = []
    var findingsFolder: String?
    var replay: [String] = []
    var dumpSeeds: String?
    /// A peak RSS above this is a finding (the checker's memory must stay bounded).
    var maxRSSMiB = 512
    /// An input running this long is killed by the watchdog and reported as a hang.
    var hangSeconds = 10
    /// Inputs slower than this (but finishing) are `slow` findings.
    var slowSeconds = 1.0

    struct UsageError: Error {
        let message: String
    }

    enum Parsed {
        case run(FuzzOptions)
        case help
    }

    static let usage = """
        usage: recipe-fuzz [--seed N] [--runs N] [--max-len N] [--corpus DIR]... [--save-findings DIR]
                           [--max-rss-mib N] [--hang-seconds N]
               recipe-fuzz --replay FILE...
               recipe-fuzz --dump-seeds DIR

        Mutates recipes in process and checks each one with RecipeChecker. For every input without
        errors, `RecipePrinter.format` must give text that checks with no errors to the same graph
        signature and formats to itself. Crashes and hangs (the watchdog) are caught with the input;
        an input slower than 1 s and a peak RSS above the limit are findings too. Deterministic for
        a given seed, corpus and max length. Exits 0 with no findings, 1 with findings, 2 for usage.

          --seed N            random seed (default 1)
          --runs N            inputs to run, the unmutated seeds included (default 1000000)
          --max-len N         longest input in bytes (default 4096)
          --corpus DIR        also seed from every *.recipe.yaml under DIR (repeatable; a file is
                              taken as given); the built-in seeds are always used
          --save-findings DIR write each finding's input (minimized, and the original) to DIR
          --max-rss-mib N     peak RSS limit for a memory finding (default 512)
          --hang-seconds N    kill and report an input running this long (default 10)
          --replay FILE...    check each FILE once, print what the oracle says, and exit
          --dump-seeds DIR    write the built-in seeds to DIR as NAME.recipe.yaml, and exit
          -h, --help          show this text
        """

    static func parse(_ arguments: [String]) throws(UsageError) -> Parsed {
        var options = FuzzOptions()
        var index = 0
        let valued = ["--seed", "--runs", "--max-len", "--corpus", "--save-findings", "--replay", "--max-rss-mib", "--hang-seconds",
                      "--dump-seeds"]
        while index < arguments.count {
            var name = arguments[index]
            var inlineValue: String?
            if name.hasPrefix("--"), let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            index += 1
            if name == "-h" || name == "--help" { return .help }
            if !name.hasPrefix("-"), !options.replay.isEmpty {
                options.replay.append(name)  // `--replay a b c`
                continue
            }
            guard valued.contains(name) else { throw UsageError(message: "unknown argument '\(arguments[index - 1])'") }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.count else { throw UsageError(message: "\(name) needs a value") }
                value = arguments[index]
                index += 1
            }
            guard !value.isEmpty else { throw UsageError(message: "\(name) needs a non-empty value") }
            func count(min: Int) throws(UsageError) -> Int {
                guard let n = Int(value), n >= min else {
                    throw UsageError(message: "\(name) must be a whole number ≥ \(min), not '\(value)'")
                }
                return n
            }
            switch name {
            case "--seed":
                guard let n = UInt64(value) else { throw UsageError(message: "--seed must be a whole number ≥ 0, not '\(value)'") }
                options.seed = n
            case "--runs": options.runs = try count(min: 1)
            case "--max-len": options.maxLength = try count(min: 16)
            case "--corpus": options.corpusFolders.append(value)
            case "--save-findings": options.findingsFolder = value
            case "--replay": options.replay.append(value)
            case "--max-rss-mib": options.maxRSSMiB = try count(min: 16)
            case "--dump-seeds": options.dumpSeeds = value
            default: options.hangSeconds = try count(min: 2)
            }
        }
        return .run(options)
    }
}
