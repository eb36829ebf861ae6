import ArgumentParser
import RecipeCodecs
import RecipeCore
import RecipeHistory
import RecipeLanguage
import RecipeRender
#if canImport(Glibc)
import Glibc
import RecipeSession
#endif

struct History: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List a photo's edit layers bottom up (original, frozen bases, stages), extract the foreign data, or draw a contact sheet.",
        discussion: """
            Examples:
              recipe history IMG_0001.JPG
              recipe history IMG_0001.JPG --extract kept/     # every base's data and pixels, byte for byte
              recipe history IMG_0001.JPG --sheet layers.png  # a labelled thumbnail per layer
            """)

    @Argument(help: "The photo.", completion: .file())
    var photo: String

    @Option(help: ArgumentHelp("Write each frozen base's foreign data and pixels, byte for byte (hashes checked), into this folder.", valueName: "dir"), completion: .directory)
    var extract: String?

    @Option(help: ArgumentHelp("Render a contact sheet: the original, after each base, after each stage (PNG).", valueName: "out.png"), completion: .file())
    var sheet: String?

    @Option(help: ArgumentHelp("Thumbnail size of the sheet (long edge).", valueName: "px"))
    var thumbnail: Int = 256

    func validate() throws {
        guard (32...2048).contains(thumbnail) else { throw ValidationError("--thumbnail must be between 32 and 2048") }
    }

    func run() throws {
        try LifecycleCommand.run {
            let asset = Asset(photo: photo)
            guard Paths.isFile(asset.sidecarPath) else {
                let original = try asset.binding()
                print("\(photo): no edit (no \(Paths.name(of: asset.sidecarPath))); the original, \(original.size) bytes, sha256 \(original.sha256)")
                return
            }
            let sidecar = try Sidecar.load(asset.sidecarPath)
            guard !sidecar.checked.isForeign, !sidecar.checked.hasErrors else {
                throw HistoryError(sidecar.path, sidecar.checked.isForeign ? "is foreign adjustment data; `recipe edit` keeps it as a frozen base" : "has errors; `recipe check \(sidecar.path)` lists them")
            }
            let original = try asset.verify(sidecar)
            let layers = HistoryLayers(sidecar: sidecar)
            print(layers.listing(photo: photo, original: original))
            if let extract { try self.extract(sidecar, asset: asset, to: extract) }
            if let sheet { try drawSheet(sidecar, asset: asset, layers: layers, to: sheet) }
        }
    }

    /// The name a base's data is written under, from its `source:` as the sidecar says it: its
    /// last component only, so that a sidecar (a stranger's, or edited by hand) whose source reads
    /// `x/../../../F.xmp` writes `1-base.F.xmp` inside the folder given, never a file above it.
    static func fileName(_ source: String?) -> String {
        let last = source.map { Paths.name(of: $0) } ?? ""
        return last.isEmpty || last == "." || last == ".." || last.contains("/") || last.contains("\0") ? "data" : last
    }

    func extract(_ sidecar: Sidecar, asset: Asset, to folder: String) throws {
        try Paths.makeFolders(folder)
        for stage in sidecar.checked.stages {
            guard let base = stage.base else { continue }
            let name = "\(stage.index)-\(stage.id ?? "base")"
            let bytes: [UInt8]
            switch base.data {
            case .text(let s): bytes = Array(s.utf8)
            case .base64(let s):
                guard let decoded = Base64.decode(s) else { throw HistoryError(sidecar.path, "stage \(stage.index): data-base64 does not decode") }
                bytes = decoded
            }
            if let expected = base.dataSHA256, ContentHash.bytes(bytes) != expected {
                throw HistoryError(sidecar.path, "stage \(stage.index): the embedded data no longer matches its data-sha256 (edited by hand?)")
            }
            let dataPath = Paths.join(folder, name + "." + Self.fileName(base.source))
            try Paths.writeAtomically(dataPath, bytes)
            let object = try asset.store.verify(base.pixels)
            let pixelsPath = Paths.join(folder, name + ".pixels." + Lifecycle.pixelsExtension(base.pixels.type))
            try Paths.writeAtomically(pixelsPath, try Paths.readBytes(object, limit: ObjectStore.maxObjectBytes))
            print("extracted \(dataPath) (\(bytes.count) bytes) and \(pixelsPath) (\(base.pixels.size) bytes)")
        }
    }

    /// One thumbnail per layer: each is the render of the sidecar cut after that layer.
    func drawSheet(_ sidecar: Sidecar, asset: Asset, layers: HistoryLayers, to output: String) throws {
        let scratch = try TemporaryFolder()
        defer { scratch.remove() }
        var tiles: [ContactSheet.Tile] = []
        var request = RenderRequest(photo: asset.photo)
        request.size = .longEdge(thumbnail)
        for layer in layers.rows {
            let path = scratch.path + "/\(layer.index).png"
            // The original of a raw: the camera's embedded preview when it is large enough (a
            // develop of the whole sensor for one thumbnail is most of a second).
            if layer.index == 0, let preview = try? RawPreview.jpeg(of: asset.photo, atLeast: thumbnail) {
                let file = scratch.path + "/embedded-preview.jpg"
                try Paths.writeAtomically(file, preview.jpeg)
                _ = try RenderJob(input: file, output: path, size: .longEdge(thumbnail)).run()
                tiles.append((label: layer.label, sublabel: "camera's preview", image: try RGBImage.read(path)))
                continue
            }
            var cut = sidecar
            try cut.keepFirst(layer.index)
            try SidecarRender.render(cut, asset: asset, to: path, request: request)
            tiles.append((label: layer.label, sublabel: layer.short, image: try RGBImage.read(path)))
        }
        var layout = ContactSheet(boxWidth: thumbnail, boxHeight: thumbnail)
        layout.columns = min(tiles.count, 6)
        let image = try layout.render(tiles)
        try image.writePNG(output)
        print("wrote \(output) (\(tiles.count) thumbnails)")
    }
}

/// The layers of a sidecar for listing and the sheet, bottom up.
struct HistoryLayers {
    struct Row {
        /// 0 for the original, else the 1-based stage position.
        var index: Int
        var label: String
        var short: String
        var detail: String
        var status: String
    }

    var rows: [Row] = []

    init(sidecar: Sidecar) {
        let checked = sidecar.checked
        let items = checked.root?.mapping?.first { $0.key.scalar == "stages" }?.value.sequence ?? []
        rows.append(Row(index: 0, label: "original", short: "", detail: "", status: ""))
        let topBase = checked.stages.last { $0.base != nil }?.index
        for stage in checked.stages {
            let inside = checked.activeBase.map { stage.index < $0 } ?? false
            if let base = stage.base {
                var detail = "frozen base: \(base.format) \(base.version)"
                if let tool = base.tool { detail += " by \(tool)" }
                if let e = base.embedded { detail += ", embedded \(e)" }
                let dataBytes: Int
                switch base.data {
                case .text(let s): dataBytes = s.utf8.count
                case .base64(let s): dataBytes = Base64.decode(s)?.count ?? 0
                }
                detail += ", data \(dataBytes) bytes\(base.source.map { " from \($0)" } ?? ""), pixels \(base.pixels.size) bytes (sha256 \(base.pixels.sha256.prefix(12))…)"
                let status = !stage.enabled ? "disabled" : stage.index == topBase ? "top base: revert --base" : "inside a later base"
                rows.append(Row(index: stage.index, label: stage.id ?? "base", short: "\(base.format) \(base.version)", detail: detail, status: status))
            } else {
                let text = stage.index - 1 < items.count ? HistoryLayers.describe(items[stage.index - 1], op: stage.op) : (stage.op ?? "?")
                var status = "revert: --stage \(stage.id ?? String(stage.index))"
                if !stage.enabled { status = "disabled; " + status }
                if inside { status = "inside a later base; " + status }
                rows.append(Row(index: stage.index, label: stage.id ?? stage.op ?? "stage", short: text, detail: text, status: status))
            }
        }
    }

    func listing(photo: String, original: OriginalBinding) -> String {
        var out = "layers of \(photo), bottom up:\n"
        let width = rows.map { $0.label.count }.max() ?? 8
        for row in rows {
            let label = row.label.padding(toLength: width)
            if row.index == 0 {
                out += "   0  \(label)  \(photo), \(original.size) bytes, sha256 \(original.sha256.prefix(12))…\n"
            } else {
                let n = String(row.index)
                out += String(repeating: " ", count: max(0, 4 - n.count)) + n + "  \(label)  \(row.detail)  [\(row.status)]\n"
            }
        }
        return out
    }

    /// `exposure 0.3`, `curve {points: …}`: the op and its value as written (one line).
    static func describe(_ item: YAMLNode, op: String?) -> String {
        guard let op, let pair = item.mapping?.first(where: { $0.key.scalar == op }) else { return op ?? "?" }
        return op + " " + flow(pair.value)
    }

    static func flow(_ node: YAMLNode) -> String {
        switch node.content {
        case .scalar(let s, _): return s.isEmpty ? "{}" : s
        case .sequence(let items): return "[" + items.map(flow).joined(separator: ", ") + "]"
        case .mapping(let pairs): return "{" + pairs.map { "\($0.key.scalar ?? "?"): \(flow($0.value))" }.joined(separator: ", ") + "}"
        }
    }
}

extension String {
    func padding(toLength n: Int) -> String { count >= n ? self : self + String(repeating: " ", count: n - count) }
}
