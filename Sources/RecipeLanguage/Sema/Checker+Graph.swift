import RecipeCore
import RecipeOps

/// The filter graph of a checked recipe: each stage a node reading the previous stage or the image
/// its `input:` names, disabled and broken stages passing their input through.
extension Checker {
    mutating func buildGraph(_ drafts: [StageDraft]) {
        var nodes = [FilterGraph.Node(op: "source", opClass: nil, stageID: nil, stageIndex: 0, params: ParamSet(),
                                      inputs: [], mask: nil, size: options.sourceSize, range: nil)]
        // Where each id is declared, and the node holding each stage's output (a disabled or
        // broken stage passes its input through).
        var idIndex: [String: Int] = [:]
        for d in drafts {
            guard let id = d.id else { continue }
            if let first = idIndex[id] {
                error(.duplicateID, "id `\(id)` is already used by stage \(first)", d.idRange,
                      notes: [.init("first used here", at: drafts[first - 1].idRange)])
            } else {
                idIndex[id] = d.index
            }
        }
        let sortedIDs = idIndex.keys.sorted()  // once: notes quote them for every dangling input
        var outputOf: [Int: FilterGraph.NodeID] = [:]
        var previous: FilterGraph.NodeID = 0
        var broken = false
        // Rendering starts from the pixels of the last enabled base: node 0 stands for them, and
        // the stages at or below it are history (checked, kept for revert, not rendered).
        let activeBase = drafts.last(where: { $0.base != nil && $0.enabled && !$0.broken })?.index
        result.activeBase = activeBase

        func resolve(_ ref: String, at range: SourceRange, from stage: Int, what: String) -> FilterGraph.NodeID? {
            guard let target = idIndex[ref] else {
                var notes: [Diagnostic.Note] = []
                if let guess = Suggestions.closest(to: ref, in: sortedIDs) { notes.append(.init("did you mean `\(guess)`?")) }
                notes.append(.init(idIndex.isEmpty ? "no stage has an `id`; add `id: \(ref)` to the stage you mean"
                                                   : "ids in this recipe: \(Suggestions.list(sortedIDs, conjunction: "and", limit: 8))"))
                error(.danglingInput, "\(what) `\(ref)` names no stage", range, notes: notes)
                return nil
            }
            if let activeBase, target <= activeBase {
                error(.inputBelowBase, "\(what) `\(ref)` names stage \(target), which lies below the frozen base at stage \(activeBase)", range,
                      notes: [.init("the base's pixels already contain that stage; stages after a base read only stages after it")])
                return nil
            }
            guard target < stage else {
                error(.cyclicInput, target == stage ? "\(what) `\(ref)` names this stage itself: it would read its own output"
                                                    : "\(what) `\(ref)` names stage \(target), which comes later: stages read only earlier ones",
                      range, notes: [.init(target == stage ? "name an earlier stage's id, or leave `input` out to read the previous stage"
                                                           : "stages run in order; move the stage `\(ref)` before this one")])
                return nil
            }
            return outputOf[target]
        }

        var developStage: Int?
        var firstEdit: Int?
        var lensStage: Int?
        var firstGeometric: Int?
        for d in drafts {
            if let activeBase, d.index <= activeBase { continue }
            if d.base != nil {
                // A disabled base (or one under the active base) passes its input through.
                outputOf[d.index] = previous
                continue
            }
            var primary = previous
            if let (ref, range) = d.input {
                if let node = resolve(ref, at: range, from: d.index, what: "`input`") { primary = node } else { broken = true }
            }
            var inputs = [primary]
            for name in d.params.names {
                if case .stageRef(let ref)? = d.params[name] {
                    let range = d.paramRanges[name] ?? d.opRange ?? d.range
                    if let node = resolve(ref, at: range, from: d.index, what: "`\(name)`") { inputs.append(node) } else { broken = true }
                }
            }
            if d.enabled, !d.broken, let spec = d.op {
                // A size no render will make (it would stream billions of pixels into a file).
                if spec.name == "resize", case .length(.px(let w))? = d.params["width"], case .length(.px(let h))? = d.params["height"],
                   w * h > Double(PixelLimits.defaultMaxPixels) {
                    result.diagnostics.append(Diagnostic(.oversizeOutput, "`resize` to \(Int(w))×\(Int(h)) makes \(Int(w * h / 1e6)) million pixels, over the \(PixelLimits.defaultMaxPixels / 1_000_000) million a render makes by default",
                                                         at: d.opRange ?? d.range, file: file.path,
                                                         notes: [.init("renders refuse it before decoding unless `--max-pixels` is raised")]))
                }
                // The raw develop makes the photo's pixels: nothing can come before it.
                if spec.opClass == .develop {
                    if let first = developStage {
                        error(.misplacedDevelop, "a second `develop` stage: stage \(first) already develops the photo", d.opRange,
                              notes: [.init("a recipe has one develop; put every raw setting in it (in a sidecar: `recipe revert PHOTO --stage develop`, then add the new one)")])
                        broken = true
                    } else if let earlier = firstEdit {
                        error(.misplacedDevelop, "`develop` must be the first stage: stage \(earlier) edits the photo before it", d.opRange,
                              notes: [.init("the develop makes the pixels every other stage works on; move it to the top of `stages`")])
                        broken = true
                    }
                    developStage = developStage ?? d.index
                } else if firstEdit == nil {
                    firstEdit = d.index
                }
                // The lens correction works on the frame the camera made: before any stage that
                // moves pixels (an `orient: auto` changes nothing: photos are upright on decode).
                if spec.name == "lens" {
                    if let first = lensStage {
                        error(.misplacedLens, "a second `lens` stage: stage \(first) already corrects the lens", d.opRange,
                              notes: [.init("a recipe corrects the lens once; put every lens setting in one stage")])
                        broken = true
                    } else if let moved = firstGeometric {
                        error(.misplacedLens, "`lens` must come before stage \(moved), which moves the photo's pixels", d.opRange,
                              notes: [.init("the lens is corrected on the frame the camera made; move `lens` above crops, rotations, straightens, flips and resizes")])
                        broken = true
                    }
                    lensStage = lensStage ?? d.index
                } else if spec.opClass == .geometric, firstGeometric == nil, !(spec.name == "orient" && d.params["mode"] == .choice("auto")) {
                    firstGeometric = d.index
                }
            }
            guard d.enabled, !d.broken, let spec = d.op, !broken else {
                broken = broken || (d.broken && d.enabled)
                outputOf[d.index] = primary
                previous = primary
                continue
            }
            let size = spec.geometry(nodes[primary].size, d.params)
            for extra in inputs.dropFirst() where nodes[extra].size != nodes[primary].size {
                error(.sizeMismatch, "`\(spec.name)` mixes images of different sizes: \(nodes[primary].size) and \(nodes[extra].size) (for a \(options.sourceSize) photo)", d.opRange,
                      notes: [.init("crop or resize both inputs the same way")])
                broken = true
            }
            nodes.append(FilterGraph.Node(op: spec.name, opClass: spec.opClass, stageID: d.id, stageIndex: d.index, params: d.params,
                                          bindings: d.bindings, inputs: inputs, mask: d.mask, size: size, range: d.opRange))
            let id = nodes.count - 1
            outputOf[d.index] = id
            previous = id
            result.stages[d.index - 1].node = id
        }
        guard !broken else { return }
        let graph = FilterGraph(nodes: nodes, output: previous)
        // Stages whose output nothing reads (a branch skipped by a later `input:`).
        var reachable = Set<Int>()
        var work = [graph.output]
        while let n = work.popLast() {
            guard reachable.insert(n).inserted else { continue }
            work += nodes[n].inputs
        }
        for (i, node) in nodes.enumerated() where i > 0 && !reachable.contains(i) {
            result.diagnostics.append(Diagnostic(.unusedStage, "the output of stage \(node.stageIndex) (`\(node.op)`) is never used", at: node.range,
                notes: [.init("a later stage reads an earlier image with `input:`, skipping this one; disable it with `enabled: false` or remove it")]))
        }
        result.graph = graph
    }
}
