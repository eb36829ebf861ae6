import RecipeCodecs
import RecipeColor
import RecipeCore
import RecipeHistory
import RecipeKernels
import RecipeLanguage
import RecipeOptimizer
#if canImport(Glibc)
import Glibc
import RecipeSession
#endif

/// The recipes `recipe apply` runs on every photo, in order (a base look, then a style): each
/// recipe's output is the next one's input. Loaded and checked once; planned per photo, since
/// geometry depends on the photo's size. Planning here never prints: a batch reports a problem
/// per photo as a record.
///
/// ```swift
/// let chain = try RecipeChain.load(["base.recipe.yaml", "film.recipe.yaml"], overrides: ["grain": "0.2"])
/// let render = try chain.plan(photo: "IMG_1.jpg", sidecar: nil, size: .full, fuse: true)
/// ```
struct RecipeChain: Sendable {
    struct Link: Sendable {
        var path: String
        var text: String
        /// `--set` values for the params this recipe declares.
        var overrides: [String: String]
        /// What identifies the link's meaning: its canonical text, the files it reads (by
        /// content) and its param values.
        var key: String
    }

    var links: [Link]
    /// The recipes' `output:` settings, a later recipe's winning.
    var output = CheckedRecipe.Output()
    /// Plans already made, by source size (without a sidecar the plan depends on nothing else):
    /// a batch of photos of a few sizes builds each plan's tables once, not per photo.
    let cache = PlanCache()

    /// A problem with one photo (not with the batch).
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Checks every recipe; prints each diagnostic and throws `CommandFailure(2)` when one has
    /// errors, is foreign, or when a `--set` names a param no recipe declares.
    static func load(_ paths: [String], overrides: [String: String]) throws -> RecipeChain {
        var links: [Link] = []
        var output = CheckedRecipe.Output()
        var declared = Set<String>()
        var broken = false
        var stageCount = 0
        for path in paths {
            let checked = RecipeChecker.load(path: path)
            let names = Set(checked.knobs.map(\.name))
            declared.formUnion(names)
            let mine = overrides.filter { names.contains($0.key) }
            // Checked again with its overrides: a bad value is this recipe's error.
            let final = mine.isEmpty ? checked : RecipeChecker.check(checked.file, options: { var o = CheckOptions(); o.overrides = mine; return o }())
            for d in final.diagnostics { Console.printError(DiagnosticPrinter.render(d, source: final.file)) }
            if final.isForeign { Console.error("\(path): foreign adjustment data, not a recipe this build can apply") }
            guard !final.hasErrors, !final.isForeign, final.graph != nil else {
                broken = true
                continue
            }
            stageCount += final.stages.count
            if final.stages.contains(where: { $0.base != nil }) {
                Console.error("\(path): has frozen base layers of one photo's history; apply it with `recipe render` to that photo")
                broken = true
                continue
            }
            // The graph's signature is the recipe's meaning: formatting, comments and notes do not change it.
            if let said = final.output {
                output.profile = said.profile ?? output.profile
                output.intent = said.intent ?? output.intent
            }
            var key = "recipe\n" + final.graph!.signature
            if let said = final.output { key += "output \(said.profile ?? "-") \(said.intent ?? "-")\n" }
            key += "files\n"
            for file in Self.referencedFiles(final) {
                let resolved = file.hasPrefix("/") ? file : Paths.join(Paths.folder(of: path), file)
                let digest = (try? ContentHash.file(resolved).sha256) ?? "missing"
                key += "\(file) \(digest)\n"
            }
            links.append(Link(path: path, text: String(decoding: checked.file.bytes, as: UTF8.self), overrides: mine, key: key))
        }
        let unknown = overrides.keys.filter { !declared.contains($0) }.sorted()
        for name in unknown { Console.error("--set \(name): no recipe given declares a param `\(name)`") }
        // The bound on stages holds for the chain too (R108 holds each recipe to it).
        let limit = YAMLReader.Limits().maxStages
        if stageCount > limit {
            Console.error("the recipes have \(stageCount) stages together, over the limit of \(limit) for a chain of recipes")
            broken = true
        }
        if broken || !unknown.isEmpty { throw CommandFailure.usage }
        return RecipeChain(links: links, output: output)
    }

    /// The files (LUTs) a recipe's stages name, as written.
    static func referencedFiles(_ checked: CheckedRecipe) -> [String] {
        var files: [String] = []
        for stage in checked.stages {
            for name in stage.params.names {
                if case .file(let f)? = stage.params[name], !files.contains(f) { files.append(f) }
            }
        }
        return files
    }

    /// The key of everything the chain means, for the manifest (the sidecar's canonical text
    /// joins it per photo).
    var key: String { links.map(\.key).joined(separator: "next\n") }

    /// The render of `source` (the photo, or a sidecar's frozen base pixels): the sidecar's
    /// stages first when given, then each recipe, planned together so that a display size scales
    /// the whole chain to the final output.
    func plan(source: String, sidecar: Sidecar?, size: RenderSize, fuse: Bool, profile: OutputProfile? = nil,
              intent: RenderingIntent? = nil, budget: Int? = nil) throws(Failure) -> PlannedRender {
        guard var decoder = try? ImageDecoders.open(source) else {
            // The render itself reports why the photo cannot be read.
            return PlannedRender(stages: [], sourceSize: nil)
        }
        var photo = PhotoGeometry(decoder.info, supported: decoder.supportedScaleDenominators)
        var color: PhotoColor
        let chosen = RecipePlanning.output(profile, intent, recipe: output)
        do { color = try PhotoColor(photo: source, info: decoder.info, output: chosen.profile, intent: chosen.intent) } catch {
            throw Failure(description: "\(error)")
        }
        let upright = photo.upright
        // Photos of one size share a plan unless their colours differ (a profile's conversion
        // steps are part of it).
        let meta = decoder.info.metadata
        let colorKey = "\(color.sourceName) \(meta.icc?.hashValue ?? 0) \(meta.pngGamma ?? 0) \(meta.pngSRGBIntent ?? -1)"
        let cacheKey = "\(upright.width)x\(upright.height) \(photo.stored.width)x\(photo.stored.height) \(photo.supportedScaleDenominators) \(size) \(fuse) \(colorKey)"
        // A raw's colour depends on its develop (each photo's white balance): planned each time.
        let isRaw = decoder.info.raw != nil
        if sidecar == nil, !isRaw, var cached = cache[cacheKey] {
            cached.color = color  // the same conversions; this photo's name on its warnings
            return cached
        }
        var steps: [(path: String, text: String, overrides: [String: String], maxBytes: Int?)] = []
        if let sidecar { steps.append((sidecar.path, sidecar.text, [:], Sidecar.maxBytes)) }
        steps += links.map { ($0.path, $0.text, $0.overrides, nil) }
        var graph = try composed(steps, size: CanvasSize(width: upright.width, height: upright.height))
        if isRaw, let develop = graph?.develop {
            // A raw developed at half size is a photo of half the size: checked again for it.
            if develop.demosaic == .halfSize, let reopened = try? ImageDecoders.open(source, options: DecodeOptions(develop: develop)) {
                decoder = reopened
                photo = PhotoGeometry(reopened.info, supported: reopened.supportedScaleDenominators)
                graph = try composed(steps, size: CanvasSize(width: photo.upright.width, height: photo.upright.height))
            }
            do { color = try PhotoColor(photo: source, info: decoder.info, output: chosen.profile, intent: chosen.intent, develop: develop) } catch {
                throw Failure(description: "\(error)")
            }
        }
        guard let graph else { return PlannedRender(stages: [], sourceSize: nil, color: color) }
        var planned: PlannedRender
        do {
            planned = try RecipePlanning.plan(graph, size: size, fuse: fuse, readFile: RecipePlanning.fileReader(for: "/", budget: budget), photo: photo,
                                              color: RecipePlanning.colorEnds(color, graph))
            planned.color = color
            planned.develop = graph.develop
            planned.reading = RecipePlanning.reading(graph, recipe: "/")
            planned.recipeName = steps.map { Paths.name(of: $0.path) }.joined(separator: " + ")
        } catch {
            throw Failure(description: RecipePlanning.position(error.range, else: "") + error.message)
        }
        if sidecar == nil, !isRaw { cache[cacheKey] = planned }
        return planned
    }

    /// The graphs of `steps` checked for a photo of `size` and composed, each reading the last's output.
    private func composed(_ steps: [(path: String, text: String, overrides: [String: String], maxBytes: Int?)], size: CanvasSize)
        throws(Failure) -> FilterGraph? {
        var current = size
        var graph: FilterGraph?
        for step in steps {
            var options = CheckOptions()
            options.overrides = step.overrides
            options.sourceSize = current
            if let max = step.maxBytes { options.limits.maxBytes = max }
            let checked = RecipeChecker.check(SourceFile(path: step.path, text: step.text), options: options)
            guard let next = checked.graph, !checked.hasErrors else {
                let first = checked.diagnostics.first { $0.severity == .error }
                throw Failure(description: RecipePlanning.position(first?.range, else: step.path) + (first?.message ?? "cannot be applied") + " (for a \(current.width)×\(current.height) photo)")
            }
            let absolute = Self.absoluteFiles(next, folder: Paths.folder(of: step.path))
            graph = graph.map { Self.compose($0, then: absolute) } ?? absolute
            current = absolute.nodes[absolute.output].size
        }
        return graph
    }
}

/// A small map of plans shared by the batch's workers (plans are immutable values).
final class PlanCache: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var plans: [String: PlannedRender] = [:]
    /// Photos come in a handful of sizes; a batch of all-different sizes keeps the newest 64.
    static let capacity = 64

    init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }

    subscript(key: String) -> PlannedRender? {
        get {
            pthread_mutex_lock(&mutex)
            defer { pthread_mutex_unlock(&mutex) }
            return plans[key]
        }
        set {
            pthread_mutex_lock(&mutex)
            defer { pthread_mutex_unlock(&mutex) }
            if plans.count >= Self.capacity { plans.removeAll(keepingCapacity: true) }
            plans[key] = newValue
        }
    }
}

extension RecipeChain {
    /// One graph from two: `second`'s source is `first`'s output. The planner then sees the whole
    /// chain, so point ops of both recipes fuse into one pass (and no 8-bit rounding or clipping
    /// happens between them).
    ///
    /// ```text
    /// first:  #0 source, #1 exposure ← #0           second: #0 source, #1 sepia ← #0
    /// both:   #0 source, #1 exposure ← #0, #2 sepia ← #1
    /// ```
    static func compose(_ first: FilterGraph, then second: FilterGraph) -> FilterGraph {
        let offset = first.nodes.count - 1
        func map(_ id: FilterGraph.NodeID) -> FilterGraph.NodeID { id == 0 ? first.output : id + offset }
        var nodes = first.nodes
        for var node in second.nodes.dropFirst() {
            node.inputs = node.inputs.map(map)
            nodes.append(node)
        }
        return FilterGraph(nodes: nodes, output: map(second.output))
    }

    /// The graph with every file a stage names (LUTs) made absolute, so graphs from recipes in
    /// different folders can be planned together.
    static func absoluteFiles(_ graph: FilterGraph, folder: String) -> FilterGraph {
        var graph = graph
        let base = folder.hasPrefix("/") ? folder : Paths.join(currentDirectory, folder)
        for i in graph.nodes.indices {
            for name in graph.nodes[i].params.names {
                if case .file(let f)? = graph.nodes[i].params[name], !f.hasPrefix("/") {
                    graph.nodes[i].params.set(name, .file(Paths.join(base, f)), given: graph.nodes[i].params.isGiven(name))
                }
            }
        }
        return graph
    }

    static var currentDirectory: String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let ok = buffer.withUnsafeMutableBufferPointer { b in b.withMemoryRebound(to: CChar.self) { getcwd($0.baseAddress, $0.count) != nil } }
        guard ok else { return "." }
        return String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
