import ArgumentParser

extension Launcher: ExpressibleByArgument {}

/// The options of `recipe-bench identity` (the default mode) and `recipe-bench engine`, as given;
/// `options` fills in the defaults that depend on the package root.
///
/// ```swift
/// let arguments = try BenchArguments.parse(["--runs", "3", "--launcher", "posix-spawn"])
/// arguments.options.runs       // 3
/// arguments.options.corpus     // "<package>/../shared/corpus"
/// ```
struct BenchArguments: ParsableArguments {
    @Option(help: ArgumentHelp("Timed runs per row, after one untimed warm-up run.", valueName: "n"))
    var runs = 7

    @OptionGroup var paths: BenchPaths

    @Option(help: ArgumentHelp(
        "fork or posix-spawn; posix-spawn children inherit the bench's own peak RSS as their floor (see the report's notes).",
        valueName: "kind"))
    var launcher: Launcher = .fork

    func validate() throws {
        try BenchCommand.requireCount(runs, of: "--runs")
        guard BenchOptions.packageRoot != nil || (paths.corpus != nil && paths.recipeBinary != nil) else {
            throw ValidationError("cannot find the package root (Package.swift); pass --corpus and --recipe-binary")
        }
    }

    /// The options, `--corpus` and `--recipe-binary` defaulted from the package root (which
    /// `validate()` made sure is found when one of them is needed).
    var options: BenchOptions {
        func fromPackageRoot(_ path: (String) -> String) -> String {
            guard let root = BenchOptions.packageRoot else { preconditionFailure("validate() checks the package root") }
            return path(root)
        }
        return BenchOptions(
            runs: runs, corpus: paths.corpus ?? fromPackageRoot(BenchOptions.defaultCorpus(packageRoot:)),
            recipeBinary: paths.recipeBinary ?? fromPackageRoot(BenchOptions.defaultRecipeBinary(packageRoot:)),
            outFile: paths.outFile, launcher: launcher)
    }
}
