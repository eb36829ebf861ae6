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
