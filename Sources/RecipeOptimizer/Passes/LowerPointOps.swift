import RecipeCore
import RecipeKernels
import RecipeOps

/// Lowers each node of the graph to the kernel steps its op declares, tagged with the op's
/// working space. Throws for what the engine does not render yet, naming the stage.
///
/// ```
/// exposure(ev 1) ← source        →   matrix[2 0 0 0 0 2 0 0 0 0 2 0] [lin] ← exposure (stage 1)
/// ```
enum LowerPointOps {
    static func run(_ graph: FilterGraph, readFile: Planner.FileReader, scale: Double = 1) throws(PlanError) -> ExecutionPlan {
        var steps: [ExecutionPlan.Step] = []
        var segments: [[ExecutionPlan.Step]] = []
        var barriers: [ExecutionPlan.Barrier] = []
        var previous: FilterGraph.NodeID = 0
        for (id, node) in graph.nodes.enumerated() where id > 0 {
            let origin = "\(node.op) (stage \(node.stageIndex))"
            guard node.inputs == [previous] else {
                throw PlanError("\(origin) is not rendered by this build yet: it reads an earlier stage or a second image, and the engine renders chains of stages so far",
                                range: node.range)
            }
            previous = id
            if node.op == "orient", node.params["mode"] == .choice("auto") { continue }  // photos are always oriented on decode
            if ["blur", "sharpen", "clarity"].contains(node.op), node.mask == nil, case .length(let sigma)? = node.params["sigma"] {
                let canvas = graph.nodes[node.inputs[0]].size
                let px = sigma.pixels(base: Double(canvas.shortSide), scale: scale)
                let amount = node.params.number("amount") ?? 0
                guard px > 0.01, node.op == "blur" || amount != 0 else { continue }  // identities
                segments.append(steps)
                steps = []
                switch node.op {
                case "blur": barriers.append(.blur(sigma: px, origin: origin))
                case "sharpen":
                    var luma = false
                    if case .boolean(let b)? = node.params["luma"] { luma = b }
                    barriers.append(.unsharp(sigma: px, amount: amount, threshold: node.params.number("threshold") ?? 0, luma: luma, origin: origin))
                default:  // clarity: a luma unsharp mask with a large radius (ops-reference §1, #23)
                    barriers.append(.unsharp(sigma: px, amount: amount, threshold: 0, luma: true, origin: origin))
                }
                continue
            }
            if node.op == "lut", case .file(let path)? = node.params["file"] {
                let table: CubeLUT
                do {
                    table = try CubeLUT.parse(try readFile(path))
                } catch let error as CubeLUT.ParseError {
                    throw PlanError("\(origin): \(path): \(error)", range: node.range)
                } catch {
                    throw PlanError("\(origin): \(path): \(error)", range: node.range)
                }
                steps += try local(Operations.lutSteps(node.params, table: table), node, space: .encoded, origin: origin)
                continue
            }
            guard let spec = Operations.named(node.op), let kernel = Operations.pointSteps(op: node.op, params: node.params, canvas: graph.nodes[node.inputs[0]].size) else {
                throw PlanError("\(origin) is not rendered by this build yet (the engine renders point operations so far)",
                                range: node.range)
            }
            let space: WorkingSpace = spec.space == .linear ? .linear : spec.space == .encoded ? .encoded : .any
            steps += try local(kernel, node, space: space, origin: origin)
        }
        guard previous == graph.output else {
            throw PlanError("the recipe is not rendered by this build yet: its result is not its last stage, and the engine renders chains of stages so far", range: nil)
        }
        segments.append(steps)
        return ExecutionPlan(segments: segments, barriers: barriers)
    }

    /// The node's steps, wrapped in keep-input / mix-by-mask when the stage has a mask. The pair
    /// runs in the op's space (an indifferent op's mask in the encoded one).
    static func local(_ kernel: [PointStep], _ node: FilterGraph.Node, space: WorkingSpace, origin: String) throws(PlanError) -> [ExecutionPlan.Step] {
        guard let mask = node.mask else { return kernel.map { ExecutionPlan.Step($0, space: space, origin: origin) } }
        let maskSpace: WorkingSpace = space == .any ? .encoded : space
        guard let wrapped = Operations.masked(kernel, mask: mask.kind, params: mask.params, canvas: node.size,
                                              linear: maskSpace == .linear) else {
            throw PlanError("\(origin) is not rendered by this build yet: its mask `\(mask.kind)` has no kernel", range: node.range)
        }
        return wrapped.map { ExecutionPlan.Step($0, space: maskSpace, origin: origin) }
    }
}
