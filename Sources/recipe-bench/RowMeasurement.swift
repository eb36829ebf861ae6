import Glibc

/// The result of one row: the median wall time and largest peak RSS of its timed runs, or why
/// there is none.
///
/// ```swift
/// let outcome = RowOutcome.measure(command, runs: 7, runner: runner)
/// outcome.medianWall   // 0.153
/// outcome.maxRSSMiB    // 2.1
/// ```
enum RowOutcome {
    /// Every run succeeded. `walls` are the timed runs' wall times in run order.
    case measured(walls: [Double], maxRSSKiB: Int)
    /// The row's tool is missing.
    case skipped(String)
    /// A run (the warm-up or a timed one) failed; the bench will exit 1.
    case failed(String)

    /// Runs `command` once untimed (warm-up: page cache, dynamic loader), then `runs` times timed.
    /// `prepare` runs before each run, `inspect` after each successful one (both untimed, the
    /// warm-up included): e.g. to touch the inputs, or to read the run's stderr log.
    static func measure(_ command: Command, runs: Int, runner: ProcessRunner,
                        prepare: () -> Void = {}, inspect: () -> Void = {}) -> RowOutcome {
        prepare()
        if case .failure(let failure) = runner.run(command) { return .failed("warm-up " + failure.description) }
        inspect()
        var walls: [Double] = []
        var maxRSS = 0
        for run in 1...runs {
            prepare()
            switch runner.run(command) {
            case .success(let sample):
                inspect()
                walls.append(sample.wallSeconds)
                maxRSS = max(maxRSS, sample.maxRSSKiB)
            case .failure(let failure):
                return .failed("run \(run) " + failure.description)
            }
        }
        return .measured(walls: walls, maxRSSKiB: maxRSS)
    }

    /// The median wall time in seconds, nil unless measured.
    var medianWall: Double? {
        guard case .measured(let walls, _) = self else { return nil }
        return walls.median
    }

    /// The largest peak RSS over the timed runs in MiB, nil unless measured.
    var maxRSSMiB: Double? {
        guard case .measured(_, let kib) = self else { return nil }
        return Double(kib) / 1024
    }

    /// True if the row failed.
    var isFailure: Bool {
        if case .failed = self { return true }
        return false
    }
}

extension Array<Double> {
    /// The median (the mean of the middle two for an even count), nil when empty.
    var median: Double? {
        guard !isEmpty else { return nil }
        let sorted = sorted()
        let middle = count / 2
        return count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

/// The reports' number, time and table-cell formatting, without Foundation's `String(format:)`.
enum Format {
    /// `value` rounded to `digits` decimals, e.g. `fixed(0.15349, 3)` → `"0.153"`.
    static func fixed(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite else { return String(value) }
        var scale = 1
        for _ in 0..<digits { scale *= 10 }
        let scaled = Int((abs(value) * Double(scale)).rounded())
        let sign = value < 0 && scaled != 0 ? "-" : ""
        guard digits > 0 else { return sign + String(scaled) }
        let fraction = String(scaled % scale)
        return sign + String(scaled / scale) + "." + String(repeating: "0", count: digits - fraction.count) + fraction
    }

    /// An integer with thin grouping for reading, e.g. `72000000` → `"72 000 000"`.
    static func grouped(_ value: Int) -> String {
        let digits = Array(String(abs(value)))
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { result.append(" ") }
            result.append(digit)
        }
        return (value < 0 ? "-" : "") + result
    }

    /// `value` in decimal with leading zeros to `width` digits, e.g. `padded(7, 3)` → `"007"`.
    static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// `text` made safe for one Markdown table cell: pipes escaped, newlines flattened.
    static func cell(_ text: String) -> String {
        text.replacing("|", with: "\\|").replacing("\n", with: " ")
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
}
