import Glibc
import RecipeCore
import RecipeLanguage
import RecipeSession

/// One fuzzing session: the corpus (seeds, then inputs that showed a new diagnostic or graph
/// shape), the loop, the findings and the statistics for the summary.
///
/// ```swift
/// var run = FuzzRun(options: options, seeds: seeds)
/// run.loop()
/// print(run.summaryLine)
/// ```
struct FuzzRun {
    /// One distinct problem (by `Oracle.Violation.key`), with how often it was hit.
    struct Finding {
        let key: String
        let kind: String
        let detail: String
        let original: [UInt8]
        let minimized: [UInt8]
        var hits: Int
        var savedAs: String?
    }

    let options: FuzzOptions
    let seedCount: Int
    var corpus: [[UInt8]]
    /// The grown inputs that had no errors.
    var validCorpus: [[UInt8]] = []
    var random: Xoshiro
    let mutator: Mutator
    let oracle = Oracle()
    var features = Set<UInt64>()
    var findings: [Finding] = []
    var findingIndex: [String: Int] = [:]

    // Statistics.
    var inputs = 0
    var withErrors = 0
    var valid = 0
    var slowest = 0.0
    var slowestInput: [UInt8] = []
    var peakRSSKiB = 0
    var startRSSMiB = 0.0
    var elapsed = 0.0
    static let corpusLimit = 20_000
    /// Renders every valid input and measures it (nil with `--no-render`).
    let probe: RenderProbe?
    var renders = RenderStats()
    /// The slowest input, check and render together.
    var slowestCase = (seconds: 0.0, input: [UInt8]())

    init(options: FuzzOptions, seeds: [[UInt8]], probe: RenderProbe?) {
        self.options = options
        self.seedCount = seeds.count
        self.corpus = seeds
        self.random = Xoshiro(seed: options.seed)
        self.mutator = Mutator(maxLength: options.maxLength)
        self.probe = probe
    }

    mutating func loop() {
        let start = FuzzSystem.now()
        var lastProgress = start
        startRSSMiB = FuzzSystem.residentMiB() ?? 0
        peakRSSKiB = FuzzSystem.peakRSSKiB()
        let progressEvery = probe == nil ? 100_000 : 10_000
        while inputs < options.runs {
            // The seeds first, unmutated; then mutations of a corpus entry (a seed 1 time in 4).
            let input: [UInt8]
            if inputs < seedCount {
                input = corpus[inputs]
            } else {
                // A seed, a grown valid input or any grown input: valid bases keep a good share of
                // the mutants valid, so the printer's round trip gets exercised, not only the errors.
                let base: [UInt8]
                switch random.below(10) {
                case 0..<3: base = corpus[random.below(seedCount)]
                case 3..<7 where !validCorpus.isEmpty: base = validCorpus[random.below(validCorpus.count)]
                default: base = corpus[random.below(corpus.count)]
                }
                let other = corpus[random.below(corpus.count)]
                input = mutator.mutate(base, other: other, random: &random)
            }
            runOne(input)
            if inputs % progressEvery == 0 {
                let now = FuzzSystem.now()
                FuzzSystem.note("recipe-fuzz: \(inputs) inputs, \(Int(Double(progressEvery) / max(1e-9, now - lastProgress))) inputs/s, "
                    + "\(withErrors) with errors, \(valid) valid, \(findings.count) findings, corpus \(corpus.count), "
                    + "slowest \(Format.duration(slowest)), RSS \(Format.fixed(FuzzSystem.residentMiB() ?? 0, 1)) MiB"
                    + (probe == nil ? "" : "; \(renders.progress)"))
                lastProgress = now
            }
        }
        elapsed = FuzzSystem.now() - start
        Watchdog.stopTimer()
    }

    mutating func runOne(_ input: [UInt8]) {
        Watchdog.begin(input)
        let resets = probe?.resets ?? false
        if resets { FuzzSystem.resetPeakResident() }
        let before = resets ? FuzzSystem.residentStatus() : nil
        let t0 = FuzzSystem.now()
        let verdict = oracle.judge(input)
        let dt = FuzzSystem.now() - t0
        let checkPeak = resets ? FuzzSystem.residentStatus() : nil
        inputs += 1
        if verdict.hasErrors { withErrors += 1 } else { valid += 1 }
        if dt > slowest {
            slowest = dt
            slowestInput = input
        }
        if let violation = verdict.violation {
            record(violation, input: input)
        }
        if dt > options.slowSeconds {
            let violation = Oracle.Violation(kind: "slow", detail: "one input took \(Format.duration(dt)) (limit \(Format.duration(options.slowSeconds)))",
                                             key: "slow")
            record(violation, input: input, minimize: false)
        }
        // Memory of the check: a big jump of the peak in one input, or a peak above the limit. With
        // the high-water mark reset before each input, the jump is the check's own growth.
        let peak = checkPeak?.peak ?? FuzzSystem.peakRSSKiB()
        let jumpKiB = before.map { peak - $0.current } ?? peak - peakRSSKiB
        if jumpKiB > 64 << 10 || peak > peakRSSKiB && Double(peak) / 1024 > Double(options.maxRSSMiB) {
            let violation = Oracle.Violation(kind: "memory",
                detail: "peak RSS rose by \(Format.fixed(Double(jumpKiB) / 1024, 1)) MiB to \(Format.fixed(Double(peak) / 1024, 1)) MiB checking one input (limit \(options.maxRSSMiB) MiB)",
                key: "memory")
            record(violation, input: input, minimize: false)
        }
        peakRSSKiB = max(peakRSSKiB, peak)
        var caseSeconds = dt
        if let probe, !verdict.hasErrors {
            let outcome = probe.render(input)
            caseSeconds += outcome.seconds
            renders.add(outcome, input: input)
            judge(outcome, input: input, budget: probe.budget)
            if let after = FuzzSystem.residentStatus() { peakRSSKiB = max(peakRSSKiB, after.peak) }
        }
        if caseSeconds > slowestCase.seconds { slowestCase = (caseSeconds, input) }
        // Corpus growth: keep inputs that show something new.
        var new = false
        for f in verdict.features where features.insert(f).inserted { new = true }
        if new, inputs > seedCount {
            if corpus.count < Self.corpusLimit {
                corpus.append(input)
            } else {
                corpus[seedCount + random.below(corpus.count - seedCount)] = input
            }
            if !verdict.hasErrors {
                if validCorpus.count < Self.corpusLimit {
                    validCorpus.append(input)
                } else {
                    validCorpus[random.below(validCorpus.count)] = input
                }
            }
        }
    }

    /// The findings of one render: over the budget, above its own estimate, slower than its
    /// estimated work allows, or failed.
    mutating func judge(_ outcome: RenderProbe.Outcome, input: [UInt8], budget: MemoryBudget) {
        let mib = { (bytes: Int) in Format.fixed(Double(bytes) / 1048576, 1) + " MiB" }
        switch outcome.status {
        case .failed(let why):
            record(Oracle.Violation(kind: "render-failed", detail: "the render failed: \(why)", key: "render-failed " + Oracle.skeleton(why)),
                   input: input, minimize: false)
        case .rendered:
            if outcome.peakBytes + RenderEstimate.processBytes > budget.perRender {
                record(Oracle.Violation(kind: "over-budget",
                                        detail: "the render grew by \(mib(outcome.peakBytes)), over the budget of \(budget) with the process's own",
                                        key: "over-budget"), input: input, minimize: false)
            }
            if outcome.peakBytes > RenderProbe.allowedPeak(estimate: outcome.estimateBytes) {
                record(Oracle.Violation(kind: "estimate-low",
                                        detail: "the render grew by \(mib(outcome.peakBytes)); its estimate was \(mib(outcome.estimateBytes)) (allowed: 1.5× and 8 MiB)",
                                        key: "estimate-low"), input: input, minimize: false)
            }
            let limit = RenderProbe.timeLimit(work: outcome.work)
            if outcome.seconds > limit {
                record(Oracle.Violation(kind: "slow-render",
                                        detail: "the render took \(Format.duration(outcome.seconds)), over its limit of \(Format.duration(limit)) (estimated work \(RenderEstimate.workText(outcome.work)) pixel-ops)",
                                        key: "slow-render"), input: input, minimize: false)
            }
        case .refused, .notRendered, .tooMuchWork:
            break
        }
    }

    mutating func record(_ violation: Oracle.Violation, input: [UInt8], minimize: Bool = true) {
        if let i = findingIndex[violation.key] {
            findings[i].hits += 1
            return
        }
        var minimized = input
        if minimize {
            let oracle = self.oracle
            let key = violation.key
            minimized = Minimizer.minimize(input, budget: 20_000) { oracle.judge($0, wantFeatures: false).violation?.key == key }
        }
        // The detail of the minimized input reads better.
        let detail = minimize ? (oracle.judge(minimized, wantFeatures: false).violation?.detail ?? violation.detail) : violation.detail
        var finding = Finding(key: violation.key, kind: violation.kind, detail: detail, original: input, minimized: minimized, hits: 1)
        if let folder = options.findingsFolder {
            let base = folder + "/finding-\(findings.count + 1)-\(violation.kind)"
            FuzzSystem.writeFile(minimized, to: base + ".recipe.yaml")
            if minimized != input { FuzzSystem.writeFile(input, to: base + ".original.recipe.yaml") }
            finding.savedAs = base + ".recipe.yaml"
        }
        findingIndex[violation.key] = findings.count
        findings.append(finding)
        FuzzSystem.note("recipe-fuzz: FINDING \(violation.kind) (input \(inputs)): \(detail)\n  input (\(minimized.count) bytes"
            + (minimized.count != input.count ? ", minimized from \(input.count)" : "") + "): \(FuzzSystem.escaped(minimized))"
            + (finding.savedAs.map { "\n  saved: \($0)" } ?? ""))
    }

    var summaryLine: String {
        "recipe-fuzz: \(inputs) inputs in \(Format.fixed(elapsed, 1)) s (\(Int(Double(inputs) / max(elapsed, 1e-9))) inputs/s): "
            + "\(withErrors) with errors, \(valid) valid; \(findings.count) finding\(findings.count == 1 ? "" : "s")"
            + (findings.isEmpty ? "" : " (\(findings.reduce(0) { $0 + $1.hits }) hit\(findings.reduce(0) { $0 + $1.hits } == 1 ? "" : "s"))")
            + "; slowest input \(Format.duration(slowest)) (\(slowestInput.count) bytes); "
            + "peak RSS \(Format.fixed(Double(peakRSSKiB) / 1024, 1)) MiB (RSS \(Format.fixed(startRSSMiB, 1)) MiB at start, "
            + "\(Format.fixed(FuzzSystem.residentMiB() ?? 0, 1)) MiB at end); seed \(options.seed), max-len \(options.maxLength), "
            + "\(seedCount) seeds, corpus grew to \(corpus.count) (\(validCorpus.count) valid)"
            + (probe.map { "\n" + renders.summary(probe: $0, slowestCase: slowestCase.seconds) } ?? "")
    }

    /// The findings, one block each, for stdout.
    var findingsReport: String {
        var out = ""
        for (i, f) in findings.enumerated() {
            out += "finding \(i + 1): \(f.kind), \(f.hits) hit\(f.hits == 1 ? "" : "s")\n"
            out += "  input (\(f.minimized.count) bytes): \(FuzzSystem.escaped(f.minimized))\n"
            if let saved = f.savedAs { out += "  saved: \(saved)\n" }
            out += "  " + f.detail.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n  ") + "\n"
        }
        return out
    }
}
