import ArgumentParser
import Glibc

/// `recipe-bench check`: how fast `recipe check` goes through a photo library's sidecar recipes.
/// Generates N typical sidecars (`SidecarGenerator`) into a temporary folder, in subfolders like a
/// library's rolls, then times `taskset -c 0 recipe check <folder>` (one core) and judges the
/// target: at least 5,000 files/s.
///
/// ```
/// recipe-bench check                          # 10,000 files, 5 runs, .build-static/release/recipe
/// recipe-bench check --files 50000 --runs 3 --recipe-binary .build/release/recipe
/// recipe-bench check --keep                   # leave the folder for profiling (`perf record`)
/// ```
///
/// Exit status: 0 when every run passed (exit status 0 from `recipe check`), even if the target is
/// missed; 1 when a run failed (a generated recipe did not check clean is a bug in the generator or
/// in the checker); 2 for a command-line mistake.
struct CheckBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "How fast `recipe check` goes through generated sidecar recipes, on one core.",
        discussion: """
            Generates N typical sidecar recipes (3-12 stages of common ops, comments, ids, masks; \
            300-1,500 bytes each) in \(folders) subfolders of a temporary folder, then times \
            `taskset -c 0 recipe check <folder>` (one core; without taskset if it is missing or \
            cannot pin): the median wall time of the runs after 1 warm-up, as files/s, judged against \
            \(Int(targetFilesPerSecond)) files/s. Every run must exit 0: all generated recipes are valid.
            """)

    static let targetFilesPerSecond = 5_000.0
    static let folders = 20

    /// What the mode runs with: the command line, `--recipe-binary` resolved.
    struct Options {
        var files: Int
        var runs: Int
        var recipeBinary: String
        var keep: Bool
    }

    @Option(help: ArgumentHelp("Recipes to generate.", valueName: "n"))
    var files = 10_000

    @Option(help: ArgumentHelp("Timed runs, after one untimed warm-up run.", valueName: "n"))
    var runs = 5

    @Option(help: BenchPaths.recipeBinaryHelp)
    var recipeBinary: String?

    @Flag(help: "Keep the generated folder (its path is printed) for profiling.")
    var keep = false

    func validate() throws {
        try BenchCommand.requireCount(files, of: "--files")
        try BenchCommand.requireCount(runs, of: "--runs")
        try BenchCommand.requireValues(["--recipe-binary": recipeBinary])
        guard recipeBinary != nil || BenchPaths.packageRoot != nil else {
            throw ValidationError("cannot find the package root (Package.swift); pass --recipe-binary")
        }
    }

    func run() throws {
        let recipeBinary = recipeBinary ?? BenchPaths.defaultRecipeBinary
        try BenchCommand.finish(Self.measure(Options(files: files, runs: runs, recipeBinary: recipeBinary, keep: keep)))
    }

    /// Generates the recipes and times `recipe check` on them with `options`; returns the exit status.
    static func measure(_ options: Options) -> Int32 {
        if let problem = BenchPaths.binaryProblem(options.recipeBinary) {
            note("recipe-bench check: \(problem)")
            return 1
        }
        guard let scratch = ScratchDirectory() else {
            note("recipe-bench check: cannot create a temporary folder: \(FileSystem.errorText())")
            return 1
        }
        let library = scratch.file("library")

        // Generate.
        let generationStart = now()
        guard let sizes = generate(files: options.files, into: library) else {
            note("recipe-bench check: cannot write the recipes under \(library): \(FileSystem.errorText())")
            FileSystem.removeTree(library)
            return 1
        }
        let totalBytes = sizes.reduce(0, +)
        note("generated \(options.files) recipes (\(sizes.min() ?? 0)-\(sizes.max() ?? 0) bytes, mean "
            + "\(totalBytes / max(1, sizes.count)), \(Format.grouped(totalBytes)) bytes in all) in \(folders) folders in "
            + "\(Format.fixed(now() - generationStart, 2)) s: \(library)")

        // One core: taskset, if it is there and can pin to CPU 0.
        let runner = ProcessRunner(launcher: .fork, logPath: scratch.file("stderr.log"))
        var pinNote = "pinned to CPU 0 with taskset"
        var command = Command(executable: options.recipeBinary, arguments: [options.recipeBinary, "check", library])
        if let taskset = FileSystem.which("taskset") {
            let probe = Command(executable: taskset, arguments: ["taskset", "-c", "0", "/bin/true"])
            if case .success = runner.run(probe) {
                command = Command(executable: taskset, arguments: ["taskset", "-c", "0", options.recipeBinary, "check", library])
            } else {
                pinNote = "NOT pinned: `taskset -c 0` failed here; ran unpinned (recipe check is single-threaded)"
                note("recipe-bench check: taskset -c 0 fails here; running without it")
            }
        } else {
            pinNote = "NOT pinned: taskset is missing (util-linux); ran unpinned (recipe check is single-threaded)"
            note("recipe-bench check: taskset not found; running without it (install util-linux to pin to one core)")
        }

        // Warm-up (page cache) and validity: every generated recipe must check clean.
        let output = scratch.file("check-output.txt")
        if case .failure(let failure) = runner.run(command, stdoutPath: output) {
            let shown = (FileSystem.readText(output) ?? "").split(separator: "\n").prefix(12).joined(separator: "\n")
            note("recipe-bench check: warm-up run failed: \(failure)\n\(shown)")
            finish(scratch, library: library, keep: options.keep)
            return 1
        }
        var walls: [Double] = []
        var maxRSSKiB = 0
        for run in 1...options.runs {
            switch runner.run(command) {
            case .success(let sample):
                walls.append(sample.wallSeconds)
                maxRSSKiB = max(maxRSSKiB, sample.maxRSSKiB)
                note("run \(run)/\(options.runs): \(Format.fixed(sample.wallSeconds, 3)) s, "
                    + "\(Int(Double(options.files) / sample.wallSeconds)) files/s")
            case .failure(let failure):
                note("recipe-bench check: run \(run) failed: \(failure)")
                finish(scratch, library: library, keep: options.keep)
                return 1
            }
        }
        let median = walls.median ?? 0
        let rate = Double(options.files) / median
        let passed = rate >= targetFilesPerSecond

        var lines: [String] = []
        lines.append("## recipe check speed")
        lines.append("")
        lines.append("- recipe: `\(options.recipeBinary)`")
        lines.append("- input: \(options.files) generated sidecar recipes in \(folders) folders, \(sizes.min() ?? 0)-\(sizes.max() ?? 0) bytes "
            + "(mean \(totalBytes / max(1, sizes.count))), 3-12 stages each; all valid")
        lines.append("- \(pinNote)")
        lines.append("- wall: median of \(options.runs) runs after 1 warm-up: \(Format.fixed(median, 3)) s "
            + "(min \(Format.fixed(walls.min() ?? 0, 3)) s, max \(Format.fixed(walls.max() ?? 0, 3)) s), "
            + "\(Format.fixed(median / Double(options.files) * 1e6, 1)) µs per file; peak RSS \(Format.fixed(Double(maxRSSKiB) / 1024, 1)) MiB")
        lines.append("- command (`$W` = the generated folder\(options.keep ? ", kept" : ", deleted afterwards")): `"
            + command.displayLine.replacing(library, with: "$W") + "`")
        lines.append("")
        lines.append("- \(passed ? "PASS" : "MISS")  recipe check ≥ \(Int(targetFilesPerSecond)) files/s on one core: "
            + "\(Int(rate.rounded())) files/s")
        print(lines.joined(separator: "\n"))
        finish(scratch, library: library, keep: options.keep)
        return 0
    }

    /// Writes the recipes as `library/roll-NN/IMG_NNNNN.jpg.recipe.yaml`; their sizes, or nil.
    static func generate(files: Int, into library: String) -> [Int]? {
        guard mkdir(library, 0o755) == 0 else { return nil }
        for folder in 0..<folders where mkdir(folderPath(library, folder), 0o755) != 0 { return nil }
        var generator = SidecarGenerator(seed: 2024)
        var sizes: [Int] = []
        sizes.reserveCapacity(files)
        for index in 1...files {
            let text = generator.recipe(index: index)
            let name = "IMG_" + Format.padded(index, 5) + ".jpg.recipe.yaml"
            guard FileSystem.writeFile(text, to: FileSystem.join(folderPath(library, index % folders), name)) else { return nil }
            sizes.append(text.utf8.count)
        }
        return sizes
    }

    static func folderPath(_ library: String, _ folder: Int) -> String {
        FileSystem.join(library, "roll-" + Format.padded(folder, 2))
    }

    /// Deletes the generated folders (two levels: library/roll-NN/files), then the scratch folder,
    /// unless `keep`.
    static func finish(_ scratch: ScratchDirectory, library: String, keep: Bool) {
        if keep {
            note("recipe-bench check: kept \(library)")
            return
        }
        FileSystem.removeTree(library)
        scratch.remove()
    }

    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}
