import Foundation
import RecipeCodecs
import RecipeCore
import TestSupport

/// Decodes a whole file with recipe's decoder into a Netpbm-shaped image for comparison.
func decodeAll(_ path: String, scale: Int = 1, options: DecodeOptions = DecodeOptions()) throws -> (image: NetpbmImage, decoder: any ImageDecoder) {
    let decoder = try ImageDecoders.open(path, options: options)
    return (try readAll(decoder, scale: scale), decoder)
}

/// Every row of `decoder` (started at 1/`scale`) as a Netpbm-shaped image, read in strips of an
/// odd height on purpose, checking that the strips come in order and cover the image.
func readAll(_ decoder: any ImageDecoder, scale: Int = 1) throws -> NetpbmImage {
    try decoder.start(scaleDenominator: scale)
    let strip = PixelBuffer(width: decoder.width, rowCapacity: 7, format: decoder.format)  // odd strip height on purpose
    var samples: [Int] = []
    samples.reserveCapacity(decoder.width * decoder.height * decoder.format.channels)
    var rows = 0
    while try decoder.readRows(into: strip) > 0 {
        precondition(strip.originY == rows, "strips out of order")
        for r in 0..<strip.rowCount {
            switch decoder.format.sampleType {
            case .uint8: samples.append(contentsOf: strip.samples(r, as: UInt8.self).map(Int.init))
            case .uint16: samples.append(contentsOf: strip.samples(r, as: UInt16.self).map(Int.init))
            case .float32: fatalError("decoders produce integer samples")
            }
        }
        rows += strip.rowCount
    }
    precondition(rows == decoder.height, "decoder produced \(rows) of \(decoder.height) rows")
    return NetpbmImage(width: decoder.width, height: decoder.height, channels: decoder.format.channels,
                       maxValue: decoder.format.sampleType == .uint16 ? 65535 : 255, samples: samples)
}

/// djpeg's output for a file at 1/scale, or nil when djpeg is not installed.
func djpegReference(_ path: String, scale: Int) throws -> NetpbmImage? {
    guard let djpeg = ExternalTool.find("djpeg") else { return nil }
    let r = try ExternalTool.run(djpeg, ["-scale", "1/\(scale)", "-pnm", path])
    guard r.status == 0 else { return nil }
    return NetpbmImage(r.stdout)
}

/// pypng's decoding of a PNG (through Tests/Tools/png_reference.py), or nil without python3+pypng.
func pypngReference(_ path: String) throws -> NetpbmImage? {
    guard ExternalTool.pythonHas("png"), let py = ExternalTool.find("python3") else { return nil }
    let out = TestPaths.temporaryDirectory("pngref").appendingPathComponent("ref.pam")
    defer { try? FileManager.default.removeItem(at: out.deletingLastPathComponent()) }
    let script = TestPaths.packageRoot.appendingPathComponent("Tests/Tools/png_reference.py").path
    let r = try ExternalTool.run(py, [script, path, out.path])
    guard r.status == 0, let data = FileManager.default.contents(atPath: out.path) else { return nil }
    return NetpbmImage(data)
}

func readNetpbm(_ path: String) -> NetpbmImage? {
    FileManager.default.contents(atPath: path).flatMap(NetpbmImage.init)
}
