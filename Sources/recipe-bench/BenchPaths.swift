import ArgumentParser

/// Where a mode finds the recipe binary and the corpus, and where it writes its report: the path
/// options shared by `engine`, `apply` and `display`. Unset paths default from the package root.
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

    /// `--corpus` made absolute, else `../shared/corpus` beside the package.
    var resolvedCorpus: String {
        corpus.map(FileSystem.absolute) ?? FileSystem.join(FileSystem.parent(Self.root), "shared/corpus")
    }

    /// `--recipe-binary`, else the package's release build.
    var resolvedRecipeBinary: String { recipeBinary ?? Self.defaultRecipeBinary }

    /// What is wrong with the recipe binary at `path` (it is missing or not executable), or nil.
    static func binaryProblem(_ path: String) -> String? {
        FileSystem.isExecutable(path) ? nil
            : "no executable recipe binary at \(path); build it with `.ci/build-release` or pass --recipe-binary"
    }

    /// The folder holding this package's `Package.swift` and `Sources/recipe-bench`, looked up once;
    /// nil when there is none.
    static let packageRoot = findPackageRoot()

    /// The package root, for a mode whose `validate()` made sure it was found.
    static var root: String {
        guard let packageRoot else { preconditionFailure("validate() checks the package root") }
        return packageRoot
    }

    /// `.build-static/release/recipe` (the statically linked release build) in the package if it
    /// exists, else `.build/release/recipe`.
    static var defaultRecipeBinary: String {
        let staticBuild = FileSystem.join(root, ".build-static/release/recipe")
        return FileSystem.exists(staticBuild) ? staticBuild : FileSystem.join(root, ".build/release/recipe")
    }

    /// Searches upwards for the package root from the executable (`<root>/.build*/…/release/recipe-bench`),
    /// then from the current directory.
    private static func findPackageRoot() -> String? {
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
