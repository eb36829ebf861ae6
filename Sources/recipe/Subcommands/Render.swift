import ArgumentParser
import RecipeCodecs
import RecipeCore
import RecipeHistory
import RecipeLanguage
import RecipeOptions
import RecipeSession

extension RenderSize: ExpressibleByArgument {}

extension JPEGOptions.Subsampling: ExpressibleByArgument {
    public init?(argument: String) {
        switch argument {
        case "420", "4:2:0": self = .s420
        case "422", "4:2:2": self = .s422
        case "444", "4:4:4": self = .s444
        default: return nil
        }
    }
    public static var allValueStrings: [String] { ["420", "422", "444"] }
}

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a photo to a new file (the original is only read).",
        discussion: """
            Without --recipe, a photo that has a sidecar (PHOTO.recipe.yaml) is rendered from it: \
            its current version, written beside the photo as NAME.edited.EXT unless -o or \
            --output-dir says otherwise (see `recipe edit`). A sidecar made for other bytes than \
            the photo's is refused.

            A camera raw whose recipes have no `develop` stage, or that has no recipe, gets the \
            default look first (Recipes/raw-default.recipe.yaml: the camera's white balance, a \
            tone curve, a little vibrance and sharpening); a recipe with a `develop` stage, such \
            as Recipes/raw-neutral.recipe.yaml (the scene as measured), replaces it.

            The output format follows OUT's extension (.jpg/.jpeg, .png, .tif/.tiff, .webp, \
            .heic/.heif/.hif or .avif). EXIF orientation is \
            applied, so the output is upright and its orientation tag says 1; EXIF, ICC, XMP and \
            IPTC blocks are carried over. The output is written to a temporary file and renamed \
            into place, so it is either complete or absent.

            Examples:
              recipe render IMG_0001.jpg                       # its sidecar → IMG_0001.edited.jpg
              recipe render IMG_0001.jpg -o out/IMG_0001.jpg
              recipe render IMG_0001.jpg -o preview.jpg --size display
              recipe render scan.png -o web.jpg --size 1600 --quality 82
            """)

    @Argument(help: "The photo to render (JPEG, PNG, TIFF, WebP, HEIC/HEIF, AVIF or a camera raw file).", completion: .file())
    var photo: String

    @Option(help: "The recipe to apply (checked first; nothing is rendered if it has errors).", completion: .file())
    var recipe: String?

    @Option(name: .customLong("set"), help: "Override a recipe param: --set name=value (repeatable).")
    var overrides: [String] = []

    @Flag(help: "Render the unfused plan: every operation a pass of its own (for measurements and tests).")
    var noFuse = false

    @Option(name: [.short, .customLong("output")], help: "The file to write (.jpg, .png, .tif, .webp, .heic or .avif).", completion: .file())
    var output: String?

    @Option(help: ArgumentHelp("With a sidecar: write the current version into this folder under the photo's name.", valueName: "dir"), completion: .directory)
    var outputDir: String?

    @Option(help: "full, display (long edge \(RenderSize.displayLongEdge) px) or a long edge in pixels.")
    var size: RenderSize = .full

    @OptionGroup(title: "Encoding")
    var encoding: EncodingOptions

    @OptionGroup(title: "Limits")
    var limits: RenderLimitOptions

    @OptionGroup var threads: ThreadOptions

    func run() throws {
        let asset = Asset(photo: photo)
        if recipe == nil, Paths.isFile(asset.sidecarPath) {
            try renderSidecar(asset)
            return
        }
        guard let output else {
            Console.error("\(photo): nothing says where to write: give -o OUT (the photo has no sidecar \(Paths.name(of: asset.sidecarPath)))")
            throw CommandFailure.usage
        }
        var request = request(photo)
        if let recipe { request.recipes = [RenderRequest.Recipe(path: recipe, overrides: try parseOverrides(overrides))] }
        let outcome = try RenderPlanner.planForCommand(request).job(output: output).run()
        Console.warnings(outcome.warnings)
        if let fit = outcome.fit { Console.printError("\(output): \(fit.description)") }
    }

    /// The render this command asks for of `photo`, before its recipes.
    func request(_ photo: String) -> RenderRequest {
        var request = RenderRequest(photo: photo)
        request.size = size
        request.profile = encoding.profile
        request.intent = encoding.intent
        request.encoding = encoding.encoding
        request.threads = threads.count
        request.fuse = !noFuse
        limits.apply(to: &request)
        return request
    }

    /// The current version from the photo's sidecar (checked against the photo's bytes).
    func renderSidecar(_ asset: Asset) throws {
        try LifecycleCommand.run {
            let sidecar = try Sidecar.load(asset.sidecarPath)
            if sidecar.checked.isForeign {
                throw HistoryError(sidecar.path, "is foreign adjustment data; `recipe edit \(photo) --rendered FILE` keeps it as a frozen base")
            }
            for d in sidecar.checked.diagnostics { Console.printError(DiagnosticPrinter.render(d, source: sidecar.checked.file)) }
            guard !sidecar.checked.hasErrors else { throw CommandFailure.usage }
            try asset.verify(sidecar)
            let path = CurrentVersionOptions.path(for: photo, output: output, outputDir: outputDir)
            try SidecarRender.render(sidecar, asset: asset, to: path, request: request(photo))
            print("rendered \(path)")
        }
    }
}
