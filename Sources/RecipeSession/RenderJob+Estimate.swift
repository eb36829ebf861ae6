import RecipeCodecs
import RecipeCore
import RecipeHistory
import RecipeKernels
import RecipeOps
import RecipeOptimizer
import RecipeRender

extension RenderJob {
    /// What this render will hold at its peak and roughly how much work it is, for the photo
    /// behind `decoder` (opened: its header read, nothing decoded): the chain `run` builds, each
    /// part sized by its own type's `footprint` (the sizes its `init` allocates), before any of it
    /// exists. `run` refuses a render whose estimate is above `memoryBudget`; `recipe explain
    /// --photo` prints it.
    package func estimate(_ decoder: any ImageDecoder, color: PhotoColor) throws(ImageError) -> RenderEstimate {
        estimate(decoder, color: color, setup: try setup(decoder.info, supportedScaleDenominators: decoder.supportedScaleDenominators,
                                                          color: color))
    }

    /// The raw develop this render runs as its demosaic stage, nil when the decoder hands out
    /// finished rows (LibRaw's develop, every other format, the preview's kept rows).
    package func developStage(_ decoder: any ImageDecoder, denominator: Int) -> RawDevelopPlan? {
        guard decoder is any MosaicSource, let raw = decoder.info.raw else { return nil }
        let plan = RawDevelopPlan(decode.develop, raw: raw, scaleDenominator: denominator)
        return plan.isStage ? plan : nil
    }

    /// `run`'s chain stage by stage, as `run` and `build` lay it out (keep the two in step). Two
    /// savings of `run` are left out on purpose, so the estimate stays above the render: a crop
    /// decoded as a window (`decodeWindow`) is counted as a full decode, and the passes that run
    /// inside a neighbourhood stage (`RenderJob.fusion`) as passes of their own.
    func estimate(_ decoder: any ImageDecoder, color: PhotoColor, setup: Setup) -> RenderEstimate {
        var walk = EstimateWalk(threaded: threaded, windowThreads: setup.poolThreads)
        walk.estimate.add(RenderEstimate.processPart, RenderEstimate.processBytes)
        walk.estimate.beforeDecoding = reading
        let info = decoder.info, d = setup.denominator
        let cmyk = color.cmyk != nil && (decoder as? any CMYKDecoding)?.storesCMYK == true
        var rows = Rows(width: (info.width + d - 1) / d, height: (info.height + d - 1) / d,
                        format: cmyk ? PixelFormat(.rgb, .uint16) : decoder.format)
        let decoding = "decoding " + Paths.name(of: input)
        walk.estimate.add(decoding, decoder.decodingBytes(scaleDenominator: d))
        if let develop = developStage(decoder, denominator: d) {
            walk.estimate.add("demosaicing " + Paths.name(of: input), DemosaicStage.bytes(width: rows.width, half: develop.half,
                                                                                                denoise: develop.develop.denoise != nil))
        }
        walk.prefetch(decoding, rows)
        let stages = setup.stages
        let orientation = info.orientation
        let resamples = rows.width != setup.stored.width || rows.height != setup.stored.height
        if Self.poolsPointPasses(stages, resamples: resamples) && setup.poolThreads > 1 {
            walk.threads("the point passes' pool", setup.poolThreads - 1)
            walk.pointThreads = setup.poolThreads
        }
        let resampling = "resampling the photo to \(setup.stored.width)×\(setup.stored.height)"
        let upright = "turning the photo upright (EXIF orientation \(orientation.rawValue))"
        var remaining = stages
        if stages.isEmpty {
            if resamples { rows = walk.resample(resampling, rows, to: setup.stored, kernel: sourceKernel, format: rows.format) }
            if orientation != .up { rows = walk.orient(upright, rows, orientation) }
        } else {
            if rows.format.colorModel.hasAlpha { rows = walk.convert(decoding, rows, to: PixelFormat(rows.format.colorModel.withoutAlpha, rows.format.sampleType)) }
            if rows.format.colorModel == .gray { rows = walk.convert(decoding, rows, to: PixelFormat(.rgb, rows.format.sampleType)) }
            if resamples {
                // The leading point run moves before the resample (see `run`).
                var lead = [PointProgram(steps: [.toLinear], storeTable: false)]
                var leadEnds: WorkingSpace = .encoded
                if case .point(let programs) = stages.first,
                   !programs.contains(where: { $0.steps.contains(where: \.readsPosition) }) || orientation == .up {
                    leadEnds = Self.endSpace(of: programs, after: color.endpoints.source.count)
                    lead = Self.endingLinear(programs, from: leadEnds)
                    remaining.removeFirst()
                }
                let pass = walk.nextPass()
                rows = walk.point(pass, rows, programs: lead, output: .float32)
                walk.prefetch(pass, rows)
                rows = walk.resample(resampling, rows, to: setup.stored, kernel: sourceKernel, format: rows.format)
                if orientation != .up { rows = walk.orient(upright, rows, orientation) }
                if leadEnds == .encoded { rows = walk.point(pass, rows, programs: [PointProgram(steps: [.toEncoded], tables: false)], output: .float32) }
            } else if orientation != .up {
                rows = walk.orient(upright, rows, orientation)
            }
            rows = walk.build(remaining, on: rows, output: setup.outputSamples)
        }
        if let finalSize, rows.width != finalSize.width || rows.height != finalSize.height {
            rows = walk.resample("resampling the result to \(finalSize.width)×\(finalSize.height)", rows, to: finalSize, kernel: .lanczos3,
                                 format: rows.format)
        }
        if export.sharpen != nil || export.watermark != nil {
            // The finishing stages (`finishing`): float strips, the unsharp mask's window of rows
            // (its ring and the originals waiting, about 3σ + 6 rows of planes), the mark.
            let floats = PixelFormat(.rgb, .float32)
            var bytes = 2 * PixelBuffer.bytes(width: rows.width, rowCapacity: StripPipeline.stripRows(width: rows.width, format: floats), format: floats)
            if let s = export.sharpen { bytes += 2 * (Int(3 * s.sigma) * 2 + 8) * rows.width * floats.bytesPerPixel }
            if let w = export.watermark {
                let width = WatermarkPlacement(w, photo: rows.size).width
                let aspect = (try? ImageDecoders.open(w.path)).map { Double($0.info.height) / Double(max(1, $0.info.width)) } ?? 1
                bytes += 16 * width * max(1, Int(Double(width) * aspect))
            }
            walk.estimate.add("output sharpening and the watermark", bytes)
            rows.format = PixelFormat(.rgb, rows.format.sampleType)
        }
        let outFormat = ImageEncoders.pixelFormat(setup.outputFormat, for: rows.format.colorModel, deep: info.bitDepth > 8)
        let encoding = "encoding the \(setup.outputFormat.rawValue) output"
        if let maxBytes = self.encoding.maxBytes {
            // The image kept for the encodes at several qualities, and the best file so far and
            // the try in memory.
            walk.estimate.add("keeping the result for --max-bytes (its encodes in memory)",
                              KeptImage.bytes(width: rows.width, height: rows.height, format: outFormat) + 3 * maxBytes)
        }
        if rows.format != outFormat { rows = walk.convert(encoding, rows, to: outFormat) }
        // The strip pipeline takes a prefetch's own strips as they are; from any other stage it
        // reads into a strip of its own.
        let stripRows = max(1, min(StripPipeline.stripRows(width: rows.width, format: rows.format), rows.height))
        if !walk.endsInPrefetch { walk.estimate.add(encoding, PixelBuffer.bytes(width: rows.width, rowCapacity: stripRows, format: rows.format)) }
        walk.reads(stripRows)
        walk.estimate.add(encoding, ImageEncoders.encodingBytes(setup.outputFormat, width: rows.width, height: rows.height, pixels: outFormat,
                                                                encoding: encodingAsWritten) + AtomicOutputFile.bufferBytes)
        walk.closeTees()
        walk.estimate.add("building the passes' tables (samples, freed)", walk.firstRow)
        return walk.estimate
    }
}

/// The rows flowing between two stages of the estimate's walk.
struct Rows {
    var width: Int
    var height: Int
    var format: PixelFormat

    var size: (width: Int, height: Int) { (width, height) }
    var pixels: Double { Double(width) * Double(height) }
}

/// Walks the stages `RenderJob.build` makes, adding up what each holds, and the rows kept at
/// branch points for the readers ahead of the slowest one.
struct EstimateWalk {
    var estimate = RenderEstimate()
    let threaded: Bool
    let windowThreads: Int
    /// Images kept at branch points not yet read by all their readers: their rows, how far the
    /// fastest reader may run ahead of the slowest (in their rows), and the readers left.
    var tees: [String: (rows: Rows, lead: Int, readers: Int, what: String)] = [:]
    /// Point passes named so far (`point pass 2`).
    var passes = 0
    /// Threads a point pass splits its rows over (the pool's, when the plan pools them).
    var pointThreads = 1
    /// Parts whose strips take the shape of the buffer their reader reads into (a prefetch's
    /// three strips; a point stage's or a conversion's scratch, a left–right mirror's), sized
    /// when the next stage that reads a fixed number of rows is met (`reads`): what each holds
    /// for that many rows, and how many rows it reads ahead.
    var pending: [(what: String, rows: Rows, size: (Int) -> (bytes: Int, lookahead: Int))] = []
    /// Whether the chain so far ends in a prefetch (the encoder then takes its strips).
    var endsInPrefetch = false
    /// The largest sample array a program's float tables are built from, on one thread, when a
    /// pass starts (freed, their pages kept).
    var firstRow = 0

    mutating func nextPass() -> String {
        passes += 1
        return "point pass \(passes)"
    }

    init(threaded: Bool, windowThreads: Int) {
        self.threaded = threaded
        self.windowThreads = windowThreads
    }

    /// A stage of `what` holding `bytes`, reading `lookahead` rows of `input` ahead of its output:
    /// the branch points still open keep that much more for it.
    mutating func stage(_ what: String, bytes: Int, lookahead: Int, input: Rows, work: Double) {
        estimate.add(what, bytes)
        estimate.work += work
        for (name, tee) in tees {
            let rows = Int((Double(lookahead) * Double(tee.rows.height) / Double(max(1, input.height))).rounded(.up))
            tees[name]!.lead += rows
        }
    }

    mutating func threads(_ what: String, _ count: Int) {
        estimate.add(what, count * WorkerThread.estimatedBytes)
    }

    /// The next stage reads `count` rows at a time from the chain: the parts waiting for their
    /// reader's shape take it.
    mutating func reads(_ count: Int) {
        let waiting = pending
        pending = []
        for part in waiting {
            let (bytes, lookahead) = part.size(max(1, min(count, part.rows.height)))
            stage(part.what, bytes: bytes, lookahead: lookahead, input: part.rows, work: 0)
        }
    }

    /// With threads, every stage hands its rows to the next through a prefetch: a thread, and
    /// three strips of the shape its reader reads into.
    mutating func prefetch(_ what: String, _ rows: Rows) {
        guard threaded else { return }
        estimate.add(what, WorkerThread.estimatedBytes)
        pending.append((what, rows, { PrefetchStep.footprint(width: rows.width, format: rows.format, readerRows: $0) }))
        endsInPrefetch = true
    }

    mutating func convert(_ what: String, _ rows: Rows, to format: PixelFormat) -> Rows {
        stage(what, bytes: 0, lookahead: 0, input: rows, work: rows.pixels)
        pending.append((what, rows, { (ConvertStep.footprint(width: rows.width, source: rows.format, rows: $0), 0) }))
        endsInPrefetch = false
        return Rows(width: rows.width, height: rows.height, format: format)
    }

    /// A point stage: its strips and its programs' tables, which a pass builds on its first row
    /// (counted as work: a build takes about as long as 10 M pixel-ops do).
    mutating func point(_ what: String, _ rows: Rows, programs: [PointProgram], output: SampleType) -> Rows {
        // A lone program runs its ends from tables on 8-bit rows and through float tables on
        // others; the unfused plan's programs run every step on floats, with no tables.
        let fused = programs.count == 1
        let tables = programs.map { $0.tables(readsFloats: fused && rows.format.sampleType != .uint8, writesFloats: fused && output != .uint8) }
        let steps = programs.reduce(0) { $0 + $1.steps.count }
        // With threads a fused pass builds its float tables on a thread of its own as it starts
        // (`PointStage`), in that thread's heap.
        let firstRow = tables.map(\.firstRow).max() ?? 0
        if !threaded { self.firstRow = max(self.firstRow, firstRow) }
        let builder = threaded && fused && firstRow > 0 ? WorkerThread.estimatedBytes : 0
        // A fused pass from 8-bit rows to 8-bit rows keeps a colour cache a thread.
        let caches = fused && programs[0].cachesColours(from: rows.format.sampleType, to: output, width: rows.width, height: rows.height)
            ? pointThreads * PixelCache.bytes(width: rows.width) : 0
        stage(what, bytes: tables.reduce(0) { $0 + $1.bytes } + (threaded ? firstRow : 0) + builder + caches, lookahead: 0, input: rows,
              work: rows.pixels * Double(max(1, steps)) + 1e7 * Double(tables.reduce(0) { $0 + $1.builds }))
        pending.append((what, rows, { (PointStage.footprint(width: rows.width, source: rows.format, output: output,
                                                            programs: max(1, programs.count), rows: $0), 0) }))
        endsInPrefetch = false
        return Rows(width: rows.width, height: rows.height, format: PixelFormat(.rgb, output))
    }

    mutating func resample(_ what: String, _ rows: Rows, to size: (width: Int, height: Int), kernel: ResampleKernel,
                           format: PixelFormat) -> Rows {
        reads(ResampleStep.inputRows)
        endsInPrefetch = false
        let (bytes, lookahead) = ResampleStep.footprint(source: (rows.width, rows.height, rows.format), width: size.width, height: size.height,
                                                        kernel: kernel)
        let taps = Double(ResampleWeights.tapCount(inputSize: rows.height, outputSize: size.height, kernel: kernel)
                          + ResampleWeights.tapCount(inputSize: rows.width, outputSize: size.width, kernel: kernel))
        stage(what, bytes: bytes, lookahead: lookahead, input: rows, work: Double(size.width) * Double(size.height) * taps)
        return Rows(width: size.width, height: size.height, format: PixelFormat(format.colorModel, format.sampleType))
    }

    mutating func orient(_ what: String, _ rows: Rows, _ orientation: Orientation) -> Rows {
        endsInPrefetch = false
        if orientation == .upMirrored {
            // Mirrors each strip as it comes, through a scratch strip of its reader's shape.
            stage(what, bytes: 0, lookahead: 0, input: rows, work: rows.pixels)
            pending.append((what, rows, { OrientStep.footprint(source: (rows.width, rows.height, rows.format), orientation: .upMirrored,
                                                               stripRows: $0) }))
        } else if orientation != .up {
            reads(OrientStep.gatherRows)
            let (bytes, lookahead) = OrientStep.footprint(source: (rows.width, rows.height, rows.format), orientation: orientation,
                                                          stripRows: OrientStep.gatherRows)
            stage(what, bytes: bytes, lookahead: lookahead, input: rows, work: rows.pixels)
        }
        let (w, h) = orientation.orientedSize(width: rows.width, height: rows.height)
        return Rows(width: w, height: h, format: rows.format)
    }

    /// `RenderJob.build`'s stages.
    mutating func build(_ stages: [RenderStage], on start: Rows, output: SampleType) -> Rows {
        var rows = start
        var resizeDone = false
        let float = SampleType.float32
        for (index, stage) in stages.enumerated() {
            if resizeDone { resizeDone = false; continue }
            // A pass that only decodes integers to linear light before a resize: the resize reads them.
            if case .point(let programs) = stage, programs.count == 1, programs[0].steps == [.toLinear], rows.format.sampleType != float,
               index + 1 < stages.count, case .barrier(.geometric(.resize(let w, let h, let kernel), let origin)) = stages[index + 1] {
                rows = resample(origin, rows, to: (w, h), kernel: kernel, format: PixelFormat(.rgb, float))
                prefetch(origin, rows)
                resizeDone = true
                continue
            }
            let onlyMovesAfter = stages[(index + 1)...].allSatisfy {
                if case .barrier(let b) = $0 { return b.space == .none }
                return true
            }
            if case .barrier(let barrier) = stage, barrier.space != .none, rows.format.sampleType != float {
                if case .keep = barrier {} else { rows = point(nextPass(), rows, programs: [], output: float) }
            }
            var what = ""
            switch stage {
            case .point(let programs):
                what = nextPass() + Self.lutNote(programs)
                rows = point(what, rows, programs: programs, output: onlyMovesAfter ? output : float)
            case .barrier(let barrier):
                switch barrier {
                case .blur(let sigma, let kernel, let origin):
                    what = origin
                    window(origin, rows, sigma: sigma, kernel: kernel, mode: .blur)
                case .unsharp(let sigma, let kernel, let amount, let threshold, let luma, let origin):
                    what = origin
                    window(origin, rows, sigma: sigma, kernel: kernel, mode: .unsharp(amount: Float(amount), threshold: Float(threshold), luma: luma))
                case .shadowsHighlights(let shadows, let highlights, let sigma, let kernel, let encoded, let origin):
                    what = origin
                    window(origin, rows, sigma: sigma, kernel: kernel,
                           mode: .shadowsHighlights(shadows: Float(shadows), highlights: Float(highlights), encoded: encoded))
                case .denoise(_, _, _, _, let origin):
                    what = origin
                    reads(PixelBuffer.bytes(width: rows.width, rowCapacity: 16, format: PixelFormat(.rgb, .float32)))
                    endsInPrefetch = false
                    // Three planes, each a vertical and an inverse 8×8 transform (8 multiply-adds a
                    // coefficient) for every 4 pixels, and the rows' transforms.
                    self.stage(origin, bytes: DenoiseStage.bytes(width: rows.width), lookahead: DenoiseStage.band + 8, input: rows,
                          work: rows.pixels * 3 * 350)
                    rows.format = PixelFormat(.rgb, .float32)
                case .geometric(let step, let origin):
                    what = origin
                    rows = geometric(origin, rows, step)
                case .keep(let name, let readers):
                    reads(RowTee.stripRows(width: rows.width, height: rows.height, format: rows.format))
                    endsInPrefetch = false
                    tees[name] = (rows, 0, readers, "branch point `\(name)` (rows kept for its readers)")
                    continue
                case .resume(let name):
                    if let tee = tees[name] { rows = tee.rows }
                    take(name)
                    continue
                case .blend(let with, _, _, let origin):
                    what = origin
                    endsInPrefetch = false
                    let (bytes, lookahead) = BlendStage.footprint(width: rows.width)
                    self.stage(origin, bytes: bytes, lookahead: lookahead, input: rows, work: 3 * rows.pixels)
                    // A kept image of integers is converted on its way to the blend.
                    if let top = tees[with]?.rows, top.format.sampleType != float { _ = point(origin, top, programs: [], output: float) }
                    take(with)
                    rows.format = PixelFormat(.rgb, float)
                }
            }
            prefetch(what, rows)
        }
        if rows.format.sampleType == float && output != float {
            rows = point(nextPass(), rows, programs: [], output: output)
        }
        return rows
    }

    mutating func window(_ what: String, _ rows: Rows, sigma: Double, kernel: GaussianBlur.Kernel, mode: BlurStage.Mode) {
        reads(BlurStage.inputRows(width: rows.width))
        endsInPrefetch = false
        let (bytes, lookahead, helpers) = BlurStage.footprint(width: rows.width, height: rows.height, sigma: sigma, kernel: kernel, mode: mode,
                                                              threads: windowThreads)
        let taps = DecimatedGaussian.factor(sigma: sigma, kernel: kernel) == nil ? 2 * GaussianBlur.taps(sigma: sigma, kernel: kernel).count : 16
        let planes = switch mode {
        case .blur, .unsharp(_, _, false): 3
        case .unsharp(_, _, true), .shadowsHighlights: 1
        }
        stage(what, bytes: bytes + helpers * WorkerThread.estimatedBytes, lookahead: lookahead, input: rows,
              work: rows.pixels * Double(planes * taps))
    }

    mutating func geometric(_ what: String, _ rows: Rows, _ step: GeometricStep) -> Rows {
        let after = step.size(after: CanvasSize(width: rows.width, height: rows.height))
        let out = Rows(width: after.width, height: after.height, format: step.isStraighten ? PixelFormat(.rgb, .float32) : rows.format)
        switch step {
        case .crop(_, let y, _, _):
            reads(CropStep.stripRows(height: rows.height))
            endsInPrefetch = false
            let (bytes, lookahead) = CropStep.footprint(source: (rows.width, rows.height, rows.format), y: y)
            stage(what, bytes: bytes, lookahead: lookahead, input: rows, work: out.pixels)
        case .rotate(let q):
            _ = orient(what, rows, q == 1 ? .right : q == 2 ? .down : .left)
        case .flip(let horizontal):
            _ = orient(what, rows, horizontal ? .upMirrored : .downMirrored)
        case .straighten(let degrees, let expand, let w, let h):
            reads(StraightenStep.sourceStripRows)
            endsInPrefetch = false
            let (bytes, lookahead) = StraightenStep.footprint(source: rows.size, angleDegrees: degrees, fill: expand ? .expand : .crop,
                                                              width: w, height: h)
            stage(what, bytes: bytes, lookahead: lookahead, input: rows, work: 16 * out.pixels)
        case .straightenWindow(let degrees, let expand, let w, let h, let window, let mirrored, let source):
            reads(StraightenStep.sourceStripRows)
            endsInPrefetch = false
            // A straighten given part of its canvas keeps the rows of that part (no more than the whole's).
            let canvas = source.map { ($0.canvas.width, $0.canvas.height) } ?? rows.size
            let (bytes, lookahead) = StraightenStep.footprint(source: canvas, angleDegrees: degrees, fill: expand ? .expand : .crop,
                                                              width: w, height: h, window: (window.x, window.y, window.width, window.height),
                                                              mirrored: mirrored)
            stage(what, bytes: bytes, lookahead: lookahead, input: rows, work: 16 * out.pixels)
        case .resize(let w, let h, let kernel):
            return resample(what, rows, to: (w, h), kernel: kernel, format: rows.format)
        case .lens(let warp):
            reads(LensWarpStep.sourceStripRows)
            endsInPrefetch = false
            let (bytes, lookahead) = LensWarpStep.footprint(geometry: warp.geometry, place: warp.place, width: warp.window.width,
                                                            height: warp.window.height)
            stage(what, bytes: bytes, lookahead: lookahead, input: rows, work: 48 * out.pixels)
        }
        return out
    }

    /// One reader of a kept image has started; with the last, its rows are counted.
    mutating func take(_ name: String) {
        guard var tee = tees[name] else { return }
        tee.readers -= 1
        tees[name] = tee
        if tee.readers <= 0 { close(name) }
    }

    mutating func close(_ name: String) {
        guard let tee = tees.removeValue(forKey: name) else { return }
        estimate.add(tee.what, RowTee.footprint(width: tee.rows.width, height: tee.rows.height, format: tee.rows.format, lead: tee.lead))
        estimate.work += tee.rows.pixels * Double(max(1, tee.readers))
    }

    /// Kept images whose readers the walk did not see to the end.
    mutating func closeTees() {
        for name in tees.keys.sorted() { close(name) }
    }

    /// ` (a 3D LUT of 65³)` for a pass that holds one.
    static func lutNote(_ programs: [PointProgram]) -> String {
        for step in programs.flatMap(\.steps) {
            if case .lut(let lut, _, _) = step { return lut.kind == .threeD ? " (a 3D LUT of \(lut.size)³)" : " (a 1D LUT of \(lut.size))" }
        }
        return ""
    }
}

extension GeometricStep {
    /// Whether the step writes float rows of its own (a straighten resamples in linear light).
    fileprivate var isStraighten: Bool {
        switch self {
        case .straighten, .straightenWindow, .lens: true
        default: false
        }
    }
}
