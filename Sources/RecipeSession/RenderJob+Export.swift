import RecipeCodecs
import RecipeCore
import RecipeLanguage
import RecipeRender
#if canImport(Glibc)
import Glibc
#endif

extension RenderJob {
    /// The export settings' stages after the last resize: output sharpening (σ in output pixels,
    /// the band-limited kernel, which below σ 1 px blurs as a continuous Gaussian does where the
    /// sampled one hardly blurs at all: ImageMagick's -unsharp at σ 0.6 within 3 codes, against 5)
    /// then the watermark, on floats in the output's encoding; the rows come out as the encoder's
    /// samples of `format`. `chain` unchanged when there is neither.
    func finishing(_ chain: RowSource, format: ImageFileFormat, deep: Bool, pool: WorkerPool?, color: PhotoColor) throws -> RowSource {
        guard export.sharpen != nil || export.watermark != nil else { return chain }
        var rows = Self.integerRGB(chain)
        if rows.format.sampleType != .float32 { rows = PointStage(source: rows, programs: [], output: .float32, pool: pool) }
        if let s = export.sharpen {
            rows = BlurStage(source: rows, sigma: s.sigma, kernel: .bandLimited, mode: .unsharp(amount: Float(s.amount), threshold: Float(s.threshold), luma: false))
        }
        if let w = export.watermark {
            let placed = WatermarkPlacement(w, photo: (rows.width, rows.height))
            let mark = try WatermarkImage.load(w.path, width: placed.width, maxPixels: decode.maxPixels, into: color.output)
            let (x, y) = placed.origin(markHeight: mark.height)
            rows = WatermarkStage(source: rows, mark: mark, x: x, y: y, opacity: w.opacity)
        }
        return PointStage(source: rows, programs: [], output: ImageEncoders.pixelFormat(format, for: .rgb, deep: deep).sampleType, pool: pool)
    }

    /// Encodes `chain` at the highest quality whose file fits `maxBytes` (`QualitySearch`: a few
    /// encodes into memory of the image kept once), and writes that file to `file`. Throws when
    /// the format is lossless or nothing fits.
    func encodeFitting(_ chain: RowSource, format: ImageFileFormat, pixels: PixelFormat, metadata: ImageMetadata,
                       maxBytes: Int, into file: AtomicOutputFile, deadline: UInt64?) throws -> (warnings: [String], fit: Outcome.Fit) {
        guard let top = encoding.quality(of: format) else {
            throw ImageError(.refused, path: output, "--max-bytes needs a lossy output (JPEG, WebP, HEIC or AVIF, not --lossless); \(format.rawValue) is written lossless: nothing written")
        }
        let encoding = encodingAsWritten
        let kept = try KeptImage(reading: chain, deadline: deadline)
        var best: (quality: Int, bytes: [UInt8], warnings: [String])?
        let search = try QualitySearch.fit(maxBytes: maxBytes, top: top, axis: format == .jpeg ? .jpeg : .linear) { quality in
            if let deadline, Timeout.now() > deadline { throw Timeout() }
            kept.rewind()
            let (bytes, said) = try Self.encodeInMemory(kept, format: format, path: output, pixels: pixels, metadata: metadata,
                                                        encoding: encoding.with(quality: quality, for: format))
            if bytes.count <= maxBytes, quality > best?.quality ?? 0 { best = (quality, bytes, said) }
            return bytes.count
        }
        guard let quality = search.quality, let best, best.quality == quality else {
            let smallest = search.tries.map(\.bytes).min() ?? 0
            throw ImageError(.refused, path: output, "does not fit --max-bytes \(MemoryBudget.text(maxBytes)): at quality \(search.tries.last?.quality ?? 1) it is \(MemoryBudget.text(smallest)); render it smaller (--size): nothing written")
        }
        // The kept encode of the chosen quality (the search may end on a larger one that did not fit).
        guard best.bytes.withUnsafeBytes({ fwrite($0.baseAddress, 1, $0.count, file.handle) }) == best.bytes.count else {
            throw ImageError(.writeFailed, path: output, file.writeFailure ?? errnoText())
        }
        return (best.warnings, Outcome.Fit(quality: quality, bytes: best.bytes.count, encodes: search.tries.count, limit: maxBytes))
    }

    /// The encoding the output is written with: with a size limit, JPEG's Huffman tables are
    /// optimised, the same pixels in fewer bytes (photo24 at quality 1: 418,485 → 186,434
    /// bytes), so the limit is met at a higher quality.
    var encodingAsWritten: OutputEncoding {
        var e = encoding
        if e.maxBytes != nil { e.jpeg.optimizeCoding = true }
        return e
    }

    /// One encode of `source` into memory: the file's bytes and the encoder's warnings.
    static func encodeInMemory(_ source: RowSource, format: ImageFileFormat, path: String, pixels: PixelFormat, metadata: ImageMetadata,
                               encoding: OutputEncoding) throws -> ([UInt8], [String]) {
        var buffer: UnsafeMutablePointer<CChar>?
        var size = 0
        guard let stream = open_memstream(&buffer, &size) else {
            throw ImageError(.writeFailed, path: path, "cannot encode into memory: \(errnoText())")
        }
        var closed = false
        defer {
            if !closed { fclose(stream) }
            free(buffer)
        }
        let encoder = try ImageEncoders.open(format, handle: stream, path: path, width: source.width, height: source.height,
                                             pixels: pixels, metadata: metadata, encoding: encoding)
        try StripPipeline.run(source: source, sink: encoder, deadline: nil)
        closed = true
        guard fclose(stream) == 0 else { throw ImageError(.writeFailed, path: path, "cannot encode into memory: \(errnoText())") }
        let bytes = buffer.map { Array(UnsafeRawBufferPointer(start: $0, count: size)) } ?? []
        return (bytes, encoder.warnings)
    }
}

/// Where a watermark lies on a photo of a given size: its width a share of the photo's, its gap
/// to the edges a share of the shorter side, at one of nine positions.
package struct WatermarkPlacement {
    package let width: Int
    let margin: Int
    let position: String
    let photo: (width: Int, height: Int)

    package init(_ w: CheckedRecipe.Watermark, photo: (width: Int, height: Int)) {
        self.photo = photo
        width = max(1, Int((w.scale * Double(photo.width)).rounded()))
        margin = Int((w.margin * Double(min(photo.width, photo.height))).rounded())
        position = w.position
    }

    /// The top-left corner of a mark `markHeight` high.
    package func origin(markHeight: Int) -> (x: Int, y: Int) {
        let x = position.hasSuffix("left") ? margin : position.hasSuffix("right") ? photo.width - width - margin : (photo.width - width) / 2
        let y = position.hasPrefix("top") ? margin : position.hasPrefix("bottom") ? photo.height - markHeight - margin : (photo.height - markHeight) / 2
        return (x, y)
    }
}
