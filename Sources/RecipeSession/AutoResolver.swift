import RecipeCodecs
import RecipeColor
import RecipeCore
import RecipeKernels
import RecipeOps
import RecipeOptimizer
import RecipeRender

/// The measured `auto` values of a graph resolved for one photo (`exposure: auto`,
/// `white-balance: auto`, `levels: {black: auto, white: auto}`, and their relative forms
/// `auto-0.3`): each stage's value measured on the image that reaches it, rendered small (the
/// photo decoded at its smallest DCT scale of at least 400 px, or resampled to 1024 px, through
/// the stages before it), once per photo, before the passes. The planner's one place for it:
/// every front end gets the same numbers, `explain` and `info` show them and `apply` records them.
///
/// ```swift
/// let (graph, auto) = try AutoResolver.resolve(graph, context)
/// auto.values   // [stage 1 exposure ev: measured +0.42, value +0.12 (auto-0.3)]
/// auto.lines    // ["auto (stage 1 exposure): ev +0.12 (measured +0.42, then -0.3) on 750×500"]
/// ```
///
/// Values are rounded (stops and levels to 1/10,000, kelvin to 1, tint to 1/10) before they are
/// used, so that the numbers recorded (a manifest, a sidecar) render the same bytes as the
/// measurement did.
package enum AutoResolver {
    /// One resolved value.
    package struct Value: Sendable, Equatable {
        /// The stage's 1-based position in its recipe, its op and the parameter.
        package var stage: Int
        package var op: String
        package var param: String
        /// What the photo measured, and the value used: measured plus the relative form's
        /// offset, within the parameter's range, rounded.
        package var measured: Double
        package var value: Double

        /// The node of the composed graph (the key a record names it by).
        package var node: FilterGraph.NodeID
        /// Taken from a record rather than measured.
        package var recorded = false

        /// `3:exposure.ev`: the node of the composed graph, the op and the parameter.
        package var key: String { Self.key(node, op, param) }
        static func key(_ node: FilterGraph.NodeID, _ op: String, _ param: String) -> String { "\(node):\(op).\(param)" }
    }

    package struct Resolution: Sendable {
        package var values: [Value] = []
        /// One line a stage (`explain`).
        package var lines: [String] = []
        /// The size of the image each measurement read (nil: nothing was measured).
        package var measuredSize: CanvasSize?

        /// The values as a manifest records them: `3:exposure.ev=0.4213; 2:white-balance.temp=5120`.
        package var record: String {
            values.map { "\($0.key)=\(NumberFormatting.shortest($0.value))" }.joined(separator: "; ")
        }

        /// The values a `record` holds, by key (what it cannot read is left out, so measured again).
        package static func recorded(_ text: String) -> [String: Double] {
            var out: [String: Double] = [:]
            for part in text.split(separator: ";") {
                let pair = part.split(separator: "=", maxSplits: 1).map { String($0.filter { $0 != " " }) }
                if pair.count == 2, let v = Double(pair[1]), v.isFinite { out[pair[0]] = v }
            }
            return out
        }
    }

    /// What the measurement renders with: the planner's header of the photo, its colour, the
    /// lens corrections and how files are read.
    package struct Context {
        package var request: RenderRequest
        package var info: ImageInfo?
        package var geometry: PhotoGeometry?
        package var color: PhotoColor?
        package var lenses: [FilterGraph.NodeID: LensCorrection] = [:]
        /// The `image` masks' files, read once (`RasterMaskLoader`).
        package var rasters: [String: RasterMaskImage] = [:]
        package var readFile: Planner.FileReader
    }

    /// Long edges of the image measured: at least `smallest` from a DCT-reduced decode, else the
    /// photo resampled to `largest` when it is larger.
    static let smallest = 400
    static let largest = 1024

    /// The parameters of `node` whose measured `auto` is still to be resolved, with what the
    /// relative form adds: `white-balance: auto` (temp) measures the tint too unless it is given.
    package static func autoParams(_ node: FilterGraph.Node) -> [(name: String, offset: Double)] {
        guard let spec = Operations.named(node.op) else { return [] }
        var names: [(String, Double)] = node.params.names.compactMap { name in
            guard spec.param(name)?.autoSince != nil, let offset = node.params[name]?.autoOffset else { return nil }
            return (name, offset)
        }
        // A raw's `develop: {white-balance: auto}`: the camera's multipliers, measured.
        if node.op == "develop", node.params["white-balance"] == .choice("auto") {
            return [("red-multiplier", 0), ("blue-multiplier", 0)]
        }
        if node.op == "white-balance", node.params["temp"]?.isAuto == true, !node.params.isGiven("tint"),
           !names.contains(where: { $0.0 == "tint" }) {
            names.append(("tint", 0))
        }
        return names
    }

    /// `graph` with every measured `auto` replaced by its value for the photo, and what was
    /// measured. Without a photo (`explain` alone) the graph comes back as it is: an unresolved
    /// `auto` renders as the parameter's identity.
    package static func resolve(_ graph: FilterGraph, _ context: Context) throws -> (FilterGraph, Resolution) {
        var graph = graph
        var result = Resolution()
        let stages = graph.nodes.indices.filter { !autoParams(graph.nodes[$0]).isEmpty }
        guard !stages.isEmpty else { return (graph, result) }
        guard let info = context.info, let geometry = context.geometry, let color = context.color else {
            result.lines = stages.map { "auto (stage \(graph.nodes[$0].stageIndex) \(graph.nodes[$0].op)): measured when a photo is rendered" }
            return (graph, result)
        }
        // The image that reaches the last measured stage, kept so that a measured stage right
        // after it (white balance, then exposure) is measured on it through that stage's steps.
        var kept: (node: FilterGraph.NodeID, image: AutoMeasure.Image)?
        for id in stages {
            let node = graph.nodes[id]
            let input = node.inputs[0]
            let names = autoParams(node)
            let recorded = names.allSatisfy { context.request.recordedAuto[Value.key(id, node.op, $0.name)] != nil }
            var measured: [String: Double] = [:]
            var size = ""
            if !recorded {
                let image: AutoMeasure.Image
                // A raw's own white balance is measured on it developed as shot.
                let asShot = node.op == "develop" ? try developedAsShot(graph, info: info, context: context) : nil
                if asShot == nil, let previous = kept, previous.node == input, let moved = run(graph.nodes[input], on: previous.image) {
                    image = moved
                } else {
                    image = try render(graph, upTo: input, info: info, geometry: geometry, color: asShot?.color ?? color, context: context,
                                       asShot: asShot?.develop)
                }
                kept = asShot == nil ? (id, image) : nil
                result.measuredSize = CanvasSize(width: image.width, height: image.height)
                measured = measure(node, image, asShot: asShot)
                if node.op == "develop" && measured.isEmpty {
                    result.lines.append("auto (stage \(node.stageIndex) develop): no white balance measured; LibRaw's grey world")
                    continue
                }
                size = " on \(image.width)×\(image.height)"
            }
            var params = node.params
            var said: [String] = []
            for (name, offset) in names {
                guard let spec = Operations.named(node.op)?.param(name), let range = numberRange(spec.kind) else { continue }
                if recorded, let value = context.request.recordedAuto[Value.key(id, node.op, name)] {
                    let kept = min(range.upperBound, max(range.lowerBound, value))
                    result.values.append(Value(stage: node.stageIndex, op: node.op, param: name, measured: kept, value: kept, node: id, recorded: true))
                    params.set(name, .number(kept), given: true)
                    said.append("\(name) \(NumberFormatting.shortest(kept)) (recorded)")
                    continue
                }
                let raw = measured[name] ?? (spec.defaultValue?.number ?? range.lowerBound)
                let value = rounded(min(range.upperBound, max(range.lowerBound, raw + offset)), param: name)
                result.values.append(Value(stage: node.stageIndex, op: node.op, param: name, measured: rounded(raw, param: name), value: value, node: id))
                params.set(name, .number(value), given: true)
                let then = offset == 0 ? "" : ", then \(offset < 0 ? "" : "+")\(NumberFormatting.shortest(offset))"
                said.append("\(name) \(NumberFormatting.shortest(value)) (measured \(NumberFormatting.shortest(rounded(raw, param: name)))\(then))")
            }
            if node.op == "develop" {
                // The multipliers stand for the white balance now (`FilterGraph.develop`).
                params.set("white-balance", .choice("as-shot"), given: false)
            }
            graph.nodes[id].params = params
            result.lines.append("auto (stage \(node.stageIndex) \(node.op)): " + said.joined(separator: ", ") + size)
        }
        return (graph, result)
    }

    /// A raw developed with the camera's white balance: the develop, its colour, its camera
    /// matrix to the working space and the multipliers it balances the camera's RGB with.
    struct AsShot {
        var develop: RawDevelop
        var color: PhotoColor
        var cameraToWorking: [Double]
        var multipliers: [Double]
    }

    /// The develop of `graph` with the camera's white balance (nil: not a raw recipe develops
    /// itself with a camera matrix, so the develop's `auto` stays LibRaw's).
    static func developedAsShot(_ graph: FilterGraph, info: ImageInfo, context: Context) throws -> AsShot? {
        guard let raw = info.raw, var develop = graph.develop, raw.colors == 3,
              let matrix = CameraMatrix.cameraToWorking(xyzToCamera: raw.xyzToCamera) else { return nil }
        // As shot, or in daylight where the file records no balance (as LibRaw develops it).
        if raw.asShot != nil {
            develop.whiteBalance = .asShot
        } else if raw.daylight.count >= 3, raw.daylight[1] > 0 {
            develop.whiteBalance = .multipliers(raw.daylight.prefix(3).map { $0 / raw.daylight[1] })
        } else {
            return nil
        }
        guard let multipliers = RawDevelopPlan(develop, raw: raw, scaleDenominator: 1).multipliers,
              multipliers.allSatisfy({ $0 > 0 }) else { return nil }
        let color = try PhotoColor(photo: context.request.photo, info: info, output: .keep, intent: .relative, develop: develop)
        return AsShot(develop: develop, color: color, cameraToWorking: matrix, multipliers: multipliers)
    }

    /// The range of a measured number parameter (`auto`'s, or a develop multiplier's).
    static func numberRange(_ kind: ParamKind) -> ClosedRange<Double>? {
        switch kind {
        case .number(let range, _), .orAuto(.number(let range, _)): range
        default: nil
        }
    }

    /// A value as it is used and recorded: stops and levels to 1/10,000, kelvin to 1, tint to 1/10.
    static func rounded(_ v: Double, param: String) -> Double {
        switch param {
        case "temp": v.rounded()
        case "tint": (v * 10).rounded() / 10
        default: (v * 10000).rounded() / 10000
        }
    }

    /// What `node`'s measured parameters come to on `image`, by name (a parameter the photo
    /// gives no measure for, a flat image's levels, keeps its default).
    static func measure(_ node: FilterGraph.Node, _ image: AutoMeasure.Image, asShot: AsShot? = nil) -> [String: Double] {
        switch node.op {
        case "develop":
            // The light as the as-shot develop shows it, back through the camera matrix and
            // the as-shot multipliers to the camera's RGB: the multipliers that make it grey.
            guard let asShot, let light = AutoMeasure.illuminant(image),
                  let balanced = WhiteBalance.camera(light: light, cameraToWorking: asShot.cameraToWorking) else { return [:] }
            let camera = (0..<3).map { balanced[$0] / asShot.multipliers[$0] }
            return ["red-multiplier": camera[1] / camera[0], "blue-multiplier": camera[1] / camera[2]]
        case "exposure":
            return ["ev": AutoMeasure.exposure(image)]
        case "white-balance":
            let target = (node.params.number("target-temp") ?? 6500, node.params.number("target-tint") ?? 0)
            guard let light = AutoMeasure.illuminant(image),
                  let (temp, tint) = WhiteBalance.neutralising(light, targetTemperature: target.0, targetTint: target.1) else { return [:] }
            // `temp: auto` alone measures the tint too; a tint given stays.
            return ["temp": temp, "tint": tint]
        case "levels":
            guard let (black, white) = AutoMeasure.levels(image, blackClip: node.params.number("black-clip") ?? 0.001,
                                                          whiteClip: node.params.number("white-clip") ?? 0.001) else { return [:] }
            return ["black": black, "white": white]
        default:
            return [:]
        }
    }

    /// `image` through `node`'s point steps, when it is a point stage without a mask that reads
    /// no position (nil: it is not, and the image after it is rendered).
    static func run(_ node: FilterGraph.Node, on image: AutoMeasure.Image) -> AutoMeasure.Image? {
        guard node.mask == nil, let spec = Operations.named(node.op), spec.opClass == .point,
              let steps = Operations.pointSteps(op: node.op, params: node.params, canvas: node.size),
              !steps.contains(where: \.readsPosition) else { return nil }
        let linear = spec.space == .linear
        let program = PointProgram(steps: (linear ? [.toLinear] : []) + steps + (linear ? [.toEncoded] : []), tables: false)
        let n = image.pixels
        var r = [Float](repeating: 0, count: n), g = r, b = r
        for i in 0..<n { (r[i], g[i], b[i]) = (image.encoded[3 * i], image.encoded[3 * i + 1], image.encoded[3 * i + 2]) }
        r.withUnsafeMutableBufferPointer { rp in
            g.withUnsafeMutableBufferPointer { gp in
                b.withUnsafeMutableBufferPointer { bp in program.apply(r: rp.baseAddress!, g: gp.baseAddress!, b: bp.baseAddress!, count: n) }
            }
        }
        var out = [Float](repeating: 0, count: 3 * n)
        for i in 0..<n { (out[3 * i], out[3 * i + 1], out[3 * i + 2]) = (r[i], g[i], b[i]) }
        return AutoMeasure.Image(width: image.width, height: image.height, encoded: out)
    }

    /// The image node `upTo` makes, rendered small: the graph's stages up to it, in the working
    /// space's encoded floats, on one thread (the same floats on any machine's thread count).
    ///
    /// `asShot`: a raw developed with the camera's white balance (the develop's own white
    /// balance being what is measured) and its colour for that develop.
    static func render(_ graph: FilterGraph, upTo output: FilterGraph.NodeID, info: ImageInfo, geometry: PhotoGeometry,
                       color: PhotoColor, context: Context, asShot: RawDevelop? = nil) throws -> AutoMeasure.Image {
        var prefix = graph
        prefix.nodes = Array(graph.nodes[...output])
        prefix.output = output
        let source = graph.nodes[0].size
        let long = max(source.width, source.height)
        // The smallest reduced decode that keeps `smallest` px; else the photo resampled to `largest`.
        let d = geometry.supportedScaleDenominators.sorted(by: >).first { (long + $0 - 1) / $0 >= smallest } ?? 1
        let scale = d > 1 ? Double((long + d - 1) / d) / Double(long) : min(1, Double(largest) / Double(long))
        var ends = ColorEndpoints()
        ends.source = color.endpoints.source
        let (plan, _) = try Planner.plan(prefix, fuse: true, scale: scale,
                                         readFile: context.readFile, color: ends, reduction: { _ in nil }, lenses: context.lenses,
                                         rasters: context.rasters)
        var planned = PlannedRender(stages: RecipePlanning.stages(of: plan), sourceSize: plan.sourceSize.map { ($0.width, $0.height) },
                                    sourceKernel: plan.sourceKernel ?? .lanczos3)
        if d > 1, let s = planned.sourceSize, geometry.stored(s) == ((geometry.stored.width + d - 1) / d, (geometry.stored.height + d - 1) / d) {
            planned.sourceIsReducedDecode = true
        }
        planned.color = color
        let develop = asShot ?? graph.develop
        planned.develop = develop
        var job = RenderJob(input: context.request.photo, output: "auto-measure.tif", size: .full)
        job.decode = context.request.decodeOptions(develop: develop)
        job.take(planned)

        job.threads = 1
        job.memoryBudget = context.request.budget
        job.timeout = context.request.timeout
        return try job.measuredImage()
    }
}

extension RenderJob {
    /// The render's rows, read into memory as sRGB-encoded floats of the working space (the
    /// auto values' measurement; within the memory budget as a render is).
    func measuredImage() throws -> AutoMeasure.Image {
        let decoder = try openDecoder?() ?? ImageDecoders.open(input, options: decode)
        let color = try self.color ?? PhotoColor(photo: input, info: decoder.info, output: profile, intent: intent, develop: decode.develop)
        let setup = try setup(decoder.info, supportedScaleDenominators: decoder.supportedScaleDenominators, color: color)
        let estimate = estimate(decoder, color: color, setup: setup)
        if estimate.bytes > memoryBudget.perRender {
            throw estimate.refusal(photo: input, recipe: recipeName, budget: memoryBudget)
        }
        let (streamed, pool) = try stream(decoder, color: color, setup: setup, output: .float32)
        defer { pool?.shutdown() }
        var chain = Self.integerRGB(streamed)
        if chain.format.sampleType != .float32 { chain = PointStage(source: chain, programs: [], output: .float32, pool: nil) }
        let (width, height) = (chain.width, chain.height)
        var samples = [Float](repeating: 0, count: width * height * 3)
        let strip = PixelBuffer(width: width, rowCapacity: 64, format: chain.format)
        var y = 0
        while y < height {
            let n = try chain.readRows(into: strip)
            guard n > 0 else { break }
            // Float rows are planar (red, green, blue planes); the measurement reads pixels.
            samples.withUnsafeMutableBufferPointer { out in
                for i in 0..<n {
                    let row = strip.row(i).assumingMemoryBound(to: Float.self), start = (y + i) * width * 3
                    for x in 0..<width {
                        (out[start + 3 * x], out[start + 3 * x + 1], out[start + 3 * x + 2]) = (row[x], row[width + x], row[2 * width + x])
                    }
                }
            }
            y += n
        }
        return AutoMeasure.Image(width: width, height: height, encoded: samples)
    }
}
