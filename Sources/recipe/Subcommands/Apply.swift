import ArgumentParser
import RecipeBatch
import RecipeCodecs
import RecipeCore
import RecipeOptions
import RecipeSession
#if canImport(Glibc)
import Glibc
#endif

struct Apply: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apply",
        abstract: "Apply recipes to files and folders of photos: incremental, parallel, resumable.",
        discussion: """
            Arguments ending in .recipe.yaml (or .recipe.yml, or given with --recipe) are recipes, \
            applied in order (a base look, then a style); the others are photos and folders, walked \
            recursively (hidden names skipped; without --include, every image the codecs read: *.jpg, \
            *.jpeg, *.png, *.tif, *.tiff, *.webp, *.heic, *.heif, *.hif, *.avif and camera raw \
            files (*.dng, *.cr2, *.cr3, *.nef, *.arw, *.raf, *.orf, *.rw2 and the rest), in any case). \
            Outputs go below OUTDIR by the --name template; originals are only read.

            OUTDIR/.recipe-manifest.jsonl records, per output, the SHA-256 of its source, of the \
            canonical recipes and settings, and the engine version. A re-run renders exactly the \
            outputs whose inputs changed (by content, not by timestamps) and skips the rest; --force \
            renders all. Every output is written to a temporary file and renamed, so a killed batch \
            leaves no torn file, and its re-run finishes what is missing. One run writes an OUTDIR \
            at a time (the shards of one --shard split run at once, one run per shard): a second \
            waits for the first, saying so, then finds its outputs up to date; --no-wait refuses.

            Exit status: 0 when every photo rendered or was up to date, 1 when some failed (the \
            others are still rendered; the summary lists the failures), 2 for usage errors (a bad \
            option, a recipe with errors, a path that does not exist).

            Name template placeholders: {dir} (the photo's folder below the folder given), {stem}, \
            {name}, {ext} (the output format's extension), {srcext}, {recipe}.

            Examples:
              recipe apply film.recipe.yaml ~/Photos/2024 -o ~/Exports/film
              recipe apply base.recipe.yaml style.recipe.yaml shoot/ -o out
              recipe apply web.recipe.yaml shoot/ -o out --size 2048 --quality 85
              recipe apply web.recipe.yaml shoot/ -o out --name '{dir}/{stem}-web.{ext}'
              recipe apply look.recipe.yaml shoot/ -o out --set strength=0.6
              recipe apply look.recipe.yaml shoot/ -o out --exclude 'rejects/**'
              recipe apply shoot/ -o out --only-edited --with-sidecars
              recipe apply look.recipe.yaml /data -o /out --shard 3/16 --json
              sbatch --array=0-15 --wrap 'recipe apply look.recipe.yaml /data -o /out --shard auto'
            """)

    @Argument(help: ArgumentHelp("Recipes (*.recipe.yaml), then photos and folders.", valueName: "recipe-or-path"), completion: .file())
    var items: [String] = []

    @Option(name: .customLong("recipe"), help: ArgumentHelp("A recipe whose name does not end in .recipe.yaml (repeatable; applied before the positional ones).", valueName: "file"), completion: .file())
    var extraRecipes: [String] = []

    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("The output folder (created when missing).", valueName: "outdir"), completion: .directory)
    var output: String

    @Option(help: ArgumentHelp("Output path template below OUTDIR.", valueName: "template"))
    var name: String = NameTemplate.default

    @Option(help: ArgumentHelp("Output format: jpeg, png, tiff, webp, heic, avif, or same (the photo's own).", valueName: "format"))
    var format: OutputFormatChoice = .same

    @Option(help: "full, display (long edge \(RenderSize.displayLongEdge) px) or a long edge in pixels.")
    var size: RenderSize = .full

    @OptionGroup(title: "Encoding")
    var encoding: EncodingOptions

    @Option(name: .customLong("set"), help: ArgumentHelp("Override a recipe param: --set name=value (repeatable).", valueName: "name=value"))
    var overrides: [String] = []

    @Option(help: ArgumentHelp("Only photos whose path below the folder given matches (repeatable; a pattern without / matches the file name).", valueName: "glob"))
    var include: [String] = []

    @Option(help: ArgumentHelp("Leave out photos (and folders' contents) whose path matches (repeatable).", valueName: "glob"))
    var exclude: [String] = []

    @Flag(help: "Apply each photo's own sidecar (PHOTO.recipe.yaml) first, then the recipes given.")
    var withSidecars = false

    @Flag(help: "Apply each photo's Lightroom sidecar (IMG_0001.xmp or IMG_0001.CR2.xmp), translated as `recipe import` does; a recipe sidecar (with --with-sidecars) comes first.")
    var withLightroom = false

    @Option(help: ArgumentHelp("Only the photos whose XMP marks and EXIF match, e.g. 'rating >= 3 and label == red and not rejected', 'keyword == wedding', 'date >= 2024-06 and camera ~ \"EOS R5\"' (--dry-run lists what each photo has).", valueName: "expr"))
    var select: String?

    @Flag(help: "Only photos that have a sidecar.")
    var onlyEdited = false

    @Option(help: ArgumentHelp("Where a raw file and a JPEG or HEIC share a name stem (a camera's RAW+JPEG): raw (develop the raw, leave the JPEG out), jpeg, or both.", valueName: "raw|jpeg|both"))
    var pairs: RawPairs.Keep = .raw

    @Flag(help: "Render every output, up to date or not.")
    var force = false

    @Flag(help: "Say what would be rendered or skipped, and why; write nothing.")
    var dryRun = false

    @Option(help: ArgumentHelp("Photos rendered at once (default: the cores); the output bytes do not depend on it.", valueName: "n"))
    var jobs: Int = RenderJob.defaultThreads

    @Option(help: ArgumentHelp("Do shard K of N: a fixed split of the outputs by path hash, for N machines. auto (or auto/N) takes K and N from a Slurm job array (SLURM_ARRAY_TASK_ID, _MIN, _COUNT), a Kubernetes Indexed Job (JOB_COMPLETION_INDEX) or GNU parallel (PARALLEL_SEQ); the last two need N as auto/N or in RECIPE_SHARD_COUNT.", valueName: "K/N|auto[/N]"))
    var shard: String?

    @Flag(help: "Follow links to photos outside the folder given (by default they are left out, and named).")
    var followLinks = false

    @Flag(help: "When another apply is writing OUTDIR (or the same shard of it), refuse at once (exit 2) instead of waiting for it to finish.")
    var noWait = false

    @Flag(help: "Write one JSON record per photo to stdout (rendered, skipped and why, or failed and the error), then a summary record.")
    var json = false

    @Option(help: ArgumentHelp("Progress: auto (a bar on a terminal, a line per photo otherwise), bar, lines or none.", valueName: "mode"))
    var progress: ProgressMode = .auto

    @Flag(help: "Render what can be decoded from truncated or damaged photos, with a warning.")
    var allowDamaged = false

    @Option(help: "Refuse photos declaring more pixels than this.")
    var maxPixels: Int = DecodeOptions.defaultMaxPixels

    @OptionGroup var memory: MemoryOptions

    @Option(help: ArgumentHelp("Stop a photo's render after this many seconds: it fails as a damaged photo does, and the batch goes on.", valueName: "seconds"))
    var timeout: Double?

    @Flag(help: "Render the unfused plan (for measurements).")
    var noFuse = false

    func validate() throws {
        guard (1...256).contains(jobs) else { throw ValidationError("--jobs must be between 1 and 256") }
        guard maxPixels > 0 else { throw ValidationError("--max-pixels must be positive") }
        guard timeout.map({ $0 > 0 && $0.isFinite }) ?? true else { throw ValidationError("--timeout takes a positive number of seconds") }
        do { _ = try NameTemplate(name) } catch { throw ValidationError(error.description) }
        _ = try resolvedShard()
        _ = try parseOverrides(overrides)
        let (recipes, paths) = split()
        guard !paths.isEmpty else { throw ValidationError("give the photos or folders to apply the recipes to") }
        guard !recipes.isEmpty || withSidecars || withLightroom else {
            throw ValidationError("give a recipe (NAME.recipe.yaml or --recipe FILE), or --with-sidecars (or --with-lightroom) to apply each photo's own edit")
        }
    }

    /// `--shard` as given (`K/N`), or from this task's environment (`auto`, `auto/N`).
    func resolvedShard() throws -> Shard.Resolution? {
        guard let shard else { return nil }
        var environment: [String: String] = [:]
        for name in Shard.environmentVariables {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        do { return try Shard.resolve(shard, environment: environment) } catch { throw ValidationError(error.description) }
    }

    /// Recipes (by name, or `--recipe`) and paths, each in the order given.
    func split() -> (recipes: [String], paths: [String]) {
        var recipes = extraRecipes
        var paths: [String] = []
        for item in items {
            if RecipeFiles.isRecipeName(item) { recipes.append(item) } else { paths.append(item) }
        }
        return (recipes, paths)
    }

    func run() throws {
        let (recipes, paths) = split()
        var batch = BatchRun(outputFolder: output, template: try NameTemplate(name))
        batch.chain = try RecipeChain.load(recipes, overrides: try parseOverrides(overrides))
        batch.recipeLabel = recipes.map { name in
            var n = name.split(separator: "/").last.map(String.init) ?? name
            for suffix in [".recipe.yaml", ".recipe.yml", ".yaml", ".yml"] where n.hasSuffix(suffix) {
                n.removeLast(suffix.count)
                break
            }
            return n
        }.joined(separator: "+")
        batch.walk = PhotoWalk(include: include.map { Glob($0) }, exclude: exclude.map { Glob($0) })
        batch.walk.followLinks = followLinks
        batch.paths = paths
        batch.format = format
        batch.size = size
        batch.decode = DecodeOptions(maxPixels: maxPixels, allowDamaged: allowDamaged)
        batch.encoding = encoding.encoding
        batch.profile = encoding.profile
        batch.intent = encoding.intent
        batch.fuse = !noFuse
        batch.withSidecars = withSidecars
        batch.withLightroom = withLightroom
        batch.selection = select
        batch.onlyEdited = onlyEdited
        batch.pairs = pairs
        batch.force = force
        batch.dryRun = dryRun
        batch.jobs = jobs
        batch.memoryBudget = memory.budget
        batch.timeout = timeout
        let resolution = try resolvedShard()
        if let origin = resolution?.origin, let shard = resolution?.shard {
            Console.printError("recipe: --shard \(self.shard ?? ""): shard \(shard) (\(origin))")
        }
        batch.shard = resolution?.shard
        batch.wait = !noWait
        batch.json = json
        batch.progress = progress
        let failed = try batch.run()
        if failed { throw CommandFailure.partial }
    }
}

/// `--format` on the command line: the format's name in any case, or its other spelling (jpg, tif, heif).
extension OutputFormatChoice: ExpressibleByArgument {
    package init?(argument: String) {
        switch argument.lowercased() {
        case "same": self = .same
        case "jpeg", "jpg": self = .jpeg
        case "png": self = .png
        case "tiff", "tif": self = .tiff
        case "webp": self = .webp
        case "heic", "heif": self = .heic
        case "avif": self = .avif
        default: return nil
        }
    }
}

extension RawPairs.Keep: ExpressibleByArgument {}

extension ProgressMode: ExpressibleByArgument {}
