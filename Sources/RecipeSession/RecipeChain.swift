import RecipeCodecs
import RecipeColor
import RecipeCore
import RecipeHistory
import RecipeKernels
import RecipeLanguage
import RecipeLens
import RecipeOps
import RecipeOptimizer
#if canImport(Glibc)
import Glibc
#endif

/// The recipes `recipe apply` runs on every photo, in order (a base look, then a style): each
/// recipe's output is the next one's input. Loaded and checked once; planned per photo, since
/// geometry depends on the photo's size. Planning here never prints: a batch reports a problem
/// per photo as a record.
///
/// ```swift
/// let chain = try RecipeChain.load(["base.recipe.yaml", "film.recipe.yaml"], overrides: ["grain": "0.2"])
/// let plan = try chain.plan(RenderRequest(photo: "IMG_1.jpg"), sidecar: nil)
/// ```
package struct RecipeChain: Sendable {
    package struct Link: Sendable {
        package var path: String
        package var text: String
        /// `--set` values for the params this recipe declares.
        package var overrides: [String: String]
        /// What identifies the link's meaning: its canonical text, the files it reads (by
        /// content) and its param values.
        package var key: String
    }

    package var links: [Link]
    /// The recipes' `output:` settings, a later recipe's winning.
    package var output = CheckedRecipe.Output()
    /// Plans already made, by source size (without a sidecar the plan depends on nothing else):
    /// a batch of photos of a few sizes builds each plan's tables once, not per photo.
    let cache = PlanCache()

    package init(links: [Link], output: CheckedRecipe.Output = CheckedRecipe.Output()) {
        self.links = links
        self.output = output
    }

    /// A problem with one photo (not with the batch).
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// Checks every recipe; prints each diagnostic and throws `CommandFailure(2)` when one has
    /// errors, is foreign, or when a `--set` names a param no recipe declares.
    package static func load(_ paths: [String], overrides: [String: String]) throws -> RecipeChain {
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
            if let said = final.output { output = output.merged(with: said) }
            var key = "recipe\n" + final.graph!.signature
            if let said = final.output { key += said.signature }
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
    package static func referencedFiles(_ checked: CheckedRecipe) -> [String] {
        var files: [String] = []
        for stage in checked.stages {
            for name in stage.params.names {
                if case .file(let f)? = stage.params[name], !files.contains(f) { files.append(f) }
            }
            for f in stage.mask.map(Operations.rasterFiles) ?? [] where !files.contains(f) { files.append(f) }
        }
        if let mark = checked.output?.watermark?.image, !files.contains(mark) { files.append(mark) }
        return files
    }

    /// The key of everything the chain means, for the manifest (the sidecar's canonical text
    /// joins it per photo).
    package var key: String { links.map(\.key).joined(separator: "next\n") }

    /// The plan of `request` (its photo the photo itself, or a sidecar's frozen base pixels):
    /// the sidecar's stages first when given, then each recipe, planned together by
    /// `RenderPlanner` so that a display size scales the whole chain to the final output.
    package func plan(_ request: RenderRequest, sidecar: Sidecar?) throws(Failure) -> RenderPlan {
        var request = request
        request.recipes = (sidecar.map { [RenderRequest.Recipe.sidecar($0)] } ?? [])
            + links.map { RenderRequest.Recipe(path: $0.path, text: $0.text, overrides: $0.overrides) }
        guard let decoder = try? ImageDecoders.open(request.photo, options: request.decodeOptions(develop: nil)) else {
            // The render itself reports why the photo cannot be read.
            request.recipes = []
            return try! RenderPlanner.plan(request)
        }
        let info = decoder.info
        request.header = .photo(info, supportedScaleDenominators: decoder.supportedScaleDenominators)
        // Photos of one size share a plan unless their colours differ (a profile's conversion
        // steps are part of it). A raw's colour depends on its develop (each photo's white
        // balance), and a sidecar's stages are the photo's own: planned each time.
        let isRaw = info.raw != nil
        var key: String?
        if sidecar == nil, !isRaw {
            let chosen = request.output(output)
            let color: PhotoColor
            do { color = try PhotoColor(photo: request.photo, info: info, output: chosen.profile, intent: chosen.intent) } catch {
                throw Failure(description: "\(error)")
            }
            let photo = PhotoGeometry(info, supported: decoder.supportedScaleDenominators)
            let meta = info.metadata
            let colorKey = "\(color.sourceName) \(meta.icc?.hashValue ?? 0) \(meta.pngGamma ?? 0) \(meta.pngSRGBIntent ?? -1)"
            key = "\(photo.upright.width)x\(photo.upright.height) \(photo.stored.width)x\(photo.stored.height) \(photo.supportedScaleDenominators) \(request.size) \(request.fuse) \(colorKey)"
            // A lens stage is resolved from the photo's EXIF: photos of other lenses or settings
            // have other plans.
                + " \(LensQuery(info: info))"
            if var cached = cache[key!] {
                // The same stages and conversions; this photo's request, header and name on its warnings.
                cached.request = request
                cached.info = info
                cached.color = color
                cached.render.color = color
                return cached
            }
        }
        var plan: RenderPlan
        do { plan = try RenderPlanner.plan(request) } catch {
            if case .plan(let planError, _) = error { throw Failure(description: RecipePlanning.position(planError.range, else: "") + planError.message) }
            throw Failure(description: error.description)
        }
        plan.render.recipeName = request.recipes.map { Paths.name(of: $0.path) }.joined(separator: " + ")
        if let key { cache[key] = plan }
        return plan
    }
}

/// A small map of plans shared by the batch's workers (plans are immutable values).
package final class PlanCache: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var plans: [String: RenderPlan] = [:]
    /// Photos come in a handful of sizes; a batch of all-different sizes keeps the newest 64.
    static let capacity = 64

    package init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }

    subscript(key: String) -> RenderPlan? {
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
    package static func compose(_ first: FilterGraph, then second: FilterGraph) -> FilterGraph {
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
    package static func absoluteFiles(_ graph: FilterGraph, folder: String) -> FilterGraph {
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

    package static var currentDirectory: String {
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
