import RecipeCore
import RecipeKernels
import RecipeOps

/// Lowers each node of the graph to the kernel steps its op declares, tagged with the op's
/// working space; neighbourhood, geometric and composite ops become barrier stages. A graph with
/// branches is laid out in node order: an image read by more than one stage (or not by the next
/// one) is kept under its stage's name, and a stage that reads a kept image resumes it. Stages no
/// path to the output reads are not rendered. Throws for what the engine cannot render, naming
/// the stage.
///
/// ```
/// exposure(ev 1) ← source        →   matrix[2 0 0 0 0 2 0 0 0 0 2 0] [lin] ← exposure (stage 1)
/// base: exposure; glow: blur(base); blend(base, with: glow)
///                                →   exposure · keep base ×2 · resume base · blur · keep glow ×1
///                                    · resume base · blend glow
/// ```
enum LowerPointOps {
    static func run(_ graph: FilterGraph, readFile: @escaping Planner.FileReader, scale: Double = 1,
                    reduction: Planner.DecodeReduction? = nil, lenses: [FilterGraph.NodeID: LensCorrection] = [:],
                    rasters: [String: RasterMaskImage] = [:]) throws(PlanError) -> ExecutionPlan {
        var scales = renderScales(graph, output: scale, shrinkEarly: reduction != nil)
        let full = graph.nodes[0].size
        var source = scales[0] >= 1 ? full : CanvasSize(width: max(1, Int((Double(full.width) * scales[0]).rounded())),
                                                         height: max(1, Int((Double(full.height) * scales[0]).rounded())))
        var reduced = false
        if scale >= 1, scales[0] < 1, let reduction {
            (source, reduced) = shrinkEarly(graph, scales: &scales, wanted: source, reduction: reduction)
        }
        var lowering = Lowering(graph: graph, scales: scales, readFile: readFile)
        lowering.lenses = lenses
        lowering.rasters = rasters
        try lowering.run(source: source)
        var plan = ExecutionPlan(segments: lowering.segments + [lowering.steps], barriers: lowering.barriers)
        plan.sourceSize = source
        plan.sourceKernel = lowering.sourceKernel
        plan.sourceIsReducedDecode = reduced
        plan.outputSize = lowering.canvas[graph.output]
        return plan
    }

    /// A full render of a chain that shrinks in a resize (`scales` from `renderScales`, the size
    /// the stages before it need: `wanted`): where the resize comes first, the photo is resampled
    /// to that size as it is decoded (the same pixels: the resize's own work, with its kernel).
    /// Where stages come before it (a straighten, a crop), they run on the photo as the decoder
    /// reduces it in the DCT domain (`reduction`; nil: it cannot, and they run at full size), and
    /// the resize does the rest: their px lengths scale with it, as in a display render, and only
    /// the reduced decode differs from the full-size render (ops-reference §7, ReducedDecode),
    /// not the order of the resamples. Returns the source size and whether it is the reduced decode.
    static func shrinkEarly(_ graph: FilterGraph, scales: inout [Double], wanted: CanvasSize,
                            reduction: Planner.DecodeReduction) -> (CanvasSize, reduced: Bool) {
        let nodes = graph.nodes
        var path: [FilterGraph.NodeID] = []
        var id = graph.output
        while id > 0, let input = nodes[id].inputs.first { path.append(id); id = input }
        path.reverse()
        guard let first = path.firstIndex(where: { nodes[$0].op == "resize" && scales[nodes[$0].inputs[0]] < scales[$0] }) else {
            return (wanted, false)
        }
        let before = [0] + path[..<first]
        if before.dropFirst().allSatisfy({ nodes[$0].op == "orient" || nodes[$0].opClass == .develop }) { return (wanted, false) }
        let full = nodes[0].size
        guard let reduced = reduction(wanted), reduced.width < full.width else {
            for id in before { scales[id] = 1 }
            return (full, false)
        }
        let scale = max(Double(reduced.width) / Double(full.width), Double(reduced.height) / Double(full.height))
        for id in before { scales[id] = scale }
        return (reduced, true)
    }

    /// Each node's render size over its full size, for an output rendered at `output` of its
    /// full size. A chain renders every node at that scale, except before a resize, which is
    /// given as many pixels as its output needs on each axis (up to the full size): a display
    /// render of a recipe that enlarges starts from a larger decode rather than enlarging a
    /// thumbnail. A graph with branches renders at one scale, so that the images a blend joins
    /// agree.
    ///
    /// With `shrinkEarly` a full render does the same (see `shrinkEarly(_:scales:wanted:reduction:)`
    /// for how far): what comes before a downscaling resize need not run on the full size
    /// (square-crop on photo24 straightens 2000×3000, not 4000×6000; issue 23).
    static func renderScales(_ graph: FilterGraph, output: Double, shrinkEarly: Bool = false) -> [Double] {
        let nodes = graph.nodes
        var scales = Array(repeating: min(1, output), count: nodes.count)
        guard output < 1 || shrinkEarly, nodes.allSatisfy({ $0.inputs.count <= 1 }) else { return scales }
        var id = graph.output
        while id > 0, let input = nodes[id].inputs.first {
            scales[input] = scales[id]
            if nodes[id].op == "resize" {
                let (after, before) = (nodes[id].size, nodes[input].size)
                // The larger of the two axes' ratios: a resize that squeezes one axis still gets
                // every pixel the other needs.
                let factor = max(Double(after.width) / Double(max(1, before.width)), Double(after.height) / Double(max(1, before.height)))
                scales[input] = min(1, scales[id] * factor)
            }
            id = input
        }
        return scales
    }

    /// The names kept images go by: the stage's id, else its position.
    static func streamName(_ graph: FilterGraph, _ id: FilterGraph.NodeID) -> String {
        if id == 0 { return "source" }
        return graph.nodes[id].stageID ?? "stage \(graph.nodes[id].stageIndex)"
    }

    private struct Lowering {
        let graph: FilterGraph
        /// Render size over full size, per node.
        let scales: [Double]
        let readFile: Planner.FileReader
        var steps: [ExecutionPlan.Step] = []
        var segments: [[ExecutionPlan.Step]] = []
        var barriers: [ExecutionPlan.Barrier] = []
        /// Render canvas of every node.
        var canvas: [CanvasSize] = []
        /// The kernel of the first resize that shrinks the stages before it (`renderScales`): the
        /// resample of the decoded photo does its work, with its kernel.
        var sourceKernel: ResampleKernel?
        /// The `lens` stages resolved for the photo (a stage without one corrects nothing).
        var lenses: [FilterGraph.NodeID: LensCorrection] = [:]
        /// The `image` masks' files, read by the session (`Planner.plan`'s `rasters`).
        var rasters: [String: RasterMaskImage] = [:]

        init(graph: FilterGraph, scales: [Double], readFile: @escaping Planner.FileReader) {
            self.graph = graph
            self.scales = scales
            self.readFile = readFile
        }

        mutating func barrier(_ b: ExecutionPlan.Barrier) {
            segments.append(steps)
            steps = []
            barriers.append(b)
        }

        mutating func run(source: CanvasSize) throws(PlanError) {
            let nodes = graph.nodes
            // Live nodes (on a path to the output) and how many stages read each one.
            var live = Array(repeating: false, count: nodes.count)
            live[graph.output] = true
            for id in stride(from: nodes.count - 1, through: 0, by: -1) where live[id] {
                for input in nodes[id].inputs { live[input] = true }
            }
            var readers = Array(repeating: 0, count: nodes.count)
            for (id, node) in nodes.enumerated() where live[id] && id > 0 {
                for input in node.inputs { readers[input] += 1 }
            }
            readers[graph.output] += 1  // the encoder
            let order = (0..<nodes.count).filter { live[$0] }
            canvas = Array(repeating: source, count: nodes.count)
            var current: FilterGraph.NodeID? = 0
            for (position, id) in order.enumerated() {
                if id > 0 {
                    let input = nodes[id].inputs[0]
                    if current != input { barrier(.resume(name: streamName(graph, input))) }
                    canvas[id] = canvas[input]
                    try lower(id)
                    current = id
                }
                // Keep the image when another stage than the next one (also) reads it.
                let next = position + 1 < order.count ? order[position + 1] : nil
                let readByNext = next.map { nodes[$0].inputs[0] == id } ?? (id == graph.output)
                if readers[id] > 1 || !readByNext {
                    barrier(.keep(name: streamName(graph, id), readers: readers[id]))
                    current = nil
                }
            }
            if current != graph.output { barrier(.resume(name: streamName(graph, graph.output))) }
        }

        mutating func lower(_ id: FilterGraph.NodeID) throws(PlanError) {
            let node = graph.nodes[id]
            let origin = "\(node.op) (stage \(node.stageIndex))"
            let here = canvas[id]
            let scale = scales[node.inputs[0]]  // px lengths are of the input's canvas
            // Below full size a Gaussian's σ is the full-size blur seen on a coarser grid.
            let gaussian: GaussianBlur.Kernel = scale < 1 ? .bandLimited : .sampled
            if node.op == "orient", node.params["mode"] == .choice("auto") { return }  // photos are oriented on decode
            if node.opClass == .develop { return }  // the raw decoder develops; other photos ignore it
            if node.op == "orient" {
                throw PlanError("\(origin): `mode: none` is not rendered by this build: photos are always turned upright on decode", range: node.range)
            }
            if node.opClass == .geometric || node.op == "blend" || ["blur", "sharpen", "clarity", "shadows-highlights"].contains(node.op) {
                guard node.mask == nil else {
                    throw PlanError("\(origin): a mask on a \(node.opClass.map { "\($0)" } ?? "") stage is not rendered by this build; masks make point stages local so far", range: node.range)
                }
            }
            if node.op == "resize" {
                // To the node's full size at its render scale (its own arithmetic ran on the full size).
                let target = scales[id] >= 1 ? node.size : CanvasSize(width: max(1, Int((Double(node.size.width) * scales[id]).rounded())),
                                                                       height: max(1, Int((Double(node.size.height) * scales[id]).rounded())))
                let kernel = ResampleKernel(rawValue: { if case .choice(let k)? = node.params["kernel"] { k } else { "lanczos3" } }()) ?? .lanczos3
                // A resize that made the stages before it smaller lends its kernel to the resample
                // of the decoded photo, which does (some of) its work.
                if sourceKernel == nil && scales[node.inputs[0]] < scales[id] { sourceKernel = kernel }
                guard target != here else { return }
                barrier(.geometric(.resize(width: target.width, height: target.height, kernel: kernel), origin: origin))
                canvas[id] = target
                return
            }
            if node.op == "lens" {
                // Vignetting on the source's linear light (positional), then one resampling.
                guard let correction = lenses[id] else { return }
                let geometry = correction.geometry(node.params, canvas: here)
                let vignetting = node.params.boolean("vignetting") ?? true ? geometry.vignettingStep : nil
                let first = correction.calibration.vignettingFirst || !geometry.movesPixels
                if first, let step = vignetting { steps.append(ExecutionPlan.Step(step, space: .linear, origin: origin)) }
                if geometry.movesPixels { barrier(.geometric(.lens(LensWarp(geometry: geometry)), origin: origin)) }
                // A DNG that warps first wants the gain at the corrected image's positions.
                if !first, let step = vignetting { steps.append(ExecutionPlan.Step(step, space: .linear, origin: origin)) }
                return
            }
            if let step = Operations.geometricStep(op: node.op, params: node.params, canvas: here, scale: scale) {
                barrier(.geometric(step, origin: origin))
                canvas[id] = step.size(after: here)
                return
            }
            if node.opClass == .geometric { return }  // a geometric op that changes nothing here
            switch node.op {
            case "blur", "sharpen", "clarity":
                guard case .length(let sigma)? = node.params["sigma"] else { break }
                let px = sigma.pixels(base: Double(here.shortSide), scale: scale)
                let amount = node.params.number("amount") ?? 0
                guard px > 0.01, node.op == "blur" || amount != 0 else { return }  // identities
                switch node.op {
                case "blur": barrier(.blur(sigma: px, kernel: gaussian, origin: origin))
                case "sharpen":
                    var luma = false
                    if case .boolean(let b)? = node.params["luma"] { luma = b }
                    barrier(.unsharp(sigma: px, kernel: gaussian, amount: amount, threshold: node.params.number("threshold") ?? 0, luma: luma, origin: origin))
                default:  // clarity: a luma unsharp mask with a large radius (ops-reference §1, #23)
                    barrier(.unsharp(sigma: px, kernel: gaussian, amount: amount, threshold: 0, luma: true, origin: origin))
                }
                return
            case "denoise":
                let luma = node.params.number("luma") ?? 1, chroma = node.params.number("chroma") ?? luma
                guard luma > 0 || chroma > 0 else { return }  // an identity
                var noise: Double?
                // Given at full size; a reduced render averages it down (white noise over a
                // factor f: σ / f).
                if case .number(let sigma)? = node.params["noise"] { noise = sigma * min(1, scale) }
                barrier(.denoise(luma: luma, chroma: chroma, detail: node.params.number("detail") ?? 0, noise: noise, origin: origin))
                return
            case "shadows-highlights":
                let shadows = node.params.number("shadows") ?? 0, highlights = node.params.number("highlights") ?? 0
                guard shadows != 0 || highlights != 0 else { return }
                var px = 0.0
                if case .length(let radius)? = node.params["radius"] { px = radius.pixels(base: Double(here.shortSide), scale: scale) }
                barrier(.shadowsHighlights(shadows: shadows, highlights: highlights, sigma: px, kernel: gaussian, origin: origin))
                return
            case "blend":
                let with = node.inputs[1]
                guard canvas[with] == here else {
                    throw PlanError("\(origin): the two images differ in size (\(here.width)×\(here.height) and \(canvas[with].width)×\(canvas[with].height)); blend needs them the same size",
                                    range: node.range)
                }
                barrier(.blend(with: streamName(graph, with), mode: { if case .choice(let m)? = node.params["mode"] { m } else { "normal" } }(),
                               opacity: node.params.number("opacity") ?? 1, origin: origin))
                return
            case "lut":
                guard case .file(let path)? = node.params["file"] else { break }
                let table: CubeLUT
                do {
                    table = try CubeLUT.parse(try readFile(path))
                } catch let error as CubeLUT.ParseError {
                    throw PlanError("\(origin): \(path): \(error)", range: node.range)
                } catch let error as ImageError {
                    throw PlanError("\(origin): \(path): \(error.reason)", range: node.range, overBudget: error.kind == .overBudget)
                } catch {
                    throw PlanError("\(origin): \(path): \(error)", range: node.range)
                }
                steps += try LowerPointOps.local(Operations.lutSteps(node.params, table: table), node, canvas: here, space: .encoded, origin: origin, rasters: rasters)
                return
            default:
                break
            }
            guard let spec = Operations.named(node.op), let kernel = Operations.pointSteps(op: node.op, params: node.params, canvas: here) else {
                throw PlanError("\(origin) is not rendered by this build", range: node.range)
            }
            let space: WorkingSpace = spec.space == .linear ? .linear : spec.space == .encoded ? .encoded : .any
            steps += try LowerPointOps.local(kernel, node, canvas: here, space: space, origin: origin, rasters: rasters)
        }
    }

    /// The node's steps, wrapped in keep-input / mix-by-mask when the stage has a mask. The pair
    /// runs in the op's space (an indifferent op's mask in the encoded one).
    static func local(_ kernel: [PointStep], _ node: FilterGraph.Node, canvas: CanvasSize, space: WorkingSpace, origin: String,
                      rasters: [String: RasterMaskImage] = [:]) throws(PlanError) -> [ExecutionPlan.Step] {
        guard let mask = node.mask else { return kernel.map { ExecutionPlan.Step($0, space: space, origin: origin) } }
        let maskSpace: WorkingSpace = space == .any ? .encoded : space
        guard let wrapped = Operations.masked(kernel, mask: mask, canvas: canvas, linear: maskSpace == .linear, rasters: rasters) else {
            throw PlanError("\(origin) is not rendered by this build: its mask `\(mask.kind)` has no kernel", range: node.range)
        }
        return wrapped.map { ExecutionPlan.Step($0, space: maskSpace, origin: origin) }
    }
}
