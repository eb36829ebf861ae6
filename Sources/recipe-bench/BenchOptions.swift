import Glibc

/// The command line of `recipe-bench`, with its defaults resolved against the package root.
///
/// ```
/// recipe-bench                                   # 7 runs, ../shared/corpus, .build-static/release/recipe
/// recipe-bench --runs 3 --out bench-results/today.md
/// recipe-bench --recipe-binary .build/release/recipe --corpus /data/corpus
/// ```
struct BenchOptions {
    /// Timed runs per row (after one untimed warm-up run).
    var runs = 7
    /// The corpus folder; the images are `bench/photo24-baseline-q95.jpg` and `bench/photo24-progressive.jpg`.
    var corpus: String
    /// The `recipe` executable to measure.
    var recipeBinary: String
    /// A Markdown file to write the report to, besides stdout.
    var outFile: String?
    /// How children are started (see `Launcher`).
    var launcher = Launcher.fork

    /// A command-line mistake, reported with the usage text and exit status 2.
    struct UsageError: Error {
        /// What was wrong.
        let message: String
    }

    /// What `parse` found: options to run with, or a request for help.
    enum Parsed {
        /// Run the bench.
        case run(BenchOptions)
        /// Print `usage` and exit 0.
        case help
    }

    /// The help text.
    static let usage = """
        usage: recipe-bench [--runs N] [--corpus DIR] [--recipe-binary PATH] [--out FILE.md]
                            [--launcher fork|posix-spawn]
               recipe-bench check [--files N] [--runs N] [--recipe-binary PATH] [--keep]
               recipe-bench engine [--runs N] [--corpus DIR] [--recipe-binary PATH] [--out FILE.md]
               recipe-bench apply [--files N] [--memory-files N] [--runs N] [--recipe-binary PATH] [--out FILE.md] …

        Times the `recipe` CLI against the libjpeg-turbo floor (djpeg | cjpeg) and peers on the
        bench photos, as separate processes: median wall time of N runs after 1 warm-up, and the
        largest peak RSS (ru_maxrss from wait4) of those runs. Prints a Markdown table and the
        issue's checks (PASS/MISS); exits 0 even when a target is missed, 1 if a command fails.

          --runs N              timed runs per row (default 7)
          --corpus DIR          corpus folder with bench/photo24-*.jpg (default <package>/../shared/corpus)
          --recipe-binary PATH  recipe executable (default <package>/.build-static/release/recipe
                                if present, else <package>/.build/release/recipe)
          --out FILE.md         also write the report to FILE.md
          --launcher KIND       fork (default) or posix-spawn; posix-spawn children inherit the
                                bench's own peak RSS as their floor (see the report's notes)
          -h, --help            show this text

        `recipe-bench check --help` describes the check-speed benchmark (files/s of `recipe check`);
        `recipe-bench engine --help` the engine benchmark (the 5-op chain against libvips, fused C,
        GraphicsMagick and ImageMagick, and a 2-job batch with `recipe apply` and `mogrify`);
        `recipe-bench apply --help` the batch benchmark (no-op re-runs over 10,000 photos, memory).
        """

    /// Parses `arguments` (without the program name). Accepts `--name value` and `--name=value`.
    static func parse(_ arguments: [String], packageRoot: String?) throws(UsageError) -> Parsed {
        guard case .options(let words) = try ArgumentWords.scan(
            arguments, valued: ["--runs", "--corpus", "--recipe-binary", "--out", "--launcher"])
        else { return .help }
        var runs: Int?
        var corpus: String?
        var binary: String?
        var outFile: String?
        var launcher = Launcher.fork
        for (name, value) in words {
            switch name {
            case "--runs": runs = try ArgumentWords.count(value, of: name)
            case "--corpus": corpus = value
            case "--recipe-binary": binary = value
            case "--out": outFile = value
            default:
                guard let kind = Launcher(rawValue: value) else {
                    throw UsageError(message: "--launcher must be fork or posix-spawn, not '\(value)'")
                }
                launcher = kind
            }
        }
        guard let resolvedCorpus = corpus ?? packageRoot.map({ FileSystem.join(FileSystem.parent($0), "shared/corpus") })
        else { throw UsageError(message: "cannot find the package root (Package.swift); pass --corpus") }
        guard let resolvedBinary = binary ?? packageRoot.map(Self.defaultRecipeBinary(packageRoot:))
        else { throw UsageError(message: "cannot find the package root (Package.swift); pass --recipe-binary") }
        var options = BenchOptions(corpus: resolvedCorpus, recipeBinary: resolvedBinary)
        options.runs = runs ?? options.runs
        options.outFile = outFile
        options.launcher = launcher
        return .run(options)
    }

    /// `.build-static/release/recipe` (the statically linked release build) if it exists, else
    /// `.build/release/recipe`.
    static func defaultRecipeBinary(packageRoot: String) -> String {
        let staticBuild = FileSystem.join(packageRoot, ".build-static/release/recipe")
        return FileSystem.exists(staticBuild) ? staticBuild : FileSystem.join(packageRoot, ".build/release/recipe")
    }

    /// The folder holding this package's `Package.swift` and `Sources/recipe-bench`: searched upwards
    /// from the executable (`<root>/.build*/…/release/recipe-bench`), then from the current directory.
    static func findPackageRoot() -> String? {
        let starts = [FileSystem.executablePath().map(FileSystem.parent), FileSystem.currentDirectory()]
        for case let start? in starts {
            var directory = start
            while true {
                if FileSystem.exists(FileSystem.join(directory, "Package.swift")),
                    FileSystem.isDirectory(FileSystem.join(directory, "Sources/recipe-bench"))
                {
                    return directory
                }
                let up = FileSystem.parent(directory)
                if up == directory { break }
                directory = up
            }
        }
        return nil
    }
}

/// A mode's command line split into option names and values: `--name value`, `--name=value`,
/// bare flags and `-h`/`--help`, checked against the names the mode takes.
///
/// ```swift
/// try ArgumentWords.scan(["--runs=3", "--keep"], valued: ["--runs"], flags: ["--keep"])
/// // .options([("--runs", "3"), ("--keep", "")])
/// ```
enum ArgumentWords {
    /// What `scan` found.
    enum Scanned {
        /// `-h` or `--help` came first among the valid words.
        case help
        /// The options in command-line order; a flag's value is "".
        case options([(name: String, value: String)])
    }

    /// Splits `arguments` (without the program name and mode). Names in `valued` take a non-empty
    /// value (inline after `=`, or the next word); names in `flags` take none.
    static func scan(_ arguments: [String], valued: Set<String>, flags: Set<String> = []) throws(BenchOptions.UsageError) -> Scanned {
        var words: [(name: String, value: String)] = []
        var index = 0
        while index < arguments.count {
            var name = arguments[index]
            var inlineValue: String?
            if name.hasPrefix("--"), let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            index += 1
            if name == "-h" || name == "--help" { return .help }
            if flags.contains(name), inlineValue == nil {
                words.append((name, ""))
                continue
            }
            guard valued.contains(name) else {
                throw BenchOptions.UsageError(message: "unknown argument '\(arguments[index - 1])'")
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.count else { throw BenchOptions.UsageError(message: "\(name) needs a value") }
                value = arguments[index]
                index += 1
            }
            guard !value.isEmpty else { throw BenchOptions.UsageError(message: "\(name) needs a non-empty value") }
            words.append((name, value))
        }
        return .options(words)
    }

    /// `value` as a whole number ≥ `minimum`, or a usage error naming `name`.
    static func count(_ value: String, of name: String, minimum: Int = 1) throws(BenchOptions.UsageError) -> Int {
        guard let number = Int(value), number >= minimum else {
            throw BenchOptions.UsageError(message: "\(name) must be a whole number ≥ \(minimum), not '\(value)'")
        }
        return number
    }
}
