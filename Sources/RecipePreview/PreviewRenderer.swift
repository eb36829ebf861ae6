import RecipeCodecs
import RecipeCore
import RecipeHistory
import RecipeLanguage
import RecipeOps
import RecipeOptimizer
import RecipeRender
import RecipeSession
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What the page asks to see of a photo.
package struct PreviewRequest: Sendable, Equatable {
    /// false: the photo alone (the "before" side).
    package var recipe = true
    /// The page's param values (`--set` for one render).
    package var overrides: [String: String] = [:]
    /// Stages (1-based list positions) turned off on the page, not in the file.
    package var disabled: Set<Int> = []
    /// Render only up to this stage (the stage strip's thumbnails and clicks).
    package var upTo: Int?
    package var size: RenderSize
    /// A region of the full-size render, for the 1:1 view.
    package var region: Region?

    package init(size: RenderSize) { self.size = size }
}

/// A rectangle in pixels of the full-size (upright) render.
package struct Region: Sendable, Equatable {
    package var x, y, width, height: Int
    package init(x: Int, y: Int, width: Int, height: Int) { (self.x, self.y, self.width, self.height) = (x, y, width, height) }

    /// The part of it inside a `w`×`h` image (nil when none is), whatever its numbers: an end
    /// past `Int.max` is the image's edge, not an overflow.
    func clamped(width w: Int, height h: Int) -> Region? {
        func span(_ start: Int, _ length: Int, _ limit: Int) -> (Int, Int) {
            let (end, overflow) = start.addingReportingOverflow(max(0, length))
            let a = max(0, min(start, limit))
            return (a, max(a, overflow ? limit : min(end, limit)))
        }
        let (x0, x1) = span(x, width, w), (y0, y1) = span(y, height, h)
        return x1 > x0 && y1 > y0 ? Region(x: x0, y: y0, width: x1 - x0, height: y1 - y0) : nil
    }
}

/// A rendered JPEG.
package struct PreviewImage: Sendable {
    package var jpeg: [UInt8]
    package var width: Int
    package var height: Int
    package var milliseconds: Double
    package var warnings: [String]
    /// How a region was rendered, for the page to say (ASCII: it travels in a header).
    package var note: String?
    /// The size of the full-size render (what a region's coordinates refer to).
    package var fullWidth = 0
    package var fullHeight = 0
    /// The photo's upright size: when the full render's differs, the recipe crops, turns or
    /// resizes, and the page shows before and after side by side rather than one over the other.
    package var sourceWidth = 0
    package var sourceHeight = 0
}

package enum PreviewResult: Sendable {
    case image(PreviewImage)
    /// The recipe has errors: every diagnostic, as `recipe check` prints it.
    case diagnostics(String)
    /// The photo could not be rendered (it fails to decode, …), or the page's change cannot apply.
    case failed(String)
    /// Superseded by a newer render.
    case cancelled
}

/// Renders for the preview through the same path as `recipe render`: a `RenderRequest` planned
/// by `RenderPlanner`, run by `RenderJob` (which writes the JPEG into
/// a private scratch folder; the bytes are read back and the file removed). The only difference is
/// where the rows come from: `CachedPhoto` keeps the decoded photo.
package struct PreviewRenderer: Sendable {
    package let recipePath: String
    package let scratch: String
    /// The memory one render may take (`recipe preview --max-memory`).
    package let budget: MemoryBudget
    private static let counter = Atomic<Int>(0)

    package init(recipePath: String, scratch: String, budget: MemoryBudget = .standard) {
        self.recipePath = recipePath
        self.scratch = scratch
        self.budget = budget
    }

    /// Checks the recipe's text as `recipe check` would (with the page's param values).
    package func check(_ text: String, overrides: [String: String] = [:], photo: CachedPhoto? = nil) -> CheckedRecipe {
        var options = CheckOptions()
        options.overrides = overrides
        if let photo { options.sourceSize = CanvasSize(width: photo.info.uprightSize.width, height: photo.info.uprightSize.height) }
        return RecipeChecker.check(SourceFile(path: recipePath, text: text), options: options)
    }

    /// Every diagnostic of `checked`, each exactly as `recipe check` prints it (no colour).
    package static func diagnosticsText(_ checked: CheckedRecipe) -> String {
        var lines = checked.diagnostics.map { DiagnosticPrinter.render($0, source: checked.file) }
        if checked.isForeign { lines.append("\(checked.file.path): foreign adjustment data; this build cannot render it") }
        return lines.joined(separator: "\n")
    }

    /// What a request renders: the plan (nil: the photo as it is), how a region is rendered, and
    /// the size of the full render; or why it cannot render.
    package enum Prepared {
        case ready(plan: RenderPlan?, note: String?, full: (width: Int, height: Int))
        case stopped(PreviewResult)
    }

    /// The render request of the page's `request` for `photo`, as `recipe render` would make it
    /// (a region: the full-size render, `cut` afterwards), within the preview's budget.
    /// In folder mode the request names the photo's real path, checked against the folder again,
    /// so that what planning opens (a half-size develop's header) never follows a link out of it.
    package func renderRequest(_ request: PreviewRequest, text: String, photo: CachedPhoto) throws(ImageError) -> RenderRequest {
        var render = RenderRequest(photo: try photo.openablePath())
        render.header = .photo(photo.info, supportedScaleDenominators: photo.supportedScaleDenominators)
        render.recipes = [RenderRequest.Recipe(path: recipePath, text: text, overrides: request.overrides)]
        render.size = request.region == nil ? request.size : .full
        render.budget = budget
        return render
    }

    /// Checks and plans `request` as `recipe render` would (a region: `cut`).
    package func prepare(_ request: PreviewRequest, text: String, photo: CachedPhoto) -> Prepared {
        var note: String?
        do {
            var text = text
            if request.recipe, !request.disabled.isEmpty || request.upTo != nil {
                let checked = check(text, overrides: request.overrides, photo: photo)
                guard !checked.hasErrors, checked.graph != nil else { return .stopped(.diagnostics(Self.diagnosticsText(checked))) }
                var edited = try Sidecar(editing: text, path: recipePath)
                for stage in request.disabled.sorted() where stage <= edited.checked.stages.count {
                    try edited.setEnabled(false, stage: stage)
                }
                if let upTo = request.upTo { try edited.keepFirst(upTo) }
                text = edited.text
            }
            var wanted = try renderRequest(request, text: text, photo: photo)
            // The photo alone is what `recipe render` makes of it without a recipe: a raw gets
            // its default look, any other photo is itself.
            if !request.recipe { wanted.recipes = [] }
            let planned = Result { () throws(RenderPlanError) -> RenderPlan in
                try RenderPlanner.plan(wanted)
            }
            var plan: RenderPlan
            switch planned {
            case .success(let made) where made.graph == nil: return .ready(plan: nil, note: nil, full: photo.info.uprightSize)
            case .success(let made): plan = made
            case .failure(.recipe(let checked, _)):
                let edited = !request.disabled.isEmpty || request.upTo != nil
                return .stopped(edited ? .failed(Self.diagnosticsText(checked)) : .diagnostics(Self.diagnosticsText(checked)))
            case .failure(let error): return .stopped(.failed(error.description))
            }
            let size = plan.graph!.nodes[plan.graph!.output].size
            let full = (width: size.width, height: size.height)
            if let region = request.region {
                note = try Self.cut(&plan.render, to: region, photo: (plan.info ?? photo.info).uprightSize, output: full)
            }
            return .ready(plan: plan, note: note, full: full)
        } catch let error as SidecarEditError {
            let lines = error.diagnostics.map { DiagnosticPrinter.render($0, source: error.file) }
            return .stopped(.failed(([error.what + " would break the recipe:"] + lines).joined(separator: "\n")))
        } catch {
            return .stopped(.failed("\(error)"))
        }
    }

    package func render(_ request: PreviewRequest, text: String, photo: CachedPhoto, cancel: CancelFlag) -> PreviewResult {
        let started = Self.now()
        let (plan, note, full): (RenderPlan?, String?, (width: Int, height: Int))
        switch prepare(request, text: text, photo: photo) {
        case .stopped(let result): return result
        case .ready(let p, let n, let f): (plan, note, full) = (p, n, f)
        }
        let output = scratch + "/render-\(Self.counter.wrappingAdd(1, ordering: .relaxed).newValue).jpg"
        // A region or a CMYK photo is decoded from the file: it must still lie in the folder.
        let input: String
        do { input = try photo.openablePath() } catch { return .failed(error.description) }
        var job: RenderJob
        if let plan {
            job = plan.job(output: output)
        } else {
            job = RenderJob(input: input, output: output, size: request.region == nil ? request.size : .full)
            job.memoryBudget = budget
        }
        job.input = input
        // The photo as developed (a half-size develop's header has half its size).
        let info = plan?.info ?? photo.info
        // A region view decodes the photo at full size: those rows are not kept.
        if request.region == nil { job.openDecoder = photo.decoder(cancel: cancel, develop: job.decode.develop, info: info,
                                                                         supported: plan?.geometry?.supportedScaleDenominators) }
        defer { unlink(output) }
        do {
            let outcome = try job.run()
            let bytes = try InputFile.readAll(output, limit: 1 << 30)
            return .image(PreviewImage(jpeg: bytes, width: outcome.width, height: outcome.height,
                                       milliseconds: Self.now() - started, warnings: outcome.warnings.map(\.description), note: note,
                                       fullWidth: full.width, fullHeight: full.height,
                                       sourceWidth: info.uprightSize.width, sourceHeight: info.uprightSize.height))
        } catch is PreviewCancelled {
            return .cancelled
        } catch {
            return .failed("\(error)")
        }
    }

    /// Makes a full-size plan render only `region` and the pixels its stages read around it.
    /// When no stage moves pixels (no crop, rotation, straighten or resize), the recipe runs on a
    /// window of the photo: the region and, around it, the reach of its blurs and local stages
    /// added up (`Barrier.reach`), its corner on the grid of their decimated blurs, positional
    /// steps (vignette, gradient and radial masks) moved by the window's corner. Each pixel of
    /// the region then gets what the full render gives it. Crops, flips, turns and straightens
    /// are followed back to the photo (`cutThroughGeometry`). A resize, or a window that is the
    /// whole photo, renders the whole picture and cuts the region out.
    static func cut(_ plan: inout PlannedRender, to region: Region, photo: (width: Int, height: Int),
                    output: (width: Int, height: Int)) throws -> String {
        guard let r = region.clamped(width: output.width, height: output.height) else {
            throw ImageError(.refused, path: "region", "lies outside the \(output.width)x\(output.height) render")
        }
        func crop(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> RenderStage {
            .barrier(.geometric(.crop(x: x, y: y, width: w, height: h), origin: "preview region"))
        }
        let fullSource = plan.finalSize == nil && plan.sourceSize.map { $0 == photo } ?? true
        if !fullSource {
            // A resize that makes the render smaller than the photo reads a reduced decode
            // (`sourceSize`): the whole render is small, and it is cut.
            plan.stages.append(crop(r.x, r.y, r.width, r.height))
            return "the whole render was made and cut (it is smaller than the photo: its resize reads a reduced decode)"
        }
        if output != photo || plan.stages.contains(where: Self.isGeometric) {
            if let note = Self.cutThroughGeometry(&plan, to: r, photo: photo, output: output) { return note }
            plan.stages.append(crop(r.x, r.y, r.width, r.height))
            return "the whole photo was rendered at full size and cut (the recipe has stages that move pixels that a window cannot follow: a resize, or geometry beside branches)"
        }
        var reach = 0, grid = 1, windowed = output == photo
        for case .barrier(let barrier) in plan.stages {
            guard let n = barrier.reach else { windowed = false; break }
            reach += n.pixels
            grid = grid / Self.gcd(grid, n.grid) * n.grid
        }
        let x0 = max(0, r.x - reach) / grid * grid, y0 = max(0, r.y - reach) / grid * grid
        let x1 = min(photo.width, r.x + r.width + reach), y1 = min(photo.height, r.y + r.height + reach)
        guard windowed, (x0, y0, x1, y1) != (0, 0, photo.width, photo.height) else {
            plan.stages.append(crop(r.x, r.y, r.width, r.height))
            return windowed ? "the whole photo was rendered at full size and cut (the region's neighbourhood is all of it)"
                : "the whole photo was rendered at full size and cut (a stage's reach is not known)"
        }
        plan.stages = [crop(x0, y0, x1 - x0, y1 - y0)]
            + plan.stages.map { stage in
                guard case .point(let programs) = stage else { return stage }
                return .point(programs.map { $0.translated(by: x0, y0) })
            }
            + [crop(r.x - x0, r.y - y0, r.width, r.height)]
        return reach == 0 ? "the recipe ran on these \(r.width)x\(r.height) pixels only"
            : "the recipe ran on the \(x1 - x0)x\(y1 - y0) pixels around them (its stages read up to \(reach) px away)"
    }

    private static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }

    private static func isGeometric(_ stage: RenderStage) -> Bool {
        if case .barrier(.geometric) = stage { true } else { false }
    }

    /// A rectangle of a stage's canvas.
    private struct Rect: Equatable {
        var x, y, width, height: Int
    }

    /// `cut` for a plan whose stages crop, flip, turn or orient (and no branches): the region is
    /// followed back through the stages to the photo. A crop moves it, a flip or quarter turn
    /// mirrors or turns it (the stage then flips or turns the window alone: the same pixels), a
    /// blur or local stage widens it by its reach (its corner on the stage's decimated grid), a
    /// point stage keeps it (its vignettes and masks moved by the window's corner on its canvas).
    /// The window decodes from the photo; after a local stage its margin is cut off again. Nil
    /// when a stage cannot be followed (a straighten or resize samples between pixels; a
    /// branch would need a window per branch).
    private static func cutThroughGeometry(_ plan: inout PlannedRender, to region: Region, photo: (width: Int, height: Int),
                                           output: (width: Int, height: Int)) -> String? {
        // The canvas before each stage, and after the last.
        var canvases = [Rect(x: 0, y: 0, width: photo.width, height: photo.height)]
        for stage in plan.stages {
            var next = canvases.last!
            switch stage {
            case .point: break
            case .barrier(.keep), .barrier(.resume), .barrier(.blend): return nil
            case .barrier(.geometric(let step, _)):
                switch step {
                case .crop, .flip, .rotate, .straighten, .straightenWindow(_, _, _, _, _, _, nil): break
                default: return nil
                }
                let size = step.size(after: CanvasSize(width: next.width, height: next.height))
                next = Rect(x: 0, y: 0, width: size.width, height: size.height)
            case .barrier: break
            }
            canvases.append(next)
        }
        guard (canvases.last!.width, canvases.last!.height) == output else { return nil }
        // Back from the region: the window each stage's input must cover.
        var windows = [Rect](repeating: Rect(x: 0, y: 0, width: 0, height: 0), count: plan.stages.count + 1)
        var replaced: [Int: RenderStage] = [:]
        windows[plan.stages.count] = Rect(x: region.x, y: region.y, width: region.width, height: region.height)
        for i in plan.stages.indices.reversed() {
            let out = windows[i + 1], canvas = canvases[i]
            switch plan.stages[i] {
            case .point:
                windows[i] = out
            case .barrier(.geometric(.crop(let x, let y, _, _), _)):
                windows[i] = Rect(x: out.x + x, y: out.y + y, width: out.width, height: out.height)
            case .barrier(.geometric(.flip(let horizontal), _)):
                windows[i] = bounds(out, through: horizontal ? .upMirrored : .downMirrored, canvas: canvases[i + 1])
            case .barrier(.geometric(.rotate(let q), _)):
                windows[i] = bounds(out, through: q == 1 ? .right : q == 2 ? .down : .left, canvas: canvases[i + 1])
            case .barrier(.geometric(.straighten(let d, let e, let w, let h), let origin)):
                let whole = GeometricStep.Window(x: 0, y: 0, width: w, height: h)
                (windows[i], replaced[i]) = straightened(out, d, e, w, h, whole, false, canvas: canvas, origin: origin)
            case .barrier(.geometric(.straightenWindow(let d, let e, let w, let h, let window, let mirrored, nil), let origin)):
                (windows[i], replaced[i]) = straightened(out, d, e, w, h, window, mirrored, canvas: canvas, origin: origin)
            case .barrier(let barrier):
                guard let n = barrier.reach else { return nil }
                let x0 = max(0, out.x - n.pixels) / n.grid * n.grid, y0 = max(0, out.y - n.pixels) / n.grid * n.grid
                let x1 = min(canvas.width, out.x + out.width + n.pixels), y1 = min(canvas.height, out.y + out.height + n.pixels)
                windows[i] = Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
            }
        }
        let source = windows[0]
        guard (source.width, source.height) != photo else { return nil }
        func crop(_ r: Rect) -> RenderStage {
            .barrier(.geometric(.crop(x: r.x, y: r.y, width: r.width, height: r.height), origin: "preview region"))
        }
        var stages = [crop(source)]
        for (i, stage) in plan.stages.enumerated() {
            let input = windows[i], wanted = windows[i + 1]
            switch stage {
            case .point(let programs):
                stages.append(.point(programs.map { $0.translated(by: input.x, input.y) }))
            case .barrier(.geometric(.crop, _)):
                continue  // the window already is the crop's part
            case .barrier(.geometric) where replaced[i] != nil:
                stages.append(replaced[i]!)
            case .barrier(.geometric):
                stages.append(stage)
            case .barrier:
                stages.append(stage)
                if input != wanted {
                    stages.append(crop(Rect(x: wanted.x - input.x, y: wanted.y - input.y, width: wanted.width, height: wanted.height)))
                }
            }
        }
        plan.stages = stages
        return "the recipe ran on the \(source.width)x\(source.height) pixels of the photo that the region comes from"
    }

    /// A straighten that makes only `out` of its output (a `window` of its `w`×`h` canvas,
    /// `mirrored`) from only the part of its input `canvas` that `out` reads: that part, and the
    /// stage that does so.
    private static func straightened(_ out: Rect, _ degrees: Double, _ expand: Bool, _ w: Int, _ h: Int, _ window: GeometricStep.Window,
                                     _ mirrored: Bool, canvas: Rect, origin: String) -> (Rect, RenderStage) {
        // Output column j of the window is canvas column window.x + j, or counted from its right mirrored.
        let x = mirrored ? window.x + window.width - out.x - out.width : window.x + out.x
        let part = GeometricStep.Window(x: x, y: window.y + out.y, width: out.width, height: out.height)
        let s = StraightenStep.sourceWindow(source: (canvas.width, canvas.height), angleDegrees: degrees, fill: expand ? .expand : .crop,
                                            width: w, height: h, window: (part.x, part.y, part.width, part.height), mirrored: mirrored)
        let source = GeometricStep.SourceWindow(GeometricStep.Window(x: s.x, y: s.y, width: s.width, height: s.height),
                                                of: CanvasSize(width: canvas.width, height: canvas.height))
        let step = GeometricStep.straightenWindow(degrees: degrees, expand: expand, width: w, height: h, window: part, mirrored: mirrored,
                                                  source: source)
        return (Rect(x: s.x, y: s.y, width: s.width, height: s.height), .barrier(.geometric(step, origin: origin)))
    }

    /// The window of a stage's input that `orientation` (a flip or turn of the whole input)
    /// makes into `out` of its `canvas` (the output canvas).
    private static func bounds(_ out: Rect, through orientation: Orientation, canvas: Rect) -> Rect {
        let a = orientation.sourceCoordinate(x: out.x, y: out.y, uprightWidth: canvas.width, uprightHeight: canvas.height)
        let b = orientation.sourceCoordinate(x: out.x + out.width - 1, y: out.y + out.height - 1,
                                             uprightWidth: canvas.width, uprightHeight: canvas.height)
        return Rect(x: min(a.x, b.x), y: min(a.y, b.y), width: abs(a.x - b.x) + 1, height: abs(a.y - b.y) + 1)
    }

    /// Milliseconds on the monotonic clock.
    package static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) * 1000 + Double(t.tv_nsec) / 1e6
    }
}
