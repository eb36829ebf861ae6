import FoundationEssentials
import RecipeCodecs
import RecipeCore
import RecipeLanguage

/// The edit lifecycle's decisions and sidecar changes, without rendering (the CLI renders):
/// start or continue an edit (can-handle, frozen bases for foreign data), append stages, revert.
///
/// ```swift
/// var sidecar = try Lifecycle.begin(Asset(photo: "IMG_0001.JPG"), rendering: nil)
/// try Lifecycle.append(snippet: "exposure: 0.3", to: &sidecar)
/// try sidecar.save()    // objects first (begin wrote them), then the sidecar
/// ```
public enum Lifecycle {
    /// What `begin` found and did, one line each, for the user.
    public struct Report: Sendable {
        public var lines: [String] = []
        public init() {}
    }

    /// Opens the asset's sidecar for editing. Our own sidecar is continued (after checking it
    /// belongs to this photo); foreign data found beside the photo (an `.AAE`, a darktable
    /// `.xmp`, a foreign file at our sidecar's path) becomes the first frozen base of a new
    /// sidecar, its rendering stored in the object store. `rendering` names the foreign edit's
    /// rendered pixels where they cannot be found by convention.
    public static func begin(_ asset: Asset, rendering: String?, report: inout Report) throws -> Sidecar {
        let data = try asset.adjustmentData()
        switch data {
        case .native(let sidecar):
            try asset.verify(sidecar)
            try sidecar.requireNoErrors()
            report.lines.append("continuing \(Paths.name(of: sidecar.path)) (\(RecipeFormat.identifier) \(sidecar.checked.declaredVersion.map { "\($0)" } ?? "?"): can handle)")
            return sidecar
        case .none:
            report.lines.append("starting a new edit in \(Paths.name(of: asset.sidecarPath))")
            if let xmp = LightroomImport.sidecar(forPhoto: asset.photo) {
                report.lines.append("\(Paths.name(of: xmp)) holds Lightroom settings, not used by `edit`: `recipe import \(Paths.name(of: asset.photo))` translates them")
            }
            return try Sidecar(path: asset.sidecarPath, original: asset.binding())
        case .apple(let edit, let found):
            guard let pixels = rendering ?? found else {
                throw HistoryError(edit.source, "Apple edit (\(edit.format) \(edit.version)) without its rendering: \(AppleAdjustmentData.expectedRendering(forPhoto: asset.photo)) is missing; give the rendered file with --rendered")
            }
            return try newSidecar(asset, embedding: edit, rendering: pixels, report: &report)
        case .darktable(let edit):
            guard let rendering else {
                throw HistoryError(edit.source, "darktable edit without its rendering: export it (darktable-cli \(Paths.name(of: asset.photo)) \(Paths.name(of: edit.source)) out.jpg) and give the file with --rendered")
            }
            return try newSidecar(asset, embedding: edit, rendering: rendering, report: &report)
        case .foreignSidecar(let edit):
            guard let rendering else {
                throw HistoryError(edit.source, "foreign adjustment data (\(edit.format) \(edit.version)) without its rendering: give the rendered file with --rendered")
            }
            return try newSidecar(asset, embedding: edit, rendering: rendering, report: &report)
        }
    }

    static func newSidecar(_ asset: Asset, embedding edit: ForeignEdit, rendering: String, report: inout Report) throws -> Sidecar {
        report.lines.append("cannot handle \(Paths.name(of: edit.source)) (\(edit.format) \(edit.version)): keeping it as a frozen base layer")
        var sidecar = try Sidecar(path: asset.sidecarPath, original: asset.binding())
        try embed(edit, rendering: rendering, into: &sidecar, store: asset.store, report: &report)
        return sidecar
    }

    /// Adds foreign adjustment data as the new top frozen base: its rendering goes into the
    /// object store (written now, before any sidecar names it), its data into the sidecar.
    public static func embed(_ edit: ForeignEdit, rendering: String, into sidecar: inout Sidecar, store: ObjectStore, report: inout Report) throws {
        let type = try imageType(rendering)
        let pixels = try store.put(file: rendering, type: type)
        let text = String(validating: edit.bytes, as: UTF8.self)
        let payload: FrozenBase.Payload = text.map { .text($0) }
            ?? .base64(Base64.encode(edit.bytes))
        let base = FrozenBase(format: edit.format, version: edit.version, tool: edit.tool, source: Paths.name(of: edit.source),
                              embedded: Date().formatted(.iso8601), pixels: pixels, data: payload,
                              dataSHA256: ContentHash.bytes(edit.bytes))
        let used = Set(sidecar.checked.stages.compactMap(\.id))
        let id = (1...).lazy.map { "base-\($0)" }.first { !used.contains($0) }!
        try sidecar.append(stages: [SidecarText.baseStage(base, id: id)], what: "the frozen base layer")
        report.lines.append("frozen base `\(id)`: \(edit.format) \(edit.version)\(edit.tool.map { " by \($0)" } ?? ""), data \(edit.bytes.count) bytes, pixels \(Paths.name(of: rendering)) (\(pixels.size) bytes, sha256 \(pixels.sha256.prefix(12))…)")
    }

    /// The rendered pixels' format from the file's first bytes (`jpeg`, `png`, `tiff`, `webp`,
    /// `heif`, `avif`: what other tools export, a 16-bit TIFF included); a camera raw or anything
    /// else cannot be a base's pixels.
    static func imageType(_ path: String) throws -> String {
        let head: [UInt8]
        do { head = try InputFile.prefix(path, count: ImageFileFormat.sniffLength) } catch { throw HistoryError(path, error.reason) }
        guard let format = ImageFileFormat.sniff(head), format != .raw,
              format != .tiff || !RawDetection.isRawTIFF((try? InputFile.prefix(path, count: RawDetection.probeLength)) ?? head) else {
            throw HistoryError(path, "the rendered pixels must be an image file (JPEG, PNG, TIFF, WebP, HEIF or AVIF), not a camera raw or another file")
        }
        return format.rawValue.lowercased().replacing(" ", with: "-")
    }

    /// The file extension of a base's pixels of `type` (what `history --extract` names them).
    public static func pixelsExtension(_ type: String?) -> String {
        switch type {
        case "png": "png"
        case "tiff": "tif"
        case "webp": "webp"
        case "heif": "heic"
        case "avif": "avif"
        default: "jpg"
        }
    }

    // MARK: stages

    /// Appends one stage written as YAML (`exposure: 0.3`, `{curve: {points: …}}`), with an id.
    public static func append(snippet: String, to sidecar: inout Sidecar) throws {
        let (root, diagnostics) = YAMLReader.read(SourceFile(path: "--stage", text: snippet))
        guard diagnostics.isEmpty, let pairs = root?.mapping, !pairs.isEmpty else {
            throw HistoryError("--stage", "`\(snippet)` is not a stage: write one operation as YAML, e.g. 'exposure: 0.3' or 'curve: {points: [[0, 0], [1, 1]]}'", usage: true)
        }
        // An `image` mask is bound to its file's bytes, as the sidecar is to its original.
        let snippet = root.map { MaskBinding.bind(snippet, root: $0, folder: Paths.folder(of: sidecar.path)) } ?? snippet
        // Flow text of the stage on one item line: libyaml reads it back the same.
        let flow = snippet.trimmingPrefix { $0 == " " }.hasPrefix("{") ? String(snippet.trimmingPrefix { $0 == " " }) : nil
        var item: String
        if let flow {
            item = "  - " + flow.split(separator: "\n").joined(separator: " ") + "\n"
        } else {
            let lines = snippet.split(separator: "\n", omittingEmptySubsequences: true)
            item = "  - " + lines[0] + "\n" + lines.dropFirst().map { "    " + $0 + "\n" }.joined()
        }
        let before = sidecar.checked.stages.count
        try sidecar.append(stages: [item], what: "the stage `\(snippet)`")
        try assignIDs(&sidecar, from: before)
    }

    /// Appends the stages of another recipe (a look), with its params.
    public static func append(recipe path: String, to sidecar: inout Sidecar) throws {
        let added = RecipeChecker.load(path: path)
        guard !added.hasErrors, let canonical = RecipePrinter.format(added) else {
            if added.isForeign { throw HistoryError(path, "foreign adjustment data: add it with --foreign FILE --rendered PIXELS") }
            throw SidecarEditError(what: "the recipe \(path)", diagnostics: added.diagnostics.filter { $0.severity == .error }, file: added.file)
        }
        guard added.stages.allSatisfy({ $0.base == nil }) else {
            throw HistoryError(path, "has frozen base layers of its own photo; add its stages by hand")
        }
        let lines = canonical.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var params: [String] = []
        if let p = lines.firstIndex(where: { $0 == "params:" }) {
            var i = p + 1
            while i < lines.count, lines[i].hasPrefix("  ") { params.append(lines[i]); i += 1 }
        }
        let existing = Set(sidecar.checked.knobs.map(\.name))
        for knob in added.knobs where existing.contains(knob.name) {
            throw HistoryError(path, "its param `\(knob.name)` is already declared in \(Paths.name(of: sidecar.path))")
        }
        var items = ""
        if let s = lines.firstIndex(where: { $0 == "stages:" }) {
            items = lines[(s + 1)...].filter { $0.hasPrefix(" ") || $0.isEmpty }.joined(separator: "\n")
        }
        let before = sidecar.checked.stages.count
        try sidecar.append(params: params)
        if !items.trimmingPrefix(while: { $0 == "\n" }).isEmpty {
            try sidecar.append(stages: [items.hasSuffix("\n") ? items : items + "\n"], what: "the stages of \(path)")
        }
        try assignIDs(&sidecar, from: before)
    }

    /// Gives every stage after `from` that has no id one (its op's name, numbered when taken),
    /// so each keeps its identity across edits, diffs and merges.
    static func assignIDs(_ sidecar: inout Sidecar, from: Int) throws {
        var used = Set(sidecar.checked.stages.compactMap(\.id))
        var lines = sidecar.lines()
        var inserted = 0
        for stage in sidecar.checked.stages[from...] where stage.id == nil {
            guard let op = stage.op else { continue }
            var id = op
            var n = 1
            while used.contains(id) {
                n += 1
                id = "\(op)-\(n)"
            }
            used.insert(id)
            // "  - exposure: 0.3" → "  - id: exposure" + "    exposure: 0.3", in the one element
            // (the array's indices stay the checked text's line numbers).
            let line = stage.range.start.line - 1
            lines[line] = "  - id: \(id)\n    " + lines[line].dropFirst(4)
            inserted += 1
        }
        guard inserted > 0 else { return }
        try sidecar.replace(with: lines.joined(separator: "\n"), what: "naming the new stages")
    }

    // MARK: revert

    /// Which layer a `--stage` argument names: an id, or a 1-based position in `stages:`.
    public static func stageIndex(_ reference: String, in sidecar: Sidecar) throws -> Int {
        if let n = Int(reference) {
            guard n >= 1, n <= sidecar.checked.stages.count else {
                throw HistoryError(sidecar.path, "there is no stage \(n) (the sidecar has \(sidecar.checked.stages.count); `recipe history` lists them)")
            }
            return n
        }
        guard let stage = sidecar.checked.stages.first(where: { $0.id == reference }) else {
            let ids = sidecar.checked.stages.compactMap(\.id)
            throw HistoryError(sidecar.path, "no stage has the id `\(reference)`" + (ids.isEmpty ? "" : "; ids: " + ids.joined(separator: ", ")))
        }
        return stage.index
    }

    /// Removes a native stage.
    public static func revert(stage reference: String, in sidecar: inout Sidecar) throws {
        let index = try stageIndex(reference, in: sidecar)
        guard sidecar.checked.stages[index - 1].base == nil else {
            throw HistoryError(sidecar.path, "stage \(index) is a frozen base layer: bases peel off from the top with --base")
        }
        let unused = sidecar.unusedParams
        try sidecar.remove(stage: index)
        try sidecar.removeParams(unusedSince: unused)
    }

    /// Peels the top frozen base (its object stays in the store). Stages above it then apply to
    /// what lies below.
    @discardableResult
    public static func peelBase(in sidecar: inout Sidecar) throws -> FrozenBase {
        guard let top = sidecar.checked.stages.last(where: { $0.base != nil }), let base = top.base else {
            throw HistoryError(sidecar.path, "has no frozen base layer to peel")
        }
        try sidecar.remove(stage: top.index)
        return base
    }

    /// Removes every layer: the current version is the original again.
    public static func revertAll(in sidecar: inout Sidecar) throws {
        let unused = sidecar.unusedParams
        while !sidecar.checked.stages.isEmpty {
            try sidecar.remove(stage: sidecar.checked.stages.count)
        }
        try sidecar.removeParams(unusedSince: unused)
    }
}
