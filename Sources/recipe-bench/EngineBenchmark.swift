import ArgumentParser
import Glibc

extension Launcher: ExpressibleByArgument {}

/// `recipe-bench engine`: the engine benchmark of issue 4. Times `recipe render` with the 5-op chain
/// of `../shared/bench/README.md` against the peers of `../shared/bench/peers.sh` (the
/// `djpeg | cjpeg` floor, the single-pass C reference `fused_chain`, the libvips C API pipeline
/// `vips_chain`, GraphicsMagick, ImageMagick) on both bench photos and the corpus/bench batch
/// (`recipe apply` against vips_chain and `mogrify`, issue 6), in one run (median wall of N runs
/// after 1 warm-up, largest peak RSS), and judges the targets.
///
/// ```
/// recipe-bench engine                              # 7 runs, ../shared/corpus, .build-static/release/recipe
/// recipe-bench engine --runs 5 --out bench-results/engine.md
/// ```
///
/// Exit status: 0 when every row ran or was skipped with a reason (even if a target is missed),
/// 1 when a command failed (a run, or a gcc build of a C peer), 2 for a command-line mistake.
struct EngineBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "engine",
        abstract: "Issue 4's engine benchmark: the 5-op chain against libvips, fused C, GraphicsMagick and ImageMagick.",
        discussion: """
            The engine benchmark of issue 4: `recipe render` with the 5-op chain (exposure ×1.19, \
            contrast 1.15, saturation 1.3, white-balance gains 1.06/1.00/0.94, gamma 1/1.1) against the \
            peers of ../shared/bench/peers.sh on bench/photo24-baseline-q95.jpg and \
            bench/photo24-progressive.jpg: the djpeg | cjpeg floor, fused_chain and vips_chain (built \
            with gcc from <corpus>/../bench into a temporary folder), GraphicsMagick, ImageMagick 6 \
            (/usr/bin/convert); recipe identity, chain, chain --no-fuse, chain --size display; and the \
            first 20 .jpg of bench/ as a batch: one `recipe apply --jobs 2` process, vips_chain and \
            fused_chain with 2 jobs (xargs -P 2), and one ImageMagick `mogrify` process. Median wall of \
            N runs after 1 warm-up, largest peak RSS (ru_maxrss). Prints a Markdown table and the \
            issues' checks; rows whose tool is missing are skipped. Exits 0 even when a target is \
            missed, 1 if a command fails, 2 for a command-line mistake.
            """)

    /// What the mode runs with: the command line, paths resolved against the package root.
    struct Options {
        /// Timed runs per row (after one untimed warm-up run).
        var runs: Int
        /// The corpus folder; the photos are `bench/photo24-baseline-q95.jpg` and `bench/photo24-progressive.jpg`.
        var corpus: String
        /// The `recipe` executable to measure.
        var recipeBinary: String
        /// A Markdown file to write the report to, besides stdout.
        var outFile: String?
        /// How children are started (see `Launcher`).
        var launcher: Launcher
    }

    @Option(help: ArgumentHelp("Timed runs per row, after one untimed warm-up run.", valueName: "n"))
    var runs = 7

    @OptionGroup var paths: BenchPaths

    @Option(help: ArgumentHelp(
        "fork or posix-spawn; posix-spawn children inherit the bench's own peak RSS as their floor.", valueName: "kind"))
    var launcher: Launcher = .fork

    /// The marker in `recipe render`'s error when a recipe uses an operation the engine cannot render.
    static let unrenderedMarker = "is not rendered by this build yet"

    func validate() throws {
        try BenchCommand.requireCount(runs, of: "--runs")
        guard BenchPaths.packageRoot != nil || (paths.corpus != nil && paths.recipeBinary != nil) else {
            throw ValidationError("cannot find the package root (Package.swift); pass --corpus and --recipe-binary")
        }
    }

    func run() throws {
        let options = Options(runs: runs, corpus: paths.resolvedCorpus, recipeBinary: paths.resolvedRecipeBinary,
                              outFile: paths.outFile, launcher: launcher)
        try BenchCommand.finish(Self.measure(options))
    }

    /// Measures every row with `options` and prints the report; returns the exit status.
    static func measure(_ options: Options) -> Int32 {
        // Inputs: both photos must have a frame header; the recipe binary must be executable.
        let photos: BenchImage.Inputs
        switch BenchImage.inputs(corpus: options.corpus) {
        case .failure(let problem):
            note("recipe-bench engine: \(problem)")
            return 1
        case .success(let read): photos = read
        }
        let headers = photos.headers, fileSizes = photos.sizes
        if let problem = BenchPaths.binaryProblem(options.recipeBinary) {
            note("recipe-bench engine: \(problem)")
            return 1
        }
        guard let scratch = ScratchDirectory(), let inputs = EngineInputs(corpus: options.corpus, scratch: scratch) else {
            note("recipe-bench engine: cannot set up a temporary folder: \(FileSystem.errorText())")
            return 1
        }
        defer {
            inputs.removeFolders()
            scratch.remove()
        }

        let runner = ProcessRunner(launcher: options.launcher, logPath: scratch.file("stderr.log"))
        let peerSources = FileSystem.join(FileSystem.parent(options.corpus), "bench")
        note("building fused_chain and vips_chain from \(peerSources) with gcc")
        let tools = EngineToolbox.discover(runner: runner, scratch: scratch, peerSources: peerSources)
        let plans = tools.plans(recipe: options.recipeBinary, inputs: inputs)
        let batchMegapixels = inputs.batchPhotos.reduce(0.0) { sum, path in
            guard case .success(let header) = PhotoHeader.read(path: path) else { return sum }
            return sum + Double(header.width * header.height) / 1e6
        }

        let launchFloor = RowOutcome.measure(Command(executable: "/bin/true", arguments: ["true"]), runs: options.runs, runner: runner)
        var outcomes: [EngineRow: RowOutcome] = [:]
        var outputs: [EngineRow: String] = [:]
        for row in EngineRow.all {
            let label = "[\(row.number)/\(EngineRow.all.count)] " + row.title.replacing("`", with: "")
                .replacing("**", with: "").replacing("\\|", with: "|")
            var outcome: RowOutcome
            switch plans[row] ?? .skip("no plan") {
            case .skip(let why):
                outcome = .skipped(why)
            case .fail(let why):
                outcome = .failed(why)
            case .run(let command):
                if row.task == .vipsUnsharpResize, case let counterpart = EngineRow.of(.recipeUnsharpResize, row.image),
                    outcomes[counterpart]?.medianWall == nil
                {
                    outcome = .skipped("its recipe counterpart (row \(counterpart.number)) cannot be measured yet")
                } else {
                    outcome = RowOutcome.measure(command, runs: options.runs, runner: runner)
                }
                if case .failed(let why) = outcome, row.task.mayBeUnrendered, why.contains(unrenderedMarker) {
                    outcome = .skipped("recipe: " + engineMessage(why).replacing(scratch.path, with: "$W"))
                }
                if outcome.medianWall != nil, let output = command.expectedOutput,
                    case .success(let header) = PhotoHeader.read(path: output)
                {
                    outputs[row] = "\(header.width)×\(header.height) " + header.chroma
                }
            }
            outcomes[row] = outcome
            switch outcome {
            case .measured:
                var line = "\(label): \(Format.fixed(outcome.medianWall ?? 0, 3)) s, \(Format.fixed(outcome.maxRSSMiB ?? 0, 1)) MiB"
                if row.task.isBatch, let wall = outcome.medianWall, wall > 0 {
                    line += ", \(Format.fixed(Double(inputs.batchPhotos.count) / wall, 2)) images/s"
                }
                note(line)
            case .skipped(let why): note("\(label): skipped, \(why)")
            case .failed(let why): note("\(label): FAILED, \(why)")
            }
        }

        let report = EngineReport(
            setup: EngineReport.Setup(
                recipeBinary: options.recipeBinary, corpus: options.corpus, scratch: scratch.path,
                peerSources: peerSources, runs: options.runs, launcher: options.launcher, headers: headers,
                fileSizes: fileSizes, plans: plans, batchCount: inputs.batchPhotos.count,
                batchMegapixels: batchMegapixels),
            outcomes: outcomes, outputs: outputs, launchFloor: launchFloor)
        let written = BenchCommand.publish(report.markdown, mode: "engine", to: options.outFile)
        return written && !outcomes.values.contains(where: \.isFailure) && !launchFloor.isFailure ? 0 : 1
    }

    /// The engine's own words from a failed run's description: the text after its last `error: `
    /// (e.g. "sharpen (stage 6) is not rendered by this build yet (…)"), or the whole description.
    static func engineMessage(_ description: String) -> String {
        guard let range = description.ranges(of: "error: ").last else { return description }
        return String(description[range.upperBound...])
    }
}
