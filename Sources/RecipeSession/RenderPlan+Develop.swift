import RecipeCodecs
import RecipeCore
import RecipeKernels
import RecipeRender

/// One step of a raw photo's develop, as `explain` lists it beside the plan's passes.
package struct DevelopNode: Sendable {
    package var name: String
    package var detail: String
    /// The size of what the step makes.
    package var size: CanvasSize
    /// What it holds at its peak (0: a point step in the first pass, nothing held).
    package var bytes: Int
}

extension RenderPlan {
    /// The develop of a raw photo as nodes, in the order they run, for a render that decodes at
    /// 1/`denominator` with a decoder that holds `decodingBytes`: LibRaw's unpack of the mosaic,
    /// a DNG's lens shading (its `GainMap`s, on a copy of the mosaic), the white balance and the
    /// demosaic (recipe's own, streamed; half size; or LibRaw's whole develop), then the camera
    /// matrix and the raw exposure, which the first point pass carries.
    /// Empty for a photo that is not a raw.
    ///
    /// ```text
    /// develop #d1 unpack          6000×4000    46 MiB   LibRaw unpacks the RGGB mosaic (black 512, white 16383)
    /// develop #d2 white balance   6000×4000     0       as shot: R 1.818, G 1, B 1.389, scales the mosaic as it is demosaiced
    /// ```
    package func developNodes(denominator: Int, decodingBytes: Int, noise: NoiseModel? = nil) -> [DevelopNode] {
        guard let info, let raw = info.raw else { return [] }
        let develop = graph?.develop ?? RawDevelop()
        let plan = RawDevelopPlan(develop, raw: raw, scaleDenominator: denominator)
        let (half, own) = (plan.half, plan.isStage)
        let sensor = CanvasSize(width: raw.rawWidth, height: raw.rawHeight)
        let upright = info.uprightSize
        let out = half && develop.demosaic != .halfSize ? CanvasSize(width: (upright.width + 1) / 2, height: (upright.height + 1) / 2)
                                                        : CanvasSize(width: upright.width, height: upright.height)
        let mosaic = raw.rawWidth * raw.rawHeight * 2
        func number(_ v: Double) -> String { NumberFormatting.shortest((v * 1000).rounded() / 1000) }
        var nodes = [DevelopNode(name: "unpack", detail: raw.cfa.isEmpty ? "LibRaw reads the image data (\(raw.colors) colours a pixel, not a mosaic)"
                                     : "LibRaw unpacks the \(raw.cfa) mosaic (black \(raw.black), white \(raw.white))",
                                 size: sensor, bytes: mosaic)]
        if own, let shading = raw.opcodes?.gainMaps, !shading.isEmpty {
            nodes.append(DevelopNode(name: "lens shading", detail: "the DNG's OpcodeList2: \(shading.count) gain map\(shading.count == 1 ? "" : "s") multiplied into a copy of the mosaic",
                                     size: sensor, bytes: mosaic))
        }
        if let denoise = develop.denoise {
            nodes.append(denoiseNode(denoise, own: own, half: half, sensor: sensor, noise: noise))
        }
        let how: String = switch develop.whiteBalance {
        case .asShot: "as shot"
        case .auto: "auto (grey world)"
        case .preset(let name): name
        case .temperature(let t, let tint): "\(number(t)) K, tint \(number(tint))"
        case .multipliers: "multipliers"
        }
        let balance = plan.multipliers.map { "R \(number($0[0])), G 1, B \(number($0[2]))" } ?? "found by LibRaw"
        nodes.append(DevelopNode(name: "white balance", detail: "\(how): \(balance), " + (own ? "scales the mosaic as the demosaic stage reads it" : "in LibRaw's develop"),
                                 size: sensor, bytes: 0))
        let demosaic: String
        if raw.cfa.isEmpty {
            demosaic = "none: the file holds full colour (a linear DNG or a non-mosaic sensor), LibRaw's develop, whole"
        } else if own {
            demosaic = half ? "half size: each 2×2 cell one pixel, its greens averaged (recipe's demosaic stage, \(DemosaicStage.blockRows) rows at a time)"
                            : "directional (recipe's demosaic stage), streamed \(DemosaicStage.blockRows) rows at a time"
        } else {
            demosaic = (half ? "half size by LibRaw" : "\(develop.demosaic == .directional ? "ahd" : develop.demosaic.rawValue) by LibRaw") + ", whole"
                + (develop.demosaic == .directional && !half ? " (directional takes plain Bayer mosaics with clipped highlights and a known white balance: ahd here)" : "")
        }
        let stageWidth = half && develop.demosaic != .halfSize ? (info.width + 1) / 2 : info.width
        nodes.append(DevelopNode(name: "demosaic", detail: demosaic, size: out,
                                 bytes: own ? DemosaicStage.bytes(width: stageWidth, half: half) : max(0, decodingBytes - mosaic)))
        nodes.append(DevelopNode(name: "camera matrix", detail: "\(color?.sourceName ?? "camera RGB") to the working space, the first step of the first pass",
                                 size: out, bytes: 0))
        if develop.exposure != 0 {
            nodes.append(DevelopNode(name: "raw exposure", detail: "\(develop.exposure >= 0 ? "+" : "")\(number(develop.exposure)) EV, folded into the matrix",
                                     size: out, bytes: 0))
        }
        return nodes
    }

    /// The noise model the denoise estimates from `decoder`'s mosaic (started here: an unpack),
    /// nil when it hands out no mosaic or too little of it is unclipped.
    package static func noiseEstimate(_ decoder: any ImageDecoder, denominator: Int) throws -> NoiseModel? {
        guard let source = decoder as? any MosaicSource else { return nil }
        try decoder.start(scaleDenominator: denominator)
        return source.undeveloped.flatMap { MosaicDenoiser.estimate($0.mosaic) }
    }

    /// The develop's denoise as a node: its strengths and noise model (given, measured on the
    /// mosaic by `explain --photo`, or estimated when it is unpacked), or why it does not run.
    private func denoiseNode(_ denoise: RawDenoise, own: Bool, half: Bool, sensor: CanvasSize, noise: NoiseModel?) -> DevelopNode {
        guard own else {
            return DevelopNode(name: "denoise", detail: "not applied: LibRaw develops this raw (recipe's denoise runs before its own demosaic; LibRaw's is `noise-threshold`)",
                               size: sensor, bytes: 0)
        }
        func n(_ v: Double) -> String { NumberFormatting.shortest(v) }
        let strengths = "luma \(n(denoise.luma)), chroma \(n(denoise.chroma))"
        let model = denoise.model.map { "noise \($0) (given)" } ?? noise.map { "noise \($0)" } ?? "noise model estimated from the mosaic when it is unpacked"
        let width = sensor.width
        return DevelopNode(name: "denoise", detail: "\(strengths) of each 2×2 cell, variance-stabilised, \(MosaicDenoiser.band) rows at a time; \(model)",
                           size: sensor, bytes: MosaicDenoiser.bytes(width: width, rows: DemosaicStage.mosaicRows(half: half)))
    }
}
