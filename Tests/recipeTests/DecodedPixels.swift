import RecipeCodecs
import RecipeCore

/// The samples of a PNG or JPEG as our decoder gives them (8-bit formats), row after row: how the
/// CLI tests look at what a command wrote.
func decodedPixels(_ path: String) throws -> [UInt8] {
    let d = try ImageDecoders.open(path)
    try d.start(scaleDenominator: 1)
    let strip = PixelBuffer(width: d.width, rowCapacity: 32, format: d.format)
    var out: [UInt8] = []
    while try d.readRows(into: strip) > 0 {
        for r in 0..<strip.rowCount { out += strip.samples(r, as: UInt8.self) }
    }
    return out
}

/// Every sample of a PNG or JPEG as integers at the file's own depth (8 or 16 bits), with what
/// they are: how the precision and colour tests look at a render.
struct DecodedSamples {
    var values: [Int]
    var bits: Int
    var channels: Int
    var hasAlpha: Bool
    var width: Int
    var height: Int
    var icc: [UInt8]?
}

func decodedSamples(_ path: String) throws -> DecodedSamples {
    let d = try ImageDecoders.open(path)
    try d.start(scaleDenominator: 1)
    let strip = PixelBuffer(width: d.width, rowCapacity: 32, format: d.format)
    var values: [Int] = []
    while try d.readRows(into: strip) > 0 {
        for r in 0..<strip.rowCount {
            if d.format.sampleType == .uint16 { values += strip.samples(r, as: UInt16.self).map(Int.init) }
            else { values += strip.samples(r, as: UInt8.self).map(Int.init) }
        }
    }
    return DecodedSamples(values: values, bits: d.format.sampleType.bitDepth, channels: d.format.channels,
                          hasAlpha: d.format.colorModel.hasAlpha, width: d.width, height: d.height, icc: d.info.metadata.icc)
}
