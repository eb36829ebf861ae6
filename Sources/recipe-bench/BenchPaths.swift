import ArgumentParser

/// Where a mode finds the recipe binary and the corpus, and where it writes its report: the path
/// options shared by `identity`, `engine`, `apply` and `display`. Unset paths default from the package root.
///
/// ```
/// recipe-bench engine --recipe-binary .build/release/recipe --corpus /data/corpus --out engine.md
/// ```
struct BenchPaths: ParsableArguments {
    /// `--recipe-binary`'s help, also used by `check`.
    static let recipeBinaryHelp = ArgumentHelp(
        "The recipe executable (default <package>/.build-static/release/recipe if present, else <package>/.build/release/recipe).",
        valueName: "path")

    @Option(help: ArgumentHelp("Corpus folder with bench/*.jpg (default <package>/../shared/corpus).", valueName: "dir"))
    var corpus: String?

    @Option(help: recipeBinaryHelp)
    var recipeBinary: String?

    @Option(name: .customLong("out"), help: ArgumentHelp("Also write the report to this Markdown file.", valueName: "file.md"))
    var outFile: String?

    func validate() throws {
        try BenchCommand.requireValues(["--corpus": corpus, "--recipe-binary": recipeBinary, "--out": outFile])
    }

    /// `--corpus` made absolute, else `../shared/corpus` beside the package at `packageRoot`.
    func corpus(packageRoot: String) -> String {
        corpus.map(FileSystem.absolute) ?? BenchOptions.defaultCorpus(packageRoot: packageRoot)
    }

    /// `--recipe-binary`, else the release build of the package at `packageRoot`.
    func recipeBinary(packageRoot: String) -> String {
        recipeBinary ?? BenchOptions.defaultRecipeBinary(packageRoot: packageRoot)
    }

    /// What is wrong with the recipe binary at `path` (it is missing or not executable), or nil.
    static func binaryProblem(_ path: String) -> String? {
        FileSystem.isExecutable(path) ? nil
            : "no executable recipe binary at \(path); build it with `.ci/build-release` or pass --recipe-binary"
    }
}
