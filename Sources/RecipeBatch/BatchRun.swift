import RecipeCodecs
import RecipeColor
import RecipeCore
import RecipeHistory
import RecipeLanguage
import RecipeRender
#if canImport(Glibc)
import Glibc
import RecipeSession
#endif

/// One `recipe apply`: walk the inputs, name each output, keep this shard's, decide from the
/// manifest what is up to date, render the rest on `jobs` threads, and report each photo as it
/// finishes (a progress bar, plain lines or JSON records) and a summary at the end.
///
/// Work is split in two: the main thread decides everything that needs no file read (almost every
/// photo of a re-run), the workers hash what changed and render. Each finished output is appended
/// to the manifest at once, so a killed batch loses at most the photos being rendered.
package struct BatchRun {
    var outputFolder: String
    var template: NameTemplate
    package var chain = RecipeChain(links: [])
    package var recipeLabel = ""
    package var walk = PhotoWalk(include: [], exclude: [])
    package var paths: [String] = []
    package var format: OutputFormatChoice = .same
    package var size: RenderSize = .full
    package var decode = DecodeOptions()
    package var encoding = OutputEncoding()
    /// `--profile` / `--intent` (nil: the recipes' `output:`, else keep / relative).
    package var profile: OutputProfile?
    package var intent: RenderingIntent?
    package var fuse = true
    package var withSidecars = false
    /// `--with-lightroom`: a photo without a recipe sidecar applies its Lightroom sidecar, translated.
    package var withLightroom = false
    /// `--select EXPR`: only the photos whose marks (rating, label, keywords) and EXIF match.
    package var selection: String?
    package var onlyEdited = false
    package var force = false
    package var dryRun = false
    package var jobs = RenderJob.defaultThreads
    /// The memory of the whole batch: the photos rendered at once share it.
    package var memoryBudget = MemoryBudget.standard
    package var shard: Shard?
    package var json = false
    package var progress: ProgressMode = .auto
    /// Which half of a camera's RAW+JPEG pair is rendered.
    package var pairs: RawPairs.Keep = .raw
    /// Whether to wait for another run writing the same output folder (and shard), or refuse.
    package var wait = true
    /// Seconds a photo's render may take (`--timeout`).
    package var timeout: Double?

    static var engine: String { "recipe \(RecipeVersion.string)" }

    package init(outputFolder: String, template: NameTemplate) {
        self.outputFolder = outputFolder.count > 1 && outputFolder.hasSuffix("/") ? String(outputFolder.dropLast()) : outputFolder
        self.template = template
    }

    /// One photo's way through the batch.
    struct Item: Sendable {
        var photo: PhotoFile
        /// Below the output folder.
        var output: String
        var outputPath: String
        var recipeSHA256: String
        /// The manifest's record of the output, if any.
        var record: Manifest.Record?
        /// Whether the photo's own sidecar applies first (`--with-sidecars`). It is read again by the
        /// worker, not kept here: a sidecar may hold megabytes of embedded foreign data.
        var withSidecar = false
        /// Whether the photo's Lightroom sidecar, translated, applies first (`--with-lightroom`).
        var withLightroom = false
        var decision: Freshness.Decision?
        var sourceSHA256: String?
        /// Set when the photo cannot be rendered at all (a name clash, a broken sidecar).
        var problem: String?
    }

    /// What happened to one photo.
    struct Outcome: Sendable {
        enum Status: String, Sendable { case rendered, skipped, failed }
        var status: Status
        var item: Item
        var reason: String
        var error: String?
        var warnings: [String] = []
        var seconds: Double = 0
        var record: Manifest.Record?
        /// With a size limit: the quality found.
        var fit: RenderJob.Outcome.Fit?
        /// Why a lens stage corrected nothing on the photo.
        var uncorrectedLens: String?
    }

    /// Returns whether any photo failed.
    package func run() throws -> Bool {
        let started = FileStat.now()
        var walk = self.walk
        walk.skipFolders = [outputFolder]
        if let out = InputFile.identity(outputFolder), paths.contains(where: { InputFile.identity($0).map { $0 == out } ?? false }) {
            Console.error("\(outputFolder): the output folder is an input folder; choose another (outputs beside the originals would be walked as photos next time)")
            throw CommandFailure.usage
        }
        let (photos, problems) = walk.expand(paths)
        let missing = problems.filter { p in paths.contains(p.path) }
        for p in missing { Console.error("\(p.path): \(p.message)") }
        if !missing.isEmpty { throw CommandFailure.usage }

        // One writer per output folder and shard, from before the manifest is read until its
        // compaction is written: a second run waits, then finds the first's outputs up to date.
        let locks = dryRun ? [] : try lockOutputFolder()
        defer { for lock in locks { lock.release() } }

        var manifest: Manifest
        do { manifest = try Manifest.load(folder: outputFolder) } catch let e as HistoryError {
            Console.error(e.description)
            throw CommandFailure.usage
        }
        for (file, count) in manifest.unreadable.sorted(by: { $0.key < $1.key }) {
            Console.warning("\(Paths.join(outputFolder, file)): \(count) line\(count == 1 ? "" : "s") not readable as records (a batch killed mid-write?); those outputs are rendered again")
        }

        let selected = try select(photos)
        // A camera's RAW+JPEG pairs: one of each is rendered (`--pairs`), the other said so.
        let (kept, leftOut) = RawPairs.select(selected, keep: pairs)
        let items = plan(kept)
        let pairedItems = plan(leftOut.map(\.photo))
        var report = BatchReport(json: json, mode: resolvedProgress, total: items.count + pairedItems.count, dryRun: dryRun)
        for (item, (_, partner)) in zip(pairedItems, leftOut) {
            report.finish(Outcome(status: .skipped, item: item,
                                  reason: "the \(pairs == .raw ? "raw" : "camera JPEG") beside it, \(partner.relative), is rendered instead (--pairs \(pairs.rawValue))"))
            report.paired += 1
        }
        for problem in problems where !paths.contains(problem.path) {
            if problem.leftOut { report.leftOut.append("\(problem.path): \(problem.message)") } else { report.failures.append("\(problem.path): \(problem.message)") }
        }

        // Decide what needs no file read here; the rest (and every render) goes to the workers.
        let freshness = Freshness(engine: Self.engine, force: force)
        var work: [Item] = []
        for var item in items {
            if let problem = item.problem {
                report.finish(Outcome(status: .failed, item: item, reason: "cannot be rendered", error: problem))
                continue
            }
            item.record = manifest.records[item.output]
            let (decision, digest) = freshness.decide(item.photo, output: item.outputPath, record: item.record,
                                                      recipeSHA256: item.recipeSHA256, mayHash: dryRun)
            item.decision = decision
            item.sourceSHA256 = digest
            if let decision, !decision.renders {
                report.finish(Outcome(status: .skipped, item: item, reason: decision.reason))
            } else if dryRun, let decision {
                report.finish(Outcome(status: .rendered, item: item, reason: decision.reason))
            } else {
                work.append(item)
            }
        }
        if dryRun {
            report.summary(seconds: Double(FileStat.now() - started) / 1e9)
            return !report.failures.isEmpty
        }

        var writer: ManifestWriter?
        if !work.isEmpty {
            do {
                try Paths.makeFolders(outputFolder)
                writer = try ManifestWriter(path: Paths.join(outputFolder, Manifest.fileName(shard: shard)))
            } catch let e as HistoryError {
                Console.error(e.description)
                throw CommandFailure.usage
            }
        }
        var written: [Manifest.Record] = []
        let queue = BatchQueue(work)
        let threadsPerJob = max(1, RenderJob.defaultThreads / jobs)
        var budget = memoryBudget
        budget.jobs = min(jobs, work.count)
        let context = RenderContext(chain: chain, size: size, decode: decode, encoding: encoding, profile: profile, intent: intent, fuse: fuse,
                                    threads: threadsPerJob, memoryBudget: budget, freshness: freshness, engine: Self.engine, baseKey: baseKey,
                                    timeout: timeout, outputFolder: outputFolder)
        let workers = (0..<min(jobs, work.count)).map { _ in
            WorkerThread {
                while let item = queue.next() { queue.finish(context.process(item)) }
            }
        }
        while let outcome = queue.waitForOutcome() {
            if let record = outcome.record {
                do { try writer?.append(record) } catch {
                    Console.error("\(error)")
                }
                written.append(record)
            }
            report.finish(outcome)
        }
        for worker in workers { worker.join() }
        report.endProgress()
        compact(manifest, written: written)
        report.summary(seconds: Double(FileStat.now() - started) / 1e9)
        return !report.failures.isEmpty
    }

    /// Locks the output folder: shared by the shards of a split (each also holds its own shard's
    /// lock file, beside its manifest), exclusive for a run without `--shard`, which renders every
    /// output and folds the shards' manifests into its own. Waits, saying for whom, unless
    /// `wait` is false; then refuses (exit 2, nothing done).
    func lockOutputFolder() throws -> [FileLock] {
        do { try Paths.makeFolders(outputFolder) } catch let e as HistoryError {
            Console.error(e.description)
            throw CommandFailure.usage
        }
        let sharded = (shard?.count ?? 1) > 1
        var locks: [FileLock] = []
        func take(_ what: String, _ lock: () throws(FileLock.Failure) -> FileLock) throws {
            do {
                locks.append(try lock())
            } catch .busy(let holder) {
                Console.error("\(outputFolder): another `recipe apply` is writing \(what)\(holder.map { " (\($0))" } ?? ""); not waiting (--no-wait): nothing done")
                throw CommandFailure.usage
            } catch .cannotOpen(let why) {
                Console.error(why)
                throw CommandFailure.usage
            }
        }
        let waiting = { (what: String) in { (holder: String?) in
            Console.warning("\(outputFolder): another `recipe apply` is writing \(what)\(holder.map { " (\($0))" } ?? ""); waiting for it to finish (--no-wait refuses instead)")
        } }
        try take("this folder") { () throws(FileLock.Failure) in
            try FileLock(folder: outputFolder, mode: sharded ? .shared : .exclusive, wait: wait, waiting: waiting("this folder"))
        }
        if sharded, let shard {
            let name = ".recipe-apply.shard-\(shard.index)-of-\(shard.count).lock"
            try take("shard \(shard.index)/\(shard.count)") { () throws(FileLock.Failure) in
                try FileLock(file: Paths.join(outputFolder, name), mode: .exclusive, wait: wait, waiting: waiting("shard \(shard.index)/\(shard.count)"))
            }
        }
        return locks
    }

    var resolvedProgress: ProgressMode {
        switch progress {
        case .auto:
            if isatty(2) != 0 { return .bar }
            return json ? .none : .lines
        default: return progress
        }
    }

    /// The format outputs are written in: `--format`, else the recipes' `output: {format:}`,
    /// else each photo's own.
    var outputFormat: OutputFormatChoice {
        format != .same ? format : chain.output.format.flatMap(OutputFormatChoice.init(rawValue:)) ?? .same
    }

    /// What every output's recipe key starts from: the output settings and the recipes' meaning.
    var baseKey: String {
        // Every format's settings: with --format same, one batch writes several formats.
        let settingsKey = "engine-settings\nformat \(outputFormat.rawValue)\nsize \(size)\n"
            + ImageFileFormat.allCases.map { encoding.key(for: $0) + "\n" }.joined()
            + (profile == nil && intent == nil ? "" : "profile \(profile?.description ?? "-")\nintent \(intent?.rawValue ?? "-")\n")
            + "damaged \(decode.allowDamaged)\nmax-pixels \(decode.maxPixels)\nfuse \(fuse)\n"
        return settingsKey + chain.key
    }

    /// The photos `--select` keeps; with `--dry-run` every photo left out is named with what the
    /// selection saw, and the count is said either way (on stderr with `--json`).
    func select(_ photos: [PhotoFile]) throws -> [PhotoFile] {
        guard let selection else { return photos }
        let expression: Selection
        do { expression = try Selection(selection) } catch {
            Console.error("\(error)")
            throw CommandFailure.usage
        }
        func say(_ line: String) { if json { Console.printError(line) } else { print(line) } }
        var kept: [PhotoFile] = []
        for photo in photos {
            let facts = PhotoFacts.read(photo.path, exif: expression.needsEXIF)
            if expression.matches(facts) {
                kept.append(photo)
                if dryRun { say("selected: \(photo.relative) (\(facts.summary))") }
            } else if dryRun {
                say("not selected: \(photo.relative) (\(facts.summary))")
            }
        }
        say("--select \(expression): \(kept.count) of \(photos.count) photo\(photos.count == 1 ? "" : "s") selected")
        return kept
    }

    /// Names every photo's output, keeps this shard's, finds name clashes and (with
    /// `--with-sidecars`) reads each photo's sidecar for its key.
    func plan(_ photos: [PhotoFile]) -> [Item] {
        let baseKey = self.baseKey
        let baseSHA = ContentHash.bytes(Array(baseKey.utf8))
        var items: [Item] = []
        var byOutput: [String: [Int]] = [:]
        for photo in photos {
            let sidecarPath = Sidecar.path(forPhoto: photo.path)
            // A stat per photo, only when a flag asks about sidecars.
            let edited = (onlyEdited || withSidecars) && Paths.isFile(sidecarPath)
            if onlyEdited, !edited { continue }
            // A raw is never written: `--format same` makes it a JPEG.
            let ext = outputFormat.fileFormat?.preferredExtension ?? (RawDetection.hasRawExtension(photo.relative) ? "jpg" : nil)
            guard let output = template.path(for: photo.relative, ext: ext, recipe: recipeLabel) else {
                items.append(Item(photo: photo, output: photo.relative, outputPath: "", recipeSHA256: baseSHA,
                                  problem: "the name template `\(template.template)` takes it outside the output folder"))
                continue
            }
            if let shard, !shard.contains(output) { continue }
            var item = Item(photo: photo, output: output, outputPath: Paths.join(outputFolder, output), recipeSHA256: baseSHA)
            if withSidecars, edited {
                do {
                    item.recipeSHA256 = try Self.sidecarKey(Sidecar.load(sidecarPath), photo: photo.path, baseKey: baseKey)
                    item.withSidecar = true
                } catch {
                    item.problem = "\(error)"
                }
            }
            if withLightroom, !item.withSidecar, item.problem == nil {
                do {
                    if let translated = try LightroomEdit.sidecar(forPhoto: photo.path) {
                        item.recipeSHA256 = try Self.sidecarKey(translated, photo: photo.path, baseKey: baseKey)
                        item.withLightroom = true
                    }
                } catch {
                    item.problem = "\(error)"
                }
            }
            // By name in lower case: `X.jpg` and `X.JPG` are one file on a case-insensitive
            // file system (macOS, Windows, an SMB share), where one would replace the other.
            byOutput[output.lowercased(), default: []].append(items.count)
            items.append(item)
        }
        for (_, indices) in byOutput where indices.count > 1 {
            for i in indices {
                let output = items[i].output
                let others = indices.filter { $0 != i }.map { j in
                    items[j].output == output ? items[j].photo.path : "\(items[j].photo.path) (as \(items[j].output), the same name but for case)"
                }.joined(separator: ", ")
                items[i].problem = "its output \(output) is also the output of \(others); give --name a template that tells them apart "
                    + (indices.allSatisfy { items[$0].output == output } ? "(e.g. {dir}/{name}.{ext})"
                        : "(e.g. '{stem}.{srcext}.{ext}'): on a case-insensitive file system (macOS, Windows, an SMB share) one would replace the other")
            }
        }
        return items
    }

    /// The recipe key of a photo rendered through its own sidecar first: the frozen base it starts
    /// from and the sidecar's graph after it, then the batch's recipes and settings. Throws when
    /// the sidecar cannot be applied (foreign data, errors).
    static func sidecarKey(_ sidecar: Sidecar, photo: String, baseKey: String) throws -> String {
        if sidecar.checked.isForeign {
            throw HistoryError(sidecar.path, "foreign adjustment data; `recipe edit \(photo) --rendered FILE` keeps it as a frozen base")
        }
        guard !sidecar.checked.hasErrors, let graph = sidecar.checked.graph else {
            let first = sidecar.checked.diagnostics.first { $0.severity == .error }
            throw HistoryError(sidecar.path, "not a valid recipe: " + (first?.message ?? "it has errors") + " (`recipe check` shows where)")
        }
        let active = sidecar.checked.activeBase.flatMap { sidecar.checked.stages[$0 - 1].base?.pixels.sha256 } ?? "original"
        return ContentHash.bytes(Array((baseKey + "sidecar from \(active)\n" + graph.signature).utf8))
    }

    /// Rewrites the manifest when this run changed it: the run's own file (a shard's) with its
    /// newest records, or, without --shard, one file holding every file's records (the merge of
    /// the shards). Records of outputs that no longer exist are dropped.
    func compact(_ loaded: Manifest, written: [Manifest.Record]) {
        let own = Manifest.fileName(shard: shard)
        let absorbing = shard == nil || shard!.count == 1
        let others = loaded.files.filter { $0 != own }
        guard !written.isEmpty || (absorbing && !others.isEmpty) || !loaded.unreadable.isEmpty else { return }
        do {
            var merged = absorbing ? loaded : try Manifest.loadFile(folder: outputFolder, name: own)
            for record in written { merged.add(record) }
            let kept = merged.records.values.filter { Paths.isFile(Paths.join(outputFolder, $0.output)) }
            try Paths.writeAtomically(Paths.join(outputFolder, own), Array(Manifest.text(kept).utf8))
            if absorbing {
                for name in others { unlink(Paths.join(outputFolder, name)) }
            }
        } catch {
            Console.warning("\(Paths.join(outputFolder, own)): could not be compacted (\(error)); the appended records stand")
        }
    }
}
