import RecipeCodecs
import RecipeColor
import RecipeCore
import RecipeHistory
import RecipeKernels
import RecipeLanguage
import RecipeOps
import RecipeOptimizer
import RecipeRender
#if canImport(Glibc)
import Glibc
#endif

/// One streaming stage of a render.
package enum RenderStage: Sendable {
    /// Point programs over 8-bit RGB strips (one when fused).
    case point([PointProgram])
    /// A neighbourhood, geometric or composite stage, or the routing of a branch point.
    case barrier(ExecutionPlan.Barrier)
}

/// What a render of a recipe runs, and the size of the decoded image it starts from.
package struct PlannedRender: Sendable {
    package var stages: [RenderStage]
    /// The upright size the photo is decoded and resampled to before the first stage.
    package var sourceSize: (width: Int, height: Int)?
    /// The size the stages' output is resampled to at the end (nil: none): a smaller render of a
    /// photo that is decoded in full anyway runs the full render's stages and downscales last.
    package var finalSize: (width: Int, height: Int)? = nil
    /// The kernel of the resample to `sourceSize` (a resize of the recipe moved there).
    package var sourceKernel: ResampleKernel = .lanczos3
    /// Whether `sourceSize` is a reduced decode's own size (decoded so, not resampled to it).
    package var sourceIsReducedDecode = false
    /// The photo's colours and the output's, whose conversions the stages carry at their ends.
    package var color: PhotoColor? = nil
    /// The recipes it renders, as messages name them (`look.recipe.yaml`, `base + film`).
    package var recipeName: String? = nil
    /// How a camera raw photo is developed (the recipe's `develop` stage; nil: the defaults).
    package var develop: RawDevelop? = nil
    /// The most reading a recipe's file held before decoding (a `.cube`'s text and its table,
    /// freed once planned): part of the peak when it is larger than the render's own.
    package var reading: RenderEstimate.Part? = nil
    /// What planning found that the render should say (a lens stage left uncorrected).
    package var warnings: [ImageWarning] = []
    /// Why a lens stage corrects nothing on this photo (nil: every lens stage corrects it).
    package var uncorrectedLens: String?

    package init(stages: [RenderStage], sourceSize: (width: Int, height: Int)?, finalSize: (width: Int, height: Int)? = nil,
                 sourceKernel: ResampleKernel = .lanczos3, sourceIsReducedDecode: Bool = false, color: PhotoColor? = nil) {
        self.stages = stages
        self.sourceSize = sourceSize
        self.finalSize = finalSize
        self.sourceKernel = sourceKernel
        self.sourceIsReducedDecode = sourceIsReducedDecode
        self.color = color
    }
}

/// What planning needs to know of the photo beyond its upright size: how its decoder can reduce it.
package struct PhotoGeometry: Sendable {
    package var upright: (width: Int, height: Int)
    /// The stored size (before orientation) and the DCT reductions the decoder offers.
    package var stored: (width: Int, height: Int)
    package var supportedScaleDenominators: [Int]
    package var transposes: Bool

    package init(_ info: ImageInfo, supported: [Int]) {
        upright = info.uprightSize
        stored = (info.width, info.height)
        supportedScaleDenominators = supported
        transposes = info.orientation.transposes
    }

    /// An upright size in stored (pre-orientation) terms.
    package func stored(_ upright: (width: Int, height: Int)) -> (width: Int, height: Int) {
        transposes ? (width: upright.height, height: upright.width) : upright
    }

    /// The DCT reduction a render starting from `source` (upright) decodes with: what RenderJob
    /// decodes with, and what planning asks to know whether the photo is decoded in full.
    /// `exact`: `source` is a reduced decode's own size (`reduced(for:)`), decoded so.
    package func denominator(for source: (width: Int, height: Int), exact: Bool = false) -> Int {
        let target = stored(source)
        if exact, let d = supportedScaleDenominators.first(where: {
            (stored.width + $0 - 1) / $0 == target.width && (stored.height + $0 - 1) / $0 == target.height
        }) {
            return d
        }
        return ReducedDecode.denominator(width: stored.width, height: stored.height, target: target,
                                         supported: supportedScaleDenominators)
    }

    /// The upright size the decoder makes for a render that needs `wanted`, without resampling
    /// (nil: it decodes in full): what a full render's stages before a downscaling resize run on.
    package func reduced(for wanted: CanvasSize) -> CanvasSize? {
        let d = denominator(for: (wanted.width, wanted.height))
        guard d > 1 else { return nil }
        let w = (stored.width + d - 1) / d, h = (stored.height + d - 1) / d
        return transposes ? CanvasSize(width: h, height: w) : CanvasSize(width: w, height: h)
    }
}

/// The planning rules `RenderPlanner` applies: the display-size rule, the colour the output gets,
/// the render stages of an optimiser plan, and the files a recipe reads within the budget.
package enum RecipePlanning {
    /// Plans a checked graph for a render whose output fits `size`: the geometry is the graph's
    /// (full size); a smaller size scales the whole plan (px lengths, positional kernels, the
    /// decode size).
    ///
    /// Unless the photo is decoded in full anyway (`photo`: no DCT reduction fits, as for most
    /// photos under 5,700 px at display size): then the stages run at full size, as the full
    /// render's, and the result is downscaled last. A display render is the full render made
    /// smaller, and where a stage bends or clips after a neighbourhood op (clarity cut off at
    /// black and white), running it on pixels averaged first differs: a line drawing at 2048 px
    /// (shefta-shifa, 4256 px) gave 35.0–38.2 dB against the full render downscaled for three
    /// recipes, now identical. With wide windows on a coarse grid, the stages at full size cost
    /// little more than at display size there, as the decode takes most of it.
    package static func plan(_ graph: FilterGraph, size: RenderSize, fuse: Bool, readFile: @escaping Planner.FileReader,
                     photo: PhotoGeometry? = nil, color: ColorEndpoints = ColorEndpoints(),
                     lenses: [FilterGraph.NodeID: LensCorrection] = [:], rasters: [String: RasterMaskImage] = [:]) throws(PlanError) -> PlannedRender {
        let full = graph.nodes[graph.output].size
        let target = size.target(width: full.width, height: full.height)
        let scale = Double(max(target.width, target.height)) / Double(max(1, max(full.width, full.height)))
        let reduction: Planner.DecodeReduction = { photo?.reduced(for: $0) }
        let (plan, _) = try Planner.plan(graph, fuse: fuse, scale: scale, readFile: readFile, color: color, reduction: reduction, lenses: lenses, rasters: rasters)
        let planned = PlannedRender(stages: stages(of: plan), sourceSize: plan.sourceSize.map { ($0.width, $0.height) },
                                    sourceKernel: plan.sourceKernel ?? .lanczos3, sourceIsReducedDecode: plan.sourceIsReducedDecode)
        guard scale < 1, let photo, let source = planned.sourceSize, !planned.stages.isEmpty,
              source != photo.upright, photo.denominator(for: source) == 1 else { return planned }
        let (fullPlan, _) = try Planner.plan(graph, fuse: fuse, scale: 1, readFile: readFile, color: color, reduction: reduction, lenses: lenses, rasters: rasters)
        return PlannedRender(stages: stages(of: fullPlan), sourceSize: fullPlan.sourceSize.map { ($0.width, $0.height) },
                             finalSize: target, sourceKernel: fullPlan.sourceKernel ?? .lanczos3,
                             sourceIsReducedDecode: fullPlan.sourceIsReducedDecode)
    }

    /// `--profile` and `--intent` when given, else the recipe's `output:` settings, else keep and
    /// relative colorimetric.
    package static func output(_ profile: OutputProfile?, _ intent: RenderingIntent?, recipe: CheckedRecipe.Output?)
        -> (profile: OutputProfile, intent: RenderingIntent) {
        (profile ?? recipe?.profile.flatMap(OutputProfile.init(argument:)) ?? .keep,
         intent ?? recipe?.intent.flatMap(RenderingIntent.init(rawValue:)) ?? .relative)
    }

    /// The conversions a render of `graph` needs: none when the graph does nothing and the output
    /// is in the photo's own space (an identity recipe leaves every sample as it is).
    package static func colorEnds(_ color: PhotoColor, _ graph: FilterGraph) -> ColorEndpoints {
        graph.nodes.count == 1 && color.sameSpace ? ColorEndpoints() : color.endpoints
    }

    /// `file:line:column: ` of a source range, or `fallback: ` without one: how a message points
    /// into a recipe.
    package static func position(_ range: SourceRange?, else fallback: String) -> String {
        range.map { "\($0.file):\($0.start.line):\($0.start.column): " } ?? (fallback.isEmpty ? "" : fallback + ": ")
    }

    /// The render stages of a plan: consecutive point passes share one stage (the unfused plan
    /// has many); barriers stand alone. (Programs are built once the grouping is known: only a
    /// lone program runs on 8-bit rows and needs its tables.)
    package static func stages(of plan: ExecutionPlan) -> [RenderStage] {
        var group: [ExecutionPlan.Pass] = []
        var stages: [RenderStage] = []
        func flush() {
            guard !group.isEmpty else { return }
            stages.append(.point(group.map { PointProgram(steps: $0.steps.map { $0.kernel }, tables: group.count == 1) }))
            group = []
        }
        for pass in plan.passes {
            guard let barrier = pass.barrier else {
                group.append(pass)
                continue
            }
            flush()
            stages.append(.barrier(barrier))
        }
        flush()
        return stages
    }

    /// The largest `.cube` the graph reads, as what reading it holds (`cubeBytes`).
    package static func reading(_ graph: FilterGraph, recipe: String) -> RenderEstimate.Part? {
        let folder = recipe.contains("/") ? String(recipe[..<recipe.lastIndex(of: "/")!]) : "."
        var largest: RenderEstimate.Part?
        for node in graph.nodes where node.op == "lut" {
            guard case .file(let path)? = node.params["file"], path.lowercased().hasSuffix(".cube") else { continue }
            let full = path.hasPrefix("/") ? path : folder + "/" + path
            guard let bytes = try? cubeBytes(full).bytes, bytes > largest?.bytes ?? 0 else { continue }
            largest = RenderEstimate.Part(what: "reading \(path) (its text and table)", bytes: bytes)
        }
        return largest
    }

    /// Reads files a recipe names (LUTs), relative to the recipe's folder. The checker has
    /// already kept them inside it unless `--allow-outside-files` was given.
    /// With `budget` (the render's share of `--max-memory`), a `.cube` whose text and table would
    /// not fit is refused from its header, before it is read or parsed.
    package static func fileReader(for recipe: String, budget: Int? = nil) -> Planner.FileReader {
        let folder = recipe.contains("/") ? String(recipe[..<recipe.lastIndex(of: "/")!]) : "."
        return { path in
            let full = path.hasPrefix("/") ? path : folder + "/" + path
            if let budget, full.lowercased().hasSuffix(".cube") { try checkCube(full, budget: budget) }
            return try InputFile.readAll(full, limit: maxFileBytes)
        }
    }

    /// What reading a `.cube` holds at its peak: its text, and its table (three floats an entry)
    /// twice, once parsed and once as the pass's copy. The sizes come from the header (the lines
    /// before the first row of numbers, within its first 64 KiB).
    package static func cubeBytes(_ path: String) throws(ImageError) -> (bytes: Int, size3D: Int, size1D: Int) {
        let fd = try InputFile.openRegular(path)
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw ImageError(.unreadable, path: path, "cannot read: \(errnoText())") }
        var head = [UInt8](repeating: 0, count: 65536)
        let n = head.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        var size3D = 0, size1D = 0
        for line in String(decoding: head.prefix(max(0, n)), as: UTF8.self).split(separator: "\n") {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            guard let first = words.first else { continue }
            if first.first.map({ $0.isNumber || $0 == "-" || $0 == "." }) == true { break }
            if words.count == 2, let v = Int(words[1]), v > 0, v <= 65536 {
                if first == "LUT_3D_SIZE" { size3D = v } else if first == "LUT_1D_SIZE" { size1D = v }
            }
        }
        let entries = size1D + size3D * size3D * size3D
        return (Int(st.st_size) + 2 * 12 * entries, size3D, size1D)
    }

    /// Refuses, from their headers, the files `graph` reads (`.cube` LUTs) that would not fit in
    /// `budget`: what a render checks as it plans, for a command that must know before it writes.
    package static func checkFiles(_ graph: FilterGraph, recipe: String, budget: Int) throws(ImageError) {
        let folder = recipe.contains("/") ? String(recipe[..<recipe.lastIndex(of: "/")!]) : "."
        for node in graph.nodes where node.op == "lut" {
            guard case .file(let path)? = node.params["file"], path.lowercased().hasSuffix(".cube") else { continue }
            try checkCube(path.hasPrefix("/") ? path : folder + "/" + path, budget: budget)
        }
    }

    static func checkCube(_ path: String, budget: Int) throws(ImageError) {
        let (bytes, size3D, size1D) = try cubeBytes(path)
        guard bytes > budget else { return }
        let what = size3D > 0 ? "a 3D LUT of \(size3D)³" : "a 1D LUT of \(size1D)"
        throw ImageError(.overBudget, path: path, "\(what) needs about \(MemoryBudget.text(bytes)) to read, over this render's budget of \(MemoryBudget.text(budget)) (--max-memory); nothing read")
    }

    /// A 256³ .cube is about 400 MiB of text; 128 MiB covers every size tools export (65³ and below).
    package static let maxFileBytes = 128 << 20
}
