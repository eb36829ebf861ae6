import RecipeCore
#if canImport(Glibc)
import Glibc
import RecipeSession
#endif

/// How a batch tells what it does: per photo a JSON record (`--json`, stdout) or a plain line
/// (in a pipe), or a progress bar with count, rate and ETA redrawn on stderr (on a terminal); at
/// the end a summary on stderr with every failure listed.
///
/// ```text
/// [##########..........]  1,204/2,410  6.3/s  ETA 3m11s  2024/rome/IMG_0412.jpg
/// rendered 1,204, up to date 9,000, failed 2 in 3m10s (6.3 photos/s)
/// ```
struct BatchReport {
    var json: Bool
    var mode: ProgressMode
    var total: Int
    var dryRun: Bool
    var rendered = 0
    var skipped = 0
    /// Of `skipped`: the halves of RAW+JPEG pairs left out (`--pairs`), not up-to-date outputs.
    var paired = 0
    var failed = 0
    /// Every failure, one line each, for the summary.
    var failures: [String] = []
    /// Photos rendered without the lens correction their recipe asks for, with why, for the summary.
    var uncorrectedLens: [String] = []
    /// Entries with a photo's name left out on purpose (links leaving the folder, dangling links,
    /// FIFOs), one line each, for the summary: not failures, and never silent.
    var leftOut: [String] = []
    /// Renders done, with their time, for the rate and the ETA.
    var renderSeconds = 0.0
    private var started = FileStat.now()
    private var lastDraw: Int64 = 0
    private var barShown = false

    init(json: Bool, mode: ProgressMode, total: Int, dryRun: Bool) {
        self.json = json
        self.mode = mode
        self.total = total
        self.dryRun = dryRun
    }

    var done: Int { rendered + skipped + failed }

    mutating func finish(_ outcome: BatchRun.Outcome) {
        let item = outcome.item
        switch outcome.status {
        case .rendered: rendered += 1
        case .skipped: skipped += 1
        case .failed:
            failed += 1
            failures.append("\(item.photo.path): \(outcome.error ?? outcome.reason)")
        }
        if json {
            var fields: [(String, JSONLine.Value)] = [
                ("status", .string(dryRun ? (outcome.status == .rendered ? "would-render" : outcome.status == .skipped ? "would-skip" : "failed") : outcome.status.rawValue)),
                ("source", .string(item.photo.path)), ("output", .string(item.outputPath.isEmpty ? item.output : item.outputPath)),
                ("reason", .string(outcome.reason)),
            ]
            if let error = outcome.error { fields.append(("error", .string(error))) }
            if !outcome.warnings.isEmpty { fields.append(("warnings", .list(outcome.warnings))) }
            if outcome.status == .rendered, !dryRun { fields.append(("seconds", .number((outcome.seconds * 1000).rounded() / 1000))) }
            if let fit = outcome.fit { fields += [("quality", .int(fit.quality)), ("bytes", .int(fit.bytes)), ("encodes", .int(fit.encodes))] }
            if let why = outcome.uncorrectedLens { fields.append(("lens_uncorrected", .string(why))) }
            print(JSONLine.object(fields))
            fflush(nil)
        }
        if mode == .lines {
            let verb = switch outcome.status {
            case .rendered: dryRun ? "would render" : "rendered"
            case .skipped: dryRun ? "would skip" : "skipped"
            case .failed: "failed"
            }
            var line = "\(verb) \(item.photo.path)"
            if outcome.status != .failed { line += " → \(item.outputPath)" }
            line += outcome.status == .failed ? ": \(outcome.error ?? outcome.reason)" : " (\(outcome.reason)\(outcome.fit.map { "; quality \($0.quality), \($0.bytes) bytes" } ?? ""))"
            print(line)
            fflush(nil)
        }
        for warning in outcome.warnings { emitAboveBar("recipe: warning: \(warning)") }
        if outcome.status == .failed, mode == .bar {
            emitAboveBar("recipe: \(item.photo.path): \(outcome.error ?? outcome.reason)")
        }
        if outcome.status == .rendered { renderSeconds += outcome.seconds }
        if outcome.status == .rendered, let why = outcome.uncorrectedLens { uncorrectedLens.append("\(item.photo.path): \(why)") }
        if mode == .bar { draw(current: item.output) }
    }

    /// A message on stderr, clearing the bar first so it is not torn.
    mutating func emitAboveBar(_ text: String) {
        if barShown { Console.printError("\r\u{1B}[K" + text) } else { Console.printError(text) }
    }

    mutating func draw(current: String) {
        let now = FileStat.now()
        guard done == total || now - lastDraw > 100_000_000 else { return }
        lastDraw = now
        let elapsed = Double(now - started) / 1e9
        let fraction = total == 0 ? 1 : Double(done) / Double(total)
        let width = 24
        let filled = Int(fraction * Double(width))
        var line = "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "]"
        line += "  \(Self.count(done))/\(Self.count(total))"
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        if rate > 0 {
            line += "  \(Self.fixed(rate))/s"
            if done < total { line += "  ETA " + Self.duration(Double(total - done) / rate) }
        }
        var columns = 100
        var size = winsize()
        if ioctl(2, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 20 { columns = Int(size.ws_col) }
        let room = columns - line.count - 3
        if room > 8, done < total { line += "  " + (current.count > room ? "…" + current.suffix(room - 1) : current) }
        Console.printError("\r\u{1B}[K" + line, newline: false)
        barShown = true
    }

    mutating func endProgress() {
        if barShown { Console.printError("") }
        barShown = false
    }

    /// The closing lines on stderr (and a summary record with --json).
    mutating func summary(seconds: Double) {
        endProgress()
        let renderedWord = dryRun ? "would render" : "rendered"
        let skippedWord = dryRun ? "would skip" : "up to date"
        var line = "\(renderedWord) \(Self.count(rendered)), \(skippedWord) \(Self.count(skipped - paired)), "
            + (paired > 0 ? "left out as the other half of a RAW+JPEG pair \(Self.count(paired)), " : "")
            + (leftOut.isEmpty ? "" : "left out (links, special files, unreadable raws) \(Self.count(leftOut.count)), ")
            + "failed \(Self.count(failed)) in \(Self.duration(seconds))"
        if rendered > 0, !dryRun, seconds > 0 { line += " (\(Self.fixed(Double(rendered) / seconds)) photos/s)" }
        if json {
            print(JSONLine.object([("status", .string("summary")), ("rendered", .int(rendered)), ("skipped", .int(skipped)),
                                   ("failed", .int(failed)), ("left_out", .int(leftOut.count)), ("lens_uncorrected", .int(uncorrectedLens.count)),
                                   ("seconds", .number((seconds * 1000).rounded() / 1000)),
                                   ("dry_run", .bool(dryRun))]))
        }
        Console.printError("recipe: " + line)
        if !leftOut.isEmpty {
            Console.printError("recipe: \(leftOut.count) left out:")
            for f in leftOut { Console.printError("  " + f) }
        }
        if !uncorrectedLens.isEmpty {
            // Not failures (the recipe let them render uncorrected), and never silent.
            Console.printError("recipe: \(Self.count(uncorrectedLens.count)) photo\(uncorrectedLens.count == 1 ? "" : "s") rendered without lens correction:")
            for f in uncorrectedLens { Console.printError("  " + f) }
        }
        let extra = failures.count - failed
        if !failures.isEmpty {
            Console.printError("recipe: \(failures.count) failure\(failures.count == 1 ? "" : "s")\(extra > 0 ? " (\(extra) of them folders that could not be read)" : ""):")
            for f in failures { Console.printError("  " + f) }
        }
    }

    static func count(_ n: Int) -> String {
        let digits = String(n)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out += "," }
            out.append(c)
        }
        return out
    }

    static func fixed(_ v: Double) -> String {
        let tenths = Int((v * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    static func duration(_ seconds: Double) -> String {
        if seconds < 60 { return fixed(seconds) + "s" }
        let s = Int(seconds.rounded())
        if s < 3600 { return "\(s / 60)m\(String(format2(s % 60)))s" }
        return "\(s / 3600)h\(format2(s / 60 % 60))m"
    }

    private static func format2(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
