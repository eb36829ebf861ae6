import ArgumentParser
import Glibc

/// `recipe-bench apply`: issue 6's measured points for `recipe apply` on a large library of small
/// photos, where the batch's own work (walking, the manifest, stat and hash) is what shows.
///
/// 1. A no-op re-run over 10,000 photos (target ≤ 2 s wall, median of the runs), after a first
///    run that renders them all; then the re-run after `touch`ing every photo (content unchanged:
///    all must be skipped after re-hashing), and the re-run after that.
/// 2. Memory stays flat: one batch of 2,000 photos with `--progress lines`, the child's VmRSS
///    read from `/proc/PID/status` as the lines come; target RSS(2,000 done) ≤ 1.2 × RSS(100 done).
///
/// ```
/// .ci/bench apply                                   # 10,000 photos, 5 runs, .build-static/release/recipe
/// recipe-bench apply --recipe-binary .build/release/recipe --out bench-results/apply.md
/// recipe-bench apply --files 2000 --runs 3 --keep   # smaller, and keep the tree for profiling
/// ```
///
/// Exit status: 0 when every run ran (even if a target is missed), 1 when a command failed or the
/// setup could not be written, 2 for a command-line mistake.
struct ApplyBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apply",
        abstract: "Issue 6's `recipe apply` benchmark: no-op re-runs over 10,000 photos, and memory over a batch.",
        discussion: """
            Issue 6's measured points for `recipe apply` (\(jobs) jobs in every run). Renders the \
            package's Recipes/photos/*.jpg and the first \(benchSeeds) .jpg of <corpus>/bench to a \
            \(longEdge) px long edge (`recipe render --size \(longEdge)`), copies them into N photos in \
            folders d000/, d001/, … of a temporary folder, then:

              1. `recipe apply RECIPE TREE -o OUT --jobs \(jobs) --progress none` once
                 (renders all), then the same again (the no-op re-run, target ≤ \(Format.fixed(noOpTargetSeconds, 0)) s:
                 median of the runs after 1 warm-up), the re-run after touching every
                 photo (all must be skipped after re-hashing; the summary line on stderr
                 is checked), and the re-run after that; a --json run after each series
                 counts how photos were found up to date.
              2. the first --memory-files photos (--include 'd00*/**' …) into a new
                 folder with `--progress lines`, reading the child's VmRSS from
                 /proc/PID/status as the lines arrive: target RSS(all done) ≤ \(Format.fixed(rssGrowthLimit, 1)) ×
                 RSS(\(earlyCount) done).

            Prints a Markdown report and writes it to report.md in the temporary folder, which is \
            kept (the photos and outputs in it are deleted unless --keep). Exits 0 even when a \
            target is missed, 1 if a command fails, 2 for a command-line mistake.
            """)

    /// What the mode runs with: the command line, paths resolved against the package root.
    struct Options {
        var files: Int
        var folders: Int
        var memoryFiles: Int
        var runs: Int
        var corpus: String
        var recipeBinary: String
        var recipe: String
        var packageRoot: String
        var outFile: String?
        var keep: Bool
    }

    @Option(help: ArgumentHelp("Photos in the tree.", valueName: "n"))
    var files = 10_000

    @Option(help: ArgumentHelp("Folders the photos are spread over, 1-1000.", valueName: "n"))
    var folders = 100

    @Option(help: ArgumentHelp("Photos in the memory batch, \(earlyCount) up to --files.", valueName: "n"))
    var memoryFiles = 2_000

    @Option(help: ArgumentHelp("Timed runs per re-run series, after one untimed warm-up run.", valueName: "n"))
    var runs = 5

    @Option(help: ArgumentHelp("The recipe applied (default <package>/Recipes/basic-corrections.recipe.yaml).", valueName: "file"))
    var recipe: String?

    @OptionGroup var paths: BenchPaths

    @Flag(help: "Keep the tree and the outputs.")
    var keep = false

    /// Photos rendered at once in every run (the issue's `--jobs 2`).
    static let jobs = 2
    /// The long edge the seed photos are rendered to.
    static let longEdge = 160
    /// Seed photos taken from corpus/bench (besides the package's Recipes/photos/*.jpg).
    static let benchSeeds = 2
    /// Target: the no-op re-run's median wall.
    static let noOpTargetSeconds = 2.0
    /// Target: RSS when all are done ÷ RSS when `earlyCount` are done.
    static let rssGrowthLimit = 1.2
    /// The early memory checkpoint, in photos done.
    static let earlyCount = 100
    /// Seconds left between writing (or touching) the photos and the run that records them: a
    /// photo modified within 1 s of its manifest record is "racily clean" and hashed again by
    /// every run, as git does.
    static let settleSeconds: UInt32 = 2

    func validate() throws {
        try BenchCommand.requireCount(files, of: "--files")
        try BenchCommand.requireCount(folders, of: "--folders")
        try BenchCommand.requireCount(memoryFiles, of: "--memory-files", minimum: Self.earlyCount)
        try BenchCommand.requireCount(runs, of: "--runs")
        try BenchCommand.requireValues(["--recipe": recipe])
        guard BenchPaths.packageRoot != nil else { throw ValidationError("cannot find the package root (Package.swift)") }
        guard folders <= 1000 else { throw ValidationError("--folders must be at most 1000") }
        guard memoryFiles <= files else { throw ValidationError("--memory-files must be at most --files") }
    }

    func run() throws {
        let root = BenchPaths.root
        let options = Options(
            files: files, folders: folders, memoryFiles: memoryFiles, runs: runs,
            corpus: paths.resolvedCorpus, recipeBinary: paths.resolvedRecipeBinary,
            recipe: recipe.map(FileSystem.absolute) ?? FileSystem.join(root, "Recipes/basic-corrections.recipe.yaml"),
            packageRoot: root, outFile: paths.outFile, keep: keep)
        try BenchCommand.finish(Self.measure(options))
    }

    /// Builds the tree and runs every measurement with `options`; returns the exit status.
    static func measure(_ options: Options) -> Int32 {
        if let problem = BenchPaths.binaryProblem(options.recipeBinary) {
            note("recipe-bench apply: \(problem)")
            return 1
        }
        guard FileSystem.exists(options.recipe) else {
            note("recipe-bench apply: no recipe at \(options.recipe)")
            return 1
        }
        guard let scratch = ScratchDirectory() else {
            note("recipe-bench apply: cannot create a temporary folder: \(FileSystem.errorText())")
            return 1
        }
        var session = ApplySession(options: options, scratch: scratch)
        let status = session.run()
        if !options.keep {
            for folder in ["seeds", "tree", "out", "out-memory"] { FileSystem.removeTree(scratch.file(folder)) }
        }
        let report: Set<String> = FileSystem.exists(scratch.file("report.md")) ? ["report.md"] : []
        scratch.remove(keeping: options.keep ? Set(FileSystem.entryNames(scratch.path) ?? []) : report)
        return status
    }
}

/// One run of `recipe-bench apply`: the setup, the measurements in order, and the report.
struct ApplySession {
    let options: ApplyBenchmark.Options
    let scratch: ScratchDirectory
    let runner: ProcessRunner
    let tree: ApplyTree
    /// Everything measured, for the report.
    var results: ApplyReport.Results

    init(options: ApplyBenchmark.Options, scratch: ScratchDirectory) {
        self.options = options
        self.scratch = scratch
        runner = ProcessRunner(launcher: .fork, logPath: scratch.file("stderr.log"))
        tree = ApplyTree(root: scratch.file("tree"), files: options.files, folders: options.folders)
        results = ApplyReport.Results()
    }

    /// `recipe apply RECIPE TREE -o OUT --jobs 2 …`.
    func apply(output: String, _ extra: [String]) -> Command {
        Command(executable: options.recipeBinary,
                arguments: ["recipe", "apply", options.recipe, tree.root, "-o", output,
                            "--jobs", String(ApplyBenchmark.jobs)] + extra)
    }

    /// The summary line of the last run, from its stderr log.
    func lastSummary() -> ApplySummary? {
        ApplySummary(log: FileSystem.readText(runner.logPath) ?? "")
    }

    /// Runs everything and writes the report; returns the exit status.
    mutating func run() -> Int32 {
        guard let seeds = makeSeeds() else { return 1 }
        let started = CheckBenchmark.now()
        guard tree.build(seeds: seeds.map(\.bytes)) else {
            note("recipe-bench apply: cannot write the tree under \(tree.root): \(FileSystem.errorText())")
            return 1
        }
        results.seeds = seeds.map { (source: $0.source, bytes: $0.bytes.count) }
        results.treeSeconds = CheckBenchmark.now() - started
        note("wrote \(Format.grouped(options.files)) photos in \(options.folders) folders in "
            + "\(Format.fixed(results.treeSeconds, 2)) s: \(tree.root)")
        sleep(ApplyBenchmark.settleSeconds)

        let output = scratch.file("out")
        let quiet = apply(output: output, ["--progress", "none"])
        results.commands.quiet = quiet

        // 1. The first run renders everything.
        note("first run: rendering \(Format.grouped(options.files)) photos")
        switch runner.run(quiet) {
        case .failure(let failure):
            note("recipe-bench apply: the first run failed: \(failure)")
            return 1
        case .success(let sample):
            results.firstRun = sample
            results.firstSummary = lastSummary()
            note("first run: \(Format.fixed(sample.wallSeconds, 2)) s; \(results.firstSummary?.text ?? "no summary line")")
        }

        // The no-op re-run, then how the photos were found up to date.
        let noOp = series("no-op re-run", quiet)
        results.noOp = noOp
        results.noOpReasons = reasons(output: output)

        // Touched: every run re-hashes every photo.
        let touchTree = tree
        let touched = series("re-run after touching every photo", quiet) {
            if !touchTree.touchAll() { note("recipe-bench apply: touch failed: \(FileSystem.errorText())") }
        }
        results.touched = touched
        sleep(ApplyBenchmark.settleSeconds)
        let afterTouch = series("re-run after a touched re-run", quiet)
        results.afterTouch = afterTouch
        results.afterTouchReasons = reasons(output: output)

        // 2. Memory: a fresh output folder, one line per finished photo.
        let subset = tree.include(firstFiles: options.memoryFiles)
        let memoryCommand = apply(output: scratch.file("out-memory"),
                                  ["--progress", "lines"] + subset.globs.flatMap { ["--include", $0] })
        results.commands.memory = memoryCommand
        results.memory = measureMemory(memoryCommand, expected: subset.count)

        let report = ApplyReport(options: options, scratch: scratch.path, results: results)
        let reportFile = scratch.file("report.md")
        let written = BenchCommand.publish(report.markdown, mode: "apply", to: reportFile, options.outFile)
        note("report written to \(reportFile)")
        return written && !results.failed ? 0 : 1
    }

    /// The seed photos: each source rendered to the long edge, read back. Nil after a failure.
    func makeSeeds() -> [(source: String, bytes: [UInt8])]? {
        let sources = EngineInputs.firstPhotos(in: FileSystem.join(options.packageRoot, "Recipes/photos"), limit: .max)
            + EngineInputs.firstPhotos(in: FileSystem.join(options.corpus, "bench"), limit: ApplyBenchmark.benchSeeds)
        let folder = scratch.file("seeds")
        guard !sources.isEmpty, mkdir(folder, 0o755) == 0 else {
            note("recipe-bench apply: no seed photos (Recipes/photos/*.jpg, \(options.corpus)/bench/*.jpg), or cannot "
                + "create \(folder): \(FileSystem.errorText())")
            return nil
        }
        var seeds: [(source: String, bytes: [UInt8])] = []
        for (index, source) in sources.enumerated() {
            let seed = FileSystem.join(folder, "seed\(index + 1).jpg")
            let render = Command(executable: options.recipeBinary,
                                 arguments: ["recipe", "render", source, "--size", String(ApplyBenchmark.longEdge), "-o", seed],
                                 expectedOutput: seed)
            if case .failure(let failure) = runner.run(render) {
                note("recipe-bench apply: \(render.displayLine): \(failure)")
                return nil
            }
            guard let bytes = FileSystem.readBytes(seed) else {
                note("recipe-bench apply: cannot read \(seed): \(FileSystem.errorText())")
                return nil
            }
            seeds.append((source, bytes))
        }
        return seeds
    }

    /// `command` measured as a series (1 warm-up, `runs` timed), the summary line of every run
    /// collected; `prepare` runs before each run.
    func series(_ name: String, _ command: Command, prepare: () -> Void = {}) -> ApplyReport.Series {
        var collected: [ApplySummary?] = []
        let outcome = RowOutcome.measure(command, runs: options.runs, runner: runner, prepare: prepare,
                                         inspect: { collected.append(lastSummary()) })
        switch outcome {
        case .measured(let walls, _):
            note("\(name): median \(Format.fixed(outcome.medianWall ?? 0, 3)) s of "
                + walls.map { Format.fixed($0, 3) }.joined(separator: ", ") + "; "
                + (collected.last.flatMap { $0?.text } ?? "no summary line"))
        case .failed(let why): note("\(name): FAILED, \(why)")
        case .skipped: break
        }
        return ApplyReport.Series(outcome: outcome, summaries: collected)
    }

    /// How a `--json` run of the no-op command found the photos up to date (untimed), or nil.
    func reasons(output: String) -> ApplyReasons? {
        let records = scratch.file("records.jsonl")
        defer { unlink(records) }
        guard case .success = runner.run(apply(output: output, ["--progress", "none", "--json"]), stdoutPath: records),
            let text = FileSystem.readText(records)
        else { return nil }
        return ApplyReasons(json: text)
    }

    /// Runs the memory batch, reading the child's VmRSS each time the count of finished photos
    /// (stdout lines) passes a multiple of the step, and when it reaches `expected`.
    func measureMemory(_ command: Command, expected: Int) -> ApplyReport.Memory {
        var memory = ApplyReport.Memory(expected: expected)
        let step = max(ApplyBenchmark.earlyCount, expected / 2000 * 100)
        note("memory batch: \(Format.grouped(expected)) photos, --progress lines")
        let result = runner.run(command, streamingStdout: { pid, chunk in
            let before = memory.lines
            memory.lines += chunk.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
            guard memory.lines / step > before / step || (memory.lines >= expected && before < expected) else { return }
            if let rss = ProcStatus.kib("VmRSS", of: pid) {
                memory.samples.append((done: memory.lines, rssKiB: rss))
                memory.hwmKiB = ProcStatus.kib("VmHWM", of: pid) ?? memory.hwmKiB
            } else {
                memory.missedSamples += 1
            }
        })
        switch result {
        case .success(let sample):
            memory.run = sample
            memory.summary = lastSummary()
            note("memory batch: \(Format.fixed(sample.wallSeconds, 2)) s, \(memory.lines) lines; "
                + (memory.summary?.text ?? "no summary line"))
        case .failure(let failure):
            memory.failure = failure.description
            note("memory batch: FAILED, \(failure)")
        }
        return memory
    }
}
