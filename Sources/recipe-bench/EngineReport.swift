import Glibc

/// One target of issue 4's engine benchmark, judged against the measurements.
///
/// ```
/// - PASS  chain full wall ≤ 0.7× vips_chain chain, baseline (#8 vs #3): 0.55× (0.207 s vs 0.376 s)
/// ```
struct EngineCheck {
    /// How a target came out.
    enum Verdict: String {
        /// Met.
        case pass = "PASS"
        /// Missed.
        case miss = "MISS"
        /// Measured, but our row does less work than the peer's (e.g. no unsharp mask yet).
        case notComparable = "not comparable yet"
        /// Our side cannot be rendered by this build yet.
        case notMeasurable = "not measurable yet"
        /// A row it needs was skipped or failed.
        case unavailable = "n/a"
    }

    /// The verdict.
    let verdict: Verdict
    /// The target, e.g. "chain full wall ≤ 0.7× vips_chain chain, baseline (#8 vs #3)".
    let target: String
    /// The measured value with what it was computed from.
    let measured: String
}

/// Everything measured in one run of `recipe-bench engine`, and its Markdown rendering.
///
/// ```swift
/// let report = EngineReport(setup: setup, outcomes: outcomes, outputs: outputs, launchFloor: floor)
/// print(report.markdown)
/// ```
struct EngineReport {
    /// The fixed facts of the run.
    struct Setup {
        /// The recipe binary measured.
        let recipeBinary: String
        /// The corpus folder (shown as `$CORPUS`).
        let corpus: String
        /// The scratch folder (shown as `$W`).
        let scratch: String
        /// The folder holding peers.sh, fused_chain.c and vips_chain.c.
        let peerSources: String
        /// Timed runs per row.
        let runs: Int
        /// How children were started.
        let launcher: Launcher
        /// Frame headers of the two photos.
        let headers: [BenchImage: PhotoHeader]
        /// File sizes of the two photos in bytes.
        let fileSizes: [BenchImage: Int]
        /// Each row's plan.
        let plans: [EngineRow: EnginePlan]
        /// Photos in the batch.
        let batchCount: Int
        /// Megapixels in the batch, summed.
        let batchMegapixels: Double
    }

    /// The run's fixed facts.
    let setup: Setup
    /// Each row's result.
    let outcomes: [EngineRow: RowOutcome]
    /// Each measured single-photo row's output, as `4000×6000 4:2:0` (from its frame header).
    let outputs: [EngineRow: String]
    /// `/bin/true` measured the same way.
    let launchFloor: RowOutcome

    /// The median wall of `task` on `image`, if it was measured.
    private func wall(_ task: EngineTask, _ image: BenchImage?) -> Double? {
        outcomes[EngineRow.of(task, image)]?.medianWall
    }

    /// Images per second of a batch row.
    private func imagesPerSecond(_ task: EngineTask) -> Double? {
        guard let wall = wall(task, nil), wall > 0 else { return nil }
        return Double(setup.batchCount) / wall
    }

    /// Why the row of `task` on `image` has no wall time ("row 12 skipped: …").
    private func absence(_ task: EngineTask, _ image: BenchImage?) -> String {
        let row = EngineRow.of(task, image)
        switch outcomes[row] ?? .skipped("not run") {
        case .measured: return "row \(row.number) measured"
        case .skipped(let why): return "row \(row.number) skipped (\(why))"
        case .failed: return "row \(row.number) failed"
        }
    }

    /// `name, photo (#a vs #b)`.
    private func label(_ name: String, _ image: BenchImage?, _ rows: EngineTask...) -> String {
        let photo = image.map { ", " + $0.rawValue } ?? ""
        return name + photo + " (" + rows.map { "#\(EngineRow.of($0, image).number)" }.joined(separator: " vs ") + ")"
    }

    /// `ours ≤ limit × theirs` on wall time, judged, or `unavailable` when a row is missing.
    private func wallRatio(_ name: String, _ ours: EngineTask, _ theirs: EngineTask, _ image: BenchImage?,
                           limit: Double, verdict: EngineCheck.Verdict? = nil, comment: String = "") -> EngineCheck {
        let target = label(name, image, ours, theirs)
        guard let a = wall(ours, image), let b = wall(theirs, image), b > 0 else {
            let missing = wall(ours, image) == nil ? absence(ours, image) : absence(theirs, image)
            return EngineCheck(verdict: .unavailable, target: target, measured: missing)
        }
        let ratio = a / b
        return EngineCheck(
            verdict: verdict ?? (ratio <= limit ? .pass : .miss), target: target,
            measured: "\(Format.fixed(ratio, 2))× (\(Format.fixed(a, 3)) s vs \(Format.fixed(b, 3)) s)" + comment)
    }

    /// `recipe apply`'s images/s ≥ `limit` × those of the batch row of `theirs`, judged, or
    /// `unavailable` when a row is missing.
    private func batchRate(_ ours: String, over theirs: EngineTask, _ theirName: String, atLeast limit: Double) -> EngineCheck {
        let target = "batch of \(setup.batchCount), \(ours) ≥ \(Format.fixed(limit, 0))× \(theirName) images/s "
            + "(#\(EngineRow.of(.batchApply, nil).number) vs #\(EngineRow.of(theirs, nil).number))"
        guard let a = imagesPerSecond(.batchApply), let b = imagesPerSecond(theirs), b > 0 else {
            let missing = imagesPerSecond(.batchApply) == nil ? absence(.batchApply, nil) : absence(theirs, nil)
            return EngineCheck(verdict: .unavailable, target: target, measured: missing)
        }
        let ratio = a / b
        return EngineCheck(verdict: ratio >= limit ? .pass : .miss, target: target,
                           measured: "\(Format.fixed(ratio, 2))× (\(Format.fixed(a, 2)) vs \(Format.fixed(b, 2)) images/s)")
    }

    /// Issue 4's targets (and issue 6's batch targets), judged; the rows our build cannot render are reported as such.
    var checks: [EngineCheck] {
        var checks: [EngineCheck] = []
        for image in BenchImage.allCases {
            checks.append(wallRatio("chain full wall ≤ 0.7× vips_chain chain", .recipeChain, .vipsChain, image, limit: 0.7))
        }
        for image in BenchImage.allCases {
            checks.append(wallRatio("chain full wall ≤ 1.0× fused_chain", .recipeChain, .fusedChain, image, limit: 1.0))
        }

        let rssTarget = label("chain full peak RSS ≤ 32 MB (MiB)", .baseline, .recipeChain)
        if let rss = outcomes[EngineRow.of(.recipeChain, .baseline)]?.maxRSSMiB {
            checks.append(EngineCheck(verdict: rss <= 32 ? .pass : .miss, target: rssTarget, measured: "\(Format.fixed(rss, 1)) MiB"))
        } else {
            checks.append(EngineCheck(verdict: .unavailable, target: rssTarget, measured: absence(.recipeChain, .baseline)))
        }

        for image in BenchImage.allCases {
            let target = label("fusion ≥ 3× in the processing part, (no-fuse − identity) ÷ (chain − identity)", image,
                               .recipeNoFuse, .recipeChain, .recipeIdentity)
            guard let fused = wall(.recipeChain, image), let unfused = wall(.recipeNoFuse, image),
                let identity = wall(.recipeIdentity, image)
            else {
                let missing = [EngineTask.recipeChain, .recipeNoFuse, .recipeIdentity].first { wall($0, image) == nil }!
                checks.append(EngineCheck(verdict: .unavailable, target: target, measured: absence(missing, image)))
                continue
            }
            let fusedPart = fused - identity, unfusedPart = unfused - identity
            let parts = "(\(Format.fixed(unfusedPart, 3)) s vs \(Format.fixed(fusedPart, 3)) s)"
            if fusedPart <= 0 {
                checks.append(EngineCheck(verdict: unfusedPart > 0 ? .pass : .unavailable, target: target,
                                          measured: "chain − identity ≤ 0, within noise \(parts)"))
            } else {
                let ratio = unfusedPart / fusedPart
                checks.append(EngineCheck(verdict: ratio >= 3 ? .pass : .miss, target: target,
                                          measured: "\(Format.fixed(ratio, 2))× \(parts)"))
            }
        }

        for image in BenchImage.allCases {
            if wall(.recipeDisplayUnsharp, image) != nil {
                checks.append(wallRatio("display path ≤ 0.7× vips_chain display", .recipeDisplayUnsharp, .vipsDisplay,
                                        image, limit: 0.7))
            } else {
                checks.append(wallRatio("display path ≤ 0.7× vips_chain display", .recipeDisplay, .vipsDisplay, image,
                                        limit: 0.7, verdict: .notComparable,
                                        comment: "; the peer also does an unsharp mask, ours cannot yet"))
            }
        }

        for image in BenchImage.allCases {
            if wall(.recipeUnsharpResize, image) != nil {
                checks.append(wallRatio("chain + unsharp + resize 2048 ≤ 0.7× vips_chain usm", .recipeUnsharpResize,
                                        .vipsUnsharpResize, image, limit: 0.7))
            } else {
                checks.append(EngineCheck(
                    verdict: .notMeasurable,
                    target: label("chain + unsharp + resize 2048 ≤ 0.7× vips_chain usm", image, .recipeUnsharpResize,
                                  .vipsUnsharpResize),
                    measured: absence(.recipeUnsharpResize, image)))
            }
        }

        checks.append(batchRate("recipe apply", over: .batchVips, "vips_chain", atLeast: 2))
        checks.append(batchRate("recipe apply", over: .batchMogrify, "ImageMagick mogrify", atLeast: 5))
        return checks
    }

    /// The line naming the rows this recipe binary cannot render yet (its recipe uses an operation
    /// the engine does not render), with the binary's own words, e.g.
    /// `#12, #26 chain + unsharp at --size display; #13, #27 chain + unsharp + resize 2048 (…) — sharpen …`.
    var notRenderedYet: String {
        var groups: [String] = []
        var reasons: [String] = []
        for task in EngineTask.allCases where task.mayBeUnrendered {
            var numbers: [String] = []
            for image in BenchImage.allCases {
                let row = EngineRow.of(task, image)
                guard case .skipped(let why)? = outcomes[row] else { continue }
                numbers.append("#\(row.number)")
                if !reasons.contains(why) { reasons.append(why) }
            }
            guard !numbers.isEmpty else { continue }
            switch task {
            case .recipeDisplayUnsharp:
                groups.append(numbers.joined(separator: ", ") + " chain + unsharp at `--size display` (the display target's counterpart)")
            default:
                let peers = BenchImage.allCases.map { "#\(EngineRow.of(.vipsUnsharpResize, $0).number)" }
                groups.append(numbers.joined(separator: ", ") + " chain + unsharp + resize 2048 (and its libvips peer "
                    + peers.joined(separator: ", ") + ", run only alongside)")
            }
        }
        guard !groups.isEmpty else { return "none" }
        return groups.joined(separator: "; ") + " — " + reasons.map(cell).joined(separator: "; ")
    }

    /// The whole report as Markdown: context, table, checks, notes, recipe, commands.
    var markdown: String {
        var lines: [String] = []
        lines.append("# recipe-bench engine \(Format.timestamp())")
        lines.append("")
        for image in BenchImage.allCases {
            guard let header = setup.headers[image] else { continue }
            lines.append("- \(image.rawValue): `\(image.fileName)` "
                + "\(header.width)x\(header.height) (\(Format.fixed(Double(header.width * header.height) / 1e6, 1)) MP, "
                + "\(header.isProgressive ? "progressive" : "baseline"), chroma \(header.chroma), "
                + "\(Format.grouped(setup.fileSizes[image] ?? 0)) bytes)")
        }
        lines.append("- batch: the first \(setup.batchCount) `.jpg` of `bench/` by name "
            + "(\(Format.fixed(setup.batchMegapixels, 1)) MP in all; the issue's batch is 20, the folder holds \(setup.batchCount))")
        lines.append("- recipe: `\(setup.recipeBinary)`; peers built from `\(setup.peerSources)`")
        lines.append("- host: \(sysconf(Int32(_SC_NPROCESSORS_ONLN))) CPUs; median of \(setup.runs) runs after 1 warm-up; "
            + "launcher \(setup.launcher.rawValue)")
        lines.append("")
        lines.append("| # | row | median wall s | peak RSS MB (MiB) | ÷ floor | ÷ peer | images/s | output |")
        lines.append("|---:|---|---:|---:|---:|---:|---:|---|")
        for row in EngineRow.all {
            let outcome = outcomes[row] ?? .skipped("not run")
            switch outcome {
            case .measured:
                let wall = outcome.medianWall ?? 0
                var toFloor = "—", toPeer = "—", rate = ""
                if let floorRow = row.floorRow, row.task != .floor, let floor = outcomes[floorRow]?.medianWall, floor > 0 {
                    toFloor = Format.fixed(wall / floor, 2) + "×"
                }
                if let peerRow = row.peerRow, let peer = outcomes[peerRow]?.medianWall, peer > 0 {
                    toPeer = Format.fixed(wall / peer, 2) + "× #\(peerRow.number)"
                }
                if row.task.isBatch, wall > 0 { rate = Format.fixed(Double(setup.batchCount) / wall, 2) }
                lines.append("| \(row.number) | \(row.title) | \(Format.fixed(wall, 3)) | \(Format.fixed(outcome.maxRSSMiB ?? 0, 1)) | "
                    + "\(toFloor) | \(toPeer) | \(rate) | \(outputs[row] ?? "") |")
            case .skipped(let why):
                lines.append("| \(row.number) | \(row.title) | skipped: \(cell(why)) | | | | | |")
            case .failed(let why):
                lines.append("| \(row.number) | \(row.title) | FAILED: \(cell(why)) | | | | | |")
            }
        }
        lines.append("")
        lines.append("Checks:")
        lines.append("")
        for check in checks {
            lines.append("- \(check.verdict.rawValue)  \(check.target): \(check.measured)")
        }
        lines.append("- Rows that cannot be measured yet: " + notRenderedYet)
        lines.append("")
        lines.append("Notes:")
        lines.append("")
        lines.append("- wall: `CLOCK_MONOTONIC` around start and `wait4`, median of the timed runs; peak RSS: `ru_maxrss` "
            + "from `wait4`, the largest over the timed runs (a `/bin/sh -c` pipeline or `xargs` reads as its biggest "
            + "single process, not the sum, as GNU time in peers.sh).")
        lines.append("- ÷ floor: wall ÷ the `djpeg | cjpeg` floor on the same photo; ÷ peer: wall ÷ the row named "
            + "(the libvips row for the peers and our chain, our fused chain for `--no-fuse`, the libvips batch "
            + "for the batches).")
        lines.append("- processing part: a recipe row's wall minus recipe identity's on the same photo (decode, "
            + "encode and process start cancel out); fusion = (no-fuse − identity) ÷ (chain − identity). It is the "
            + "wall time the operations add: work that overlaps the decoder on another core does not show, so on "
            + "a small processing part (tens of ms) the ratio is noisy.")
        let unsharpRendered = BenchImage.allCases.contains { wall(.recipeDisplayUnsharp, $0) != nil }
        lines.append("- display: `vips_chain display` is `vips_thumbnail` to 2048 (shrink-on-load) + the chain + "
            + "an unsharp mask (σ 1, amount 0.8); " + (unsharpRendered
                ? "the display check compares it with recipe chain + unsharp at `--size display`."
                : "`recipe --size display` renders the chain only, since this build cannot render `sharpen`, so "
                    + "the display check is marked not comparable until the chain + unsharp row runs."))
        lines.append("- batch: the recipe batch is one `recipe apply` process (issue 6) over `$W/batch-in`, a folder of "
            + "links to the batch photos, `--jobs 2 --force --progress none --follow-links` (the links lead out of the folder; full size, the chain, q90 4:2:0: the "
            + "defaults), into `$W/apply-out`, which is deleted before each run (untimed), so every run writes all "
            + "outputs and a new manifest. The libvips and fused C batches are `xargs -P 2`, one process per photo "
            + "(peers.sh batch.vips_c, batch.fused). images/s = photos ÷ median wall.")
        lines.append("- mogrify: one ImageMagick 6 `mogrify -path` process over the whole batch with the ImageMagick "
            + "row's chain and JPEG settings under peers.sh's raised limits; `OMP_NUM_THREADS` is left unset (its "
            + "default), so its OpenMP operations may use both cores. It decodes, processes and encodes one photo "
            + "after the other.")
        lines.append("- fused_chain: `gcc -O3 -march=x86-64-v2 fused_chain.c -ljpeg -lm`; vips_chain: "
            + "`gcc -O2 vips_chain.c \(EngineToolbox.libvips) \(EngineToolbox.libgobject)` (no headers), as peers.sh "
            + "builds them. ImageMagick \"raised limits\" is peers.sh's `MAGICK_CONFIGURE_PATH` policy "
            + "(memory 8 GiB); \"Debian policy\" is the stock one.")
        if let wall = launchFloor.medianWall, let rss = launchFloor.maxRSSMiB {
            lines.append("- launch floor (`/bin/true`, same method): \(Format.fixed(wall * 1000, 2)) ms, "
                + "\(Format.fixed(rss, 1)) MiB; no row can read below it.")
        }
        lines.append("")
        lines.append("The chain recipe (`$W/chain.recipe.yaml`):")
        lines.append("")
        lines.append("```yaml")
        lines.append(contentsOf: EngineRecipes.chain.split(separator: "\n").map(String.init))
        lines.append("```")
        lines.append("")
        lines.append("Commands (`$CORPUS` = `\(setup.corpus)`, `$W` = a temporary folder, deleted afterwards; "
            + "`$W/chain-unsharp.recipe.yaml` adds `- sharpen: {amount: 0.8, sigma: 1px}`, "
            + "`$W/chain-unsharp-resize.recipe.yaml` then `- resize: {long-edge: 2048px, kernel: lanczos3}`; "
            + "`$W/batch.list` lists the batch):")
        lines.append("")
        for row in EngineRow.all {
            guard case .run(let command)? = setup.plans[row] else { continue }
            if row.image == .progressive, let twin = setup.plans[EngineRow.of(row.task, .baseline)], case .run = twin {
                continue  // the same command on the other photo
            }
            let line = command.displayLine.replacing(setup.scratch, with: "$W").replacing(setup.corpus, with: "$CORPUS")
            let rows = row.image == nil ? "\(row.number)" : "\(row.number), \(EngineRow.of(row.task, .progressive).number)"
            lines.append("- \(rows): `\(line)`")
        }
        lines.append("")
        lines.append("(rows on the progressive photo run the same commands on `$CORPUS/bench/\(BenchImage.progressive.fileName)`, "
            + "writing `$W/row<N>.jpg`)")
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` made safe for one Markdown table cell, with the scratch folder shown as `$W`.
    private func cell(_ text: String) -> String {
        Format.cell(text.replacing(setup.scratch, with: "$W"))
    }
}
