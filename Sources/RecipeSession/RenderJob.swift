import RecipeCodecs
import RecipeColor
import RecipeCore
import RecipeKernels
import RecipeOps
import RecipeOptimizer
import RecipeRender
#if canImport(Glibc)
import Glibc
#endif

/// How large to render.
package enum RenderSize: Equatable, CustomStringConvertible {
    /// The original's size (upright).
    case full
    /// Long edge at most this many pixels (never upscaled).
    case longEdge(Int)

    package static let displayLongEdge = 2048

    /// Parses `full`, `display` or a positive pixel count.
    package init?(argument: String) {
        switch argument.lowercased() {
        case "full": self = .full
        case "display": self = .longEdge(RenderSize.displayLongEdge)
        default:
            guard let n = Int(argument), n > 0 else { return nil }
            self = .longEdge(n)
        }
    }

    package var description: String {
        switch self {
        case .full: "full"
        case .longEdge(let n): "long edge \(n) px"
        }
    }

    /// Target size for an upright image of `w`×`h`.
    package func target(width w: Int, height h: Int) -> (width: Int, height: Int) {
        guard case .longEdge(let n) = self, n < max(w, h) else { return (w, h) }
        if w >= h {
            return (n, max(1, Int((Double(h) * Double(n) / Double(w)).rounded())))
        }
        return (max(1, Int((Double(w) * Double(n) / Double(h)).rounded())), n)
    }
}

/// One render of one photo to one output file.
package struct RenderJob {
    package var input: String
    package var output: String
    package var size: RenderSize = .full
    package var decode = DecodeOptions()
    package var encoding = OutputEncoding()
    /// Output sharpening, watermark and metadata policy (the recipes' `output:`).
    package var export = ExportSettings()
    /// The folder the output must stay inside (a batch's output folder): it is created and
    /// renamed in its folder as opened from there without following a link.
    package var outputRoot: String?
    /// Threads: 1 renders on the calling thread; more put the decoder and each stage on a
    /// thread of its own, and from 3 on the point passes split their rows across `threads − 1`.
    package var threads = RenderJob.defaultThreads
    package var threaded: Bool { threads > 1 }

    package init(input: String, output: String, size: RenderSize = .full) {
        self.input = input
        self.output = output
        self.size = size
    }

    /// The cores online as the process starts (read once: the CLI's option defaults ask for it
    /// each time ArgumentParser makes a command, six times a `render`, each a read of /sys).
    package static let defaultThreads = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    /// The recipe's stages (empty: the identity recipe).
    package var stages: [RenderStage] = []
    /// The upright size to decode and resample to before the stages (nil: `size` of the photo).
    package var sourceSize: (width: Int, height: Int)?
    /// The size to resample the stages' output to (nil: none).
    package var finalSize: (width: Int, height: Int)?
    /// The kernel of the resample to `sourceSize`.
    package var sourceKernel = ResampleKernel.lanczos3
    /// Whether `sourceSize` is a reduced decode's own size (decoded so, not resampled to it).
    package var sourceIsReducedDecode = false
    /// The output's colour (`--profile`) and the rendering intent of the conversions.
    package var profile = OutputProfile.keep
    package var intent = RenderingIntent.relative
    /// The photo's colour as planning read it (nil: read when the render starts).
    package var color: PhotoColor?
    /// Where the photo's rows come from (nil: `input` decoded with `decode`). The preview server
    /// hands out rows it decoded once, so that a new save of the recipe runs only the recipe.
    package var openDecoder: (() throws -> any ImageDecoder)?

    /// Decides, when the output is encoded, whether it goes into place: given the commit, it runs
    /// it (under whatever lock it needs) and returns true, or returns false to discard the output
    /// (`Outcome.superseded`). A sidecar's current version is committed only while the sidecar
    /// still holds what was rendered: a later edit's render is never replaced by an older one.
    package typealias CommitGate = (_ commit: () throws -> Void) throws -> Bool
    package var commitGate: CommitGate?

    /// The memory the render may take (`--max-memory`; `apply` sets its jobs).
    package var memoryBudget = MemoryBudget.standard
    /// Seconds the render may take from its start (`--timeout`); past them it stops and fails,
    /// writing nothing, as a damaged photo does. Checked between strips.
    package var timeout: Double?
    /// The recipes rendered, for messages (`look.recipe.yaml`, a sidecar's path).
    package var recipeName: String?
    /// What planning held reading the recipe's files (`PlannedRender.reading`).
    package var reading: RenderEstimate.Part?
    /// What planning found that the render should say (a lens stage left uncorrected).
    package var plannedWarnings: [ImageWarning] = []
    /// Why a lens stage corrects nothing on this photo (the outcome says it).
    package var uncorrectedLens: String?

    /// Runs `planned`: its stages, from its source size, to its final size.
    package mutating func take(_ planned: PlannedRender) {
        recipeName = planned.recipeName
        stages = planned.stages
        sourceSize = planned.sourceSize
        finalSize = planned.finalSize
        sourceKernel = planned.sourceKernel
        sourceIsReducedDecode = planned.sourceIsReducedDecode
        color = planned.color
        if let develop = planned.develop { decode.develop = develop }
        reading = planned.reading
        plannedWarnings = planned.warnings
        uncorrectedLens = planned.uncorrectedLens
    }

    package struct Outcome {
        package var width: Int
        package var height: Int
        package var scaleDenominator: Int
        package var warnings: [ImageWarning]
        /// The output was discarded by the `commitGate`: nothing was written.
        package var superseded = false
        /// With a size limit (`--max-bytes`): the quality found.
        package var fit: Fit?
        /// Why a lens stage corrected nothing (`apply` lists such photos).
        package var uncorrectedLens: String?

        /// The quality a size limit found: the file's bytes, and how many encodes it took.
        package struct Fit: Sendable, Equatable {
            package var quality: Int
            package var bytes: Int
            package var encodes: Int
            package var limit: Int

            /// `quality 83: 306118 bytes, within the 307200 of --max-bytes 300 KiB (3 encodes)`.
            package var description: String {
                "quality \(quality): \(bytes) bytes, within the \(limit) of --max-bytes \(MemoryBudget.text(limit)) (\(encodes) encode\(encodes == 1 ? "" : "s"))"
            }
        }
    }

    /// What a render decides from the photo's header before decoding: `run` renders with it and
    /// `estimate` counts what it will hold.
    struct Setup {
        var outputFormat: ImageFileFormat
        /// The size to decode and resample to, in stored (pre-orientation) terms, and the DCT
        /// reduction the decoder starts with.
        var stored: (width: Int, height: Int)
        var denominator: Int
        /// The stages, with the colour conversions' pass when there is no recipe but another
        /// colour out.
        var stages: [RenderStage]
        /// Threads of the point passes' pool (the caller's among them).
        var poolThreads: Int
        /// The samples the last stage writes: the encoder's own (`ImageEncoders.pixelFormat`), so
        /// a 16-bit photo reaches a PNG, TIFF or HEIC with the rendered precision, not rounded to
        /// 8 bits on the way.
        var outputSamples: SampleType
    }

    /// The output's format, by its name.
    func outputFormat() throws(ImageError) -> ImageFileFormat {
        guard let format = ImageFileFormat(pathExtension: output) else {
            throw ImageError(.writeFailed, path: output, "cannot tell the output format from the name (use .jpg, .png, .tif, .webp, .heic or .avif)")
        }
        return format
    }

    func setup(_ info: ImageInfo, supportedScaleDenominators: [Int], color: PhotoColor) throws(ImageError) -> Setup {
        let outputFormat = try outputFormat()
        let upright = info.uprightSize
        let target = sourceSize ?? size.target(width: upright.width, height: upright.height)
        // The target in stored (pre-orientation) terms, and the DCT reduction for it (the rule
        // planning uses too).
        let geometry = PhotoGeometry(info, supported: supportedScaleDenominators)
        var stages = self.stages
        if stages.isEmpty && color.converts && !color.sameSpace {
            // No recipe, but another colour out: one pass of the conversions alone.
            let endpoints = color.endpoints
            let steps = (endpoints.source.isEmpty ? [.toLinear] : endpoints.source) + (endpoints.output.isEmpty ? [.toEncoded] : endpoints.output)
            stages = [.point([PointProgram(steps: steps)])]
        }
        // The point passes split their rows over a pool (`poolsPointPasses`): the caller and a
        // helper from 2 threads on, one thread fewer than asked for beyond that (the decoder
        // keeps one busy). A costly pass (a 3D LUT, a sigmoid) is most of a render and the
        // decoder and encoder mostly wait: photo24 film-look 1.53 → 1.01 s and filtster 0.42 →
        // 0.35 s on 2 cores; a cheap pass (the 5-op chain, 0.15 s) costs the same either way.
        let poolThreads = threads > 1 ? max(2, threads - 1) : 1
        return Setup(outputFormat: outputFormat, stored: geometry.stored(target),
                     denominator: geometry.denominator(for: target, exact: sourceIsReducedDecode), stages: stages,
                     poolThreads: poolThreads,
                     outputSamples: ImageEncoders.pixelFormat(outputFormat, for: info.colorModel, deep: info.bitDepth > 8).sampleType)
    }

    /// `30 s`, `0.5 s`.
    static func seconds(_ t: Double) -> String {
        t == t.rounded() ? "\(Int(t)) s" : "\(t) s"
    }

    /// Refuses a plan whose geometry makes an image larger than `limit` pixels (`--max-pixels`,
    /// which bounds the photo read too): a stranger's `resize: {width: 100000, height: 100000}`
    /// would otherwise stream ten billion pixels into a growing file. Checked before decoding.
    static func checkSizes(_ stages: [RenderStage], start: (width: Int, height: Int), limit: Int, photo: String) throws(ImageError) {
        var size = CanvasSize(width: start.width, height: start.height)
        for stage in stages {
            guard case .barrier(.geometric(let step, let origin)) = stage else { continue }
            size = step.size(after: size)
            let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
            if overflow || pixels > limit {
                throw ImageError(.tooLarge, path: photo, "\(origin) makes a \(size.width)×\(size.height) image (\(overflow ? "too many" : "\(pixels / 1_000_000) million") pixels), over the limit of \(limit / 1_000_000) million (--max-pixels \(limit)); nothing rendered")
            }
        }
    }

    /// Decodes, orients, resizes and encodes, streaming; the output appears atomically or not at
    /// all. A render whose estimate (`estimate`) is above the memory budget is refused before the
    /// photo is decoded (`ImageError.Kind.overBudget`).
    package func run() throws -> Outcome {
        let deadline = timeout.map { Timeout.now() + UInt64(max(0, $0) * 1e9) }
        _ = try outputFormat()
        if let a = InputFile.identity(input), let b = InputFile.identity(output), a == b {
            throw ImageError(.refused, path: output, "is the original photo; refusing to overwrite it")
        }
        let decoder = try openDecoder?() ?? ImageDecoders.open(input, options: decode)
        let info = decoder.info
        let color = try self.color ?? PhotoColor(photo: input, info: info, output: profile, intent: intent, develop: decode.develop)
        let setup = try setup(info, supportedScaleDenominators: decoder.supportedScaleDenominators, color: color)
        try Self.checkSizes(setup.stages, start: info.orientation.transposes ? (setup.stored.height, setup.stored.width) : setup.stored,
                            limit: decode.maxPixels, photo: input)
        let estimate = estimate(decoder, color: color, setup: setup)
        if estimate.bytes > memoryBudget.perRender {
            throw estimate.refusal(photo: input, recipe: recipeName, budget: memoryBudget)
        }
        let (streamed, pool) = try stream(decoder, color: color, setup: setup, output: setup.outputSamples)
        defer { pool?.shutdown() }
        var chain = streamed
        let outputFormat = setup.outputFormat
        chain = try finishing(chain, format: outputFormat, deep: info.bitDepth > 8, pool: pool, color: color)
        let outFormat = ImageEncoders.pixelFormat(outputFormat, for: chain.format.colorModel, deep: info.bitDepth > 8)
        if chain.format != outFormat {
            chain = ConvertStep(source: chain, to: outFormat)
        }

        var metadata = info.metadata.applying(export.metadataPolicy).prepared(forOutputWidth: chain.width, height: chain.height)
        switch color.outputICC {
        case .asPhoto: break
        case .replace(let bytes):
            // The chunks that said the old colours go with them.
            metadata.icc = bytes
            metadata.pngGamma = nil
            metadata.pngSRGBIntent = nil
            metadata.pngChromaticities = nil
        case .remove:
            metadata.icc = nil
        }
        let file = try outputRoot.map { root throws(ImageError) in try AtomicOutputFile(path: output, inside: root) } ?? AtomicOutputFile(path: output)
        var fit: Outcome.Fit?
        let encoderWarnings = try file.writing {
            if let maxBytes = encoding.maxBytes {
                let fitted = try encodeFitting(chain, format: outputFormat, pixels: outFormat, metadata: metadata, maxBytes: maxBytes,
                                               into: file, deadline: deadline)
                fit = fitted.fit
                return fitted.warnings
            }
            let encoder = try ImageEncoders.open(outputFormat, handle: file.handle, path: output, width: chain.width, height: chain.height,
                                                 pixels: outFormat, metadata: metadata, encoding: encoding)
            do {
                try StripPipeline.run(source: chain, sink: encoder, deadline: deadline)
            } catch is Timeout {
                throw ImageError(.refused, path: input, "took longer than --timeout \(RenderJob.seconds(timeout ?? 0)); stopped, nothing written")
            }
            return encoder.warnings
        }
        var committed = true
        if let commitGate {
            committed = try commitGate { try file.commit() }
            if !committed { file.abort() }
        } else {
            try file.commit()
        }
        return Outcome(width: chain.width, height: chain.height, scaleDenominator: setup.denominator,
                       warnings: plannedWarnings + color.warnings + decoder.warnings + encoderWarnings.map { ImageWarning(path: output, $0) },
                       superseded: !committed, fit: fit, uncorrectedLens: uncorrectedLens)
    }

    /// The render's rows: the photo decoded (a window of it, or reduced, where the stages allow),
    /// through the stages, resampled to the final size, in `output` samples; what `run` finishes
    /// and encodes, and what the auto values' measurement reads as floats (`AutoResolver`). The
    /// pool the point passes share comes with them: shut it down once they are read.
    func stream(_ decoder: any ImageDecoder, color: PhotoColor, setup: Setup, output: SampleType) throws -> (chain: RowSource, pool: WorkerPool?) {
        let info = decoder.info
        // CMYK JPEGs and TIFFs convert through their profile as they decode.
        if let cmyk = color.cmyk, let cmykDecoder = decoder as? any CMYKDecoding, cmykDecoder.storesCMYK {
            cmykDecoder.cmykConverter = try Self.cmykConverter(cmyk, intent: intent, path: input)
        }
        let orientation = info.orientation
        let (stored, denominator, poolThreads) = (setup.stored, setup.denominator, setup.poolThreads)
        var stages = setup.stages
        var decodesWindow = false
        if let window = Self.decodeWindow(stages, decoder: decoder, denominator: denominator, stored: stored, orientation: orientation),
           let windowed = decoder as? any WindowDecoding {
            // A plan that starts with a crop of the upright, full-size photo (a crop the
            // optimiser hoisted to the front, a preview's 1:1 region) decodes only that window:
            // the rows above it are skipped, those below never read, the columns beside it
            // left out where the format allows. What the decoder covers is cropped to the window.
            let covered = try windowed.start(window: window, scaleDenominator: 1)
            let (x, y) = (window.x - covered.x, window.y - covered.y)
            if (x, y, covered.width, covered.height) == (0, 0, window.width, window.height) {
                stages.removeFirst()
            } else {
                stages[0] = .barrier(.geometric(.crop(x: x, y: y, width: window.width, height: window.height), origin: "the decoded window"))
            }
            decodesWindow = true
        } else if let (index, window) = Self.straightenDecodeWindow(stages, decoder: decoder, denominator: denominator, stored: stored,
                                                                     orientation: orientation),
                  let windowed = decoder as? any WindowDecoding,
                  case .barrier(.geometric(.straightenWindow(let degrees, let expand, let w, let h, let kept, let mirrored, nil), let origin)) = stages[index] {
            // A plan whose first geometric stage is a straighten (with the crops and flips after
            // it) that keeps part of its canvas, after point passes that read no position: the
            // decoder starts on the part of the photo the straighten reads (square-crop: 2000
            // rows of 3000 at 1/2, the rows below never read), at the plan's DCT scale.
            let covered = try windowed.start(window: window, scaleDenominator: denominator)
            let source = GeometricStep.SourceWindow(GeometricStep.Window(x: covered.x, y: covered.y, width: covered.width, height: covered.height),
                                                    of: CanvasSize(width: stored.width, height: stored.height))
            stages[index] = .barrier(.geometric(.straightenWindow(degrees: degrees, expand: expand, width: w, height: h, window: kept,
                                                                  mirrored: mirrored, source: source), origin: origin))
            decodesWindow = true
        } else {
            try decoder.start(scaleDenominator: denominator)
        }

        // A raw that recipe develops starts with its demosaic stage. The decoder (and that stage)
        // get a thread of their own; everything after it runs on this one.
        let decoded = DemosaicStage.rows(of: decoder)
        var chain: RowSource = threaded ? PrefetchStep(source: decoded) : decoded
        let resamples = !decodesWindow && (chain.width != stored.width || chain.height != stored.height)
        let pool = Self.poolsPointPasses(stages, resamples: resamples) && poolThreads > 1 ? WorkerPool(threads: poolThreads) : nil
        // What the decoded pixels stand for: a reduced decode's last row and column may cover
        // less than a whole pixel.
        let span = (width: Double(info.width) / Double(denominator), height: Double(info.height) / Double(denominator))
        if stages.isEmpty {
            if resamples {
                chain = ResampleStep(source: chain, width: stored.width, height: stored.height, kernel: sourceKernel, span: span)
            }
            if orientation != .up {
                chain = OrientStep(source: chain, orientation: orientation)
            }
        } else {
            chain = Self.integerRGB(chain)
            if resamples {
                // The resample runs on linear floats, so a display render of a recipe keeps full
                // precision from the decoder on. A display render is the full render made
                // smaller, and the full render runs its point steps before any downscale: where
                // they bend or clip (a contrast, a curve), the two orders differ. So a leading
                // point run runs here, on the decoded pixels, before the resample, its vignette
                // and masks laid out on the decoded canvas (when that canvas is upright;
                // otherwise only a run that reads no position moves). Against the full render
                // downscaled, at 2048 px: jon-tyson black-and-white 38.1 → 41.4 dB, fatih
                // basic-corrections 41.4 → 43.9, the 5-op chain with a vignette on jake-nackos
                // 40.0 → 46.7 (decoded at 1/2) and on shefta-shifa 38.2 → 97.0 (decoded in full).
                var lead: [PointProgram] = [PointProgram(steps: [.toLinear], storeTable: false)]
                var leadEnds: WorkingSpace = .encoded
                if case .point(let programs) = stages.first {
                    let positional = programs.contains { $0.steps.contains(where: \.readsPosition) }
                    if !positional || orientation == .up {
                        let fx = span.width / Double(stored.width), fy = span.height / Double(stored.height)
                        leadEnds = Self.endSpace(of: programs, after: color.endpoints.source.count)
                        lead = Self.endingLinear(programs.map { $0.laidOut(scaledBy: fx, fy) }, from: leadEnds)
                        stages.removeFirst()
                    }
                }
                chain = PointStage(source: chain, programs: lead, output: .float32, pool: pool)
                if threaded { chain = PrefetchStep(source: chain) }
                chain = ResampleStep(source: chain, width: stored.width, height: stored.height, kernel: sourceKernel, span: span)
                if orientation != .up {
                    chain = OrientStep(source: chain, orientation: orientation)
                }
                if leadEnds == .encoded {
                    chain = PointStage(source: chain, programs: [PointProgram(steps: [.toEncoded], tables: false)], output: .float32, pool: pool)
                }
            } else if orientation != .up {
                chain = OrientStep(source: chain, orientation: orientation)
            }
            chain = try Self.build(stages, on: chain, output: output, threaded: threaded, pool: pool,
                                   windowThreads: poolThreads)
        }
        if let finalSize, chain.width != finalSize.width || chain.height != finalSize.height {
            chain = ResampleStep(source: chain, width: finalSize.width, height: finalSize.height)
        }
        return (chain, pool)
    }

    /// Point work that runs inside the neighbourhood stages beside it rather than as passes of
    /// its own (`build` does it; `explain` says it), by stage index:
    ///
    /// - a float pass of per-channel steps only (in practice a change of working space) right
    ///   before a blur, unsharp mask or shadows/highlights runs on the planes of each row that
    ///   stage reads (`reads`); any float pass right after one runs on the planes of each row it
    ///   emits (`emits`; as tables on the whole row when its steps are per-channel, else as the
    ///   fused pass itself, `emitPrograms`). No strip, no memory pass and no thread hand-off of
    ///   its own: soft-glow's → linear and → encoded around its blur, warm-portrait's → encoded
    ///   between shadows/highlights and clarity, basic-corrections' vibrance after
    ///   shadows/highlights. Those passes are `inside`.
    /// - a pass ending in → linear before shadows/highlights leaves that step to it
    ///   (`leftToNext`): the stage's mask is the luma of the encoded values, which it then reads
    ///   as they come instead of encoding the linear ones again (warm-portrait, basic-corrections:
    ///   72 M curve evaluations on 24 MP).
    package struct StageFusion: Sendable {
        package var reads: [Int: [PointStep]] = [:]
        package var emits: [Int: [PointStep]] = [:]
        package var inside: Set<Int> = []
        package var leftToNext: [Int: [PointStep]] = [:]
        /// A pass of steps that are not all per-channel run on the rows a neighbourhood stage
        /// emits (its steps are in `emits` too): the pass itself, tables built.
        package var emitPrograms: [Int: PointProgram] = [:]
        /// A neighbourhood stage that writes the encoder's integers itself: the pass after it
        /// that writes them runs inside it (`emitPrograms`), or, when it is the last stage, the
        /// plain conversion does.
        package var emitOutputs: [Int: SampleType] = [:]
    }

    /// The fusion of `stages` whose first reads rows of `source` samples and whose last writes
    /// `output` samples.
    package static func fusion(of stages: [RenderStage], source: SampleType, output: SampleType) -> StageFusion {
        var fusion = StageFusion()
        func perChannelPass(_ i: Int) -> [PointStep]? {
            guard i < stages.count, case .point(let programs) = stages[i], programs.count == 1, programs[0].isPerChannelOnly else { return nil }
            return programs[0].steps
        }
        func neighbourhood(_ i: Int) -> Bool {
            guard i >= 0, i < stages.count, case .barrier(let b) = stages[i] else { return false }
            switch b {
            case .blur, .shadowsHighlights, .unsharp: return true
            default: return false
            }
        }
        /// Whether the point stage at `i` writes floats (not the encoder's integers).
        func writesFloats(_ i: Int) -> Bool {
            output == .float32 || !stages[(i + 1)...].allSatisfy {
                if case .barrier(let b) = $0 { return b.space == .none }
                return true
            }
        }
        // The sample type each stage reads, as `build` converts them (a branch point keeps rows as
        // they come).
        var type = source
        var kept: [String: SampleType] = [:]
        for (i, stage) in stages.enumerated() {
            let reads = type
            switch stage {
            case .point: type = writesFloats(i) ? .float32 : output
            case .barrier(.keep(let name, _)): kept[name] = type
            case .barrier(.resume(let name)): type = kept[name] ?? .float32
            case .barrier(let b): if b.space != .none { type = .float32 }
            }
            guard !fusion.inside.contains(i), case .point(let programs) = stage, programs.count == 1 else { continue }
            // A pass between an unsharp mask and a stage that would read it stays with the reader
            // (as before the unsharp mask could take passes): shadows/highlights takes its
            // mask from the encoded rows only when it reads the → linear itself.
            let readByNext = perChannelPass(i) != nil && reads == .float32 && neighbourhood(i + 1)
            var afterUnsharp = false
            if i > 0, case .barrier(.unsharp) = stages[i - 1] { afterUnsharp = true }
            if neighbourhood(i - 1), !(afterUnsharp && readByNext) {
                // Per-channel steps writing floats as tables on the whole row; other passes as
                // they are, the last (writing the encoder's integers) storing the rows too.
                if writesFloats(i), let steps = perChannelPass(i) { fusion.emits[i - 1] = steps } else {
                    fusion.emits[i - 1] = programs[0].steps
                    fusion.emitPrograms[i - 1] = programs[0]
                    if !writesFloats(i) { fusion.emitOutputs[i - 1] = output }
                }
                fusion.inside.insert(i)
            } else if readByNext, let steps = perChannelPass(i) {
                fusion.reads[i + 1] = steps
                fusion.inside.insert(i)
            } else if programs[0].steps.last == .toLinear, i + 1 < stages.count, case .barrier(.shadowsHighlights(_, _, _, _, false, _)) = stages[i + 1] {
                fusion.leftToNext[i] = [.toLinear]
                fusion.reads[i + 1] = [.toLinear]
            }
        }
        // A neighbourhood stage last writes the encoder's integers itself (the plain conversion).
        if output != .float32, let last = stages.indices.last, neighbourhood(last) { fusion.emitOutputs[last] = output }
        return fusion
    }

    /// The window of the photo a run of this job decodes (nil: the whole photo), for `explain`.
    package func decodedWindow(_ decoder: any ImageDecoder, color: PhotoColor) throws -> (x: Int, y: Int, width: Int, height: Int)? {
        let setup = try setup(decoder.info, supportedScaleDenominators: decoder.supportedScaleDenominators, color: color)
        return Self.decodeWindow(setup.stages, decoder: decoder, denominator: setup.denominator, stored: setup.stored,
                                 orientation: decoder.info.orientation)
            ?? Self.straightenDecodeWindow(setup.stages, decoder: decoder, denominator: setup.denominator, stored: setup.stored,
                                           orientation: decoder.info.orientation)?.window
    }

    /// Whether the point passes (and a straighten) split their rows over a pool: only in a plan
    /// of point passes alone, where they are the work and the decoder's and encoder's threads
    /// wait. Beside neighbourhood or geometric stages, which run on threads of their own, the
    /// pool's hand-off for every strip cost more than it shared out (photo24, 2 cores, hyperfine
    /// 9–11 runs: basic-corrections 484 → 362 ms without it, warm-portrait 359 → 311,
    /// black-and-white 295 → 247, soft-glow 359 → 325, web-export 151 → 110, square-crop 142 →
    /// 113; context switches 7,000–9,400 → 2,700–3,400); a plan of point passes alone keeps it
    /// (without it graduated-sky 184 → 221 ms, film-look 264 → 285). A display render that
    /// resamples the decode is not point passes alone either: its resample is most of the work
    /// after the decode, and without the pool the 5-op chain at `--size display` went from 157 to
    /// 126 ms on photo24 and 234 to 181 ms on its progressive copy (14 alternating runs; the
    /// pool's hand-offs had cost 28 ms of CPU, the same bytes).
    package static func poolsPointPasses(_ stages: [RenderStage], resamples: Bool) -> Bool {
        !resamples && !stages.isEmpty && stages.allSatisfy { if case .point = $0 { true } else { false } }
    }

    /// The part of the photo a plan's first geometric stage reads when that stage is a straighten
    /// keeping a window of its canvas (square-crop's straighten, crop and flip), and only point
    /// passes that read no position come before it: the stage's index and the window, in pixels of
    /// the decode at 1/`denominator`. Nil when the decode is not that canvas as it is (a turn to
    /// make, a resample), or the window is the whole canvas.
    package static func straightenDecodeWindow(_ stages: [RenderStage], decoder: any ImageDecoder, denominator: Int,
                                               stored: (width: Int, height: Int), orientation: Orientation)
        -> (index: Int, window: (x: Int, y: Int, width: Int, height: Int))? {
        let info = decoder.info
        let decoded = ((info.width + denominator - 1) / denominator, (info.height + denominator - 1) / denominator)
        guard orientation == .up, decoder is any WindowDecoding, decoded == stored,
              let index = stages.firstIndex(where: { if case .barrier = $0 { return true } else { return false } }),
              case .barrier(.geometric(.straightenWindow(let degrees, let expand, let w, let h, let kept, let mirrored, nil), _)) = stages[index],
              stages[..<index].allSatisfy({
                  guard case .point(let programs) = $0 else { return false }
                  return !programs.contains { $0.steps.contains(where: \.readsPosition) }
              })
        else { return nil }
        let window = StraightenStep.sourceWindow(source: stored, angleDegrees: degrees, fill: expand ? .expand : .crop, width: w, height: h,
                                                 window: (kept.x, kept.y, kept.width, kept.height), mirrored: mirrored)
        guard window.width > 0, window.height > 0, (window.width, window.height) != stored else { return nil }
        return (index, window)
    }

    /// The window a render's decoder can start on (`WindowDecoding`): the crop its stages start
    /// with, when the photo is decoded upright at full size (no DCT reduction, no resample, no
    /// orientation to turn) and the crop leaves something out.
    package static func decodeWindow(_ stages: [RenderStage], decoder: any ImageDecoder, denominator: Int,
                                     stored: (width: Int, height: Int), orientation: Orientation)
        -> (x: Int, y: Int, width: Int, height: Int)? {
        guard denominator == 1, orientation == .up, decoder is any WindowDecoding,
              case .barrier(.geometric(.crop(let x, let y, let w, let h), _)) = stages.first,
              stored == (decoder.info.width, decoder.info.height),
              x >= 0, y >= 0, w > 0, h > 0, x + w <= stored.width, y + h <= stored.height,
              (w, h) != stored
        else { return nil }
        return (x, y, w, h)
    }

    /// Rows of a CMYK photo through its profile into 16-bit sRGB, for the decoder (Adobe's
    /// inverted CMYK and plain CMYK each with a transform of their own, made once).
    package static func cmykConverter(_ profile: ColorProfile, intent: RenderingIntent, path: String) throws -> JPEGDecoder.CMYKConverter {
        let plain: ColorTransform, inverted: ColorTransform
        do {
            plain = try ColorTransform(from: profile, to: .sRGB, input: .cmyk8, output: .rgb16, intent: intent)
            inverted = try ColorTransform(from: profile, to: .sRGB, input: .cmyk8Inverted, output: .rgb16, intent: intent)
        } catch {
            throw ImageError(.unsupported, path: path, "\(error)")
        }
        return { cmyk, isInverted, rgb, pixels in (isInverted ? inverted : plain).convert(cmyk, rgb, pixels: pixels) }
    }

    /// `source` as RGB of its own sample type, the integer rows a first point pass takes: alpha
    /// flattened onto white, grey repeated into three channels.
    package static func integerRGB(_ source: RowSource) -> RowSource {
        var chain = source
        if chain.format.colorModel.hasAlpha {
            chain = ConvertStep(source: chain, to: PixelFormat(chain.format.colorModel.withoutAlpha, chain.format.sampleType))
        }
        if chain.format.colorModel == .gray {
            chain = ConvertStep(source: chain, to: PixelFormat(.rgb, chain.format.sampleType))
        }
        return chain
    }

    /// The space point programs leave their samples in: the last conversion among their steps
    /// after the first `source` (the photo's colour conversion, which leaves linear light); a
    /// run without one starts encoded, as sRGB samples are.
    package static func endSpace(of programs: [PointProgram], after source: Int) -> WorkingSpace {
        for step in programs.flatMap(\.steps).dropFirst(source).reversed() {
            if step == .toLinear { return .linear }
            if step == .toEncoded { return .encoded }
        }
        return source > 0 ? .linear : .encoded
    }

    /// `programs` made to leave linear light, for a resample after them: a trailing → encoded
    /// dropped, or → linear added (the store table is not built: they write floats).
    package static func endingLinear(_ programs: [PointProgram], from end: WorkingSpace) -> [PointProgram] {
        guard end == .encoded else { return programs }
        if programs.count == 1 {
            var steps = programs[0].steps
            if steps.last == .toEncoded { steps.removeLast() } else { steps.append(.toLinear) }
            return [PointProgram(steps: steps, storeTable: false)]
        }
        return programs + [PointProgram(steps: [.toLinear], tables: false)]
    }

    /// The render stages, each on a thread of its own when `threaded` (between the decoder's and
    /// the encoder's). Samples cross the stage boundaries as floats in the space the planner chose
    /// for each (`ExecutionPlan.Barrier.space`), so nothing is quantised between stages: integer
    /// rows become floats before the first stage that needs them and `output` integers after the
    /// last, or in it (`StageFusion.emitOutputs`; crops, rotations and flips move integers as they
    /// are). Images kept at branch points are teed to their readers as they come, the photo's
    /// integers where nothing ran before the branch point (`BranchFromSource`).
    ///
    /// A blur, unsharp mask or shadows/highlights outweighs everything else in a render that has
    /// one (clarity, σ 2% of the short side, is ~25 G multiply-adds on 24 MP), and while it runs
    /// the decoder and encoder threads mostly wait: so a wide one splits its passes over
    /// `windowThreads` of its own, from 2 threads on (black-and-white on photo24 2.7 → 1.5 s).
    package static func build(_ stages: [RenderStage], on source: RowSource, output: SampleType = .uint8, threaded: Bool,
                      pool: WorkerPool? = nil, windowThreads: Int = 1) throws -> RowSource {
        var chain: RowSource? = source
        var kept: [String: (tee: RowTee, next: Int)] = [:]
        func take(_ name: String) -> RowSource {
            let (tee, next) = kept[name]!
            kept[name]!.next = next + 1
            return tee.reader(next)
        }
        /// The identity pass between integer and float rows (codes/max, or clamped and rounded).
        func converted(_ input: RowSource, to type: SampleType) -> RowSource {
            input.format.sampleType == type ? input : PointStage(source: input, programs: [], output: type, pool: pool)
        }
        var resizeDone = false
        let fusion = Self.fusion(of: stages, source: source.format.sampleType, output: output)
        for (index, stage) in stages.enumerated() {
            if resizeDone { resizeDone = false; continue }
            if fusion.inside.contains(index) { continue }
            if let steps = fusion.leftToNext[index], case .point(let programs) = stage, let current = chain {
                chain = PointStage(source: current, programs: [PointProgram(steps: Array(programs[0].steps.dropLast(steps.count)), storeTable: false)],
                                   output: .float32, pool: pool)
                if threaded { chain = PrefetchStep(source: chain!) }
                continue
            }
            // A pass that only decodes integers to linear light before a resize: the resize reads
            // the integers itself, as it does for a display render (web-export on photo24 made a
            // 24 MP float strip for nothing).
            if case .point(let programs) = stage, programs.count == 1, programs[0].steps == [.toLinear],
               let input = chain, input.format.sampleType != .float32, index + 1 < stages.count,
               case .barrier(.geometric(.resize(let w, let h, let kernel), _)) = stages[index + 1] {
                chain = ResampleStep(source: input, width: w, height: h, kernel: kernel, output: .float32)
                if threaded { chain = PrefetchStep(source: chain!) }
                resizeDone = true
                continue
            }
            // Whether only pixel moves (crop, rotate, flip) follow: then a point stage writes the
            // encoder's integers and they move those.
            let onlyMovesAfter = stages[(index + 1)...].allSatisfy {
                if case .barrier(let b) = $0 { return b.space == .none }
                return true
            }
            // A stage that mixes pixels takes floats; a branch point keeps the rows as they come
            // (a photo's integers: `BranchFromSource`), its readers convert them; a resume reads
            // a kept image instead of the chain.
            if case .barrier(let barrier) = stage, barrier.space != .none, let current = chain {
                if case .keep = barrier {} else { chain = converted(current, to: .float32) }
            }
            var input: RowSource { chain! }
            let (reads, emitProgram, emitOutput) = (fusion.reads[index] ?? [], fusion.emitPrograms[index], fusion.emitOutputs[index] ?? .float32)
            let emits = emitProgram == nil ? fusion.emits[index] ?? [] : []
            switch stage {
            case .point(let programs):
                chain = PointStage(source: input, programs: programs, output: onlyMovesAfter ? output : .float32, pool: pool)
            case .barrier(let barrier):
                switch barrier {
                case .blur(let sigma, let kernel, _):
                    chain = BlurStage(source: input, sigma: sigma, kernel: kernel, mode: .blur, threads: windowThreads,
                                      readSteps: reads, emitSteps: emits, emitProgram: emitProgram, output: emitOutput)
                case .unsharp(let sigma, let kernel, let amount, let threshold, let luma, _):
                    chain = BlurStage(source: input, sigma: sigma, kernel: kernel,
                                      mode: .unsharp(amount: Float(amount), threshold: Float(threshold), luma: luma), threads: windowThreads,
                                      readSteps: reads, emitSteps: emits, emitProgram: emitProgram, output: emitOutput)
                case .shadowsHighlights(let shadows, let highlights, let sigma, let kernel, let encoded, _):
                    chain = BlurStage(source: input, sigma: sigma, kernel: kernel,
                                      mode: .shadowsHighlights(shadows: Float(shadows), highlights: Float(highlights), encoded: encoded),
                                      threads: windowThreads,
                                      readSteps: reads, emitSteps: emits, emitProgram: emitProgram, output: emitOutput)
                case .denoise(let luma, let chroma, let detail, let noise, _):
                    chain = DenoiseStage(source: input, luma: luma, chroma: chroma, detail: detail, sigma: noise)
                case .geometric(let step, _):
                    switch step {
                    case .crop(let x, let y, let w, let h): chain = CropStep(source: input, x: x, y: y, width: w, height: h)
                    case .rotate(let q): chain = OrientStep(source: input, orientation: q == 1 ? .right : q == 2 ? .down : .left)
                    case .flip(let horizontal): chain = OrientStep(source: input, orientation: horizontal ? .upMirrored : .downMirrored)
                    case .straighten(let degrees, let expand, let w, let h):
                        chain = StraightenStep(source: input, angleDegrees: degrees, fill: expand ? .expand : .crop, width: w, height: h,
                                               pool: pool)
                    case .straightenWindow(let degrees, let expand, let w, let h, let window, let mirrored, let source):
                        chain = StraightenStep(source: input, angleDegrees: degrees, fill: expand ? .expand : .crop, width: w, height: h,
                                               window: (window.x, window.y, window.width, window.height), mirrored: mirrored,
                                               from: source.map { ($0.window.x, $0.window.y, $0.canvas.width, $0.canvas.height) }, pool: pool)
                    case .resize(let w, let h, let kernel): chain = ResampleStep(source: input, width: w, height: h, kernel: kernel)
                    case .lens(let warp):
                        chain = LensWarpStep(source: input, geometry: warp.geometry, place: warp.place, width: warp.window.width,
                                             height: warp.window.height, pool: pool)
                    }
                case .keep(let name, let readers):
                    kept[name] = (RowTee(source: input, readers: readers), 0)
                    chain = nil
                    continue
                case .resume(let name):
                    chain = take(name)
                    continue
                case .blend(let with, let mode, let opacity, _):
                    chain = BlendStage(base: input, top: converted(take(with), to: .float32), mode: BlendMode(rawValue: mode) ?? .normal,
                                       opacity: Float(opacity))
                }
            }
            if threaded { chain = PrefetchStep(source: chain!) }
        }
        return converted(chain!, to: chain!.format.sampleType == .float32 ? output : chain!.format.sampleType)
    }
}
