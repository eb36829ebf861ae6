import FoundationEssentials
import RecipeCodecs
import RecipeCore
import RecipeLanguage

/// Lightroom's and Camera Raw's settings made into recipes: a look from a preset, or a photo's
/// sidecar from its Lightroom sidecar (or embedded XMP) through the edit lifecycle. The keys
/// that were not translated are listed, and in a photo's sidecar the XMP is kept verbatim as a
/// disabled frozen base layer (`com.adobe.camera-raw-settings`), so nothing is lost.
///
/// ```swift
/// let settings = try CameraRawSettings.read("Warm Film.xmp")
/// let text = try LightroomImport.lookRecipe(try LightroomTranslation(settings), path: "warm-film.recipe.yaml")
/// ```
public enum LightroomImport {
    /// The format identifier the kept XMP carries in a frozen base.
    public static let formatIdentifier = "com.adobe.camera-raw-settings"

    /// The Lightroom sidecar of a photo: `IMG_0001.xmp` (Lightroom's naming) or `IMG_0001.CR2.xmp`
    /// (Camera Raw's and darktable's), when it holds Camera Raw settings.
    public static func sidecar(forPhoto photo: String) -> String? {
        let stem = Paths.join(Paths.folder(of: photo), Paths.stem(of: photo))
        for p in [stem + ".xmp", stem + ".XMP", photo + ".xmp", photo + ".XMP"] where Paths.isFile(p) && isCameraRaw(p) {
            return p
        }
        return nil
    }

    /// Whether an XMP file holds Camera Raw settings (its namespace in the first 64 kB) and not
    /// darktable's history.
    public static func isCameraRaw(_ path: String) -> Bool {
        guard let head = try? InputFile.prefix(path, count: 64 << 10) else { return false }
        let text = String(decoding: head, as: UTF8.self)
        return text.contains(CameraRawXMP.crsNamespace) && !text.contains("http://darktable.sf.net/")
    }

    /// A look recipe (no `original`: it applies to any photo) with the translated stages; the
    /// keys not translated are named in its note. Checked and in `recipe fmt`'s form.
    public static func lookRecipe(_ t: LightroomTranslation, path: String) throws -> String {
        let name = t.settings.text("Name") ?? t.settings.document["Name"]?.value.items?.first?.text ?? Paths.name(of: t.settings.source)
        var note = "from Lightroom settings \(name)"
        let missing = t.untranslated
        if !missing.isEmpty {
            note += "; not translated: " + missing.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        }
        var text = "format: \(RecipeFormat.identifier)\nversion: \(RecipeFormat.current)\nnote: \(SidecarText.scalar(note))\n"
        text += t.stages.isEmpty ? "stages: []\n" : "stages:\n" + t.stagesYAML
        return try canonical(text, path: path)
    }

    /// What the translation needs to know of the photo the settings are for: raw or rendered,
    /// its stored shape and its EXIF orientation (read from its header, not decoded).
    public static func options(forPhoto photo: String, rawLookStages: [String]) throws -> LightroomTranslation.Options {
        let decoder: any ImageDecoder
        do { decoder = try ImageDecoders.open(photo) } catch { throw HistoryError(photo, error.reason) }
        let info = decoder.info
        let raw = info.raw != nil
        return LightroomTranslation.Options(photo: raw ? .raw : .rendered, storedAspect: Double(info.width) / Double(max(1, info.height)),
                                            exifOrientation: info.orientation.rawValue, rawLookStages: raw ? rawLookStages : [])
    }

    static func canonical(_ text: String, path: String) throws -> String {
        let checked = RecipeChecker.check(SourceFile(path: path, text: text))
        guard !checked.hasErrors, let formatted = RecipePrinter.format(checked) else {
            throw SidecarEditError(what: "the translated recipe", diagnostics: checked.diagnostics.filter { $0.severity == .error }, file: checked.file)
        }
        return formatted
    }

    /// Starts a photo's sidecar from its Lightroom settings: a note naming the keys not
    /// translated, the XMP kept as a disabled frozen base when there are any (its pixels: the
    /// original, or a raw's embedded preview), then the translated stages. Refused when the photo
    /// already has an edit.
    public static func begin(_ asset: Asset, translation t: LightroomTranslation, report: inout Lifecycle.Report) throws -> Sidecar {
        switch try asset.adjustmentData() {
        case .none: break
        case .native(let sidecar):
            throw HistoryError(sidecar.path, "the photo already has an edit: `recipe revert \(Paths.name(of: asset.photo)) --all` and remove it first, or import into a look with -o")
        case .foreignSidecar(let edit), .apple(let edit, _), .darktable(let edit):
            throw HistoryError(edit.source, "the photo already has another tool's edit (\(edit.format)); `recipe edit` keeps it as a frozen base")
        }
        let missing = t.untranslated
        var note = "from Lightroom settings \(Paths.name(of: t.settings.source))"
        if !missing.isEmpty { note += "; not translated: " + missing.map { "\($0.key) \($0.value)" }.joined(separator: ", ") }
        var sidecar = try Sidecar(path: asset.sidecarPath, original: asset.binding(), note: note)
        // The kept layer's pixels: the original, or a raw's embedded preview (a raw without one
        // keeps the keys in the note only, and its .xmp beside it).
        var pixels: ObjectReference?
        if !missing.isEmpty, t.options.photo == .raw {
            let preview: RawPreview?
            do { preview = try RawPreview.jpeg(of: asset.photo, atLeast: 1) } catch { throw HistoryError(asset.photo, error.reason) }
            if let jpeg = preview?.jpeg { pixels = try asset.store.put(bytes: jpeg, type: "jpeg") } else {
                report.lines.append("not kept as a layer: the raw has no embedded preview to stand as its pixels; the \(missing.count) untranslated keys are named in the sidecar's note")
            }
        } else if !missing.isEmpty {
            pixels = try asset.store.put(file: asset.photo, type: try Lifecycle.imageType(asset.photo))
        }
        if let pixels {
            let text = String(validating: t.settings.bytes, as: UTF8.self)
            let base = FrozenBase(format: formatIdentifier, version: t.settings.text("ProcessVersion") ?? "?", tool: t.settings.creatorTool,
                                  source: Paths.name(of: t.settings.source), embedded: Date().formatted(.iso8601), pixels: pixels,
                                  data: text.map { .text($0) } ?? .base64(Base64.encode(t.settings.bytes)),
                                  dataSHA256: ContentHash.bytes(t.settings.bytes))
            // Disabled: its keys are not rendered (Lightroom's rendering of them is not here), it
            // keeps them for the record and for `recipe history --extract`.
            var item = SidecarText.baseStage(base, id: "lightroom")
            if let end = item.firstIndex(of: "\n") { item.insert(contentsOf: "\n    enabled: false", at: end) }
            try sidecar.append(stages: [item], what: "the kept Lightroom settings")
            report.lines.append("kept \(Paths.name(of: t.settings.source)) verbatim as the disabled frozen base `lightroom` (\(missing.count) key\(missing.count == 1 ? "" : "s") not translated)")
        }
        if !t.stages.isEmpty { try sidecar.append(stages: [t.stagesYAML], what: "the translated Lightroom settings") }
        return sidecar
    }
}
