import ArgumentParser
import Glibc
import RecipeCodecs
import RecipeCore
import RecipeRender
import Synchronization

/// `recipe-bench display`: measures the acceptance point "a display render and the full render
/// downscaled agree to PSNR ≥ 40 dB for every recipe in Recipes/ on the corpus photos". For each
/// photo larger than the display size and each recipe (and none), renders the full size, downscales
/// that render, renders the display size directly, and compares the two small images.
///
/// ```
/// recipe-bench display --out bench-results/display.md      # every pair, about 10 minutes
/// recipe-bench display --photos shefta                      # one photo, a minute or two
/// recipe-bench display --size 1024 --min-psnr 45 --jobs 1
/// ```
///
/// Exit status: 0 when every pair was rendered and compared (even if the check misses), 1 when a
/// render or a comparison failed, 2 for a command-line mistake.
struct DisplayBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "display",
        abstract: "Display renders against the full render downscaled: PSNR for every recipe on the corpus photos.",
        discussion: """
            For every image recipe reads (.jpg, .png, .tif, .webp, .heic, .avif, …) directly in \
            <corpus>/bench, <corpus>/photos, <corpus>/heif and <corpus>/tiff whose \
            long edge (upright) is larger than --size, and every Recipes/*.recipe.yaml of the \
            package plus no recipe at all (the row "(none)"), runs

              recipe render PHOTO [--recipe R] -o full.png
              recipe render full.png --size S -o down.png
              recipe render PHOTO [--recipe R] --size S -o display.png

            and computes the PSNR of display.png against down.png over all samples, decoded with \
            recipe's own decoder: 10·log10(255²/MSE) (65535² for 16-bit PNGs), 99 when identical. \
            Smaller photos render identically at that size and are skipped. --jobs pairs run at \
            once, each in its own temporary folder; one progress line per pair goes to stderr. \
            Prints a Markdown table (photo × recipe) with the lowest PSNR per recipe and the check \
            (PASS/MISS); exits 0 even when it misses, 1 if a render or a comparison fails, 2 for a \
            command-line mistake.
            """)

    /// What the mode runs with: the command line, paths resolved against the package root.
    struct Options {
        /// `--size` as given, passed to `recipe render --size`.
        var size: String
        /// Its long edge in pixels: 2048 for `display`.
        var longEdge: Int
        var minPSNR: Double
        var jobs: Int
        /// Only photos whose file name contains this.
        var photoFilter: String?
        var corpus: String
        var recipeBinary: String
        var packageRoot: String
        var outFile: String?
    }

    @Option(help: ArgumentHelp("display (long edge \(displayLongEdge) px) or a long edge in pixels, passed to `recipe render --size`.",
                               valueName: "size"))
    var size = "display"

    @Option(name: .customLong("min-psnr"), help: ArgumentHelp("The check's threshold in dB.", valueName: "dB"))
    var minPSNR = 40.0

    @Option(help: ArgumentHelp("Photo × recipe pairs rendered at once.", valueName: "n"))
    var jobs = 2

    @Option(help: ArgumentHelp("Only the photos whose file name contains this text (for a quick run).", valueName: "text"))
    var photos: String?

    @OptionGroup var paths: BenchPaths

    /// The long edge of `recipe render --size display`.
    static let displayLongEdge = 2048
    /// The folders of the corpus whose photos are compared.
    static let photoFolders = ["bench", "photos", "heif", "tiff"]

    func validate() throws {
        try BenchCommand.requireCount(jobs, of: "--jobs")
        try BenchCommand.requireValues(["--photos": photos])
        guard Self.longEdge(size) != nil else {
            throw ValidationError("--size must be display or a long edge in pixels, not '\(size)'")
        }
        guard minPSNR.isFinite, minPSNR > 0 else { throw ValidationError("--min-psnr must be a positive number of dB") }
        guard BenchPaths.packageRoot != nil else { throw ValidationError("cannot find the package root (Package.swift)") }
    }

    func run() throws {
        guard let longEdge = Self.longEdge(size) else { preconditionFailure("validate() checks --size") }
        let options = Options(
            size: size, longEdge: longEdge, minPSNR: minPSNR, jobs: jobs, photoFilter: photos,
            corpus: paths.resolvedCorpus, recipeBinary: paths.resolvedRecipeBinary, packageRoot: BenchPaths.root,
            outFile: paths.outFile)
        try BenchCommand.finish(Self.measure(options))
    }

    /// The long edge `size` stands for: 2048 for `display`, else the number (at least 1); nil if
    /// it is neither.
    static func longEdge(_ size: String) -> Int? {
        if size == "display" { return displayLongEdge }
        guard let pixels = Int(size), pixels >= 1 else { return nil }
        return pixels
    }

    /// Finds the photos and recipes, renders and compares every pair with `options` and prints
    /// the report; returns the exit status.
    static func measure(_ options: Options) -> Int32 {
        if let problem = BenchPaths.binaryProblem(options.recipeBinary) {
            note("recipe-bench display: \(problem)")
            return 1
        }
        let recipes = DisplayRecipe.all(in: FileSystem.join(options.packageRoot, "Recipes"))
        guard recipes.count > 1 else {
            note("recipe-bench display: no *.recipe.yaml in \(FileSystem.join(options.packageRoot, "Recipes"))")
            return 1
        }
        let photos = DisplayPhotos.find(corpus: options.corpus, longEdge: options.longEdge, filter: options.photoFilter)
        guard !photos.compared.isEmpty else {
            note("recipe-bench display: no photo in \(photoFolders.map { FileSystem.join(options.corpus, $0) }.joined(separator: ", ")) "
                + "has a long edge above \(options.longEdge) px"
                + (options.photoFilter.map { " and a name containing '\($0)'" } ?? ""))
            return 1
        }
        guard let scratch = ScratchDirectory() else {
            note("recipe-bench display: cannot create a temporary folder: \(FileSystem.errorText())")
            return 1
        }
        defer { scratch.remove() }
        let version = recipeVersion(options.recipeBinary, scratch: scratch)

        let pairs = photos.compared.indices.flatMap { photo in
            recipes.indices.map { recipe in DisplayPair(photo: photo, recipe: recipe) }
        }
        note("display: \(photos.compared.count) photos × \(recipes.count) recipes = \(pairs.count) pairs, --size \(options.size), "
            + "--jobs \(options.jobs); skipped \(photos.small.count) photos with a long edge ≤ \(options.longEdge) px"
            + (photos.unreadable.isEmpty ? "" : ", \(photos.unreadable.count) unreadable"))

        let started = CheckBenchmark.now()
        let sweep = DisplaySweep(pairs: pairs)
        let scratchPath = scratch.path
        let photoList = photos.compared
        let workers = (0..<min(options.jobs, pairs.count)).map { _ in
            WorkerThread {
                while let next = sweep.next() {
                    let photo = photoList[next.pair.photo], recipe = recipes[next.pair.recipe]
                    let folder = FileSystem.join(scratchPath, "pair-\(next.index + 1)")
                    let outcome = render(photo, recipe, in: folder, options: options)
                    sweep.finish(next.index, outcome) { done in
                        "[\(done)/\(pairs.count)] \(photo.name), \(recipe.name): " + outcome.progressText
                    }
                }
            }
        }
        for worker in workers { worker.join() }

        let report = DisplayReport(
            options: options, version: version, photos: photos, recipes: recipes, pairs: pairs,
            outcomes: sweep.outcomes, sweepSeconds: CheckBenchmark.now() - started, scratch: scratch.path)
        let written = BenchCommand.publish(report.markdown, mode: "display", to: options.outFile)
        return written && report.failures.isEmpty ? 0 : 1
    }

    /// Renders one pair's three images in `folder` (created, and deleted afterwards) and compares
    /// the downscaled full render with the display render.
    static func render(_ photo: DisplayPhoto, _ recipe: DisplayRecipe, in folder: String, options: Options) -> DisplayOutcome {
        let started = CheckBenchmark.now()
        defer { FileSystem.removeTree(folder) }
        guard mkdir(folder, 0o755) == 0 else {
            return .failed(step: "setup", why: "cannot create \(folder): \(FileSystem.errorText())", seconds: 0)
        }
        let runner = ProcessRunner(launcher: .fork, logPath: FileSystem.join(folder, "stderr.log"))
        let full = FileSystem.join(folder, "full.png")
        let down = FileSystem.join(folder, "down.png")
        let display = FileSystem.join(folder, "display.png")
        let recipeArguments = recipe.path.map { ["--recipe", $0] } ?? []
        let renders: [(step: String, arguments: [String], output: String)] = [
            ("full render", [photo.path] + recipeArguments + ["-o", full], full),
            ("downscale of the full render", [full, "--size", options.size, "-o", down], down),
            ("display render", [photo.path] + recipeArguments + ["--size", options.size, "-o", display], display),
        ]
        for render in renders {
            let command = Command(executable: options.recipeBinary, arguments: ["recipe", "render"] + render.arguments,
                                  expectedOutput: render.output)
            if case .failure(let failure) = runner.run(command) {
                return .failed(step: render.step, why: failure.firstLine, seconds: CheckBenchmark.now() - started)
            }
        }
        switch ImageDifference.between(down, display) {
        case .success(let difference):
            return .compared(difference, seconds: CheckBenchmark.now() - started)
        case .failure(let problem):
            return .failed(step: "comparison", why: problem.description, seconds: CheckBenchmark.now() - started)
        }
    }

    /// The first line `recipe --version` prints, or why there is none.
    static func recipeVersion(_ recipeBinary: String, scratch: ScratchDirectory) -> String {
        let output = scratch.file("version.txt")
        let runner = ProcessRunner(launcher: .fork, logPath: scratch.file("version-stderr.log"))
        switch runner.run(Command(executable: recipeBinary, arguments: ["recipe", "--version"]), stdoutPath: output) {
        case .success:
            let line = (FileSystem.readText(output) ?? "").split(separator: "\n").first.map(String.init) ?? ""
            return line.isEmpty ? "unknown (`recipe --version` printed nothing)" : line
        case .failure(let failure):
            return "unknown (`recipe --version` failed: \(failure.firstLine))"
        }
    }
}

/// A photo compared by `recipe-bench display`.
struct DisplayPhoto {
    /// The file's path.
    let path: String
    /// Its file name, as the report shows it.
    let name: String
    /// The upright size from the header (EXIF orientation applied).
    let width: Int
    let height: Int

    /// The longer side of the upright size.
    var longEdge: Int { max(width, height) }
}

/// The photos of the corpus folders, sorted into those compared, those too small to matter and
/// those whose header cannot be read.
///
/// ```swift
/// let photos = DisplayPhotos.find(corpus: "/data/corpus", longEdge: 2048, filter: "Bridge")
/// photos.compared.map(\.name)   // ["Bridge_by_Sander_Klootwijk.jpg"]
/// ```
struct DisplayPhotos {
    /// Photos with a long edge above the size: the ones rendered.
    var compared: [DisplayPhoto] = []
    /// Photos with a long edge at or below the size (a display render is the photo itself).
    var small: [DisplayPhoto] = []
    /// Photos whose header recipe's decoders refuse, with the reason (e.g. a 12-bit JPEG).
    var unreadable: [(name: String, why: String)] = []

    /// The images recipe reads directly in the corpus folders of `DisplayBenchmark.photoFolders` (in
    /// that order, each by name in byte order) whose name contains `filter`, sorted by the upright
    /// long edge in their header into compared and small.
    static func find(corpus: String, longEdge: Int, filter: String?) -> DisplayPhotos {
        var photos = DisplayPhotos()
        for folder in DisplayBenchmark.photoFolders {
            let directory = FileSystem.join(corpus, folder)
            let names = FileSystem.sortedEntryNames(directory).filter { name in
                let lower = name.lowercased()
                return ImageFileFormat.knownExtensions.contains { lower.hasSuffix("." + $0) } && (filter.map { name.contains($0) } ?? true)
            }
            for name in names {
                let path = FileSystem.join(directory, name)
                do throws(ImageError) {
                    let size = try ImageDecoders.open(path).info.uprightSize
                    let photo = DisplayPhoto(path: path, name: name, width: size.width, height: size.height)
                    if photo.longEdge > longEdge { photos.compared.append(photo) } else { photos.small.append(photo) }
                } catch {
                    photos.unreadable.append((name, error.reason))
                }
            }
        }
        return photos
    }
}

/// A recipe of the sweep: a file of the package's Recipes/, or none (`recipe render` without `--recipe`).
struct DisplayRecipe {
    /// The name in the report: the file name without `.recipe.yaml`, or `(none)`.
    let name: String
    /// The recipe file, nil for none.
    let path: String?

    /// No recipe, then every `*.recipe.yaml` in `folder` by name.
    static func all(in folder: String) -> [DisplayRecipe] {
        let suffix = ".recipe.yaml"
        let files = FileSystem.sortedEntryNames(folder).filter { $0.hasSuffix(suffix) }
        return [DisplayRecipe(name: "(none)", path: nil)]
            + files.map { DisplayRecipe(name: String($0.dropLast(suffix.count)), path: FileSystem.join(folder, $0)) }
    }
}

/// One photo × recipe pair, by index into the sweep's photos and recipes.
struct DisplayPair {
    let photo: Int
    let recipe: Int
}

/// What one pair came to.
enum DisplayOutcome {
    /// All three renders ran and the two small images were compared.
    case compared(ImageDifference, seconds: Double)
    /// A render (its first stderr line) or the comparison failed; the bench will exit 1.
    case failed(step: String, why: String, seconds: Double)

    /// The PSNR, nil unless compared.
    var psnr: Double? {
        guard case .compared(let difference, _) = self else { return nil }
        return difference.psnr
    }

    /// `47.31 dB, 12.4 s` or `FAILED (full render): …, 3.2 s`, for the progress line.
    var progressText: String {
        switch self {
        case .compared(let difference, let seconds):
            return "\(Format.fixed(difference.psnr, 2)) dB, \(Format.fixed(seconds, 1)) s"
        case .failed(let step, let why, let seconds):
            return "FAILED (\(step)): \(why), \(Format.fixed(seconds, 1)) s"
        }
    }
}

/// The pairs still to render and the outcomes of those done, shared by the worker threads: each
/// takes the next pair, renders it, and hands in the outcome with its progress line.
final class DisplaySweep: Sendable {
    private let pairs: [DisplayPair]
    /// The next pair to hand out, how many are done, and each pair's outcome (nil until it is done).
    private let state: Mutex<(next: Int, done: Int, outcomes: [DisplayOutcome?])>

    init(pairs: [DisplayPair]) {
        self.pairs = pairs
        state = Mutex((next: 0, done: 0, outcomes: Array(repeating: nil, count: pairs.count)))
    }

    /// The next pair to render and its index, nil when all have been taken.
    func next() -> (index: Int, pair: DisplayPair)? {
        state.withLock { state in
            guard state.next < pairs.count else { return nil }
            state.next += 1
            return (state.next - 1, pairs[state.next - 1])
        }
    }

    /// Records pair `index`'s outcome and writes `progress(pairs done)` to stderr, one line at a time.
    func finish(_ index: Int, _ outcome: DisplayOutcome, progress: (Int) -> String) {
        state.withLock { state in
            state.outcomes[index] = outcome
            state.done += 1
            note(progress(state.done))
        }
    }

    /// Every pair's outcome, nil for a pair not finished (none, once the workers are joined).
    var outcomes: [DisplayOutcome?] { state.withLock { $0.outcomes } }
}
