import RecipeCodecs
import RecipeColor
import RecipeCore
import RecipeHistory
#if canImport(Glibc)
import Glibc
import RecipeSession
#endif

/// Everything a worker needs to render one photo (shared, read-only).
struct RenderContext: Sendable {
    var chain: RecipeChain
    var size: RenderSize
    var decode: DecodeOptions
    var encoding: OutputEncoding
    var profile: OutputProfile?
    var intent: RenderingIntent?
    var fuse: Bool
    var threads: Int
    /// The batch's budget, with how many photos share it.
    var memoryBudget: MemoryBudget
    var freshness: Freshness
    var engine: String
    /// `BatchRun.baseKey`, for sidecars read again at render time.
    var baseKey: String
    /// `--timeout`, per photo.
    var timeout: Double?
    /// The output folder the user named: nothing is written outside it.
    var outputFolder: String

    func process(_ item: BatchRun.Item) -> BatchRun.Outcome {
        var item = item
        let start = FileStat.now()
        if item.decision == nil {
            // The photo's or the output's stat changed: decide by content.
            let photoStat = FileStat.of(item.photo.path), outputStat = FileStat.of(item.outputPath)
            let (decision, digest) = freshness.decide(item.photo, output: item.outputPath, record: item.record, recipeSHA256: item.recipeSHA256)
            item.decision = decision
            item.sourceSHA256 = digest
            if let decision, !decision.renders {
                // Same content under a new stat (a touch, a copy): the record takes the new stats,
                // so the next run needs no hash again.
                var refreshed = item.record
                if let photoStat, let outputStat, photoStat == FileStat.of(item.photo.path), outputStat == FileStat.of(item.outputPath) {
                    refreshed?.sourceStat = photoStat
                    refreshed?.outputStat = outputStat
                    refreshed?.recorded = FileStat.now()
                } else {
                    refreshed = nil
                }
                return BatchRun.Outcome(status: .skipped, item: item, reason: decision.reason, seconds: Double(FileStat.now() - start) / 1e9,
                                        record: refreshed)
            }
        }
        do {
            let record = try render(&item)
            return BatchRun.Outcome(status: .rendered, item: item, reason: item.decision?.reason ?? "changed",
                                    warnings: record.warnings, seconds: Double(FileStat.now() - start) / 1e9, record: record.record,
                                    fit: record.fit, uncorrectedLens: record.uncorrectedLens)
        } catch {
            var message = Self.message(error)
            if message.hasPrefix(item.photo.path + ": ") { message.removeFirst(item.photo.path.count + 2) }
            return BatchRun.Outcome(status: .failed, item: item, reason: item.decision?.reason ?? "changed",
                                    error: message, seconds: Double(FileStat.now() - start) / 1e9)
        }
    }

    static func message(_ error: any Error) -> String {
        switch error {
        case let e as ImageError: e.description
        case let e as HistoryError: e.description
        case let e as RecipeChain.Failure: e.description
        default: "\(error)"
        }
    }

    func render(_ item: inout BatchRun.Item) throws -> (record: Manifest.Record, warnings: [String], fit: RenderJob.Outcome.Fit?, uncorrectedLens: String?) {
        let photo = item.photo.path
        guard let before = FileStat.of(photo) else { throw HistoryError(photo, "is gone or no longer a regular file") }
        let digest = item.sourceSHA256 != nil && before == item.photo.stat ? item.sourceSHA256! : try ContentHash.file(photo).sha256
        guard FileStat.of(photo) == before else { throw HistoryError(photo, "changed while it was being read; run again") }
        var source = photo
        var sidecar: Sidecar?
        if item.withSidecar {
            let loaded = try Sidecar.load(Sidecar.path(forPhoto: photo))
            // Edited since the batch began: the record says what was rendered.
            item.recipeSHA256 = try BatchRun.sidecarKey(loaded, photo: photo, baseKey: baseKey)
            sidecar = loaded
        }
        if item.withLightroom, let translated = try LightroomEdit.sidecar(forPhoto: photo) {
            item.recipeSHA256 = try BatchRun.sidecarKey(translated, photo: photo, baseKey: baseKey)
            sidecar = translated
        }
        if let sidecar {
            if let bound = sidecar.checked.original, bound.sha256 != digest || bound.size != before.size {
                throw HistoryError(sidecar.path, "was made for other bytes than \(Paths.name(of: photo))'s (sha256 \(bound.sha256.prefix(12))…, now \(digest.prefix(12))…): not applied; `recipe relink \(photo) --accept` binds it")
            }
            source = try Asset(photo: photo).renderSource(sidecar)
        }
        var request = RenderRequest(photo: source)
        request.size = size
        request.decode = decode
        request.profile = profile
        request.intent = intent
        request.encoding = encoding
        request.fuse = fuse
        request.threads = threads
        request.budget = memoryBudget
        request.timeout = timeout
        // The auto values an earlier render of these bytes through these recipes measured: the
        // same picture again, whatever the measurement has become since.
        if let old = item.record, old.sourceSHA256 == digest, old.recipeSHA256 == item.recipeSHA256 {
            request.recordedAuto = AutoResolver.Resolution.recorded(old.auto)
        }
        let plan = try chain.plan(request, sidecar: sidecar)
        var job = plan.job(output: item.outputPath)
        job.outputRoot = outputFolder
        // Below a megapixel, handing strips between threads costs more than it saves (3× slower
        // at 160 px, measured); the bytes are the same either way.
        let pixels = plan.render.sourceSize.map { $0.width * $0.height } ?? Int.max
        job.threads = pixels < 1_000_000 ? 1 : threads
        // Never through a link below the output folder (out/sub -> ../elsewhere).
        try Paths.makeFolders(Paths.folder(of: item.outputPath), inside: outputFolder)
        Self.removeStaleTemporaries(of: item.outputPath)
        let outcome = try job.run()
        guard let outputStat = FileStat.of(item.outputPath) else { throw HistoryError(item.outputPath, "vanished right after it was written") }
        let outputSHA = try ContentHash.file(item.outputPath).sha256
        let record = Manifest.Record(output: item.output, source: photo, sourceSHA256: digest, sourceStat: before,
                                     recipeSHA256: item.recipeSHA256, engine: engine, outputSHA256: outputSHA,
                                     outputStat: outputStat, recorded: FileStat.now(), auto: plan.auto.record)
        return (record, outcome.warnings.map(\.description), outcome.fit, outcome.uncorrectedLens)
    }
}

extension RenderContext {
    /// Removes what a killed run left of `output`: its temporary files (`.NAME.recipe-tmp-XXXXXX`,
    /// never renamed into place). Only this batch writes `output` (it holds the lock of the output
    /// folder, or of its shard, and the output is in its shard), so a temporary of it that exists
    /// before its render starts is litter.
    static func removeStaleTemporaries(of output: String) {
        let folder = Paths.folder(of: output)
        let prefix = "." + Paths.name(of: output) + ".recipe-tmp-"
        guard let dir = opendir(folder) else { return }
        var stale: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix(prefix), name.utf8.count == prefix.utf8.count + 6 { stale.append(name) }
        }
        closedir(dir)
        for name in stale { unlink(Paths.join(folder, name)) }
    }
}
