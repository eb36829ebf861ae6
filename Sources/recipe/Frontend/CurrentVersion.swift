import ArgumentParser
import RecipeCodecs
import RecipeColor
import RecipeCore
import RecipeHistory
import RecipeLanguage
import RecipeOptions
#if canImport(Glibc)
import Glibc
import RecipeSession
#endif

/// Where the rendered current version of an edited photo goes: beside the photo with a suffix
/// (`IMG_0001.JPG` → `IMG_0001.edited.JPG`, the default), into a folder (`--output-dir DIR`:
/// `DIR/IMG_0001.JPG`), or to a named file (`--output`). `RECIPE_OUTPUT_DIR` in the environment
/// sets the folder for every command.
struct CurrentVersionOptions: ParsableArguments {
    @Option(name: [.short, .customLong("output")], help: "Write the current version to this file (.jpg, .png, .tif, .webp, .heic or .avif).", completion: .file())
    var output: String?

    @Option(help: ArgumentHelp("Write the current version into this folder, under the photo's name (default: $RECIPE_OUTPUT_DIR, else beside the photo).", valueName: "dir"), completion: .directory)
    var outputDir: String?

    @Option(help: ArgumentHelp("Suffix of the current version beside the photo.", valueName: "text"))
    var suffix: String = ".edited"

    @Option(help: "full, display (long edge \(RenderSize.displayLongEdge) px) or a long edge in pixels.")
    var size: RenderSize = .full

    @Option(help: ArgumentHelp("Quality of a lossy output, 1-100, on its format's own scale (default: JPEG 90, WebP 85, HEIC and AVIF 50).", valueName: "n"))
    var quality: Int?

    @Option(help: ArgumentHelp("The output's colours: keep (the photo's own), srgb, display-p3, adobe-rgb, rec2020, or an RGB ICC file.", valueName: "profile"))
    var profile: OutputProfile?

    @Option(help: ArgumentHelp("Rendering intent of colour conversions: perceptual, relative, saturation or absolute.", valueName: "intent"))
    var intent: RenderingIntent?

    @OptionGroup var threads: ThreadOptions

    @Flag(help: "Write the sidecar only; do not render the current version.")
    var noRender = false

    @OptionGroup(title: "Limits")
    var limits: RenderLimitOptions

    func validate() throws {
        if let quality, !(1...100).contains(quality) { throw ValidationError("--quality must be between 1 and 100") }
        guard output == nil || outputDir == nil else { throw ValidationError("give --output or --output-dir, not both") }
        try profile?.requireFile()
    }

    /// The render these options ask for of `photo`, before its sidecar.
    func request(_ photo: String) -> RenderRequest {
        var request = RenderRequest(photo: photo)
        request.size = size
        request.profile = profile
        request.intent = intent
        request.threads = threads.count
        if let quality { request.encoding.setQuality(quality) }
        limits.apply(to: &request)
        return request
    }

    /// The current version's path for `photo`.
    func path(for photo: String) -> String {
        CurrentVersionOptions.path(for: photo, output: output, outputDir: outputDir, suffix: suffix)
    }

    static func path(for photo: String, output: String?, outputDir: String?, suffix: String = ".edited") -> String {
        if let output { return output }
        var name = photo.split(separator: "/").last.map(String.init) ?? photo
        // A raw is never written: its current version is a JPEG (IMG_0001.CR2 → IMG_0001.edited.jpg).
        if RawDetection.hasRawExtension(name), let dot = name.lastIndex(of: ".") { name = String(name[..<dot]) + ".jpg" }
        if let dir = outputDir ?? getenv("RECIPE_OUTPUT_DIR").map({ String(cString: $0) }), !dir.isEmpty {
            return dir.hasSuffix("/") ? dir + name : dir + "/" + name
        }
        let folder = photo.contains("/") ? String(photo[..<photo.lastIndex(of: "/")!]) + "/" : ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return folder + name + suffix }
        return folder + String(name[..<dot]) + suffix + String(name[dot...])
    }
}

/// Renders a sidecar: from the pixels of its last enabled frozen base (verified) or from the
/// original, through the stages after it. With nothing to apply, the current version is the
/// source itself, byte for byte (or its exact pixels in PNG when the output is a PNG of a JPEG).
enum SidecarRender {
    /// Renders `sidecar` of `asset` to `output` as `request` says (its photo and recipes are the
    /// sidecar's: the request gives the size, colour, limits and budget).
    /// `onlyIfCurrent`: the output goes into place only while the sidecar file still holds what
    /// was rendered, checked under the folder's lock (`currentGate`); nil when it changed meanwhile
    /// (another `edit` or `revert`, whose own render writes the newer version).
    @discardableResult
    static func render(_ sidecar: Sidecar, asset: Asset, to output: String, request template: RenderRequest,
                       onlyIfCurrent: Bool = false) throws -> String? {
        let source = try asset.renderSource(sidecar)
        let gate = onlyIfCurrent ? currentGate(sidecar) : nil
        let passThrough = sidecar.checked.graph.map { $0.nodes.count == 1 } ?? false
        let sourceFormat = ImageFileFormat.sniff(try InputFile.prefix(source, count: ImageFileFormat.sniffLength))
        let sameFormat = sourceFormat != nil && sourceFormat == ImageFileFormat(pathExtension: output)
        let exports = (sidecar.checked.output ?? .init()) != .init() || template.encoding.maxBytes != nil
        if passThrough, !exports, template.size == .full, sameFormat, template.profile == nil || template.profile == .keep {
            return try copy(source, to: output, gate: gate) ? source : nil
        }
        var request = template
        request.photo = source
        request.recipes = passThrough ? [] : [.sidecar(sidecar)]
        var job = try RenderPlanner.planForCommand(request).job(output: output)
        job.commitGate = gate
        let outcome = try job.run()
        Console.warnings(outcome.warnings)
        return outcome.superseded ? nil : source
    }

    /// Commits only while the sidecar file holds the text `sidecar` was rendered from, holding
    /// the folder's lock (which every recipe writer of sidecars takes) from the check to the rename.
    static func currentGate(_ sidecar: Sidecar) -> RenderJob.CommitGate {
        let rendered = Array(sidecar.written.text.utf8)
        return { commit in
            let lock = try Sidecar.lockFolder(of: sidecar.path) { _ in }
            defer { lock.release() }
            guard (try? Paths.readBytes(sidecar.path, limit: Sidecar.maxBytes)) == rendered else { return false }
            try commit()
            return true
        }
    }

    /// A byte copy, written atomically; never onto the source itself. False when `gate` discarded it.
    @discardableResult
    static func copy(_ source: String, to output: String, gate: RenderJob.CommitGate? = nil) throws -> Bool {
        if let a = InputFile.identity(source), let b = InputFile.identity(output), a == b {
            throw ImageError(.refused, path: output, "is the original photo; refusing to overwrite it")
        }
        let bytes = try InputFile.readAll(source, limit: 1 << 30)
        let out = try AtomicOutputFile(path: output)
        guard bytes.withUnsafeBytes({ fwrite($0.baseAddress, 1, $0.count, out.handle) }) == bytes.count else {
            out.abort()
            throw ImageError(.writeFailed, path: output, "cannot write: \(errnoText())")
        }
        guard let gate else {
            try out.commit()
            return true
        }
        if try gate({ try out.commit() }) { return true }
        out.abort()
        return false
    }

    /// Prints a refused sidecar change with its diagnostics.
    static func report(_ error: SidecarEditError) {
        Console.error("\(error.file.path): \(error.what) would leave the sidecar broken; nothing was written")
        for d in error.diagnostics { Console.printError(DiagnosticPrinter.render(d, source: error.file)) }
    }
}
