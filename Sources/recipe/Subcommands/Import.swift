import ArgumentParser
import RecipeCore
import RecipeHistory
import RecipeSession

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Turn Lightroom or Camera Raw settings (a preset, a sidecar, XMP in a photo) into recipe stages.",
        discussion: """
            A preset or sidecar (.xmp) becomes a look: recipe import "Warm Film.xmp" -o warm-film.recipe.yaml. \
            A photo's Lightroom settings (IMG_0001.xmp or IMG_0001.CR2.xmp beside it, --settings FILE, \
            or the XMP a DNG, TIFF, JPEG or HEIC embeds) become its sidecar, as `recipe edit` writes it: \
            bound to the photo's bytes, one stage per setting with an id, each revertible with `recipe \
            revert --stage`; the current version is rendered. Keys that were not translated are listed; \
            in a photo's sidecar the XMP is kept verbatim as a disabled frozen base layer. \
            docs/lightroom.md has the mapping of every key.

            Examples:
              recipe import "Warm Film.xmp" -o warm-film.recipe.yaml
              recipe import IMG_0001.CR2
              recipe import IMG_0001.JPG --settings exported.xmp --no-render
              recipe import IMG_0001.DNG -o IMG_0001.look.recipe.yaml --report
            """)

    @Argument(help: "A Lightroom preset or sidecar (.xmp), or a photo.", completion: .file())
    var file: String

    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Write a look recipe to this file instead of a photo's sidecar.", valueName: "recipe"),
            completion: .file())
    var output: String?

    @Option(help: ArgumentHelp("With a photo: read the settings from this XMP file.", valueName: "xmp"), completion: .file())
    var settings: String?

    @Flag(help: "List every key that was set and what became of it.")
    var report = false

    @Flag(help: "With a photo: write its sidecar without rendering the current version.")
    var noRender = false

    func validate() throws {
        guard output == nil || output!.hasSuffix(".yaml") || output!.hasSuffix(".yml") else {
            throw ValidationError("-o names the recipe to write (NAME.recipe.yaml)")
        }
    }

    func run() throws {
        try LifecycleCommand.run {
            let isXMP = file.lowercased().hasSuffix(".xmp")
            guard isXMP || output != nil || settings != nil || Paths.isFile(file) else { throw HistoryError(file, "no such file") }
            let source = settings ?? (isXMP ? file : LightroomImport.sidecar(forPhoto: file) ?? file)
            let read = try CameraRawSettings.read(source)
            guard read.hasSettings else { throw HistoryError(source, "holds no Camera Raw settings (crs:)") }
            let options = isXMP ? LightroomTranslation.Options()
                : try LightroomImport.options(forPhoto: file, rawLookStages: RawDefaultLook.stagesAfterDevelop)
            let translation = try LightroomTranslation(read, options: options)
            if let output {
                let text = try LightroomImport.lookRecipe(translation, path: output)
                try Paths.writeAtomically(output, Array(text.utf8))
                summarize(translation, wrote: output)
                return
            }
            guard !isXMP else { throw HistoryError(file, "a preset becomes a look: give -o NAME.recipe.yaml", usage: true) }
            let asset = Asset(photo: file)
            let lock = try LifecycleCommand.lock(asset)
            var lines = Lifecycle.Report()
            var sidecar = try LightroomImport.begin(asset, translation: translation, report: &lines)
            try sidecar.verifyObjects(in: asset.store)
            try sidecar.save()
            lock.release()
            for line in lines.lines { print(line) }
            summarize(translation, wrote: sidecar.path)
            if !noRender {
                try LifecycleCommand.renderCurrent(sidecar, asset: asset, current: try CurrentVersionOptions.parse([]))
            }
        }
    }

    /// What was read and what became of it: counts, then every untranslated key (every key with --report).
    func summarize(_ t: LightroomTranslation, wrote path: String) {
        let c = t.counts
        print("read \(t.settings.source): \(t.report.count) keys set: \(c.translated) translated into \(t.stages.count) stage\(t.stages.count == 1 ? "" : "s"), "
              + "\(c.neutral) at no effect, \(c.informational) descriptive, \(c.untranslated) not translated")
        for r in t.report {
            switch r.outcome {
            case .untranslated(let why): print("  not translated: \(r.key) \(r.value): \(why)")
            case .translated where report: print("  translated: \(r.key) \(r.value) → \(t.stages.filter { $0.keys.contains(r.key) }.map(\.id).joined(separator: ", "))")
            case .neutral where report: print("  no effect: \(r.key) \(r.value)")
            case .informational where report: print("  descriptive: \(r.key) \(r.value)")
            default: break
            }
        }
        print("wrote \(path)")
    }
}
