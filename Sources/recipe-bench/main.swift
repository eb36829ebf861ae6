/// `recipe-bench`: times the `recipe` CLI, as a separate process, against the libjpeg-turbo floor
/// (`djpeg | cjpeg`) and peers (vips, ImageMagick) on the bench photos, and judges the issue's targets.
///
/// ```
/// .ci/build-release   # the binary measured
/// swift build -c release --product recipe-bench
/// .build/release/recipe-bench --runs 7 --out bench-results/today.md
/// ```
///
/// Exit status: 0 when every row ran (even if a target is missed: this is a measurement, not a
/// test), 1 when a command failed or an input is missing, 2 for a command-line mistake.
import Glibc

/// Writes `message` and a newline to stderr (progress and errors; the report goes to stdout).
func note(_ message: String) {
    FileSystem.writeAll(message + "\n", to: STDERR_FILENO)
}

/// Reports a fatal problem and exits with `status`.
func fail(_ message: String, status: Int32 = 1) -> Never {
    note("recipe-bench: " + message)
    exit(status)
}

// `recipe-bench check …`: the check-speed benchmark (CheckBenchmark.swift).
if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "check" {
    exit(CheckBenchmark.run(Array(CommandLine.arguments.dropFirst(2))))
}

// `recipe-bench apply …`: issue 6's `recipe apply` benchmark (ApplyBenchmark.swift).
if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "apply" {
    exit(ApplyBenchmark.run(Array(CommandLine.arguments.dropFirst(2))))
}

// `recipe-bench engine …`: the engine benchmark of issue 4 (EngineBenchmark.swift).
if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "engine" {
    exit(EngineBenchmark.run(Array(CommandLine.arguments.dropFirst(2))))
}

let options: BenchOptions
do {
    switch try BenchOptions.parse(Array(CommandLine.arguments.dropFirst()), packageRoot: BenchOptions.findPackageRoot()) {
    case .help:
        print(BenchOptions.usage)
        exit(0)
    case .run(let parsed):
        options = parsed
    }
} catch {
    note("recipe-bench: \(error.message)\n")
    note(BenchOptions.usage)
    exit(2)
}

// Inputs: both photos must exist and have a frame header; the recipe binary must be executable.
var headers: [BenchImage: JPEGFrameHeader] = [:]
var fileSizes: [BenchImage: Int] = [:]
for image in BenchImage.allCases {
    let path = FileSystem.join(options.corpus, "bench/" + image.fileName)
    let parsed: Result<JPEGFrameHeader, JPEGFrameHeader.ReadError>? = FileSystem.withMappedFile(path) { bytes in
        Result { () throws(JPEGFrameHeader.ReadError) in try JPEGFrameHeader(jpeg: bytes) }
    }
    switch parsed {
    case nil: fail("cannot read \(path): \(FileSystem.errorText())")
    case .failure(let error)?: fail("\(path): \(error)")
    case .success(let header)?: headers[image] = header
    }
    fileSizes[image] = FileSystem.size(path) ?? 0
}
guard FileSystem.isExecutable(options.recipeBinary) else {
    fail("no executable recipe binary at \(options.recipeBinary); build it with "
        + "`.ci/build-release` or pass --recipe-binary")
}
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
exit(status)
