import RecipeCodecs
import RecipeCore
import RecipeKernels
import RecipeOptimizer
import RecipeRender
#if canImport(Glibc)
import Glibc
#endif

/// How large to render.
enum RenderSize: Equatable, CustomStringConvertible {
    /// The original's size (upright).
    case full
    /// Long edge at most this many pixels (never upscaled).
    case longEdge(Int)

    static let displayLongEdge = 2048

    /// Parses `full`, `display` or a positive pixel count.
    init?(argument: String) {
        switch argument.lowercased() {
        case "full": self = .full
        case "display": self = .longEdge(RenderSize.displayLongEdge)
        default:
            guard let n = Int(argument), n > 0 else { return nil }
            self = .longEdge(n)
        }
    }

    var description: String {
        switch self {
        case .full: "full"
        case .longEdge(let n): "long edge \(n) px"
        }
    }

    /// Target size for an upright image of `w`×`h`.
    func target(width w: Int, height h: Int) -> (width: Int, height: Int) {
        guard case .longEdge(let n) = self, n < max(w, h) else { return (w, h) }
        if w >= h {
            return (n, max(1, Int((Double(h) * Double(n) / Double(w)).rounded())))
        }
        return (max(1, Int((Double(w) * Double(n) / Double(h)).rounded())), n)
    }
}

/// One render of one photo to one output file.
struct RenderJob {
    var input: String
    var output: String
    var size: RenderSize = .full
    var decode = DecodeOptions()
    var jpeg = JPEGOptions()
    var png = PNGOptions()
    /// Threads: 1 renders on the calling thread; more put the decoder and each stage on a
    /// thread of its own, and from 3 on the point passes split their rows across `threads − 1`.
    var threads = RenderJob.defaultThreads
    var threaded: Bool { threads > 1 }

    /// The cores this process may run on.
    static var defaultThreads: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
    /// The recipe's stages (empty: the identity recipe).
    var stages: [RenderStage] = []
    /// The upright size to decode and resample to before the stages (nil: `size` of the photo).
    var sourceSize: (width: Int, height: Int)?

    struct Outcome {
        var width: Int
        var height: Int
        var scaleDenominator: Int
        var warnings: [ImageWarning]
    }

    /// Decodes, orients, resizes and encodes, streaming; the output appears atomically or not at all.
    func run() throws -> Outcome {
        guard let outputFormat = ImageFileFormat(pathExtension: output) else {
            throw ImageError(.writeFailed, path: output, "cannot tell the output format from the name (use .jpg, .jpeg or .png)")
        }
        if let a = InputFile.identity(input), let b = InputFile.identity(output), a == b {
            throw ImageError(.refused, path: output, "is the original photo; refusing to overwrite it")
        }
        let decoder = try ImageDecoders.open(input, options: decode)
        let info = decoder.info
        let orientation = info.orientation
        let upright = info.uprightSize
        let target = sourceSize ?? size.target(width: upright.width, height: upright.height)
        // The target in stored (pre-orientation) terms, to choose the DCT reduction.
        let stored = orientation.transposes ? (width: target.height, height: target.width) : target
        let denominator = ReducedDecode.denominator(width: info.width, height: info.height, target: stored,
                                                    supported: decoder.supportedScaleDenominators)
        try decoder.start(scaleDenominator: denominator)

        // The decoder gets a thread of its own; everything after it runs on this one.
        var chain: RowSource = threaded ? PrefetchStep(source: decoder) : decoder
        var pool: WorkerPool?
        defer { pool?.shutdown() }
        if chain.width != stored.width || chain.height != stored.height {
            // A reduced decode's last row and column may stand for less than a whole pixel.
            let d = Double(denominator)
            chain = ResampleStep(source: chain, width: stored.width, height: stored.height,
                                 span: (Double(info.width) / d, Double(info.height) / d))
        }
        if orientation != .up {
            chain = OrientStep(source: chain, orientation: orientation)
        }
        if !stages.isEmpty {
            // The point kernels take 8-bit RGB: grey, alpha and 16 bits are brought to it first.
            if chain.format.colorModel.hasAlpha || chain.format.sampleType != .uint8 {
                chain = ConvertStep(source: chain, to: PixelFormat(chain.format.colorModel.withoutAlpha, .uint8))
            }
            if chain.format.colorModel == .gray {
                chain = ConvertStep(source: chain, to: PixelFormat(.rgb, .uint8))
            }
            // The decoder and the encoder keep a core busy each; with more cores than the
            // pipeline's threads, the point passes split their rows too (on 2 cores a pool only
            // adds hand-overs: 30% more CPU time measured).
            pool = threads > 2 ? WorkerPool(threads: threads - 1) : nil
            chain = try Self.build(stages, on: chain, threaded: threaded, pool: pool)
        }
        let outFormat: PixelFormat = switch outputFormat {
        case .jpeg: PixelFormat(chain.format.colorModel.withoutAlpha, .uint8)
        case .png: chain.format
        }
        if chain.format != outFormat {
            chain = ConvertStep(source: chain, to: outFormat)
        }

        let metadata = info.metadata.prepared(forOutputWidth: chain.width, height: chain.height)
        let file = try AtomicOutputFile(path: output)
        var encoderWarnings: [String] = []
        switch outputFormat {
        case .jpeg:
            let encoder = try JPEGEncoder(handle: file.handle, path: output, width: chain.width, height: chain.height,
                                          colorModel: outFormat.colorModel, metadata: metadata, options: jpeg)
            try StripPipeline.run(source: chain, sink: encoder)
            encoderWarnings = encoder.warnings
        case .png:
            let encoder = try PNGEncoder(handle: file.handle, path: output, width: chain.width, height: chain.height,
                                         format: outFormat, metadata: metadata, options: png)
            try StripPipeline.run(source: chain, sink: encoder)
            encoderWarnings = encoder.warnings
        }
        try file.commit()
        return Outcome(width: chain.width, height: chain.height, scaleDenominator: denominator,
                       warnings: decoder.warnings + encoderWarnings.map { ImageWarning(path: output, $0) })
    }

    /// The render stages on 8-bit RGB rows, each on a thread of its own when `threaded` (between
    /// the decoder's and the encoder's). Images kept at branch points are teed to their readers.
    static func build(_ stages: [RenderStage], on source: RowSource, threaded: Bool, pool: WorkerPool? = nil) throws -> RowSource {
        var chain: RowSource? = source
        var kept: [String: (tee: RowTee, next: Int)] = [:]
        func take(_ name: String) -> RowSource {
            let (tee, next) = kept[name]!
            kept[name]!.next = next + 1
            return tee.reader(next)
        }
        for stage in stages {
            var input: RowSource { chain! }
            switch stage {
            case .point(let programs): chain = PointStage(source: input, programs: programs, pool: pool)
            case .barrier(let barrier):
                switch barrier {
                case .blur(let sigma, let kernel, _): chain = BlurStage(source: input, sigma: sigma, kernel: kernel, mode: .blur)
                case .unsharp(let sigma, let kernel, let amount, let threshold, let luma, _):
                    chain = BlurStage(source: input, sigma: sigma, kernel: kernel,
                                      mode: .unsharp(amount: Float(amount), threshold: Float(threshold), luma: luma))
                case .shadowsHighlights(let shadows, let highlights, let sigma, let kernel, _):
                    chain = BlurStage(source: input, sigma: sigma, kernel: kernel,
                                      mode: .shadowsHighlights(shadows: Float(shadows), highlights: Float(highlights)))
                case .geometric(let step, _):
                    switch step {
                    case .crop(let x, let y, let w, let h): chain = CropStep(source: input, x: x, y: y, width: w, height: h)
                    case .rotate(let q): chain = OrientStep(source: input, orientation: q == 1 ? .right : q == 2 ? .down : .left)
                    case .flip(let horizontal): chain = OrientStep(source: input, orientation: horizontal ? .upMirrored : .downMirrored)
                    case .straighten(let degrees, let expand, let w, let h):
                        chain = StraightenStep(source: input, angleDegrees: degrees, fill: expand ? .expand : .crop, width: w, height: h)
                    case .resize(let w, let h, let kernel): chain = ResampleStep(source: input, width: w, height: h, kernel: kernel)
                    }
                case .keep(let name, let readers):
                    kept[name] = (RowTee(source: input, readers: readers), 0)
                    chain = nil
                    continue
                case .resume(let name):
                    chain = take(name)
                    continue
                case .blend(let with, let mode, let opacity, _):
                    chain = BlendStage(base: input, top: take(with), mode: BlendMode(rawValue: mode) ?? .normal, opacity: Float(opacity))
                }
            }
            if threaded { chain = PrefetchStep(source: chain!) }
        }
        return chain!
    }
}
