import RecipeCodecs
import RecipeCore
import RecipeHistory
import RecipeKernels
import RecipeOps

/// Reads the `image` masks of a graph once per render: each file's bytes hashed (and held to the
/// `sha256` the recipe gives, as a sidecar holds its original), decoded (an 8- or 16-bit grey
/// PNG or TIFF; a grey-and-alpha file's grey), its values in 0…1 for `RasterMask`.
package enum RasterMaskLoader {
    /// The most pixels a mask file may have (a mask of a 100 MP photo at full size).
    static let maxPixels = 120_000_000

    /// The masks of `graph`, by `file` as the recipe writes it; paths relative to the folder of
    /// `recipe` (the recipe's path, or a sidecar's).
    package static func load(_ graph: FilterGraph, recipe: String) throws(ImageError) -> [String: RasterMaskImage] {
        let files = graph.nodes.compactMap(\.mask).flatMap(Operations.rasterFiles)
        guard !files.isEmpty else { return [:] }
        let folder = Paths.folder(of: recipe)
        var out: [String: RasterMaskImage] = [:]
        for node in graph.nodes {
            guard let mask = node.mask else { continue }
            for (file, digest) in bound(mask) where out[file] == nil {
                out[file] = try read(file.hasPrefix("/") ? file : folder + "/" + file, sha256: digest)
            }
        }
        return out
    }

    /// Each `image` mask's file with the digest it is bound to (nil when unbound).
    static func bound(_ mask: FilterGraph.Mask) -> [(String, String?)] {
        if mask.kind == Operations.imageMask.name, case .file(let path)? = mask.params["file"] {
            if case .text(let digest)? = mask.params["sha256"] { return [(path, digest)] }
            return [(path, nil)]
        }
        return mask.parts.flatMap(bound)
    }

    static func read(_ path: String, sha256 expected: String?) throws(ImageError) -> RasterMaskImage {
        let digest: String
        do { digest = try ContentHash.file(path).sha256 } catch { throw ImageError(.unreadable, path: path, "the mask file cannot be read: \(error)") }
        if let expected, expected != digest {
            throw ImageError(.refused, path: path, "the mask file has changed since the edit was made (its bytes hash to \(digest.prefix(12))…, "
                + "the recipe is bound to \(expected.prefix(12))…): not applied. If it was changed on purpose, remove `sha256` from the mask or write the new digest")
        }
        var options = DecodeOptions()
        options.maxPixels = maxPixels
        let decoder = try ImageDecoders.open(path, options: options)
        guard decoder.info.format == .png || decoder.info.format == .tiff else {
            throw ImageError(.unsupported, path: path, "is \(decoder.info.format.rawValue), not a PNG or TIFF: a mask is a grey PNG or TIFF")
        }
        try decoder.start(scaleDenominator: 1)
        let format = decoder.format
        guard format.colorModel.withoutAlpha == .gray else {
            throw ImageError(.unsupported, path: path, "is a colour image: a mask is a grey PNG or TIFF (white where the stage applies); "
                + "convert it, for example with `convert MASK -colorspace Gray MASK`")
        }
        let width = decoder.width, height = decoder.height, channels = format.channels
        let scale: Float = format.sampleType == .uint16 ? 1 / 65535 : 1 / 255
        var values = [Float](repeating: 0, count: width * height)
        let strip = PixelBuffer(width: width, rowCapacity: 16, format: format)
        var y = 0
        while y < height {
            let n: Int
            do { n = try decoder.readRows(into: strip) } catch let e as ImageError { throw e } catch { throw ImageError(.corrupt, path: path, "\(error)") }
            guard n > 0 else { break }
            for i in 0..<n {
                let o = (y + i) * width
                if format.sampleType == .uint16 {
                    let row = strip.samples(i, as: UInt16.self)
                    for x in 0..<width { values[o + x] = Float(row[x * channels]) * scale }
                } else if format.sampleType == .uint8 {
                    let row = strip.samples(i, as: UInt8.self)
                    for x in 0..<width { values[o + x] = Float(row[x * channels]) * scale }
                } else {
                    throw ImageError(.unsupported, path: path, "has \(format.sampleType) samples: a mask is 8- or 16-bit")
                }
            }
            y += n
        }
        guard y == height else { throw ImageError(.corrupt, path: path, "the mask ended after \(y) of \(height) rows") }
        return RasterMaskImage(width: width, height: height, values: values, sha256: digest)
    }
}
