import Glibc

/// One target from the project's issue, judged against the measurements.
///
/// ```
/// - PASS  identity full peak RSS ≤ 32 MB (MiB): 21.4 MiB
/// ```
struct Check {
    /// The target, e.g. "identity full wall ≤ 1.1× floor (row 2 vs row 1)".
    let target: String
    /// true: met; false: missed; nil: a row it needs was skipped or failed.
    let passed: Bool?
    /// The measured value with what it was computed from.
    let measured: String

    /// `PASS`, `MISS` or `n/a`.
    var verdict: String {
        switch passed {
        case true?: return "PASS"
        case false?: return "MISS"
        case nil: return "n/a"
        }
    }
}

/// Everything measured in one bench run, and its Markdown rendering.
///
/// ```swift
/// let report = BenchReport(setup: setup, outcomes: outcomes, launchFloor: floor)
/// print(report.markdown)
/// ```
struct BenchReport {
    /// The fixed facts of the run: inputs, binary, runs, launcher.
    struct Setup {
        /// The recipe binary measured.
        let recipeBinary: String
        /// The corpus folder (shown as `$CORPUS` in the command list).
        let corpus: String
        /// The scratch folder (shown as `$W` in the command list).
        let scratch: String
        /// Timed runs per row.
        let runs: Int
        /// How children were started.
        let launcher: Launcher
        /// Frame headers of the two photos.
        let headers: [BenchImage: JPEGFrameHeader]
        /// File sizes of the two photos in bytes.
        let fileSizes: [BenchImage: Int]
        /// Each row's plan (command or skip reason).
        let plans: [RowID: RowPlan]
    }

    /// The run's fixed facts.
    let setup: Setup
    /// Each row's result.
    let outcomes: [RowID: RowOutcome]
    /// `/bin/true` measured the same way: the smallest wall time and RSS any row can show.
    let launchFloor: RowOutcome

    /// The progressive photo's coefficient buffer in bytes (see `JPEGFrameHeader`).
    var coefficientBufferBytes: Int? { setup.headers[.progressive]?.coefficientBufferBytes }

    /// The four targets of the issue, judged.
    var checks: [Check] {
        let mib = 1024.0 * 1024.0
        let floorWall = outcomes[.floorBaseline]?.medianWall
        let fullWall = outcomes[.identityFull]?.medianWall
        let displayWall = outcomes[.display]?.medianWall
        let fullRSS = outcomes[.identityFull]?.maxRSSMiB
        let progressiveRSS = outcomes[.progressiveFull]?.maxRSSBytes
        var checks: [Check] = []

        if let fullWall, let floorWall, floorWall > 0 {
            let ratio = fullWall / floorWall
            checks.append(Check(
                target: "identity full wall ≤ 1.1× floor (row 2 vs row 1)", passed: ratio <= 1.1,
                measured: "\(Format.fixed(ratio, 2))× (\(Format.fixed(fullWall, 3)) s vs \(Format.fixed(floorWall, 3)) s)"))
        } else {
            checks.append(Check(target: "identity full wall ≤ 1.1× floor (row 2 vs row 1)", passed: nil,
                                measured: "row 1 or 2 not measured"))
        }

        if let fullRSS {
            checks.append(Check(target: "identity full peak RSS ≤ 32 MB (MiB) (row 2)", passed: fullRSS <= 32,
                                measured: "\(Format.fixed(fullRSS, 1)) MiB"))
        } else {
            checks.append(Check(target: "identity full peak RSS ≤ 32 MB (MiB) (row 2)", passed: nil,
                                measured: "row 2 not measured"))
        }

        if let progressiveRSS, let buffer = coefficientBufferBytes, buffer > 0 {
            let ratio = Double(progressiveRSS) / Double(buffer)
            checks.append(Check(
                target: "progressive full peak RSS ≤ 1.1× coefficient buffer (row 5)", passed: ratio <= 1.1,
                measured: "\(Format.fixed(ratio, 2))× (\(Format.fixed(Double(progressiveRSS) / mib, 1)) MiB vs "
                    + "\(Format.fixed(Double(buffer) / mib, 1)) MiB buffer; limit \(Format.fixed(1.1 * Double(buffer) / mib, 1)) MiB)"))
        } else {
            checks.append(Check(target: "progressive full peak RSS ≤ 1.1× coefficient buffer (row 5)", passed: nil,
                                measured: "row 5 or the frame header not available"))
        }

        if let displayWall, let fullWall, fullWall > 0 {
            let ratio = displayWall / fullWall
            checks.append(Check(
                target: "display wall ≤ 0.5× identity full wall (row 3 vs row 2)", passed: ratio <= 0.5,
                measured: "\(Format.fixed(ratio, 2))× (\(Format.fixed(displayWall, 3)) s vs \(Format.fixed(fullWall, 3)) s)"))
        } else {
            checks.append(Check(target: "display wall ≤ 0.5× identity full wall (row 3 vs row 2)", passed: nil,
                                measured: "row 2 or 3 not measured"))
        }
        return checks
    }

    /// The whole report as Markdown: context, coefficient buffer, table, checks, notes, commands.
    var markdown: String {
        var lines: [String] = []
        lines.append("# recipe-bench \(Self.timestamp())")
        lines.append("")
        for image in BenchImage.allCases {
            guard let header = setup.headers[image] else { continue }
            let megapixels = Double(header.width * header.height) / 1e6
            lines.append("- \(image == .baseline ? "baseline" : "progressive"): `\(image.fileName)` "
                + "\(header.width)x\(header.height) (\(Format.fixed(megapixels, 1)) MP, "
                + "\(header.isProgressive ? "progressive" : "baseline"), sampling \(header.samplingDescription), "
                + "\(Format.grouped(setup.fileSizes[image] ?? 0)) bytes)")
        }
        lines.append("- recipe: `\(setup.recipeBinary)`")
        lines.append("- host: \(sysconf(Int32(_SC_NPROCESSORS_ONLN))) CPUs; median of \(setup.runs) runs after 1 warm-up; "
            + "launcher \(setup.launcher.rawValue)")
        if let header = setup.headers[.progressive] {
            let blocks = header.blocksPerComponent
            let bytes = header.coefficientBufferBytes
            lines.append("- progressive coefficient buffer: MCU \(8 * header.maxHorizontal)x\(8 * header.maxVertical), blocks "
                + blocks.map(Format.grouped).joined(separator: " + ")
                + " = \(Format.grouped(blocks.reduce(0, +))) × 128 B = **\(Format.grouped(bytes)) bytes "
                + "(\(Format.fixed(Double(bytes) / 1_048_576, 2)) MiB)**")
        }
        lines.append("")
        lines.append("| # | row | median wall s | peak RSS MB (MiB) | wall ÷ floor (same image) |")
        lines.append("|---:|---|---:|---:|---:|")
        for row in RowID.allCases {
            let outcome = outcomes[row] ?? .skipped("not run")
            switch outcome {
            case .measured:
                var ratio = "—"
                if let wall = outcome.medianWall, let floor = outcomes[row.floor]?.medianWall, floor > 0 {
                    ratio = Format.fixed(wall / floor, 2) + "×"
                }
                lines.append("| \(row.rawValue) | \(row.title) | \(Format.fixed(outcome.medianWall ?? 0, 3)) | "
                    + "\(Format.fixed(outcome.maxRSSMiB ?? 0, 1)) | \(ratio) |")
            case .skipped(let why):
                lines.append("| \(row.rawValue) | \(row.title) | skipped: \(Self.cell(why)) | | |")
            case .failed(let why):
                lines.append("| \(row.rawValue) | \(row.title) | FAILED: \(Self.cell(why)) | | |")
            }
        }
        lines.append("")
        lines.append("Checks:")
        lines.append("")
        for check in checks {
            lines.append("- \(check.verdict)  \(check.target): \(check.measured)")
        }
        lines.append("")
        lines.append("Notes:")
        lines.append("")
        lines.append("- wall: `CLOCK_MONOTONIC` from just before the child is started to just after `wait4` returns; "
            + "the median of the timed runs.")
        lines.append("- peak RSS: `ru_maxrss` from `wait4` on the child, the largest over the timed runs, 1 MiB = 1024 KiB. "
            + "Pipelines run as `/bin/sh -c`; `wait4` on the shell reports the larger of the shell's own peak and the "
            + "peak of every child it waited for (Linux fills it with `RUSAGE_BOTH` of the reaped process), so a "
            + "pipeline reads as its biggest single process, not the sum, as in peers.sh (GNU time).")
        switch setup.launcher {
        case .fork:
            lines.append("- launcher fork: a child's peak RSS starts from the bench's anonymous pages copied by `fork` "
                + "(Linux keeps a process's peak across `execve`); `posix_spawn` (vfork) would start it from the bench's "
                + "whole peak RSS instead.")
        case .posixSpawn:
            lines.append("- launcher posix-spawn: glibc's `posix_spawn` runs the child in the bench's address space "
                + "until `execve` and Linux keeps a process's peak RSS across `execve`, so no row can read below the "
                + "bench's own peak RSS (\(Format.fixed(Self.selfPeakRSSMiB(), 1)) MiB); use `--launcher fork` for small rows.")
        }
        if let wall = launchFloor.medianWall, let rss = launchFloor.maxRSSMiB {
            lines.append("- launch floor (`/bin/true`, same method): \(Format.fixed(wall * 1000, 2)) ms, "
                + "\(Format.fixed(rss, 1)) MiB; no row can read below it.")
        }
        lines.append("")
        lines.append("Commands (`$CORPUS` = `\(setup.corpus)`, `$W` = a temporary folder, deleted afterwards):")
        lines.append("")
        for row in RowID.allCases {
            guard case .run(let command)? = setup.plans[row] else { continue }
            let line = command.displayLine
                .replacingAll(setup.scratch, with: "$W")
                .replacingAll(setup.corpus, with: "$CORPUS")
            lines.append("\(row.rawValue). `\(line)`")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` made safe for one Markdown table cell: pipes escaped, newlines flattened.
    private static func cell(_ text: String) -> String {
        text.replacingAll("|", with: "\\|").replacingAll("\n", with: " ")
    }

    /// The current time as `2025-11-21 07:40 UTC`.
    static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M UTC", &parts)
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The bench process's own peak RSS in MiB (`getrusage(RUSAGE_SELF)`).
    static func selfPeakRSSMiB() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_maxrss) / 1024
    }
}

extension String {
    /// The string with every occurrence of `target` replaced by `replacement` (no Foundation).
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
