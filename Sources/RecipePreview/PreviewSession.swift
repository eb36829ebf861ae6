import RecipeCodecs
import RecipeCore
import RecipeHistory
import RecipeLanguage
import RecipeOps
import RecipeSession
#if canImport(Glibc)
import Glibc
#endif

/// The state of one `recipe preview` run, shared by every open tab: the recipe's text as last
/// read, the page's param values and stage toggles, the last good render of each photo, and the
/// live channels to push to. Every change (a save, a slider, a toggle) starts a new *generation*;
/// the render of the photo a tab shows starts at once, and one still running for an older
/// generation is cancelled. While the recipe has errors the last good picture stays and the
/// diagnostics are pushed instead.
package actor PreviewSession {
    package struct Photo: Sendable {
        package var path: String
        /// The name the page shows (relative to the folder in folder mode).
        package var name: String
    }

    package struct Frame: Sendable {
        var generation: Int
        var image: PreviewImage
    }

    /// A live channel: `send` pushes one JSON text message.
    package struct Viewer: Sendable {
        var send: @Sendable (String) async -> Void
        var photo: Int?
    }

    package let photos: [Photo]
    package let folderMode: Bool
    /// In folder mode, the folder's real path: every photo opened must still lie inside it.
    package let folder: String?
    package let size: RenderSize
    package let thumbnailSize = 240
    let renderer: PreviewRenderer
    let workers: RenderWorkers

    private(set) var text: String?
    private(set) var generation = 0
    private(set) var overrides: [String: String] = [:]
    private(set) var disabled: Set<Int> = []
    /// The diagnostics of the current text (nil when it has no error).
    private(set) var diagnostics: String?
    private var notice: String?
    private var opened: [Int: Result<CachedPhoto, ImageError>] = [:]
    /// What the folder grid draws each photo from: a raw's embedded JPEG preview (`gridSource`).
    private var gridSources: [Int: CachedPhoto] = [:]
    private var frames: [Int: Frame] = [:]
    private var viewers: [Int: Viewer] = [:]
    private var nextViewer = 0
    /// Thumbnails and other renders by what they show and for which generation.
    private var images: [String: (task: Task<PreviewResult, Never>, cancel: CancelFlag)] = [:]

    package init(recipePath: String, photos: [Photo], folderMode: Bool, folder: String? = nil, size: RenderSize, scratch: String,
                 budget: MemoryBudget = .standard, threads: Int = 2) {
        self.photos = photos
        self.folderMode = folderMode
        self.folder = folder
        self.size = size
        renderer = PreviewRenderer(recipePath: recipePath, scratch: scratch, budget: budget)
        workers = RenderWorkers(threads: threads)
    }

    package var recipePath: String { renderer.recipePath }

    // MARK: changes

    /// The watcher's call: reads the recipe again and, when its text changed, renders anew.
    package func recipeMayHaveChanged() {
        guard let bytes = try? InputFile.readAll(recipePath, limit: 1 << 24) else {
            if notice == nil {
                notice = "\(recipePath) is gone (deleted or being replaced); the last picture stays until it is back"
                broadcast(stateMessage())
            }
            return
        }
        let newText = String(decoding: bytes, as: UTF8.self)
        let hadNotice = notice != nil
        notice = nil
        guard newText != text else {
            if hadNotice { broadcast(stateMessage()) }
            return
        }
        text = newText
        changed()
    }

    /// The page's param values (an empty value returns a param to its default). A value for a
    /// name the recipe does not declare is refused (nothing changes), so what a client sends
    /// cannot pile up.
    package func setParams(_ values: [String: String]) throws(PreviewError) {
        let declared = Set(text.map { renderer.check($0).knobs.map(\.name) } ?? [])
        if let name = values.keys.sorted().first(where: { !declared.contains($0) && values[$0] != "" }) {
            throw PreviewError("the recipe declares no param `\(name.prefix(64))`")
        }
        var next = overrides
        for (name, value) in values { next[name] = value.isEmpty ? nil : value }
        // A value the recipe cannot take (`nan`, `1e400`, `0x1`, a word for a number) is refused
        // here, with the checker's words, as `--set` refuses it: the page's values stay as they were.
        if let text, let bad = renderer.check(text, overrides: next).diagnostics.first(where: { $0.severity == .error && $0.file.hasPrefix("--set ") }) {
            throw PreviewError("\(bad.file.dropFirst(6)): \(bad.message.prefix(200))")
        }
        overrides = next
        changed()
    }

    /// A stage turned off or on on the page (the file is not touched).
    package func setStage(_ index: Int, on: Bool) {
        if on { disabled.remove(index) } else { disabled.insert(index) }
        changed()
    }

    private func changed() {
        generation += 1
        // Renders for older generations are dropped or stopped (newest save first); the photo
        // alone does not change.
        for (name, entry) in images where !name.hasPrefix("before/") { entry.cancel.cancel() }
        images = images.filter { $0.key.hasPrefix("before/") }
        let checked = text.map { renderer.check($0, overrides: overrides) }
        if let checked, checked.hasErrors || checked.graph == nil {
            diagnostics = PreviewRenderer.diagnosticsText(checked)
        } else {
            diagnostics = nil
        }
        broadcast(stateMessage())
        // While there are errors the last good pictures stay.
        guard diagnostics == nil else { return }
        for photo in Set(viewers.values.compactMap(\.photo)) { startLive(photo) }
    }

    // MARK: the live render

    private func startLive(_ index: Int) {
        Task { _ = await self.liveRender(index) }
    }

    /// The display render of the current generation (one per generation however many ask);
    /// a picture newer than the last good one becomes it and is pushed to every tab.
    private func liveRender(_ index: Int) async -> PreviewResult {
        let generation = self.generation
        let result = await image(key: "live", index, request(size: size))
        switch result {
        case .image(let image):
            if (frames[index]?.generation ?? -1) < generation {
                frames[index] = Frame(generation: generation, image: image)
                broadcast(frameMessage(index))
            }
        case .diagnostics(let text):
            if generation == self.generation, diagnostics != text {
                diagnostics = text
                broadcast(stateMessage())
            }
        case .failed(let message):
            if generation == self.generation {
                broadcast(.object([("type", "failure"), ("photo", .int(index)), ("message", .string(message))]))
            }
        case .cancelled:
            break
        }
        return result
    }

    /// Renders on a render thread; a photo that cannot be opened fails with the decoder's words.
    private func render(_ index: Int, _ request: PreviewRequest, priority: RenderWorkers.Priority, cancel: CancelFlag,
                        grid: Bool = false) async -> PreviewResult {
        guard let text else { return .failed("\(recipePath): cannot be read") }
        let opened: CachedPhoto
        switch open(index) {
        case .success(let p): opened = p
        case .failure(let error): return .failed(error.description)
        }
        let photo = grid ? gridSource(index, opened) : opened
        let renderer = self.renderer
        let stale: @Sendable () -> Bool = { cancel.isCancelled }
        return await workers.run(priority, stillWanted: { !stale() }) {
            renderer.render(request, text: text, photo: photo, cancel: cancel)
        } ?? .cancelled
    }

    /// What the folder grid draws photo `index` from: for a raw whose embedded JPEG preview is at
    /// least the thumbnail's size, that preview (the camera's own rendering, decoded in
    /// milliseconds where a develop takes most of a second; the stages after `develop` apply to
    /// it), kept in the scratch folder; else the photo itself. Opening the photo shows it.
    private func gridSource(_ index: Int, _ photo: CachedPhoto) -> CachedPhoto {
        guard photo.info.raw?.preview != nil else { return photo }
        if let kept = gridSources[index] { return kept }
        var source = photo
        if let path = try? photo.openablePath(),
           let preview = try? RawPreview.jpeg(of: path, atLeast: thumbnailSize) {
            let file = renderer.scratch + "/embedded-preview-\(index).jpg"
            if (try? Paths.writeAtomically(file, preview.jpeg)) != nil, let opened = try? CachedPhoto(path: file) {
                source = opened
            }
        }
        gridSources[index] = source
        return source
    }

    private func open(_ index: Int) -> Result<CachedPhoto, ImageError> {
        if let done = opened[index] { return done }
        let result: Result<CachedPhoto, ImageError>
        do { result = .success(try CachedPhoto(path: photos[index].path, folder: folder)) } catch { result = .failure(error) }
        // A photo out of the folder now may be back in it later: that refusal is not kept.
        if case .failure(let error) = result, error.kind == .refused { return result }
        opened[index] = result
        return result
    }

    /// Whether photo `index` may be served now: always in list mode; in folder mode while its real
    /// path lies inside the folder (a photo replaced by a link out of it is not).
    package nonisolated func servable(_ index: Int) -> Bool {
        guard photos.indices.contains(index) else { return false }
        guard let folder else { return true }
        if case .success = PreviewAccess.contained(photos[index].path, root: folder) { return true }
        return false
    }

    private func request(size: RenderSize) -> PreviewRequest {
        var r = PreviewRequest(size: size)
        r.overrides = overrides
        r.disabled = disabled
        return r
    }

    // MARK: what the server asks

    /// The render of a photo for the current generation, rendering it now if needed; while the
    /// recipe has errors, or when a newer save superseded it, the last good one.
    package func frame(_ index: Int) async -> PreviewResult {
        if let frame = frames[index], frame.generation == generation || diagnostics != nil { return .image(frame.image) }
        let result = await liveRender(index)
        switch result {
        case .image: return result
        default: return frames[index].map { .image($0.image) } ?? result
        }
    }

    /// What the page shows besides the live render, each rendered once per generation (100 tabs
    /// asking for one thumbnail make one render): `before` (the photo alone), `thumb` (the grid),
    /// `stage-K` (the thumbnail after stage K), `upto-K` (display size up to stage K).
    package func picture(_ what: PreviewPicture, _ index: Int) async -> PreviewResult {
        switch what {
        case .render:
            return await frame(index)
        case .region:
            return .failed("a region needs its rectangle")
        case .before:
            var r = PreviewRequest(size: size)
            r.recipe = false
            return await image(key: what.name, index, r)
        case .thumb:
            return await image(key: what.name, index, request(size: .longEdge(thumbnailSize)), grid: true)
        case .stage(let k):
            var r = request(size: .longEdge(thumbnailSize))
            r.upTo = k
            return await image(key: what.name, index, r)
        case .upTo(let k):
            var r = request(size: size)
            r.upTo = k
            return await image(key: what.name, index, r)
        }
    }

    /// The 1:1 view: a region of the full-size render (not kept).
    package func region(_ index: Int, _ region: Region) async -> PreviewResult {
        var r = request(size: .full)
        r.region = region
        return await render(index, r, priority: .live, cancel: CancelFlag())
    }

    private func image(key: String, _ index: Int, _ request: PreviewRequest, grid: Bool = false) async -> PreviewResult {
        let name = "\(key)/\(index)"
        if let entry = images[name] { return await entry.task.value }
        if let diagnostics, key != "before" { return .diagnostics(diagnostics) }
        let cancel = CancelFlag()
        let priority: RenderWorkers.Priority = key == "thumb" || key.hasPrefix("stage") ? .background : .live
        let task = Task { await self.render(index, request, priority: priority, cancel: cancel, grid: grid) }
        images[name] = (task, cancel)
        let result = await task.value
        if case .cancelled = result, images[name]?.cancel === cancel { images[name] = nil }
        return result
    }

    // MARK: viewers

    /// A new live channel; it gets the state at once.
    package func connect(_ send: @escaping @Sendable (String) async -> Void) -> Int {
        nextViewer += 1
        viewers[nextViewer] = Viewer(send: send, photo: nil)
        let message = stateMessage().compact
        Task { await send(message) }
        return nextViewer
    }

    package func disconnect(_ id: Int) { viewers[id] = nil }

    /// A tab shows `photo` (nil: the grid): its live render starts, or the last one is pushed.
    package func view(_ id: Int, photo: Int?) {
        guard viewers[id] != nil else { return }
        viewers[id]!.photo = photo.flatMap { $0 >= 0 && $0 < photos.count ? $0 : nil }
        guard let photo = viewers[id]!.photo else { return }
        if let frame = frames[photo] {
            let message = frameMessage(photo).compact
            let send = viewers[id]!.send
            Task { await send(message) }
            if frame.generation == generation || diagnostics != nil { return }
        }
        if diagnostics == nil { startLive(photo) }
    }

    private func broadcast(_ message: JSONValue) {
        let text = message.compact
        for viewer in viewers.values { Task { await viewer.send(text) } }
    }

    // MARK: messages

    private func frameMessage(_ index: Int) -> JSONValue {
        guard let frame = frames[index] else { return .null }
        let image = frame.image
        return .object([("type", "frame"), ("photo", .int(index)), ("generation", .int(frame.generation)),
                        ("width", .int(image.width)), ("height", .int(image.height)),
                        ("fullWidth", .int(image.fullWidth)), ("fullHeight", .int(image.fullHeight)),
                        ("sourceWidth", .int(image.sourceWidth)), ("sourceHeight", .int(image.sourceHeight)),
                        ("milliseconds", .number((image.milliseconds * 10).rounded() / 10)),
                        ("warnings", .array(image.warnings.map { .string($0) }))])
    }

    /// Everything the page draws besides pictures: photos, stages, params, diagnostics.
    package func stateMessage() -> JSONValue {
        let checked = text.map { renderer.check($0, overrides: [:]) }
        var stages: [JSONValue] = []
        var params: [JSONValue] = []
        if let checked {
            for stage in checked.stages {
                stages.append(.object([("index", .int(stage.index)), ("op", stage.op.map { .string($0) } ?? .null),
                                       ("id", stage.id.map { .string($0) } ?? .null), ("enabled", .bool(stage.enabled)),
                                       ("off", .bool(disabled.contains(stage.index))),
                                       ("line", .int(stage.range.start.line))]))
            }
            for knob in checked.knobs {
                params.append(Self.describe(knob, in: checked, value: overrides[knob.name]))
            }
        }
        return .object([
            ("type", "state"), ("generation", .int(generation)), ("recipe", .string(recipePath)),
            ("folder", .bool(folderMode)), ("size", .string(size.description)),
            ("photos", .array(photos.enumerated().map { .object([("index", .int($0.offset)), ("name", .string($0.element.name))]) })),
            ("stages", .array(stages)), ("params", .array(params)),
            ("diagnostics", diagnostics.map { .string($0) } ?? .null), ("notice", notice.map { .string($0) } ?? .null),
        ])
    }

    /// A param for the page: its default as written, the page's value, and a slider's range from
    /// the first parameter it is bound to (a param has no type of its own: it is checked where used).
    static func describe(_ knob: CheckedRecipe.Knob, in checked: CheckedRecipe, value: String?) -> JSONValue {
        let defaultNode = knob.value.mapping?.first(where: { $0.key.scalar == "default" })?.value ?? knob.value
        var fields: [(String, JSONValue)] = [("name", .string(knob.name)), ("default", .string(defaultNode.scalar ?? "")),
                                             ("value", value.map { .string($0) } ?? .null), ("doc", knob.doc.map { .string($0) } ?? .null)]
        for stage in checked.stages {
            guard let parameter = stage.bindings.first(where: { $0.value == knob.name })?.key,
                  let op = stage.op, let spec = Operations.named(op)?.param(parameter) else { continue }
            fields.append(("usedBy", .string("\(op).\(parameter)")))
            // A number that may also be `auto` (exposure's ev) still has its slider: the knob's
            // value is a number; `auto` is typed in the field.
            var kind = spec.kind
            if case .orAuto(let inner) = kind { kind = inner }
            switch kind {
            case .number(let range, let unit):
                fields += [("min", .number(range.lowerBound)), ("max", .number(range.upperBound)), ("unit", .string(unit.rawValue))]
            case .integer(let range):
                fields += [("min", .int(range.lowerBound)), ("max", .int(range.upperBound)), ("step", .int(1))]
            default:
                break
            }
            break
        }
        return .object(fields)
    }

    // MARK: writing params back

    /// Writes the page's param values into the recipe as its new defaults, atomically: only the
    /// `default:` value tokens change (`SourceEditor`), every other byte stays as the author wrote
    /// it. The watcher then sees the save like any other. Returns what was written, or throws
    /// with the reason.
    package func writeParams() throws -> [String] {
        guard let text else { throw PreviewError("\(recipePath) cannot be read") }
        let checked = renderer.check(text)
        guard !checked.hasErrors else { throw PreviewError("the recipe has errors; fix them first") }
        var editor = SourceEditor(checked.file)
        var written: [String] = []
        for knob in checked.knobs {
            guard let value = overrides[knob.name] else { continue }
            guard !value.isEmpty, value.allSatisfy({ $0.isLetter || $0.isNumber || "+-.%_".contains($0) }) else {
                throw PreviewError("`\(value)` for \(knob.name) is not a plain value; edit the file for that")
            }
            let node = knob.value.mapping?.first(where: { $0.key.scalar == "default" })?.value ?? knob.value
            guard node.scalar != nil else { throw PreviewError("the default of \(knob.name) is not a single value") }
            editor.replace(node.range, with: value)
            written.append("\(knob.name): \(value)")
        }
        guard !editor.isEmpty, let editedText = editor.apply() else { return [] }
        let edited = renderer.check(editedText)
        guard !edited.hasErrors else {
            throw PreviewError("the new defaults do not check:\n" + PreviewRenderer.diagnosticsText(edited))
        }
        do {
            try TextOutput.replace(recipePath, with: editedText, ifStill: Array(text.utf8))
        } catch {
            // Saved in an editor since the page last read it: show that text, keep the sliders.
            recipeMayHaveChanged()
            throw PreviewError(error.description)
        }
        for knob in checked.knobs { overrides[knob.name] = nil }
        recipeMayHaveChanged()
        return written
    }
}

/// A request the preview refuses, in words for the page.
package struct PreviewError: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
