import Glibc

/// Everything one run of `recipe-bench display` measured, its check and its Markdown rendering.
///
/// ```
/// | photo | long edge px | (none) | basic-corrections | … |
/// | shefta-shifa-tccP0BotaAA-unsplash.jpg | 4256 | 52.4 | 49.8 | … |
/// | **lowest** | | 52.4 | 49.8 | … |
///
/// - PASS  display vs full downscaled ≥ 40 dB on every pair: lowest 47.3 dB: shefta-…jpg, film-look; 0 of 10 pairs below
/// ```
struct DisplayReport {
    let options: DisplayBenchmark.Options
    /// The first line of `recipe --version`.
    let version: String
    let photos: DisplayPhotos
    let recipes: [DisplayRecipe]
    let pairs: [DisplayPair]
    /// Each pair's outcome, in the order of `pairs`.
    let outcomes: [DisplayOutcome?]
    /// Wall time of the whole sweep.
    let sweepSeconds: Double
    /// The temporary folder the pairs ran in (shown as `$W`).
    let scratch: String

    /// A pair that did not come to a PSNR, for the report's list.
    struct Failure {
        let photo: String
        let recipe: String
        let step: String
        let why: String
    }

    /// The pairs that failed (a render or the comparison), in order; the bench exits 1 if any.
    var failures: [Failure] {
        zip(pairs, outcomes).compactMap { pair, outcome in
            let photo = photos.compared[pair.photo].name, recipe = recipes[pair.recipe].name
            switch outcome {
            case .compared?: return nil
            case .failed(let step, let why, _)?: return Failure(photo: photo, recipe: recipe, step: step, why: why)
            case nil: return Failure(photo: photo, recipe: recipe, step: "sweep", why: "not run")
            }
        }
    }

    /// The compared pairs with their PSNR.
    var measured: [(pair: DisplayPair, psnr: Double)] {
        zip(pairs, outcomes).compactMap { pair, outcome in outcome?.psnr.map { (pair, $0) } }
    }

    /// The pair with the lowest PSNR (the first of equals), nil when none was compared.
    var lowest: (pair: DisplayPair, psnr: Double)? {
        measured.reduce(nil) { lowest, next in
            guard let lowest, lowest.psnr <= next.psnr else { return next }
            return lowest
        }
    }

    /// The lowest PSNR of each recipe over the photos, nil for a recipe with no compared pair.
    var lowestPerRecipe: [Double?] {
        recipes.indices.map { recipe in measured.filter { $0.pair.recipe == recipe }.map(\.psnr).min() }
    }

    /// The acceptance point, judged: PASS when every pair reached --min-psnr; MISS when one did
    /// not; n/a when none fell below but some failed.
    var check: EngineCheck {
        let target = "display vs full downscaled ≥ \(Self.decibels(options.minPSNR)) dB on every pair"
        guard let lowest else {
            return EngineCheck(verdict: .unavailable, target: target, measured: "no pair compared")
        }
        let below = measured.filter { $0.psnr < options.minPSNR }.count
        let failed = failures.count
        let verdict: EngineCheck.Verdict = below > 0 ? .miss : failed > 0 ? .unavailable : .pass
        return EngineCheck(
            verdict: verdict, target: target,
            measured: "lowest \(Format.fixed(lowest.psnr, 1)) dB: \(photos.compared[lowest.pair.photo].name), "
                + "\(recipes[lowest.pair.recipe].name); \(below) of \(pairs.count) pairs below"
                + (failed > 0 ? "; \(failed) failed (see below)" : ""))
    }

    /// The report as Markdown.
    var markdown: String {
        var lines: [String] = []
        let edge = "\(options.longEdge) px"
        lines.append("# recipe-bench display \(Format.timestamp())")
        lines.append("")
        lines.append("Command: `recipe-bench display " + commandLine + "`.")
        lines.append("")
        lines.append("- recipe: `\(options.recipeBinary)`, version \(version)")
        lines.append("- photos: \(photos.compared.count) of " + DisplayBenchmark.photoFolders.map { "`$CORPUS/\($0)`" }.joined(separator: ", ") + " with an upright long edge above \(edge)"
            + (options.photoFilter.map { " and a name containing `\($0)`" } ?? "") + " (`$CORPUS` = `\(options.corpus)`)")
        lines.append("- skipped: \(photos.small.count) photos with a long edge ≤ \(edge), which render identically at this size"
            + (photos.small.isEmpty ? "" : ": " + photos.small.map { "\($0.name) (\($0.width)×\($0.height))" }.joined(separator: ", "))
            + (photos.unreadable.isEmpty ? "" : "; \(photos.unreadable.count) unreadable: "
                + photos.unreadable.map { "\($0.name) (\($0.why))" }.joined(separator: ", ")))
        lines.append("- recipes: `(none)` (no `--recipe`: the photo as it is, or its sidecar if it has one) and the \(recipes.count - 1) files `Recipes/NAME.recipe.yaml` of the package "
            + "(`\(FileSystem.join(options.packageRoot, "Recipes"))`)")
        lines.append("- each pair, in a temporary folder of its own: `recipe render PHOTO [--recipe R] -o full.png`, then "
            + "`recipe render full.png --size \(options.size) -o down.png`, then `recipe render PHOTO [--recipe R] --size \(options.size) "
            + "-o display.png`")
        lines.append("- PSNR of display.png against down.png over every sample (all channels), both decoded with recipe's own "
            + "decoder: 10·log10(255² / MSE), with 65535² for 16-bit PNGs (marked 16-bit); 99.0 = identical")
        let seconds = outcomes.compactMap { outcome -> Double? in
            switch outcome {
            case .compared(_, let seconds)?, .failed(_, _, let seconds)?: return seconds
            case nil: return nil
            }
        }
        lines.append("- host: \(sysconf(Int32(_SC_NPROCESSORS_ONLN))) CPUs; \(options.jobs) pairs at once; sweep "
            + "\(Format.fixed(sweepSeconds, 1)) s wall for \(pairs.count) pairs (per pair: mean "
            + "\(Format.fixed(seconds.reduce(0, +) / Double(max(1, seconds.count)), 1)) s, slowest \(Format.fixed(seconds.max() ?? 0, 1)) s)")
        lines.append("")

        lines.append("PSNR in dB, display render against the full render downscaled (below \(Self.decibels(options.minPSNR)) dB in bold):")
        lines.append("")
        lines.append("| photo | long edge px | " + recipes.map { Format.cell($0.name) }.joined(separator: " | ") + " |")
        lines.append("|---|---:|" + String(repeating: "---:|", count: recipes.count))
        var cells: [[String]] = photos.compared.map { _ in Array(repeating: "", count: recipes.count) }
        for (pair, outcome) in zip(pairs, outcomes) {
            cells[pair.photo][pair.recipe] = tableCell(outcome)
        }
        for (photo, row) in zip(photos.compared, cells) {
            lines.append("| \(Format.cell(photo.name)) | \(photo.longEdge) | " + row.joined(separator: " | ") + " |")
        }
        lines.append("| **lowest** | | " + lowestPerRecipe.map { value in
            value.map { psnr in Self.bolded(Format.fixed(psnr, 1), psnr < options.minPSNR) } ?? "—"
        }.joined(separator: " | ") + " |")
        lines.append("")
        if let lowest {
            lines.append("Lowest overall: \(Format.fixed(lowest.psnr, 1)) dB, \(photos.compared[lowest.pair.photo].name) with "
                + "\(recipes[lowest.pair.recipe].name).")
            lines.append("")
        }
        lines.append("Check:")
        lines.append("")
        lines.append("- \(check.verdict.rawValue)  \(check.target): \(check.measured)")
        if !failures.isEmpty {
            lines.append("")
            lines.append("Failures (the first line the command wrote to stderr; `$W` = the temporary folder, deleted):")
            lines.append("")
            for failure in failures {
                lines.append("- \(failure.photo), \(failure.recipe), \(failure.step): \(shown(failure.why))")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The options of this run, as a command line would give them.
    private var commandLine: String {
        var words = ["--size", options.size, "--min-psnr", Self.decibels(options.minPSNR), "--jobs", String(options.jobs)]
        if let filter = options.photoFilter { words += ["--photos", filter] }
        words += ["--corpus", options.corpus, "--recipe-binary", options.recipeBinary]
        if let outFile = options.outFile { words += ["--out", outFile] }
        return words.map(Shell.quoteIfNeeded).joined(separator: " ")
    }

    /// One pair's table cell: the PSNR with one decimal (bold below the threshold), or FAILED.
    private func tableCell(_ outcome: DisplayOutcome?) -> String {
        switch outcome {
        case .compared(let difference, _)?:
            let value = Self.bolded(Format.fixed(difference.psnr, 1), difference.psnr < options.minPSNR)
            return difference.format.sampleType == .uint16 ? value + " (16-bit)" : value
        case .failed(let step, _, _)?: return "FAILED (\(step))"
        case nil: return "not run"
        }
    }

    /// `text` in bold when `condition`.
    private static func bolded(_ text: String, _ condition: Bool) -> String { condition ? "**\(text)**" : text }

    /// A threshold in dB as given: `40`, or `40.5`.
    static func decibels(_ value: Double) -> String {
        value == value.rounded() ? Format.fixed(value, 0) : Format.fixed(value, 2)
    }

    /// `text` with the temporary folder shown as `$W` and the corpus as `$CORPUS`.
    private func shown(_ text: String) -> String {
        Format.cell(text.replacing(scratch, with: "$W").replacing(options.corpus, with: "$CORPUS"))
    }
}
