import Glibc

/// What `recipe-bench identity` (the default mode) and `recipe-bench engine` run with: their
/// command line (`BenchArguments`) with the defaults resolved against the package root.
///
/// ```
/// recipe-bench                                   # 7 runs, ../shared/corpus, .build-static/release/recipe
/// recipe-bench --runs 3 --out bench-results/today.md
/// recipe-bench --recipe-binary .build/release/recipe --corpus /data/corpus
/// ```
struct BenchOptions {
    /// Timed runs per row (after one untimed warm-up run).
    var runs: Int
    /// The corpus folder; the images are `bench/photo24-baseline-q95.jpg` and `bench/photo24-progressive.jpg`.
    var corpus: String
    /// The `recipe` executable to measure.
    var recipeBinary: String
    /// A Markdown file to write the report to, besides stdout.
    var outFile: String?
    /// How children are started (see `Launcher`).
    var launcher: Launcher

    /// The package root (`findPackageRoot()`), looked up once.
    static let packageRoot = findPackageRoot()

    /// `../shared/corpus` beside the package.
    static func defaultCorpus(packageRoot: String) -> String {
        FileSystem.join(FileSystem.parent(packageRoot), "shared/corpus")
    }

    /// `.build-static/release/recipe` (the statically linked release build) if it exists, else
    /// `.build/release/recipe`.
    static func defaultRecipeBinary(packageRoot: String) -> String {
        let staticBuild = FileSystem.join(packageRoot, ".build-static/release/recipe")
        return FileSystem.exists(staticBuild) ? staticBuild : FileSystem.join(packageRoot, ".build/release/recipe")
    }

    /// The folder holding this package's `Package.swift` and `Sources/recipe-bench`: searched upwards
    /// from the executable (`<root>/.build*/…/release/recipe-bench`), then from the current directory.
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
