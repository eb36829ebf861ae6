import RecipeCodecs
import RecipeColor
import RecipeCore
import RecipeHistory
import RecipeKernels
import RecipeLanguage
import RecipeOptimizer

/// The one planner: from a `RenderRequest` to the `RenderPlan` a job runs. It opens the photo's
/// header once, resolves the raw develop (a half-size develop is a photo of half the size),
/// checks and composes the recipes for that size, chooses the colour, and plans the passes within
/// the budget. It prints nothing: what it found is in the plan (`diagnostics`) or in the error.
///
/// ```text
/// render · apply · edit/revert · preview · explain ──RenderRequest──▶ RenderPlanner.plan
///     ──▶ RenderPlan (graph, stages, colour, diagnostics) ──job(output:)──▶ RenderJob.run
/// ```
package enum RenderPlanner {
    /// Plans `request`. A photo that cannot be opened is planned without a size (the recipes
    /// checked for the language's nominal photo) so that the job reports the photo's own error.
    /// A camera raw whose recipes have no `develop` stage (or that has no recipe) gets the default
    /// look first (`RawDefaultLook`); without a recipe, any other photo is planned as itself.
    package static func plan(_ request: RenderRequest) throws(RenderPlanError) -> RenderPlan {
        var plan = RenderPlan(request: request)
        var header: Header
        if request.recipes.isEmpty {
            guard Self.mayBeRaw(request) else { return plan }
            header = Self.header(request)
            guard header.info?.raw != nil else { return plan }
        } else {
            header = Self.header(request)
        }
        var checked = check(request.recipes, size: header.size)
        // A raw developed at half size is a photo of half the size: its header read again for
        // that develop, and the recipes checked again for it.
        if header.info?.raw != nil, let develop = checked.graph?.develop, develop.demosaic == .halfSize,
           let reopened = try? ImageDecoders.open(request.photo, options: request.decodeOptions(develop: develop)) {
            header = Header(info: reopened.info, geometry: PhotoGeometry(reopened.info, supported: reopened.supportedScaleDenominators))
            checked = check(request.recipes, size: header.size)
        }
        // The one place the default look is decided: a raw, and every recipe checked without a
        // `develop` stage among them (none at all, too). A recipe with its own develop owns it.
        if header.info?.raw != nil, checked.graph?.develop == nil, checked.graph != nil || request.recipes.isEmpty {
            let look = defaultLook(size: header.size)
            checked.graph = checked.graph.map { RecipeChain.compose(look.graph, then: $0) } ?? look.graph
            plan.defaultLook = look.checked
        }
        plan.checked = checked.recipes
        guard let checkedGraph = checked.graph else { throw .recipe(checked.recipes.last!, photoSize: checked.failedAt) }
        plan.graph = checkedGraph
        plan.info = header.info
        plan.geometry = header.geometry
        plan.output = checked.output
        let chosen = request.output(checked.output)
        var color: PhotoColor?
        do {
            color = try header.info.map {
                try PhotoColor(photo: request.photo, info: $0, output: chosen.profile, intent: chosen.intent, develop: checkedGraph.develop)
            }
        } catch {
            throw .photo(error)
        }
        // The lens stages, resolved for this photo (its own data, or lensfun's profile).
        let lens = LensResolver.resolve(checkedGraph, info: header.info, photo: request.photo)
        if let failure = lens.failure { throw .photo(failure) }
        plan.lens = lens
        let readFile = RecipePlanning.fileReader(for: checked.filesFolder, budget: request.budget.perRender)
        // The `image` masks' files, read and held to their digests once.
        let rasters: [String: RasterMaskImage]
        do { rasters = try RasterMaskLoader.load(checkedGraph, recipe: checked.filesFolder) } catch { throw .photo(error) }
        plan.rasters = rasters
        // The measured `auto` values, once for this photo, before the passes.
        let graph: FilterGraph
        do {
            let context = AutoResolver.Context(request: request, info: header.info, geometry: header.geometry, color: color,
                                               lenses: lens.corrections, rasters: rasters, readFile: readFile)
            (graph, plan.auto) = try AutoResolver.resolve(checkedGraph, context)
        } catch let error as PlanError {
            throw .plan(error, recipe: checked.filesFolder == "/" ? "" : request.recipes[0].path)
        } catch {
            throw .photo(error)
        }
        plan.graph = graph
        // A develop whose white balance was measured is developed with those multipliers.
        if graph.develop != checkedGraph.develop, let info = header.info {
            do {
                color = try PhotoColor(photo: request.photo, info: info, output: chosen.profile, intent: chosen.intent, develop: graph.develop)
            } catch {
                throw .photo(error)
            }
        }
        do {
            plan.render = try RecipePlanning.plan(graph, size: request.size, fuse: request.fuse, readFile: readFile, photo: header.geometry,
                                                  color: color.map { RecipePlanning.colorEnds($0, graph) } ?? ColorEndpoints(),
                                                  lenses: lens.corrections, rasters: rasters)
        } catch {
            throw .plan(error, recipe: checked.filesFolder == "/" ? "" : request.recipes[0].path)
        }
        if header.geometry == nil { plan.render.sourceSize = nil }
        plan.render.color = color
        let names = request.recipes.count == 1 ? request.recipes[0].path : request.recipes.map { Paths.name(of: $0.path) }.joined(separator: " + ")
        plan.render.recipeName = plan.defaultLook == nil ? names : ([RawDefaultLook.name] + (names.isEmpty ? [] : [names])).joined(separator: " + ")
        plan.render.develop = graph.develop
        plan.render.reading = RecipePlanning.reading(graph, recipe: checked.filesFolder)
        plan.render.warnings = lens.warnings
        plan.render.uncorrectedLens = lens.uncorrected
        plan.color = color
        return plan
    }

    /// Whether the request's photo may be a camera raw, from its first bytes (a JPEG, PNG, HEIF,
    /// AVIF or WebP is not; a TIFF may be a DNG): a render without a recipe opens no other photo.
    static func mayBeRaw(_ request: RenderRequest) -> Bool {
        if case .photo(let info, _)? = request.header { return info.raw != nil }
        guard !request.photo.isEmpty, let head = try? InputFile.prefix(request.photo, count: ImageFileFormat.sniffLength) else { return false }
        switch ImageFileFormat.sniff(head) {
        case .jpeg, .png, .heif, .avif, .webp: return false
        default: return true
        }
    }

    /// The default look checked for a photo of `size` (its text is part of recipe, checked by the
    /// tests with no diagnostic at all: one here is a bug).
    static func defaultLook(size: CanvasSize?) -> (checked: CheckedRecipe, graph: FilterGraph) {
        var options = CheckOptions()
        if let size { options.sourceSize = size }
        let checked = RecipeChecker.check(SourceFile(path: RawDefaultLook.name, text: RawDefaultLook.text), options: options)
        guard let graph = checked.graph, checked.diagnostics.isEmpty else {
            preconditionFailure("\(RawDefaultLook.name) does not check: \(checked.diagnostics.map(\.message))")
        }
        return (checked, graph)
    }

    /// What the planner knows of the photo.
    package struct Header {
        package var info: ImageInfo?
        package var geometry: PhotoGeometry?
        /// The size recipes are checked for (nil: the language's nominal photo).
        package var nominal: CanvasSize?
        package var size: CanvasSize? {
            geometry.map { CanvasSize(width: $0.upright.width, height: $0.upright.height) } ?? nominal
        }
    }

    /// The header the request holds, else the photo's, read now (nil parts when it cannot be opened).
    package static func header(_ request: RenderRequest) -> Header {
        switch request.header {
        case .photo(let info, let supported)?:
            return Header(info: info, geometry: PhotoGeometry(info, supported: supported))
        case .nominal(let size)?:
            return Header(nominal: size)
        case nil:
            guard !request.photo.isEmpty, let decoder = try? ImageDecoders.open(request.photo, options: request.decodeOptions(develop: nil)) else {
                return Header()
            }
            return Header(info: decoder.info, geometry: PhotoGeometry(decoder.info, supported: decoder.supportedScaleDenominators))
        }
    }

    /// The recipes checked for a photo of `size`, each reading the last one's output, and their
    /// graphs composed into one (nil when one does not check).
    package struct Checked {
        package var recipes: [CheckedRecipe] = []
        package var graph: FilterGraph?
        package var output = CheckedRecipe.Output()
        /// The folder files named in the graph are read from: the one recipe's, or "/" when
        /// several are composed (their files were made absolute).
        var filesFolder = "/"
        /// The size the recipe that does not check was checked for.
        var failedAt: CanvasSize?
    }

    package static func check(_ recipes: [RenderRequest.Recipe], size: CanvasSize?) -> Checked {
        var result = Checked()
        var current = size
        var graph: FilterGraph?
        for recipe in recipes {
            var options = CheckOptions()
            options.overrides = recipe.overrides
            if let current { options.sourceSize = current }
            if let max = recipe.maxBytes { options.limits.maxBytes = max }
            let checked = recipe.text.map { RecipeChecker.check(SourceFile(path: recipe.path, text: $0), options: options) }
                ?? RecipeChecker.load(path: recipe.path, options: options)
            result.recipes.append(checked)
            guard let next = checked.graph, !checked.hasErrors, !checked.isForeign else {
                result.failedAt = current
                return result
            }
            if let said = checked.output { result.output = result.output.merged(with: said) }
            if recipes.count == 1 {
                graph = next
                result.filesFolder = recipe.path
            } else {
                let absolute = RecipeChain.absoluteFiles(next, folder: Paths.folder(of: recipe.path))
                graph = graph.map { RecipeChain.compose($0, then: absolute) } ?? absolute
            }
            current = next.nodes[next.output].size
        }
        result.graph = graph
        return result
    }
}

/// What the planner made of a request: the graph, the stages a job runs, the photo's header and
/// colour as planning read them, and every recipe as checked (their warnings are the front end's
/// to show).
package struct RenderPlan {
    package var request: RenderRequest
    /// Each recipe as checked, in order (their diagnostics, warnings included).
    package var checked: [CheckedRecipe] = []
    /// The default look (`RawDefaultLook`) as checked, when its stages run first: the photo is a
    /// raw and no recipe has a `develop` stage. Not in `checked`: it has no diagnostics to show.
    package var defaultLook: CheckedRecipe?
    /// The recipes composed, after the default look's stages when it applies (nil: no recipe and
    /// no default look).
    package var graph: FilterGraph?
    /// The photo's header as developed (a half-size develop's halves; nil: it cannot be opened).
    package var info: ImageInfo?
    package var geometry: PhotoGeometry?
    package var color: PhotoColor?
    /// The lens stages as resolved for the photo (what corrects it, or why nothing does).
    package var lens = LensResolver.Resolution()
    /// The `image` masks' files as the render read them.
    package var rasters: [String: RasterMaskImage] = [:]
    /// The measured `auto` values as resolved for the photo (`graph` holds them as numbers).
    package var auto = AutoResolver.Resolution()
    /// The recipes' `output:` settings, a later recipe's winning.
    package var output: CheckedRecipe.Output?
    /// The stages, sizes and colour a job runs.
    package var render = PlannedRender(stages: [], sourceSize: nil)

    init(request: RenderRequest) {
        self.request = request
    }

    /// The job that runs this plan into `output` (its encoding is the caller's to set).
    package func job(output: String) -> RenderJob {
        var job = RenderJob(input: request.photo, output: output, size: request.size)
        job.decode = request.decodeOptions(develop: nil)
        (job.profile, job.intent) = request.output(self.output)
        job.encoding = request.encoding
        if job.encoding.explicitQuality == nil, let quality = self.output?.quality { job.encoding.setQuality(quality) }
        job.encoding.maxBytes = request.encoding.maxBytes ?? self.output?.maxBytes
        job.export = ExportSettings(self.output)
        job.threads = request.threads
        job.memoryBudget = request.budget
        job.timeout = request.timeout
        if graph != nil { job.take(render) }
        return job
    }

    /// The plan after each optimiser pass, at full size (what `explain` prints), with the files
    /// the recipes name read but not held to the budget.
    package func trace() throws(PlanError) -> [Planner.Trace] {
        guard let graph else { return [] }
        let folder = request.recipes.count == 1 ? request.recipes[0].path : "/"
        let color = self.color.map { RecipePlanning.colorEnds($0, graph) } ?? ColorEndpoints()
        return try Planner.plan(graph, fuse: request.fuse, readFile: RecipePlanning.fileReader(for: folder), color: color,
                                reduction: { [geometry] in geometry?.reduced(for: $0) }, lenses: lens.corrections, rasters: rasters).1
    }

    /// Every diagnostic of the recipes, as `recipe check` prints each (no colour).
    package var diagnostics: [String] {
        checked.flatMap { c in c.diagnostics.map { DiagnosticPrinter.render($0, source: c.file) } }
    }
}

/// Why a request cannot be planned.
package enum RenderPlanError: Error, CustomStringConvertible {
    /// A recipe does not check (errors, or foreign adjustment data): its diagnostics say why.
    case recipe(CheckedRecipe, photoSize: CanvasSize?)
    /// The checked recipes cannot be planned: a file they read, or the budget (`overBudget`).
    case plan(PlanError, recipe: String)
    /// The photo's colour cannot be read (a broken profile).
    case photo(any Error)

    /// One line: the first error of the recipe with its position, or the planning error.
    package var description: String {
        switch self {
        case .recipe(let checked, let size):
            if checked.isForeign && !checked.hasErrors { return "\(checked.file.path): foreign adjustment data; this build cannot render it" }
            let first = checked.diagnostics.first { $0.severity == .error }
            let photo = size.map { " (for a \($0.width)×\($0.height) photo)" } ?? ""
            return RecipePlanning.position(first?.range, else: checked.file.path) + (first?.message ?? "cannot be applied") + photo
        case .plan(let error, let recipe):
            return RecipePlanning.position(error.range, else: recipe) + error.message
        case .photo(let error):
            return "\(error)"
        }
    }
}
