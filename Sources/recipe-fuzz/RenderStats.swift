import RecipeLanguage
import RecipeSession

/// What the renders of a fuzz run came to: how many were rendered, refused or not run, the
/// slowest and the largest, and how the measured peaks compare with the estimates.
///
/// ```swift
/// var stats = RenderStats()
/// stats.add(probe.render(input), input: input)
/// print(stats.summary(probe: probe, slowestCase: 0.012))
/// ```
struct RenderStats {
    var rendered = 0
    var refused = 0
    var notRendered = 0
    var tooMuchWork = 0
    var failed = 0
    var seconds = 0.0
    /// The slowest render, the one that grew the resident peak most, the largest ratios of a
    /// peak to its estimate among renders whose peak is at least 1 MiB and at least 4 MiB (below
    /// that, the process's one-time tables and a new thread's heap, which the estimate counts in
    /// the process's own 16 MiB, weigh as much as the render), and the largest estimate for a
    /// 6000×4000 photo.
    var slowest = (seconds: 0.0, work: 0.0, input: [UInt8]())
    var largest = (bytes: 0, estimate: 0, input: [UInt8]())
    var ratio = (value: 0.0, bytes: 0, estimate: 0)
    var ratioLarge = (value: 0.0, bytes: 0, estimate: 0, input: [UInt8]())
    var nominal = (bytes: 0, input: [UInt8]())
    /// Inputs whose 6000×4000 estimate is above the default budget (`recipe render` would refuse them there).
    var nominalOverDefault = 0

    mutating func add(_ outcome: RenderProbe.Outcome, input: [UInt8]) {
        if let bytes = outcome.nominalBytes {
            if bytes > nominal.bytes { nominal = (bytes, input) }
            if bytes > MemoryBudget.standard.bytes { nominalOverDefault += 1 }
        }
        switch outcome.status {
        case .rendered: rendered += 1
        case .refused: refused += 1
        case .notRendered: notRendered += 1
        case .tooMuchWork: tooMuchWork += 1
        case .failed: failed += 1
        }
        guard outcome.status == .rendered else { return }
        seconds += outcome.seconds
        if outcome.seconds > slowest.seconds { slowest = (outcome.seconds, outcome.work, input) }
        if outcome.peakBytes > largest.bytes { largest = (outcome.peakBytes, outcome.estimateBytes, input) }
        let r = Double(outcome.peakBytes) / Double(max(1, outcome.estimateBytes))
        if outcome.peakBytes >= 1 << 20, r > ratio.value { ratio = (r, outcome.peakBytes, outcome.estimateBytes) }
        if outcome.peakBytes >= 4 << 20, r > ratioLarge.value { ratioLarge = (r, outcome.peakBytes, outcome.estimateBytes, input) }
    }

    static func mib(_ bytes: Int) -> String { Format.fixed(Double(bytes) / 1048576, 1) + " MiB" }

    /// For the progress line.
    var progress: String {
        "\(rendered) rendered (\(refused) refused, \(notRendered + tooMuchWork) not run), slowest render \(Format.duration(slowest.seconds)), "
            + "largest peak \(Self.mib(largest.bytes))"
    }

    /// The closing lines: counts, the slowest render and the largest peak with what they were.
    func summary(probe: RenderProbe, slowestCase: Double) -> String {
        let size = "\(probe.size.width)×\(probe.size.height)"
        return "recipe-fuzz: renders on a \(size) photo (budget \(probe.budget.explained)): \(rendered) rendered in "
            + "\(Format.fixed(seconds, 1)) s, \(refused) refused over the budget, \(notRendered) not renderable at \(size) "
            + "(errors at that size, plans this build refuses), \(tooMuchWork) over \(RenderEstimate.workText(RenderProbe.maximumWork)) pixel-ops not run, "
            + "\(failed) failed; slowest case \(Format.duration(slowestCase)) (check and render), slowest render "
            + "\(Format.duration(slowest.seconds)) (estimated work \(RenderEstimate.workText(slowest.work)) pixel-ops): "
            + Self.describe(slowest.input)
            + "; largest peak \(Self.mib(largest.bytes)) (estimate \(Self.mib(largest.estimate))): " + Self.describe(largest.input)
            + "; peak/estimate at most \(Format.fixed(ratio.value, 2)) (\(Self.mib(ratio.bytes)) of \(Self.mib(ratio.estimate)), peaks of 1 MiB or more), "
            + "\(Format.fixed(ratioLarge.value, 2)) (\(Self.mib(ratioLarge.bytes)) of \(Self.mib(ratioLarge.estimate)), peaks of 4 MiB or more)"
            + "\nrecipe-fuzz: estimates for a 6000×4000 photo: the largest \(MemoryBudget.text(nominal.bytes)) ("
            + Self.describe(nominal.input) + "); \(nominalOverDefault) over the default budget of \(MemoryBudget.standard)"
    }

    /// What a recipe is, in a few words: `512 bytes, 256 stages: blur ×256` (the ops of its
    /// graph, most frequent first), for the summary.
    static func describe(_ input: [UInt8]) -> String {
        guard !input.isEmpty else { return "none" }
        var options = CheckOptions()
        options.checkFilesExist = false
        let checked = RecipeChecker.check(SourceFile(path: Oracle.path, bytes: input), options: options)
        guard let graph = checked.graph else { return "\(input.count) bytes" }
        var counts: [String: Int] = [:]
        for node in graph.nodes.dropFirst() { counts[node.op, default: 0] += 1 }
        let ops = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(6)
            .map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
        return "\(input.count) bytes, \(graph.nodes.count - 1) nodes: " + (ops.isEmpty ? "none" : ops) + (counts.count > 6 ? ", …" : "")
    }
}
