import ArgumentParser
import RecipeCodecs
import RecipeColor
import RecipeCore
import RecipeHistory
import RecipeKernels
import RecipeLanguage
import RecipeOptimizer
import RecipeOptions
import RecipeSession

struct Explain: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Show the typed filter graph a recipe compiles to (each node's op, class, parameters, inputs and size), then the plan it renders (--passes: after each optimiser pass).",
        discussion: """
        Sizes are computed for --photo's upright size, or --size, or a nominal 6000×4000. \
        --dot prints Graphviz instead (`recipe explain r.recipe.yaml --dot | dot -Tsvg > r.svg`).

        With --photo, the plan ends with the memory a render of that photo (at --render-size, to its \
        own format, on the default threads) is estimated to take at its peak, the parts that take the \
        most, and a rough work figure; `render` and `apply` refuse a render whose estimate is above \
        the budget (--max-memory).
        """)

    @Argument(help: "The recipe.", completion: .file())
    var recipe: String

    @Option(help: "Compute sizes for this photo (its header is read, no pixels).", completion: .file())
    var photo: String?

    @Option(help: "Compute sizes for a photo of WIDTHxHEIGHT pixels.")
    var size: String?

    @Option(name: .customLong("set"), help: "Override a recipe param: --set name=value (repeatable).")
    var overrides: [String] = []

    @Flag(help: "Print Graphviz dot.")
    var dot = false

    @Flag(help: "Show the unfused plan (every operation a pass of its own).")
    var noFuse = false

    @Flag(help: "Show the plan after each optimiser pass, not only the plan that renders.")
    var passes = false

    @Option(help: ArgumentHelp("With --photo: the output's colours (keep, srgb, display-p3, adobe-rgb, rec2020 or an RGB ICC file), to show the conversions the plan gets.", valueName: "profile"))
    var profile: OutputProfile?

    @Option(help: ArgumentHelp("With --photo: the rendering intent of the conversions.", valueName: "intent"))
    var intent: RenderingIntent?

    @Option(help: ArgumentHelp("With --photo: the size of the render the memory estimate is for: full, display or a long edge in pixels.", valueName: "size"))
    var renderSize: RenderSize = .full

    @OptionGroup var memory: MemoryOptions

    @Flag(help: "With --photo: list every part of the memory estimate, not only the largest.")
    var memoryDetail = false

    func validate() throws {
        try profile?.requireFile()
    }

    func run() throws {
        var request = RenderRequest(photo: photo ?? "")
        request.recipes = [RenderRequest.Recipe(path: recipe, overrides: try parseOverrides(overrides))]
        request.size = renderSize
        request.profile = profile
        request.intent = intent
        request.fuse = !noFuse
        request.budget = memory.budget
        if photo == nil {
            var nominal: CanvasSize?
            if let size {
                let parts = size.lowercased().split(separator: "x")
                guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0, w <= 1_000_000, h <= 1_000_000 else {
                    throw ValidationError("--size must be WIDTHxHEIGHT, e.g. 6000x4000")
                }
                nominal = CanvasSize(width: w, height: h)
            }
            request.header = .nominal(nominal)
        } else if let photo {
            // The photo's own error (unreadable, not an image) stops explain, as it stops a render.
            _ = try ImageDecoders.open(photo, options: request.decodeOptions(develop: nil))
        }
        let planned = Result { () throws(RenderPlanError) -> RenderPlan in try RenderPlanner.plan(request) }
        guard case .success(let plan) = planned else {
            guard case .failure(let error) = planned, case .plan(let planError, _) = error else {
                if case .failure(let error) = planned { throw Self.stop(error) }
                return
            }
            // A plan this build cannot make (a file it cannot read): the graph is still shown.
            let checked = RenderPlanner.check(request.recipes, size: RenderPlanner.header(request).size)
            for line in checked.recipes.flatMap({ c in c.diagnostics.map { DiagnosticPrinter.render($0, source: c.file) } }) { Console.printError(line) }
            print(dot ? GraphText.dot(checked.graph!, title: recipe) : GraphText.text(checked.graph!, checked: checked.recipes[0]), terminator: "")
            if !dot { print("\nplan: not renderable by this build yet: \(planError.message)") }
            return
        }
        for line in plan.diagnostics { Console.printError(line) }
        let graph = plan.graph!
        if let photo, let info = plan.info, let chosenColor = plan.color {
            Console.warnings(chosenColor.warnings)
            try printDevelop(plan, photo: photo, info: info, graph: graph)
            let color = RecipePlanning.colorEnds(chosenColor, graph)
            print("colour: \(chosenColor.sourceName) in, \(chosenColor.outputName) out"
                  + (color.converts ? "; the plan converts at its ends" : "; nothing to convert"))
            for line in plan.lens.lines { print(line) }
            Console.warnings(plan.lens.warnings)
        }
        for line in plan.auto.lines { print(line) }
        // The default look's stages are the graph's first nodes (`RenderPlanner.plan` composes it first).
        let lookNodes = plan.defaultLook?.graph.map { $0.nodes.count - 1 } ?? 0
        if let look = plan.defaultLook {
            print("default look: \(RawDefaultLook.name) runs first (\(Paths.name(of: plan.request.photo)) is a camera raw and "
                  + "\(Paths.name(of: recipe)) has no `develop` stage; a recipe with one replaces the whole look): "
                  + look.stages.compactMap(\.op).joined(separator: ", "))
        }
        print(dot ? GraphText.dot(graph, title: recipe, lookNodes: lookNodes) : GraphText.text(graph, checked: plan.checked[0], lookNodes: lookNodes), terminator: "")
        if dot { return }
        do {
            let trace = try plan.trace()
            let last = trace.last!.plan
            if passes {
                print("\nplan (after each optimiser pass):")
                for t in trace { print("\(t.pass):\n\(t.plan)", terminator: "") }
            } else {
                print("\nplan (--passes shows it after each optimiser pass):\n\(last)", terminator: "")
            }
            if !noFuse { printFusion(RenderJob.fusion(of: RecipePlanning.stages(of: last), source: .uint8, output: .uint8)) }
            for line in ExportSettings.lines(plan.output) { print("export: " + line) }
            if let source = last.sourceSize, source != graph.nodes[0].size {
                let full = graph.nodes[0].size
                let d = plan.geometry?.denominator(for: (source.width, source.height), exact: last.sourceIsReducedDecode) ?? 1
                let decode = d > 1 ? "decoded at 1/\(d) of its size" : "decoded in full"
                let resampled = last.sourceIsReducedDecode ? "" : ", then resampled to \(source) (\(last.sourceKernel ?? .lanczos3))"
                print("source: the photo (\(full)) \(decode)\(resampled) before the first stage: a downscaling resize later "
                      + "needs no more pixels (`--no-fuse` renders the stages before it at full size)")
            }
            if photo != nil { try printEstimate(plan) }
        } catch let error as PlanError {
            print("\nplan: not renderable by this build yet: \(error.message)")
        }
    }

    /// A planning failure as the command reports it: a recipe's diagnostics (exit 2), or the photo's error.
    static func stop(_ error: RenderPlanError) -> any Error {
        switch error {
        case .recipe(let checked, _):
            for d in checked.diagnostics { Console.printError(DiagnosticPrinter.render(d, source: checked.file)) }
            return CommandFailure.usage
        case .plan(let planError, _):
            return planError
        case .photo(let underlying):
            return underlying
        }
    }

    /// The raw develop as the plan's first nodes, with their sizes and memory (the decoder runs
    /// them before the first pass; the camera matrix and raw exposure are that pass's first step):
    ///
    /// ```
    /// develop (a directional develop of the Canon EOS 550D raw, as shot; the defaults: no develop stage):
    ///   #d1 unpack          5202×3465    34 MiB     LibRaw unpacks the RGGB mosaic (black 2048, white 15000)
    /// ```
    func printDevelop(_ plan: RenderPlan, photo: String, info: ImageInfo, graph: FilterGraph) throws {
        guard let raw = info.raw else {
            if graph.develop != nil { print("develop: ignored: \(photo) is not a camera raw file (the stage is for raws only)") }
            return
        }
        let develop = graph.develop ?? RawDevelop()
        let job = plan.job(output: "explain.jpg")
        let decoder = try ImageDecoders.open(photo, options: job.decode)
        let upright = info.uprightSize
        let source = plan.render.sourceSize ?? upright
        let denominator = plan.geometry?.denominator(for: source, exact: plan.render.sourceIsReducedDecode) ?? 1
        let whose = plan.defaultLook != nil ? " (\(RawDefaultLook.name)'s: the recipe has no develop stage)" : graph.develop == nil ? " (the defaults: no develop stage)" : ""
        print("develop of the \(raw.camera) raw: \(develop)\(whose)")
        let bytes = decoder.decodingBytes(scaleDenominator: denominator)
        // The denoise's noise model, measured on the mosaic as the render will (an unpack).
        let noise = develop.denoise != nil && develop.denoise?.model == nil ? try RenderPlan.noiseEstimate(decoder, denominator: denominator) : nil
        for (i, node) in plan.developNodes(denominator: denominator, decodingBytes: bytes, noise: noise).enumerated() {
            let bytes = node.bytes > 0 ? MemoryBudget.text(node.bytes) : "-"
            print("  #d\(i + 1) \(node.name.padding(16))\(String(describing: node.size).padding(12)) \(bytes.padding(10)) \(node.detail)")
        }
    }

    /// What runs inside the neighbourhood stages rather than as passes (`RenderJob.fusion`), by
    /// the plan's pass numbers:
    ///
    /// ```
    /// at run time: pass 3 (→ encoded) runs inside pass 2, on each row it emits
    /// ```
    func printFusion(_ fusion: RenderJob.StageFusion) {
        func name(_ steps: [PointStep]) -> String {
            // The steps by kind (the case's name: `vibrance`, `matrix`, …).
            steps.map { $0 == .toLinear ? "→ linear" : $0 == .toEncoded ? "→ encoded" : String(String(describing: $0).prefix { $0 != "(" }) }
                .joined(separator: ", ")
        }
        var lines: [(Int, String)] = []
        for (i, steps) in fusion.emits { lines.append((i + 1, "pass \(i + 2) (\(name(steps))) runs inside pass \(i + 1), on each row it emits")) }
        for (i, steps) in fusion.reads where fusion.inside.contains(i - 1) {
            lines.append((i - 1, "pass \(i) (\(name(steps))) runs inside pass \(i + 1), on each row it reads"))
        }
        for (i, steps) in fusion.leftToNext {
            lines.append((i, "pass \(i + 1) leaves its last \(name(steps)) to pass \(i + 2), which takes its mask from the encoded rows"))
        }
        for (_, line) in lines.sorted(by: { $0.0 < $1.0 }) { print("at run time: \(line)") }
    }

    /// The memory a full-size render of `photo` is estimated to take, against the budget:
    ///
    /// ```
    /// memory: ~41 MiB estimated peak (budget 7.8 GiB); work: ~0.6 G pixel-ops
    ///   a full-size render to JPEG on 2 threads; the most: the process (code, runtime) 13 MiB, clarity (stage 6) 9.6 MiB, …
    /// ```
    func printEstimate(_ plan: RenderPlan) throws {
        guard let info = plan.info, let color = plan.color else { return }
        // A raw is never written: its renders are JPEGs (as `edit` writes its current version).
        let format = info.raw != nil ? ImageFileFormat.jpeg : info.format
        var job = plan.job(output: "explain." + format.preferredExtension)
        job.color = color
        let decoder = try ImageDecoders.open(plan.request.photo, options: job.decode)
        let estimate = try job.estimate(decoder, color: color)
        if let w = try job.decodedWindow(decoder, color: color) {
            print("source: only the \(w.width)×\(w.height) window at (\(w.x), \(w.y)) is decoded, what the plan's first crop or straighten reads "
                  + "(the rows above it skipped, those below never read, the columns beside it left out where the format allows)")
        }
        print("memory: ~\(MemoryBudget.text(estimate.bytes)) estimated peak (budget \(job.memoryBudget)); work: ~\(RenderEstimate.workText(estimate.work)) pixel-ops")
        print("  a \(renderSize == .full ? "full-size" : "\(renderSize)") render to \(format.rawValue) on \(job.threads) thread\(job.threads == 1 ? "" : "s"); the most: "
              + RenderEstimate.list(estimate.largest(4)))
        if memoryDetail {
            for part in estimate.largest(estimate.grouped.count) { print("    \(MemoryBudget.text(part.bytes).padding(10)) \(part.what)") }
        }
        if estimate.peaksBeforeDecoding, let reading = estimate.beforeDecoding {
            print("  the peak comes before decoding: \(reading.what), \(MemoryBudget.text(reading.bytes)) beside the process")
        }
        if estimate.bytes > job.memoryBudget.perRender {
            print("  over the budget: `recipe render` and `apply` refuse it (--max-memory raises the budget)")
        }
    }
}

/// `--set name=value` pairs.
func parseOverrides(_ list: [String]) throws -> [String: String] {
    var out: [String: String] = [:]
    for item in list {
        guard let eq = item.firstIndex(of: "="), eq != item.startIndex else {
            throw ValidationError("--set takes name=value, not `\(item)`")
        }
        out[String(item[..<eq])] = String(item[item.index(after: eq)...])
    }
    return out
}

/// Text and Graphviz renderings of a filter graph.
enum GraphText {
    /// `lookNodes`: how many nodes after the source are the default look's (`RawDefaultLook`),
    /// each marked so.
    static func text(_ graph: FilterGraph, checked: CheckedRecipe, lookNodes: Int = 0) -> String {
        var out = "\(checked.file.path): format \(RecipeFormat.identifier) \(checked.declaredVersion.map { "\($0)" } ?? "?")"
        if !checked.migrations.isEmpty { out += " (migrated to \(RecipeFormat.current))" }
        out += "\n"
        for knob in checked.knobs {
            out += "param $\(knob.name) = \(knob.value.scalar ?? "…")\(knob.overridden ? " (--set)" : "")\n"
        }
        let disabled = checked.stages.filter { !$0.enabled }
        // The name column fits the longest name (`shadows-highlights (face)`), at least 18 wide.
        let nameWidth = max(17, graph.nodes.map { $0.op.count + ($0.stageID.map { $0.count + 3 } ?? 0) }.max() ?? 0) + 1
        for (i, node) in graph.nodes.enumerated() {
            var line = "#\(i) "
            if i == 0 {
                line += "source".padding(nameWidth) + "\(node.size)"
                out += line + "\n"
                continue
            }
            let name = node.op + (node.stageID.map { " (\($0))" } ?? "")
            line += name.padding(nameWidth)
            line += "\(node.size)".padding(12)
            line += (node.opClass?.rawValue ?? "").padding(17)
            line += "← " + node.inputs.map { "#\($0)" }.joined(separator: ", ")
            line += "   stage \(node.stageIndex)" + (i <= lookNodes ? " of \(RawDefaultLook.name)" : "")
            out += line + "\n"
            let params = node.params.names.map { name -> String in
                let v = node.params[name]!.description
                let bound = node.bindings[name].map { " ($\($0))" } ?? ""
                return "\(name) \(v)\(bound)\(node.params.isGiven(name) ? "" : "·")"
            }
            if !params.isEmpty { out += "     " + params.joined(separator: ", ") + "\n" }
            if let mask = node.mask {
                out += mask.parts.isEmpty
                    ? "     mask \(mask.kind): " + mask.params.names.map { "\($0) \(mask.params[$0]!.description)" }.joined(separator: ", ") + "\n"
                    : "     mask \(mask.signature)\n"
            }
        }
        out += "output: #\(graph.output) \(graph.nodes[graph.output].size)\n"
        if !disabled.isEmpty {
            out += "disabled: " + disabled.map { "stage \($0.index) (\($0.op ?? "?"))" }.joined(separator: ", ") + "\n"
        }
        out += "(· marks a default value)\n"
        return out
    }

    static func dot(_ graph: FilterGraph, title: String, lookNodes: Int = 0) -> String {
        var out = "digraph recipe {\n  label=\(JSONValue.quote(title));\n  rankdir=TB;\n  node [shape=box, fontname=\"Helvetica\"];\n"
        for (i, node) in graph.nodes.enumerated() {
            var label = i == 0 ? "source\\n\(node.size)" : "\(node.op)\(node.stageID.map { " (\($0))" } ?? "")\\n\(node.size)"
            if i > 0, i <= lookNodes { label += "\\n(\(RawDefaultLook.name))" }
            if i > 0 {
                let given = node.params.names.filter { node.params.isGiven($0) }
                if !given.isEmpty { label += "\\n" + given.map { "\($0) \(node.params[$0]!.description.filter { $0 != "\"" })" }.joined(separator: "\\n") }
                if let mask = node.mask { label += "\\nmask: \(mask.kind)" }
            }
            let shape = i == graph.output ? ", peripheries=2" : ""
            out += "  n\(i) [label=\"\(label)\"\(shape)];\n"
            for (k, input) in node.inputs.enumerated() {
                out += "  n\(input) -> n\(i)\(k > 0 ? " [style=dashed]" : "");\n"
            }
        }
        return out + "}\n"
    }
}
