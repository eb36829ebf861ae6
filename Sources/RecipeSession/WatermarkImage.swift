import RecipeCodecs
import RecipeColor
import RecipeCore
import RecipeRender

/// Reads a watermark's PNG as the mark a render lays over its result: decoded, resized to the
/// width the placement asks (Lanczos in linear light, alpha premultiplied: `ResampleStep`),
/// and premultiplied floats of its encoded values. A PNG without alpha is an opaque mark. Its
/// colours (its own ICC profile's, else sRGB) are converted into the output's space (Little CMS,
/// relative colorimetric), so a logo keeps its colours in a Display P3 or Adobe RGB output.
package enum WatermarkImage {
    /// The most pixels a mark's PNG may have (a logo; 64 MP is a poster's).
    static let maxPixels = 64_000_000

    package static func load(_ path: String, width: Int, maxPixels limit: Int, into output: ColorProfile? = nil) throws -> WatermarkStage.Mark {
        var options = DecodeOptions()
        options.maxPixels = min(limit, maxPixels)
        let decoder = try ImageDecoders.open(path, options: options)
        guard decoder.info.format == .png else {
            throw ImageError(.unsupported, path: path, "is \(decoder.info.format.rawValue), not a PNG: a watermark is a PNG (its alpha is the mark's shape)")
        }
        try decoder.start(scaleDenominator: 1)
        let height = max(1, Int((Double(decoder.height) * Double(width) / Double(max(1, decoder.width))).rounded()))
        guard width * height <= maxPixels else {
            throw ImageError(.tooLarge, path: path, "would be a \(width)×\(height) watermark, over \(maxPixels / 1_000_000) million pixels")
        }
        let source: RowSource = (width, height) == (decoder.width, decoder.height) ? decoder : ResampleStep(source: decoder, width: width, height: height)
        let format = source.format
        let channels = format.channels
        let colour = format.colorModel.withoutAlpha == .gray ? 1 : 3
        let alpha = format.colorModel.hasAlpha
        let scale: Float = format.sampleType == .uint16 ? 1 / 65535 : 1 / 255
        var samples = [Float](repeating: 0, count: width * height * 4)
        let strip = PixelBuffer(width: width, rowCapacity: 16, format: format)
        var y = 0
        while y < height {
            let n = try source.readRows(into: strip)
            guard n > 0 else { break }
            for i in 0..<n {
                for x in 0..<width {
                    func sample(_ c: Int) -> Float {
                        let at = x * channels + c
                        return format.sampleType == .uint16 ? Float(strip.samples(i, as: UInt16.self)[at]) * scale
                            : Float(strip.samples(i, as: UInt8.self)[at]) * scale
                    }
                    let a = alpha ? sample(channels - 1) : 1
                    let o = ((y + i) * width + x) * 4
                    for c in 0..<3 { samples[o + c] = sample(colour == 1 ? 0 : c) * a }
                    samples[o + 3] = a
                }
            }
            y += n
        }
        guard y == height else { throw ImageError(.corrupt, path: path, "ended after \(y) of \(height) rows") }
        let own = try decoder.info.metadata.icc.map { bytes throws(ImageError) in
            do { return try ColorProfile(icc: bytes) } catch { throw ImageError(.corrupt, path: path, "its ICC profile cannot be used: \(error)") }
        }
        try convert(&samples, from: own ?? .sRGB, to: output ?? .sRGB, path: path)
        return WatermarkStage.Mark(width: width, height: height, premultiplied: samples)
    }

    /// The mark's premultiplied colours from `source` into `output` (nothing when both encode as
    /// sRGB does): unpremultiplied, converted, premultiplied again.
    static func convert(_ samples: inout [Float], from source: ColorProfile, to output: ColorProfile, path: String) throws {
        guard !(source.isSRGBEquivalent && output.isSRGBEquivalent) else { return }
        let transform: ColorTransform
        do {
            transform = try ColorTransform(from: source, to: output, input: .rgbFloat, output: .rgbFloat, intent: .relative)
        } catch {
            throw ImageError(.unsupported, path: path, "its colours cannot be converted to the output's: \(error)")
        }
        let pixels = samples.count / 4
        var rgb = [Float](repeating: 0, count: pixels * 3)
        for i in 0..<pixels where samples[i * 4 + 3] > 0 {
            for c in 0..<3 { rgb[i * 3 + c] = samples[i * 4 + c] / samples[i * 4 + 3] }
        }
        rgb.withUnsafeMutableBytes { transform.convert($0.baseAddress!, $0.baseAddress!, pixels: pixels) }
        for i in 0..<pixels {
            let a = samples[i * 4 + 3]
            for c in 0..<3 { samples[i * 4 + c] = min(1, max(0, rgb[i * 3 + c])) * a }
        }
    }
}
