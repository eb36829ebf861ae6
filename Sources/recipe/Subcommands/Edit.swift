import ArgumentParser
import RecipeCore
import RecipeHistory
import RecipeSession

struct Edit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Start or continue the edit of a photo: append stages to its sidecar and render the current version.",
        discussion: """
            The photo's adjustment data is its sidecar PHOTO.recipe.yaml. If it is ours (format \
            dev.recipe.edit, version 1.x), the new stages are appended and the photo is re-rendered \
            from the original. If the photo carries another tool's edit (an Apple IMG_0001.AAE with \
            its rendering IMG_E0001.JPG, a darktable photo.jpg.xmp, or a sidecar of another format \
            or major version), that edit is kept verbatim as a frozen base layer and its rendered \
            pixels, stored byte for byte in recipe-objects/ beside the sidecar, become the input of \
            the new stages. --add stages come before --stage ones; every new stage gets an id.

            Examples:
              recipe edit IMG_0001.JPG --stage 'exposure: 0.3' --stage 'vibrance: 0.2'
              recipe edit IMG_0001.JPG --add Recipes/warm-portrait.recipe.yaml
              recipe edit photo.jpg --rendered photo.darktable.jpg --stage 'sharpen: 0.5'
              recipe edit IMG_0001.JPG --foreign other.recipe.yaml --rendered other.jpg
            """)

    @Argument(help: "The photo (JPEG, PNG, TIFF, WebP, HEIC/HEIF, AVIF or a camera raw file); it is only read.", completion: .file())
    var photo: String

    @Option(name: .customLong("add"), help: ArgumentHelp("Append the stages (and params) of this recipe (repeatable).", valueName: "recipe"), completion: .file())
    var recipes: [String] = []

    @Option(name: .customLong("stage"), help: ArgumentHelp("Append one stage written as YAML, e.g. 'exposure: 0.3' (repeatable).", valueName: "yaml"))
    var stages: [String] = []

    @Option(help: ArgumentHelp("Lay another tool's adjustment data on top as a frozen base layer (needs --rendered).", valueName: "file"), completion: .file())
    var foreign: String?

    @Option(help: ArgumentHelp("The pixels the foreign edit produced (JPEG, PNG, TIFF, WebP, HEIF or AVIF), where they cannot be found by convention.", valueName: "file"), completion: .file())
    var rendered: String?

    @Option(help: ArgumentHelp("The format identifier of opaque --foreign data (e.g. com.shinobicontrols.filster).", valueName: "id"))
    var format: String?

    @Option(help: ArgumentHelp("The format version of opaque --foreign data.", valueName: "version"))
    var formatVersion: String?

    @OptionGroup var current: CurrentVersionOptions

    func validate() throws {
        guard foreign == nil || rendered != nil else { throw ValidationError("--foreign needs --rendered: the pixels that edit produced") }
        guard format == nil || foreign != nil else { throw ValidationError("--format describes --foreign data") }
    }

    func run() throws {
        try LifecycleCommand.run {
            let asset = Asset(photo: photo)
            let lock = try LifecycleCommand.lock(asset)
            var report = Lifecycle.Report()
            var sidecar = try Lifecycle.begin(asset, rendering: foreign == nil ? rendered : nil, report: &report)
            if let foreign, let rendered {
                let edit = try ForeignEdit.read(foreign, format: format, version: formatVersion)
                try Lifecycle.embed(edit, rendering: rendered, into: &sidecar, store: asset.store, report: &report)
            }
            let before = sidecar.checked.stages.count
            for recipe in recipes { try Lifecycle.append(recipe: recipe, to: &sidecar) }
            for stage in stages { try Lifecycle.append(snippet: stage, to: &sidecar) }
            // Objects were written by `embed`; the sidecar that names them comes after, once
            // every base it names is known to be there.
            try sidecar.verifyObjects(in: asset.store)
            try LifecycleCommand.checkBudget(sidecar, current: current)
            // Measured once, written down: a re-render or a revert gives the same picture.
            let recorded = try LifecycleCommand.recordAuto(&sidecar, asset: asset, current: current)
            try sidecar.save()
            for line in recorded { print("auto values: " + line) }
            lock.release()
            for line in report.lines { print(line) }
            // Stages, not arguments: `--add` of a 7-stage recipe adds 7.
            let added = sidecar.checked.stages.count - before
            print("wrote \(sidecar.path) (\(sidecar.checked.stages.count) layer\(sidecar.checked.stages.count == 1 ? "" : "s")\(added > 0 ? ", \(added) added" : ""))")
            if !current.noRender { try LifecycleCommand.renderCurrent(sidecar, asset: asset, current: current) }
        }
    }
}

/// What the lifecycle commands share: error reporting and rendering the current version.
enum LifecycleCommand {
    static func run(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as HistoryError {
            Console.error(error.description)
            throw error.isUsage ? CommandFailure.usage : CommandFailure.partial
        } catch let error as SidecarEditError {
            SidecarRender.report(error)
            throw CommandFailure.usage
        }
    }

    /// The lock of the photo's folder for one read-change-write of its sidecar: another recipe
    /// command changing an edit there finishes first (said on stderr while waiting).
    static func lock(_ asset: Asset) throws -> FileLock {
        try Sidecar.lockFolder(of: asset.sidecarPath) { holder in
            Console.warning("\(asset.sidecarPath): another process is changing the edits in its folder\(holder.map { " (\($0))" } ?? ""); waiting for it")
        }
    }

    static func renderCurrent(_ sidecar: Sidecar, asset: Asset, current: CurrentVersionOptions) throws {
        let output = current.path(for: asset.photo)
        guard let source = try SidecarRender.render(sidecar, asset: asset, to: output, request: current.request(asset.photo),
                                                    onlyIfCurrent: true) else {
            // Two edits at once: the later one's render writes the version with both.
            print("not rendered to \(output): the edit changed while this render ran (another recipe command); its render writes the newer version")
            return
        }
        print("rendered \(output) (from \(source == asset.photo ? "the original" : "frozen base pixels \(source)"))")
    }

    /// Refuses an edit whose current version would read a file (a `.cube` LUT) over the render's
    /// budget, before the sidecar is written or the photo decoded: the edit would be saved but
    /// never rendered here (exit 2, nothing written; `--no-render` saves it anyway).
    static func checkBudget(_ sidecar: Sidecar, current: CurrentVersionOptions) throws {
        guard !current.noRender, let graph = sidecar.checked.graph else { return }
        let budget = current.request(sidecar.path).budget
        let checked = Result { () throws(ImageError) in try RecipePlanning.checkFiles(graph, recipe: sidecar.path, budget: budget.perRender) }
        // Another problem with the file (a LUT gone) is the render's to report, after the edit is saved.
        guard case .failure(let error) = checked, error.kind == .overBudget else { return }
        Console.error("\(error)")
        Console.error("\(sidecar.path): not written: its current version could not be rendered within the budget (--max-memory raises it; --no-render writes the edit without rendering it)")
        throw CommandFailure.usage
    }
}
