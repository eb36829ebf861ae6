import ArgumentParser
import Glibc

/// `recipe-bench identity`, the default mode: `recipe render` with no edit (full size, and
/// `--size display`) on the bench photos against the libjpeg-turbo floor (`djpeg | cjpeg`),
/// `djpeg` alone, `vips copy` and ImageMagick, as separate processes, and the issue's targets.
///
/// ```
/// recipe-bench                                   # 7 runs, ../shared/corpus, .build-static/release/recipe
/// recipe-bench --runs 3 --out bench-results/today.md
/// recipe-bench identity --recipe-binary .build/release/recipe --corpus /data/corpus
/// ```
///
/// Exit status: 0 when every row ran (even if a target is missed: this is a measurement, not a
/// test), 1 when a command failed or an input is missing, 2 for a command-line mistake.
struct IdentityBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identity",
        abstract: "Identity renders against the libjpeg-turbo floor and peers (the default mode).",
        discussion: """
            Times the `recipe` CLI against the libjpeg-turbo floor (djpeg | cjpeg) and peers on the \
            bench photos (<corpus>/bench/photo24-baseline-q95.jpg and photo24-progressive.jpg), as \
            separate processes: median wall time of N runs after 1 warm-up, and the largest peak RSS \
            (ru_maxrss from wait4) of those runs. Prints a Markdown table and the issue's checks \
            (PASS/MISS); exits 0 even when a target is missed, 1 if a command fails, 2 for a \
            command-line mistake.

            This is what recipe-bench runs when no mode is named: `recipe-bench --runs 3` is \
            `recipe-bench identity --runs 3`.
            """)

    @OptionGroup var arguments: BenchArguments

    func run() throws {
        try BenchCommand.finish(Self.measure(arguments.options))
    }

    /// Measures every row with `options` and prints the report; returns the exit status.
    static func measure(_ options: BenchOptions) -> Int32 {
        // Inputs: both photos must exist and have a frame header; the recipe binary must be executable.
        let photos: BenchImage.Inputs
        switch BenchImage.inputs(corpus: options.corpus) {
        case .failure(let problem): fail("\(problem)")
        case .success(let read): photos = read
        }
        let headers = photos.headers, fileSizes = photos.sizes
        if let problem = BenchPaths.binaryProblem(options.recipeBinary) { fail(problem) }
        guard let scratch = ScratchDirectory() else { fail("cannot create a temporary folder: \(FileSystem.errorText())") }

        let runner = ProcessRunner(launcher: options.launcher, logPath: scratch.file("stderr.log"))
        let tools = Toolbox.discover(runner: runner, scratch: scratch)
        let plans = tools.plans(recipe: options.recipeBinary, corpus: options.corpus, scratch: scratch)

        if let header = headers[.progressive] {
            note("progressive coefficient buffer: \(Format.grouped(header.blocksPerComponent.reduce(0, +))) blocks × 128 B = "
                + "\(Format.grouped(header.coefficientBufferBytes)) bytes")
        }
        let launchFloor = RowOutcome.measure(Command(executable: "/bin/true", arguments: ["true"]), runs: options.runs, runner: runner)

        var outcomes: [RowID: RowOutcome] = [:]
        for row in RowID.allCases {
            let label = "[\(row.rawValue)/\(RowID.allCases.count)] \(row.title.replacingAll("`", with: "").replacingAll("\\|", with: "|"))"
            switch plans[row] ?? .skip("no plan") {
            case .skip(let why):
                outcomes[row] = .skipped(why)
                note("\(label): skipped, \(why)")
            case .run(let command):
                let outcome = RowOutcome.measure(command, runs: options.runs, runner: runner)
                outcomes[row] = outcome
                switch outcome {
                case .measured:
                    note("\(label): \(Format.fixed(outcome.medianWall ?? 0, 3)) s, \(Format.fixed(outcome.maxRSSMiB ?? 0, 1)) MiB")
                case .failed(let why):
                    note("\(label): FAILED, \(why)")
                case .skipped:
                    break
                }
            }
        }

        let report = BenchReport(
            setup: BenchReport.Setup(
                recipeBinary: options.recipeBinary, corpus: options.corpus, scratch: scratch.path, runs: options.runs,
                launcher: options.launcher, headers: headers, fileSizes: fileSizes, plans: plans),
            outcomes: outcomes, launchFloor: launchFloor)
        let text = report.markdown
        print(text, terminator: "")
        scratch.remove()

        var status: Int32 = outcomes.values.contains(where: \.isFailure) || launchFloor.isFailure ? 1 : 0
        if let outFile = options.outFile, !FileSystem.writeFile(text, to: outFile) {
            note("recipe-bench: cannot write \(outFile): \(FileSystem.errorText())")
            status = 1
        }
        return status
    }
}
