import RecipeCore

/// A raw photo developed again from a mosaic kept in memory (`RawMosaic.copy`): the rows
/// `RawDecoder` gives for the same develop, byte for byte, without opening or unpacking the file.
/// The preview keeps its raw's mosaic so that a change of white balance or raw exposure runs the
/// develop and the recipe only. Only develops of recipe's own path (`RawDecoder.developsOwn`)
/// can run from it; the others are LibRaw's and read the file.
///
/// ```swift
/// let again = MosaicDecoder(mosaic: kept, info: info, develop: develop, path: "IMG_0001.DNG")
/// try again.start(scaleDenominator: 2)
/// ```
public final class MosaicDecoder: ImageDecoder {
    public let path: String
    public let info: ImageInfo
    public let warnings: [ImageWarning]
    public private(set) var width: Int
    public private(set) var height: Int
    public let format = PixelFormat(.rgb, .uint16)
    private let mosaic: RawMosaic
    private let develop: RawDevelop
    private var rows: MosaicRows?
    private var nextRow = 0

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
        RawDecoder.developsOwn(raw, develop, half: develop.demosaic == .halfSize || scaleDenominator == 2)
    }

    public var supportedScaleDenominators: [Int] { develop.demosaic == .halfSize ? [1] : [1, 2] }

    public func start(scaleDenominator: Int) throws(ImageError) {
        precondition(rows == nil, "decoder started twice")
        guard let raw = info.raw, Self.develops(raw, develop, scaleDenominator: scaleDenominator) else {
            throw ImageError(.unsupported, path: path, "this develop is LibRaw's: it cannot run from the kept mosaic")
        }
        let half = develop.demosaic == .halfSize || scaleDenominator == 2
        var m = RawDecoder.whiteBalance(develop.whiteBalance, raw: raw).multipliers
        if m.count < 3 { m = raw.daylight }
        let made = MosaicRows(mosaic, multipliers: m, half: half)
        (width, height) = (made.width, made.height)
        rows = made
    }

    public func decodingBytes(scaleDenominator: Int) -> Int {
        MosaicRows.bytes(width: develop.demosaic == .halfSize || scaleDenominator == 2 ? (mosaic.width + 1) / 2 : mosaic.width,
                         half: develop.demosaic == .halfSize || scaleDenominator == 2)
    }

    public func readRows(into buffer: PixelBuffer) throws -> Int {
        precondition(buffer.width == width && buffer.format == format, "strip does not match the decoder")
        guard let rows, nextRow < height else {
            buffer.rowCount = 0
            return 0
        }
        let n = rows.rows(from: nextRow, into: buffer)
        buffer.rowCount = n
        buffer.originY = nextRow
        nextRow += n
        return n
    }
}
