import RecipeCore

/// A raw photo developed again from a mosaic kept in memory (`RawMosaic.copy`): it hands the
/// render's demosaic stage the mosaic and the develop `RawDecoder` would hand it for the same
/// settings, without opening or unpacking the file, so the rows are the file's, byte for byte.
/// The preview keeps its raw's mosaic so that a change of white balance or raw exposure runs the
/// develop and the recipe only. Only develops that are a render stage (`RawDevelopPlan.isStage`)
/// can run from it; the others are LibRaw's and read the file.
///
/// ```swift
/// let again = MosaicDecoder(mosaic: kept, info: info, develop: develop, path: "IMG_0001.DNG")
/// try again.start(scaleDenominator: 2)
/// let rows = DemosaicStage.rows(of: again)
/// ```
public final class MosaicDecoder: ImageDecoder, MosaicSource {
    public let path: String
    public let info: ImageInfo
    public let warnings: [ImageWarning]
    public private(set) var width: Int
    public private(set) var height: Int
    public let format = PixelFormat(.rgb, .uint16)
    private let mosaic: RawMosaic
    private let develop: RawDevelop
    public private(set) var undeveloped: MosaicDevelop?

    /// `info` is the raw's header as `RawDecoder` reads it for `develop` (a half-size develop's
    /// has half the size); `warnings`, what the file's unpack said.
    public init(mosaic: RawMosaic, info: ImageInfo, develop: RawDevelop, path: String, warnings: [ImageWarning] = []) {
        self.mosaic = mosaic
        self.info = info
        self.develop = develop
        self.path = path
        self.warnings = warnings
        (width, height) = (info.width, info.height)
    }

    /// Whether `develop` of `raw` can run from a kept mosaic at `scaleDenominator`.
    public static func develops(_ raw: RawImageInfo, _ develop: RawDevelop, scaleDenominator: Int) -> Bool {
        RawDevelopPlan(develop, raw: raw, scaleDenominator: scaleDenominator).isStage
    }

    public var supportedScaleDenominators: [Int] { develop.demosaic == .halfSize ? [1] : [1, 2] }

    public func start(scaleDenominator: Int) throws(ImageError) {
        precondition(undeveloped == nil, "decoder started twice")
        guard let raw = info.raw, Self.develops(raw, develop, scaleDenominator: scaleDenominator) else {
            throw ImageError(.unsupported, path: path, "this develop is LibRaw's: it cannot run from the kept mosaic")
        }
        let stage = RawDevelopPlan(develop, raw: raw, scaleDenominator: scaleDenominator).stage(mosaic, daylight: raw.daylight)
        (width, height) = (stage.width, stage.height)
        undeveloped = stage
    }

    /// Nothing beside the kept mosaic: the demosaic stage's rows are its own part of an estimate.
    public func decodingBytes(scaleDenominator: Int) -> Int { 0 }

    public func readRows(into buffer: PixelBuffer) throws -> Int {
        throw ImageError(.unsupported, path: path, "a kept mosaic's develop is a render stage: its rows come from DemosaicStage.rows(of:)")
    }
}
