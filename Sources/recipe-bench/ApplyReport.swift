import Glibc

/// Everything one run of `recipe-bench apply` measured, its checks and its Markdown rendering.
///
/// ```
/// - PASS  no-op re-run over 10 000 photos ≤ 2 s wall (#2): 0.412 s (median of 5)
/// - PASS  memory stays flat, RSS(2 000 done) ≤ 1.2 × RSS(100 done) (#5): 1.03× (24.1 vs 23.4 MiB)
/// ```
struct ApplyReport {
    /// A re-run series: its outcome and the summary line of each run (warm-up first).
    struct Series {
        let outcome: RowOutcome
        let summaries: [ApplySummary?]
    }

    /// The memory batch: VmRSS samples by photos done, and the run.
    struct Memory {
        /// Photos the batch selects.
        let expected: Int
        /// Lines (finished photos) read from the child's stdout.
        var lines = 0
        /// VmRSS in KiB when `done` lines had been read.
        var samples: [(done: Int, rssKiB: Int)] = []
        /// VmHWM (peak RSS) in KiB at the last sample.
        var hwmKiB = 0
        /// Samples not taken because the child had exited.
        var missedSamples = 0
        /// The run's wall time and ru_maxrss, when it succeeded.
        var run: RunSample?
        var summary: ApplySummary?
        /// Why the run failed.
        var failure: String?

        init(expected: Int) { self.expected = expected }

        /// The first sample at or after `earlyCount` photos done.
        var early: (done: Int, rssKiB: Int)? { samples.first { $0.done >= ApplyBenchmark.earlyCount } }
        /// The sample when every photo was done, else the last one taken.
        var final: (done: Int, rssKiB: Int)? { samples.last { $0.done >= expected } ?? samples.last }
    }

    /// The commands run (for the report's list).
    struct Commands {
        var quiet: Command?
        var memory: Command?
    }

    /// What the session measured.
    struct Results {
        var seeds: [(source: String, bytes: Int)] = []
        var treeSeconds = 0.0
        var commands = Commands()
        var firstRun: RunSample?
        var firstSummary: ApplySummary?
        var noOp: Series?
        var noOpReasons: ApplyReasons?
        var touched: Series?
        var afterTouch: Series?
        var afterTouchReasons: ApplyReasons?
        var memory: Memory?

        /// True when a run failed (the bench exits 1).
        var failed: Bool {
            [noOp, touched, afterTouch].contains { $0?.outcome.isFailure ?? true } || memory?.failure != nil
                || memory == nil || firstRun == nil
        }
    }

    let options: ApplyBenchmark.Options
    /// The scratch folder (shown as `$W`).
    let scratch: String
    let results: Results

    /// The row numbers of the table.
    enum Row: Int {
        case first = 1, noOp, touched, afterTouch, memory
    }

    /// The issue's targets, judged.
    var checks: [EngineCheck] {
        var checks: [EngineCheck] = []
        let files = Format.grouped(options.files)

        let noOpTarget = "no-op re-run over \(files) photos ≤ \(Format.fixed(ApplyBenchmark.noOpTargetSeconds, 0)) s wall (#\(Row.noOp.rawValue))"
        if let wall = results.noOp?.outcome.medianWall {
            checks.append(EngineCheck(verdict: wall <= ApplyBenchmark.noOpTargetSeconds ? .pass : .miss, target: noOpTarget,
                                      measured: "\(Format.fixed(wall, 3)) s (median of \(options.runs))"))
        } else {
            checks.append(EngineCheck(verdict: .unavailable, target: noOpTarget, measured: "not measured"))
        }

        let touchedTarget = "re-run after touching every photo renders none, all up to date after re-hashing (#\(Row.touched.rawValue))"
        if let series = results.touched, let wall = series.outcome.medianWall {
            let wrong = series.summaries.filter { summary in
                guard let summary else { return true }
                return summary.rendered != 0 || summary.failed != 0 || summary.upToDate != options.files
            }
            let runs = "\(series.summaries.count) runs (1 warm-up + \(options.runs))"
            checks.append(EngineCheck(
                verdict: wrong.isEmpty ? .pass : .miss, target: touchedTarget,
                measured: (wrong.isEmpty
                    ? "rendered 0, up to date \(Format.grouped(options.files).replacing(" ", with: ",")), failed 0 in all \(runs)"
                    : "\(wrong.count) of \(runs) did not: " + wrong.map { $0?.text ?? "no summary line" }.joined(separator: "; "))
                    + "; \(Format.fixed(wall, 3)) s median"))
        } else {
            checks.append(EngineCheck(verdict: .unavailable, target: touchedTarget, measured: "not measured"))
        }

        let memoryTarget = "memory stays flat, RSS(\(Format.grouped(results.memory?.expected ?? options.memoryFiles)) done) ≤ "
            + "\(Format.fixed(ApplyBenchmark.rssGrowthLimit, 1)) × RSS(\(ApplyBenchmark.earlyCount) done) (#\(Row.memory.rawValue))"
        if let memory = results.memory, memory.failure == nil, let early = memory.early, let final = memory.final, early.rssKiB > 0 {
            let ratio = Double(final.rssKiB) / Double(early.rssKiB)
            checks.append(EngineCheck(
                verdict: ratio <= ApplyBenchmark.rssGrowthLimit ? .pass : .miss, target: memoryTarget,
                measured: "\(Format.fixed(ratio, 3))× (\(Self.mib(final.rssKiB)) MiB at \(Format.grouped(final.done)) done vs "
                    + "\(Self.mib(early.rssKiB)) MiB at \(Format.grouped(early.done)) done)"))
        } else {
            checks.append(EngineCheck(verdict: .unavailable, target: memoryTarget, measured: results.memory?.failure ?? "no samples"))
        }
        return checks
    }

    /// `kib` in MiB with one decimal.
    static func mib(_ kib: Int) -> String { Format.fixed(Double(kib) / 1024, 1) }

    /// The report as Markdown.
    var markdown: String {
        var lines: [String] = []
        let files = Format.grouped(options.files)
        lines.append("# recipe-bench apply \(Format.timestamp())")
        lines.append("")
        lines.append("Command: `.ci/bench apply` (builds, then runs `recipe-bench apply`); this report: `recipe-bench apply "
            + "--files \(options.files) --folders \(options.folders) --memory-files \(options.memoryFiles) --runs \(options.runs) "
            + "--recipe \(options.recipe) --recipe-binary \(options.recipeBinary)`.")
        lines.append("")
        lines.append("- recipe: `\(options.recipeBinary)`; applies `$RECIPE` = `\(options.recipe)`; `--jobs \(ApplyBenchmark.jobs)` in every run")
        let tree = ApplyTree(root: "", files: options.files, folders: options.folders)
        let seeds = results.seeds.map { "`\(FileSystem.baseName($0.source))` (\(Format.grouped($0.bytes)) bytes)" }
        lines.append("- `$TREE`: \(files) photos in \(options.folders) folders (`d000/` …, \(tree.perFolder) each), copies of "
            + "\(results.seeds.count) photos rendered to a \(ApplyBenchmark.longEdge) px long edge "
            + "(`recipe render SRC --size \(ApplyBenchmark.longEdge)`): \(seeds.joined(separator: ", ")); written in "
            + "\(Format.fixed(results.treeSeconds, 2)) s, then left \(ApplyBenchmark.settleSeconds) s before the first run")
        lines.append("- host: \(sysconf(Int32(_SC_NPROCESSORS_ONLN))) CPUs; series: median of \(options.runs) runs after 1 "
            + "warm-up; wall = `CLOCK_MONOTONIC` around start and `wait4`; peak RSS = `ru_maxrss` (largest of the runs)")
        lines.append("")
        lines.append("| # | run | median wall s (min–max) | peak RSS MiB | photos/s | summary line (stderr, last run) |")
        lines.append("|---:|---|---:|---:|---:|---|")
        if let run = results.firstRun {
            lines.append("| \(Row.first.rawValue) | first run, renders all \(files) (1 run) | \(Format.fixed(run.wallSeconds, 2)) | "
                + "\(Self.mib(run.maxRSSKiB)) | \(Format.fixed(Double(options.files) / run.wallSeconds, 1)) | "
                + "\(results.firstSummary?.text ?? "none") |")
        }
        let series: [(Row, String, Series?)] = [
            (.noOp, "no-op re-run", results.noOp),
            (.touched, "re-run after touching every photo (before each run, untimed)", results.touched),
            (.afterTouch, "re-run after the touched re-runs (no touch; \(ApplyBenchmark.settleSeconds) s later)", results.afterTouch),
        ]
        for (row, name, series) in series {
            guard let series else { continue }
            switch series.outcome {
            case .measured(let walls, _):
                let range = "\(Format.fixed(walls.min() ?? 0, 3))–\(Format.fixed(walls.max() ?? 0, 3))"
                lines.append("| \(row.rawValue) | \(name) | \(Format.fixed(series.outcome.medianWall ?? 0, 3)) (\(range)) | "
                    + "\(Format.fixed(series.outcome.maxRSSMiB ?? 0, 1)) | | \((series.summaries.last ?? nil)?.text ?? "none") |")
            case .failed(let why): lines.append("| \(row.rawValue) | \(name) | FAILED: \(cell(why)) | | | |")
            case .skipped(let why): lines.append("| \(row.rawValue) | \(name) | skipped: \(cell(why)) | | | |")
            }
        }
        if let memory = results.memory {
            let name = "memory batch: the first \(Format.grouped(memory.expected)) photos, `--progress lines`, new output folder (1 run)"
            if let run = memory.run {
                lines.append("| \(Row.memory.rawValue) | \(name) | \(Format.fixed(run.wallSeconds, 2)) | \(Self.mib(run.maxRSSKiB)) | "
                    + "\(Format.fixed(Double(memory.expected) / run.wallSeconds, 1)) | \(memory.summary?.text ?? "none") |")
            } else {
                lines.append("| \(Row.memory.rawValue) | \(name) | FAILED: \(cell(memory.failure ?? "")) | | | |")
            }
        }
        lines.append("")
        lines.append("Checks:")
        lines.append("")
        for check in checks { lines.append("- \(check.verdict.rawValue)  \(check.target): \(check.measured)") }
        lines.append("")
        lines.append("How the re-runs found the photos up to date (a `--json` run right after the series, its records counted):")
        lines.append("")
        for (label, reasons) in [("after #\(Row.noOp.rawValue)", results.noOpReasons), ("after #\(Row.afterTouch.rawValue)", results.afterTouchReasons)] {
            guard let reasons else {
                lines.append("- \(label): the --json run failed")
                continue
            }
            lines.append("- \(label): \(Format.grouped(reasons.statHits)) on the manifest's stat alone (\"up to date\"), "
                + "\(Format.grouped(reasons.rehashed)) after hashing the photo again (\"up to date (same content)\"), "
                + "\(Format.grouped(reasons.rendered)) rendered, \(Format.grouped(reasons.other)) other")
        }
        if let reasons = results.afterTouchReasons, reasons.rehashed > 0 {
            lines.append("- so \(Format.grouped(reasons.rehashed)) of \(files) photos are hashed again by every run after one touch: "
                + "their manifest records still hold the stat from before the touch (a photo found up to date by its hash "
                + "does not get its record refreshed), and #\(Row.afterTouch.rawValue) costs what #\(Row.touched.rawValue) does")
        }
        if let memory = results.memory, !memory.samples.isEmpty {
            lines.append("")
            lines.append("Memory (#\(Row.memory.rawValue)): the child's VmRSS (MiB) from `/proc/PID/status` when the stated number of "
                + "lines (finished photos) had been read from its stdout:")
            lines.append("")
            lines.append("- " + memory.samples.map { "\(Format.grouped($0.done)): \(Self.mib($0.rssKiB))" }.joined(separator: ", "))
            lines.append("- VmHWM (peak) at the last sample \(Self.mib(memory.hwmKiB)) MiB; `ru_maxrss` "
                + "\(memory.run.map { Self.mib($0.maxRSSKiB) } ?? "—") MiB; \(Format.grouped(memory.lines)) lines read"
                + (memory.missedSamples > 0 ? "; \(memory.missedSamples) sample(s) missed: the child had exited" : ""))
        }
        lines.append("")
        lines.append("Notes:")
        lines.append("")
        lines.append("- #\(Row.touched.rawValue): `utimensat(…, NULL)` on every photo before each run (the warm-up included), so every run "
            + "must hash every photo and find it unchanged; the check reads each run's summary line on stderr.")
        lines.append("- the photos are left \(ApplyBenchmark.settleSeconds) s after they are written and before #\(Row.afterTouch.rawValue): "
            + "a photo modified within 1 s of its manifest record is \"racily clean\" and hashed again by every run, as in git.")
        lines.append("- #\(Row.memory.rawValue): the memory batch selects the first folders with `--include` (the walk still visits "
            + "the whole tree); VmRSS is read each time the count of lines passes a multiple of 100 and when it reaches the "
            + "total, so \"\(ApplyBenchmark.earlyCount) done\" is the first sample at or after \(ApplyBenchmark.earlyCount) lines.")
        lines.append("")
        lines.append("Commands (`$W` = `\(scratch)`, kept with this report as `$W/report.md`; `$TREE` = `$W/tree`):")
        lines.append("")
        if let quiet = results.commands.quiet {
            lines.append("- #\(Row.first.rawValue)-\(Row.afterTouch.rawValue): `\(shown(quiet))`; the reason counts add `--json`")
        }
        if let memory = results.commands.memory {
            lines.append("- #\(Row.memory.rawValue): `\(shown(memory))`")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `command`'s line with the scratch folders and the recipe shown by their names.
    private func shown(_ command: Command) -> String {
        command.displayLine.replacing(FileSystem.join(scratch, "tree"), with: "$TREE").replacing(scratch, with: "$W")
            .replacing(options.recipe, with: "$RECIPE")
    }

    /// `text` made safe for one Markdown table cell.
    private func cell(_ text: String) -> String {
        Format.cell(text.replacing(scratch, with: "$W"))
    }
}
