import Glibc

/// Which bench photo an engine row reads; ratios compare a row with the floor row of the same
/// photo. The raw value is the photo's name in the report.
enum BenchImage: String, CaseIterable {
    /// `bench/photo24-baseline-q95.jpg`: 4000×6000 baseline JPEG, quality 95.
    case baseline
    /// `bench/photo24-progressive.jpg`: the same size, progressive.
    case progressive

    /// Both photos' headers and file sizes.
    typealias Inputs = (headers: [BenchImage: PhotoHeader], sizes: [BenchImage: Int])

    /// The headers and sizes of both photos in `corpus`/bench, or the first that cannot be read.
    static func inputs(corpus: String) -> Result<Inputs, PhotoHeader.Problem> {
        var read: Inputs = ([:], [:])
        for image in allCases {
            let path = image.path(corpus: corpus)
            switch PhotoHeader.read(path: path) {
            case .failure(let problem): return .failure(problem)
            case .success(let header): read.headers[image] = header
            }
            read.sizes[image] = FileSystem.size(path) ?? 0
        }
        return .success(read)
    }

    /// The file name inside `corpus/bench/`.
    var fileName: String {
        switch self {
        case .baseline: return "photo24-baseline-q95.jpg"
        case .progressive: return "photo24-progressive.jpg"
        }
    }

    /// The photo's path in `corpus`.
    func path(corpus: String) -> String { FileSystem.join(corpus, "bench/" + fileName) }
}

/// What one row of the engine benchmark (`recipe-bench engine`) runs. Single-photo tasks run once
/// per bench photo; the batch tasks run once on the corpus/bench batch.
///
/// The 5-op chain is the one of `../shared/bench/README.md`: exposure ×1.19, contrast 1.15 about
/// mid-grey, saturation 1.3, white-balance gains 1.06/1.00/0.94, gamma 1/1.1.
enum EngineTask: CaseIterable {
    /// `djpeg IMG | cjpeg -quality 90 > out.jpg`: the libjpeg-turbo floor.
    case floor
    /// `fused_chain IMG out.jpg`: the single-pass C reference (libjpeg-turbo, 1 thread).
    case fusedChain
    /// `vips_chain chain IMG out.jpg`: the chain through the libvips C API.
    case vipsChain
    /// GraphicsMagick `gm convert` with the chain, as peers.sh has it.
    case graphicsMagick
    /// ImageMagick 6 `/usr/bin/convert` with the chain and peers.sh's raised resource limits.
    case imageMagickRaised
    /// ImageMagick 6 with the chain under the stock (Debian) policy.
    case imageMagickStock
    /// `recipe render IMG -o out.jpg`: no recipe, the engine's decode + encode.
    case recipeIdentity
    /// `recipe render IMG --recipe chain.recipe.yaml -o out.jpg`: the chain, fused.
    case recipeChain
    /// The same with `--no-fuse`: every operation a pass of its own.
    case recipeNoFuse
    /// `vips_chain display IMG out.jpg`: shrink-on-load to 2048, chain, unsharp mask.
    case vipsDisplay
    /// `recipe render … --size display` with the chain (no unsharp mask).
    case recipeDisplay
    /// `recipe render … --size display` with the chain + unsharp mask: the display path's real
    /// counterpart, skipped while the engine does not render `sharpen`.
    case recipeDisplayUnsharp
    /// `recipe render` with chain + unsharp mask + resize to 2048, skipped while the engine does
    /// not render `sharpen` or `resize`.
    case recipeUnsharpResize
    /// `vips_chain usm IMG out.jpg`: chain, unsharp mask at full size, resize to long edge 2048;
    /// measured only when the recipe row before it could be (it has nothing to compare with otherwise).
    case vipsUnsharpResize
    /// The batch through `recipe apply` with the chain, 2 jobs (`--jobs 2`): one process.
    case batchApply
    /// The batch through `vips_chain chain`, 2 jobs.
    case batchVips
    /// The batch through `fused_chain`, 2 jobs.
    case batchFused
    /// The batch through one ImageMagick `mogrify` process with the chain (OpenMP threads left
    /// at ImageMagick's default, so it may use every core).
    case batchMogrify

    /// The tasks run on each bench photo, in table order.
    static let perPhoto: [EngineTask] = allCases.filter { !$0.isBatch }
    /// The batch tasks, in table order.
    static let batch: [EngineTask] = allCases.filter(\.isBatch)

    /// True for the tasks that render the whole batch folder.
    var isBatch: Bool {
        switch self {
        case .batchApply, .batchVips, .batchFused, .batchMogrify: return true
        default: return false
        }
    }

    /// True for the recipe rows whose recipe uses operations the engine may not render yet: when
    /// the binary says "is not rendered by this build yet", the row is skipped, not failed.
    var mayBeUnrendered: Bool { self == .recipeDisplayUnsharp || self == .recipeUnsharpResize }

    /// The task whose wall time this task's "÷ peer" column divides by (same photo), if any.
    var peer: EngineTask? {
        switch self {
        case .fusedChain, .graphicsMagick, .imageMagickRaised, .imageMagickStock, .recipeChain: return .vipsChain
        case .recipeNoFuse: return .recipeChain
        case .recipeDisplay, .recipeDisplayUnsharp: return .vipsDisplay
        case .recipeUnsharpResize: return .vipsUnsharpResize
        case .batchApply, .batchFused, .batchMogrify: return .batchVips
        case .floor, .vipsChain, .recipeIdentity, .vipsDisplay, .vipsUnsharpResize, .batchVips: return nil
        }
    }

    /// The row's label in the table (Markdown; pipes escaped).
    func title(_ image: BenchImage?) -> String {
        let photo = image?.rawValue ?? "batch"
        switch self {
        case .floor: return "floor `djpeg \\| cjpeg -quality 90`, \(photo)"
        case .fusedChain: return "fused_chain (C, 1 thread, 1 pass), chain, \(photo)"
        case .vipsChain: return "vips_chain chain (libvips C API), \(photo)"
        case .graphicsMagick: return "GraphicsMagick chain, \(photo)"
        case .imageMagickRaised: return "ImageMagick chain (raised limits), \(photo)"
        case .imageMagickStock: return "ImageMagick chain (Debian policy), \(photo)"
        case .recipeIdentity: return "recipe identity (no recipe), full size, \(photo)"
        case .recipeChain: return "**recipe chain, full size**, \(photo)"
        case .recipeNoFuse: return "recipe chain `--no-fuse`, full size, \(photo)"
        case .vipsDisplay: return "vips_chain display (2048 + chain + unsharp), \(photo)"
        case .recipeDisplay: return "recipe chain `--size display` (no unsharp), \(photo)"
        case .recipeDisplayUnsharp: return "recipe chain + unsharp `--size display`, \(photo)"
        case .vipsUnsharpResize: return "vips_chain usm (chain + unsharp + resize 2048), \(photo)"
        case .recipeUnsharpResize: return "recipe chain + unsharp + resize 2048, \(photo)"
        case .batchApply: return "**batch: recipe apply chain, 2 jobs** (`--jobs 2`, 1 process)"
        case .batchVips: return "batch: vips_chain chain, 2 jobs (`xargs -P 2`)"
        case .batchFused: return "batch: fused_chain, 2 jobs (`xargs -P 2`)"
        case .batchMogrify: return "batch: ImageMagick `mogrify` chain (raised limits, 1 process, default OpenMP threads)"
        }
    }
}

/// One row of the engine table: a task on a photo (nil for the batch rows), numbered from 1.
struct EngineRow: Hashable {
    /// What the row runs.
    let task: EngineTask
    /// The photo it reads; nil for a batch row.
    let image: BenchImage?
    /// The row number shown in the table.
    let number: Int

    /// Every row in table order: the single-photo tasks on the baseline photo, then on the
    /// progressive photo, then the batch.
    static let all: [EngineRow] = {
        var rows: [EngineRow] = []
        for image in BenchImage.allCases {
            for task in EngineTask.perPhoto { rows.append(EngineRow(task: task, image: image, number: rows.count + 1)) }
        }
        for task in EngineTask.batch { rows.append(EngineRow(task: task, image: nil, number: rows.count + 1)) }
        return rows
    }()

    /// The row of `task` on `image` (nil for the batch).
    static func of(_ task: EngineTask, _ image: BenchImage?) -> EngineRow {
        all.first { $0.task == task && $0.image == (task.isBatch ? nil : image) }!
    }

    /// The row whose wall time the "÷ floor" column divides by: the floor on the same photo.
    var floorRow: EngineRow? { image.map { EngineRow.of(.floor, $0) } }

    /// The row whose wall time the "÷ peer" column divides by.
    var peerRow: EngineRow? { task.peer.map { EngineRow.of($0, image) } }

    /// The row's label in the table.
    var title: String { task.title(image) }
}

/// What to do for one engine row.
enum EnginePlan {
    /// Measure this command.
    case run(Command)
    /// Do not measure; the string says why (a tool is missing).
    case skip(String)
    /// Cannot be measured because its setup failed (e.g. a gcc build); the bench will exit 1.
    case fail(String)
}

/// The recipes the engine rows render, written into the scratch folder.
enum EngineRecipes {
    /// The 5-op chain in our ops (exposure and saturation work in linear light, as the language
    /// specifies; the white-balance gains as a diagonal matrix, like the peers' per-channel gains).
    static let chain = """
        format: dev.recipe.edit
        version: 1.1
        stages:
          - exposure: 0.25089    # ×1.19 = 2^0.25089
          - contrast: 1.15
          - saturation: 1.3
          - matrix: [[1.06, 0, 0], [0, 1, 0], [0, 0, 0.94]]   # the white-balance gains of the peers
          - gamma: 0.90909       # 1/1.1

        """

    /// The chain + unsharp mask (sigma 1, amount 0.8, as vips_chain's `usm`), for `--size display`.
    static let chainUnsharp = chain + "  - sharpen: {amount: 0.8, sigma: 1px}\n"

    /// The chain + unsharp mask at full size + resize to long edge 2048 (Lanczos3), as vips_chain's `usm`.
    static let chainUnsharpResize = chainUnsharp + "  - resize: {long-edge: 2048px, kernel: lanczos3}\n"
}

/// The external programs the engine rows need, found or built before anything is measured.
struct EngineToolbox {
    /// `djpeg` on PATH.
    var djpeg: String?
    /// `cjpeg` on PATH.
    var cjpeg: String?
    /// ImageMagick 6 `/usr/bin/convert` (checked with `-version`), or why there is none.
    var imageMagick: Result<String, ToolProblem>
    /// ImageMagick 6 `/usr/bin/mogrify` (checked with `-version`), or why there is none.
    var mogrify: Result<String, ToolProblem>
    /// `gm` on PATH.
    var graphicsMagick: String?
    /// `xargs` on PATH (the batch driver).
    var xargs: String?
    /// The built `fused_chain`, or why there is none.
    var fusedChain: Result<String, ToolProblem>
    /// The built `vips_chain`, or why there is none.
    var vipsChain: Result<String, ToolProblem>

    /// Why a program is not available: it or its prerequisites are missing (the rows are
    /// skipped), or its build failed (the rows fail).
    enum ToolProblem: Error {
        /// The program, or gcc, a header, a library or the source, is missing.
        case missing(String)
        /// gcc ran and failed.
        case failed(String)
    }

    /// The libvips runtime library vips_chain links against (no headers needed: vips_chain.c
    /// declares its prototypes).
    static let libvips = "/usr/lib/x86_64-linux-gnu/libvips.so.42"
    /// GObject, for `g_object_unref`.
    static let libgobject = "/usr/lib/x86_64-linux-gnu/libgobject-2.0.so.0"
    /// libjpeg-turbo's header, which fused_chain.c includes.
    static let jpeglibHeader = "/usr/include/jpeglib.h"

    /// Finds the tools and builds `fused_chain` and `vips_chain` from `peerSources` (the folder
    /// holding peers.sh, fused_chain.c, vips_chain.c) into `scratch`, as peers.sh does.
    static func discover(runner: ProcessRunner, scratch: ScratchDirectory, peerSources: String) -> EngineToolbox {
        let gcc = FileSystem.which("gcc")
        func build(_ name: String, needs: [String], flags: [String], libraries: [String]) -> Result<String, ToolProblem> {
            let source = FileSystem.join(peerSources, name + ".c")
            guard let gcc else { return .failure(.missing("gcc not on PATH")) }
            if let absent = ([source] + needs).first(where: { !FileSystem.exists($0) }) {
                return .failure(.missing("\(absent) missing"))
            }
            let binary = scratch.file(name)
            let command = Command(executable: gcc, arguments: ["gcc"] + flags + ["-o", binary, source] + libraries,
                                  expectedOutput: binary)
            switch runner.run(command) {
            case .success: return .success(binary)
            case .failure(let failure): return .failure(.failed("gcc \(name).c " + failure.description))
            }
        }
        return EngineToolbox(
            djpeg: FileSystem.which("djpeg"), cjpeg: FileSystem.which("cjpeg"),
            imageMagick: imageMagickTool("/usr/bin/convert", runner: runner, scratch: scratch),
            mogrify: imageMagickTool("/usr/bin/mogrify", runner: runner, scratch: scratch),
            graphicsMagick: FileSystem.which("gm"),
            xargs: FileSystem.which("xargs"),
            fusedChain: build("fused_chain", needs: [jpeglibHeader], flags: ["-O3", "-march=x86-64-v2"],
                              libraries: ["-ljpeg", "-lm"]),
            vipsChain: build("vips_chain", needs: [libvips, libgobject], flags: ["-O2"],
                             libraries: [libvips, libgobject]))
    }

    /// `path` when it is an executable ImageMagick program (its `-version`, written into the
    /// scratch directory, starts `Version: ImageMagick`), else why not: other programs, or a
    /// stand-in script, may be installed under that name.
    static func imageMagickTool(_ path: String, runner: ProcessRunner, scratch: ScratchDirectory)
        -> Result<String, ToolProblem>
    {
        guard FileSystem.isExecutable(path) else { return .failure(.missing("\(path) missing")) }
        let versionFile = scratch.file(FileSystem.baseName(path) + "-version.txt")
        let probe = Command(executable: path, arguments: [FileSystem.baseName(path), "-version"])
        if case .success = runner.run(probe, stdoutPath: versionFile),
            let text = FileSystem.readText(versionFile), text.hasPrefix("Version: ImageMagick")
        {
            return .success(path)
        }
        return .failure(.missing("\(path) is not ImageMagick"))
    }
}

/// The files a run of the engine benchmark writes into its scratch folder before measuring.
struct EngineInputs {
    /// The corpus folder.
    let corpus: String
    /// The scratch folder.
    let scratch: ScratchDirectory
    /// `chain.recipe.yaml`.
    let chainRecipe: String
    /// `chain-unsharp.recipe.yaml`.
    let chainUnsharpRecipe: String
    /// `chain-unsharp-resize.recipe.yaml`.
    let chainUnsharpResizeRecipe: String
    /// `im-policy/`: the ImageMagick policy with raised limits (peers.sh's), for `MAGICK_CONFIGURE_PATH`.
    let imagePolicyFolder: String
    /// `batch.list`: the batch photos, one path per line.
    let batchList: String
    /// `batch/`: where the batch rows write.
    let batchOutputs: String
    /// `batch-in/`: a link to each batch photo, the folder `recipe apply` is given.
    let applyInputs: String
    /// `apply-out/`: where `recipe apply` writes (deleted before each run).
    let applyOutputs: String
    /// `mogrify-out/`: where `mogrify -path` writes.
    let mogrifyOutputs: String
    /// The batch photos (absolute or corpus-relative paths), sorted by name.
    let batchPhotos: [String]

    /// The most photos the batch takes from corpus/bench (the "batch of 20").
    static let batchLimit = 20

    /// The ImageMagick policy peers.sh writes: Debian's policy caps memory at 256 MiB (the pixel
    /// cache spills to mmap/disk); these limits lift the cap without touching /etc.
    static let raisedPolicy = """
        <policymap>
          <policy domain="resource" name="memory" value="8GiB"/>
          <policy domain="resource" name="map" value="8GiB"/>
          <policy domain="resource" name="area" value="1GP"/>
          <policy domain="resource" name="disk" value="16GiB"/>
        </policymap>

        """

    /// Writes the recipes, the ImageMagick policy and the batch list; nil (errno set) if a write fails.
    init?(corpus: String, scratch: ScratchDirectory) {
        self.corpus = corpus
        self.scratch = scratch
        chainRecipe = scratch.file("chain.recipe.yaml")
        chainUnsharpRecipe = scratch.file("chain-unsharp.recipe.yaml")
        chainUnsharpResizeRecipe = scratch.file("chain-unsharp-resize.recipe.yaml")
        imagePolicyFolder = scratch.file("im-policy")
        batchList = scratch.file("batch.list")
        batchOutputs = scratch.file("batch")
        applyInputs = scratch.file("batch-in")
        applyOutputs = scratch.file("apply-out")
        mogrifyOutputs = scratch.file("mogrify-out")
        batchPhotos = Self.firstPhotos(in: FileSystem.join(corpus, "bench"), limit: Self.batchLimit)
        guard FileSystem.writeFile(EngineRecipes.chain, to: chainRecipe),
            FileSystem.writeFile(EngineRecipes.chainUnsharp, to: chainUnsharpRecipe),
            FileSystem.writeFile(EngineRecipes.chainUnsharpResize, to: chainUnsharpResizeRecipe),
            mkdir(imagePolicyFolder, 0o755) == 0,
            FileSystem.writeFile(Self.raisedPolicy, to: FileSystem.join(imagePolicyFolder, "policy.xml")),
            mkdir(batchOutputs, 0o755) == 0,
            mkdir(mogrifyOutputs, 0o755) == 0,
            mkdir(applyInputs, 0o755) == 0,
            batchPhotos.allSatisfy({ symlink(FileSystem.absolute($0), FileSystem.join(applyInputs, FileSystem.baseName($0))) == 0 }),
            FileSystem.writeFile(batchPhotos.map { $0 + "\n" }.joined(), to: batchList)
        else { return nil }
    }

    /// Removes the subfolders (the scratch folder's own `remove()` only deletes plain files).
    func removeFolders() {
        for folder in [imagePolicyFolder, batchOutputs, applyInputs, applyOutputs, mogrifyOutputs] {
            FileSystem.removeTree(folder)
        }
    }

    /// The first `limit` `*.jpg` files in `folder` by name (byte order, like `ls | sort` in the C locale).
    static func firstPhotos(in folder: String, limit: Int) -> [String] {
        FileSystem.sortedEntryNames(folder).filter { $0.hasSuffix(".jpg") }.prefix(limit).map { FileSystem.join(folder, $0) }
    }

    /// The output file of row `row`.
    func output(_ row: EngineRow) -> String { scratch.file("row\(row.number).jpg") }
}

extension EngineToolbox {
    /// The plan of every row: its command, or why it is skipped or cannot run.
    func plans(recipe: String, inputs: EngineInputs) -> [EngineRow: EnginePlan] {
        /// The plan for a peer found or built: `plan(program)`, or skip when missing, fail when its build failed.
        func peer(_ built: Result<String, ToolProblem>, _ plan: (String) -> EnginePlan) -> EnginePlan {
            switch built {
            case .success(let binary): return plan(binary)
            case .failure(.missing(let why)): return .skip(why)
            case .failure(.failed(let why)): return .fail(why)
            }
        }
        /// `xargs -P 2` over the batch list, each photo through `sh -c script sh fixed… PHOTO`.
        func batch(_ script: String, _ fixed: [String]) -> EnginePlan {
            guard let xargs else { return .skip("xargs not on PATH") }
            guard !inputs.batchPhotos.isEmpty else { return .skip("no .jpg in \(inputs.corpus)/bench") }
            return .run(Command(
                executable: xargs,
                arguments: ["xargs", "-P", "2", "-n", "1", "-d", "\\n", "-a", inputs.batchList, "sh", "-c", script, "sh"] + fixed))
        }
        let chainIM = ["-evaluate", "multiply", "1.19", "-level", "6.5%,93.5%", "-modulate", "100,130,100",
                       "-color-matrix", "1.06 0 0 0 1 0 0 0 0.94", "-gamma", "1.1"]
        let jpegIM = ["-sampling-factor", "2x2", "-define", "jpeg:optimize-coding=false", "-quality", "90"]
        let chainGM = ["-operator", "All", "Multiply", "1.19", "-level", "6.5%,1.0,93.5%", "-modulate", "100,130,100",
                       "-recolor", "1.06 0 0 0 1 0 0 0 0.94", "-gamma", "1.1"]
        let jpegGM = ["-sampling-factor", "2x2", "-quality", "90"]

        var plans: [EngineRow: EnginePlan] = [:]
        for row in EngineRow.all {
            let input = row.image?.path(corpus: inputs.corpus) ?? ""
            let output = inputs.output(row)
            func render(_ extra: [String]) -> EnginePlan {
                .run(Command(executable: recipe, arguments: ["recipe", "render", input] + extra + ["-o", output],
                             expectedOutput: output))
            }
            switch row.task {
            case .floor:
                let missing = [("djpeg", djpeg), ("cjpeg", cjpeg)].filter { $0.1 == nil }.map(\.0)
                plans[row] = missing.isEmpty
                    ? .run(.shell("djpeg \(Shell.quote(input)) | cjpeg -quality 90 > \(Shell.quote(output))", output: output))
                    : .skip(missing.joined(separator: ", ") + " not on PATH")
            case .fusedChain:
                plans[row] = peer(fusedChain) {
                    .run(Command(executable: $0, arguments: ["fused_chain", input, output], expectedOutput: output))
                }
            case .vipsChain, .vipsDisplay, .vipsUnsharpResize:
                let mode = row.task == .vipsChain ? "chain" : row.task == .vipsDisplay ? "display" : "usm"
                plans[row] = peer(vipsChain) {
                    .run(Command(executable: $0, arguments: ["vips_chain", mode, input, output], expectedOutput: output))
                }
            case .graphicsMagick:
                plans[row] = graphicsMagick.map {
                    .run(Command(executable: $0, arguments: ["gm", "convert", input] + chainGM + jpegGM + [output], expectedOutput: output))
                } ?? .skip("gm not on PATH")
            case .imageMagickRaised:
                plans[row] = peer(imageMagick) {
                    .run(Command(executable: "/usr/bin/env",
                                 arguments: ["env", "MAGICK_CONFIGURE_PATH=" + inputs.imagePolicyFolder, $0, input]
                                    + chainIM + jpegIM + [output],
                                 expectedOutput: output))
                }
            case .imageMagickStock:
                plans[row] = peer(imageMagick) {
                    .run(Command(executable: $0, arguments: ["convert", input] + chainIM + jpegIM + [output], expectedOutput: output))
                }
            case .recipeIdentity: plans[row] = render([])
            case .recipeChain: plans[row] = render(["--recipe", inputs.chainRecipe])
            case .recipeNoFuse: plans[row] = render(["--recipe", inputs.chainRecipe, "--no-fuse"])
            case .recipeDisplay: plans[row] = render(["--recipe", inputs.chainRecipe, "--size", "display"])
            case .recipeDisplayUnsharp: plans[row] = render(["--recipe", inputs.chainUnsharpRecipe, "--size", "display"])
            case .recipeUnsharpResize: plans[row] = render(["--recipe", inputs.chainUnsharpResizeRecipe])
            case .batchApply:
                guard let first = inputs.batchPhotos.first else {
                    plans[row] = .skip("no .jpg in \(inputs.corpus)/bench")
                    continue
                }
                plans[row] = .run(Command(
                    executable: recipe,
                    arguments: ["recipe", "apply", inputs.chainRecipe, inputs.applyInputs, "-o", inputs.applyOutputs,
                                "--jobs", "2", "--force", "--progress", "none", "--follow-links"],
                    expectedOutput: FileSystem.join(inputs.applyOutputs, FileSystem.baseName(first)),
                    freshFolder: inputs.applyOutputs))
            case .batchMogrify:
                guard let first = inputs.batchPhotos.first else {
                    plans[row] = .skip("no .jpg in \(inputs.corpus)/bench")
                    continue
                }
                plans[row] = peer(mogrify) {
                    .run(Command(executable: "/usr/bin/env",
                                 arguments: ["env", "MAGICK_CONFIGURE_PATH=" + inputs.imagePolicyFolder, $0,
                                             "-path", inputs.mogrifyOutputs] + jpegIM + chainIM + inputs.batchPhotos,
                                 expectedOutput: FileSystem.join(inputs.mogrifyOutputs, FileSystem.baseName(first))))
                }
            case .batchVips:
                plans[row] = peer(vipsChain) { binary in
                    batch("exec \"$1\" chain \"$3\" \"$2/v_${3##*/}\"", [binary, inputs.batchOutputs])
                }
            case .batchFused:
                plans[row] = peer(fusedChain) { binary in
                    batch("exec \"$1\" \"$3\" \"$2/f_${3##*/}\"", [binary, inputs.batchOutputs])
                }
            }
        }
        return plans
    }
}
