internal import CWebP
import RecipeCore
#if canImport(Glibc)
import Glibc
#endif

/// Decodes a WebP through libwebp: lossy (VP8) and lossless (VP8L), with or without alpha, and
/// the first frame of an animation.
///
/// Rows come out as 8-bit RGB, or RGBA when the file has alpha, exactly as libwebp's own decoder
/// (dwebp) gives them: its default "fancy" chroma upsampling, non-premultiplied alpha. ICCP, EXIF
/// (the bare TIFF structure) and XMP chunks become the metadata; EXIF gives the orientation.
///
/// Memory: libwebp writes into a whole-picture output buffer (its incremental decoder has no
/// rolling window), so the decoder holds, at its peak in `start`, the file's bytes, the decoded
/// image (width × height × 3 or 4 bytes) and libwebp's working memory: a few macroblock rows for
/// lossy data, a 4-byte ARGB copy of the picture for lossless. The file's bytes and libwebp's
/// memory are released before the first row is returned; the image is freed after the last.
/// Measured on a 3840×2560 photo: a peak of 30 MB for a lossy file, 69 MB for a lossless one.
/// The incremental decoder (`WebPIDecoder`) is used for what it reports: how many rows were
/// complete when a truncated file ran out, which `DecodeOptions.allowDamaged` renders.
///
/// ```swift
/// let webp = try WebPDecoder(path: "photo.webp")
/// try webp.start(scaleDenominator: 1)
/// let strip = PixelBuffer(width: webp.width, rowCapacity: 16, format: webp.format)
/// while try webp.readRows(into: strip) > 0 { … }
/// ```
public final class WebPDecoder: ImageDecoder {
    public let path: String
    public private(set) var info: ImageInfo
    public private(set) var warnings: [ImageWarning] = []
    /// libwebp can scale while decoding, but with its own resampler, not an exact reduction.
    public let supportedScaleDenominators = [1]
    public let width: Int
    public let height: Int
    public let format: PixelFormat

    private let options: DecodeOptions
    /// The file, until the pixels are decoded.
    private var container: WebPContainer?
    /// The frame shown (the whole canvas for a still image); nil when the file ends before it.
    private let frame: WebPContainer.Frame?
    private let animated: Bool
    /// The decoded image, `canvasStride` bytes a row; freed after the last row is read.
    private var canvas: UnsafeMutableRawPointer?
    private var canvasStride: Int { width * format.bytesPerPixel }
    private var nextRow = 0

    /// Reads the file and its headers; the pixels are decoded by `start` (or the first `readRows`).
    public init(path: String, options: DecodeOptions = DecodeOptions()) throws(ImageError) {
        self.path = path
        self.options = options
        let file = try WebPContainer(path: path)
        var features = WebPBitstreamFeatures()
        let status = WebPGetFeatures(file.data.baseAddress!.assumingMemoryBound(to: UInt8.self), file.data.count, &features)
        switch status {
        case VP8_STATUS_OK:
            break
        case VP8_STATUS_NOT_ENOUGH_DATA:
            throw ImageError(.damaged, path: path, "file ends inside the WebP headers (\(file.data.count) bytes, truncated)")
        case VP8_STATUS_UNSUPPORTED_FEATURE:
            throw ImageError(.unsupported, path: path, "WebP variant libwebp cannot decode: \(WebPStatus.text(status))")
        default:
            throw ImageError(.corrupt, path: path, "damaged WebP: \(WebPStatus.text(status))")
        }
        let w = Int(features.width), h = Int(features.height)
        guard w > 0, h > 0 else { throw ImageError(.corrupt, path: path, "WebP declares an empty image (\(w)×\(h))") }
        guard w.multipliedReportingOverflow(by: h).partialValue <= options.maxPixels else {
            throw ImageError(.tooLarge, path: path, pixelLimitMessage(w, h, options.maxPixels))
        }
        width = w
        height = h
        animated = features.has_animation != 0

        var problems: [String] = []
        let shown: WebPContainer.Frame?
        if animated {
            // An animation's frames are chunks inside ANMF: only the demuxer finds them.
            shown = file.frame(1)
            if shown == nil && (!file.isIndexed || file.demuxState == WEBP_DEMUX_DONE) {
                throw ImageError(.corrupt, path: path, "damaged WebP: the animation's frames cannot be found (libwebp's demuxer refused the file)")
            }
            if let f = shown, f.x < 0 || f.y < 0 || f.width <= 0 || f.height <= 0 || f.x + f.width > w || f.y + f.height > h {
                throw ImageError(.corrupt, path: path, "damaged WebP: first frame \(f.width)×\(f.height) at (\(f.x), \(f.y)) lies outside the \(w)×\(h) canvas")
            }
        } else {
            // A still image goes to libwebp whole, as dwebp gives it; the demuxer only finds metadata.
            shown = WebPContainer.Frame(x: 0, y: 0, width: w, height: h, fragment: file.data)
        }
        frame = shown

        // Lossy or lossless: the file's own word, or the first frame's for an animation.
        var kind = Int(features.format)
        if kind == 0, let f = shown {
            var frameFeatures = WebPBitstreamFeatures()
            if WebPGetFeatures(f.fragment.baseAddress!.assumingMemoryBound(to: UInt8.self), f.fragment.count, &frameFeatures) == VP8_STATUS_OK {
                kind = Int(frameFeatures.format)
            }
        }
        let coversCanvas = shown.map { $0.x == 0 && $0.y == 0 && $0.width == w && $0.height == h } ?? false
        let hasAlpha = features.has_alpha != 0 || (animated && !coversCanvas)
        format = PixelFormat(hasAlpha ? .rgba : .rgb, .uint8)
        let space = switch kind {
        case 1: "YUV 4:2:0 (VP8, lossy)"
        case 2: "RGB (VP8L, lossless)"
        default: "unknown (first frame missing)"
        }
        var details: [(label: String, value: String)] = [
            ("compression", kind == 1 ? "lossy" : kind == 2 ? "lossless" : "unknown"),
            ("alpha", hasAlpha ? "yes" : "no"),
        ]
        if animated {
            let frames = file.frameCount
            let complete = file.demuxState == WEBP_DEMUX_DONE
            details.append(("frames", "\(frames)\(complete ? "" : " before the file ends") (first shown)"))
            details.append(("loop count", file.loopCount == 0 ? "forever" : "\(file.loopCount)"))
            problems.append("animated WebP with \(frames)\(complete ? "" : " or more") frames: only the first is decoded")
        }

        var meta = ImageMetadata()
        if !file.isIndexed {
            problems.append("WebP container could not be indexed; ICC, EXIF and XMP not read")
        } else {
            WebPDecoder.readMetadata(file, into: &meta, problems: &problems)
        }
        if file.fileSize > file.declaredSize {
            problems.append("\(file.fileSize - file.declaredSize) bytes after the end of the WebP data ignored")
        }
        info = ImageInfo(format: .webp, width: w, height: h, colorModel: format.colorModel, bitDepth: 8, fileColorSpace: space,
                         progressive: false, details: details, metadata: meta)
        container = file
        for p in problems { warn(p) }
    }

    private static func readMetadata(_ file: WebPContainer, into meta: inout ImageMetadata, problems: inout [String]) {
        for (fourcc, name) in [("ICCP", "ICC profile"), ("EXIF", "EXIF"), ("XMP ", "XMP")] {
            guard let (bytes, count) = file.chunk(fourcc) else { continue }
            if count > 1 { problems.append("\(count) \(name) chunks; all but the first ignored") }
            switch fourcc {
            case "ICCP":
                if let problem = ICCProfile.validate(bytes) { problems.append("\(problem); ICC dropped") } else { meta.icc = bytes }
            case "EXIF":
                // The chunk holds the bare TIFF structure; some writers keep JPEG's "Exif\0\0" prefix.
                let prefix = Array("Exif\0\0".utf8)
                let tiff = bytes.starts(with: prefix) ? Array(bytes.dropFirst(prefix.count)) : bytes
                if let problem = EXIF.problem(in: tiff) {
                    problems.append("\(problem); EXIF dropped")
                } else {
                    meta.exif = tiff
                    meta.orientation = Orientation(exifValue: EXIF(tiff)?.orientation ?? 1)
                }
            default:
                if let problem = XMP.problem(in: bytes) { problems.append("\(problem); XMP dropped") } else { meta.xmp = bytes }
            }
        }
    }

    /// The peak in `start` (see the type's notes): the file's bytes, the decoded image, and for a
    /// lossless file libwebp's 4-byte ARGB copy of the picture (a lossy one's few macroblock rows
    /// are in the 256 KiB).
    public func decodingBytes(scaleDenominator: Int) -> Int {
        let lossless = info.details.contains { $0.label == "compression" && $0.value == "lossless" }
        return (container?.data.count ?? 0) + width * height * (format.bytesPerPixel + (lossless ? 4 : 0)) + (256 << 10)
    }

    public func start(scaleDenominator: Int) throws(ImageError) {
        precondition(scaleDenominator == 1, "WebP has no reduced decode")
        try decodeIfNeeded()
    }

    public func readRows(into buffer: PixelBuffer) throws -> Int {
        precondition(buffer.width == width && buffer.format == format, "strip does not match the decoder")
        try decodeIfNeeded()
        guard nextRow < height, let canvas else {
            buffer.rowCount = 0
            return 0
        }
        let n = min(buffer.rowCapacity, height - nextRow)
        for i in 0..<n { buffer.row(i).copyMemory(from: canvas + (nextRow + i) * canvasStride, byteCount: buffer.rowBytes) }
        buffer.rowCount = n
        buffer.originY = nextRow
        nextRow += n
        if nextRow == height {
            free(canvas)
            self.canvas = nil
        }
        return n
    }

    deinit { free(canvas) }

    /// Decodes the shown frame into a whole-canvas buffer and lets go of the file.
    private func decodeIfNeeded() throws(ImageError) {
        guard let file = container else { return }
        let bpp = format.bytesPerPixel
        // A still image whose bitstream chunk was never reached has nothing to decode: say so
        // before a byte of the canvas is allocated.
        let f = frame ?? WebPContainer.Frame(x: 0, y: 0, width: width, height: height, fragment: file.data)
        let hasImageData = frame != nil && (animated || file.reachesImageChunk)
        if !hasImageData && !options.allowDamaged {
            throw ImageError(.damaged, path: path, "file ends before the image data\(sizeNote(file)); pixel data is missing (--allow-damaged renders what was decoded)")
        }
        // malloc, not a PixelBuffer: a failed allocation is an error for this file, not a crash,
        // and no page is touched before libwebp writes it.
        guard let pixels = malloc(canvasStride * height) else {
            throw ImageError(.tooLarge, path: path, "cannot allocate \(canvasStride * height / 1_000_000) MB for the \(width)×\(height) image")
        }
        canvas = pixels
        var status = VP8_STATUS_NOT_ENOUGH_DATA
        var rows = 0
        if hasImageData {
            (status, rows) = decodeIncrementally(f.fragment, into: pixels + f.y * canvasStride + f.x * bpp, width: f.width, height: f.height)
        }
        if status != VP8_STATUS_OK {
            let what: String
            let kind: ImageError.Kind
            if status == VP8_STATUS_SUSPENDED || status == VP8_STATUS_NOT_ENOUGH_DATA {
                kind = .damaged
                what = "file ends inside the image data\(sizeNote(file)): \(rows) of \(f.height) rows decoded"
            } else {
                kind = .corrupt
                what = "damaged WebP: \(WebPStatus.text(status)) after \(rows) of \(f.height) rows"
            }
            // A bitstream that fails before its first row has nothing to render.
            guard options.allowDamaged && (kind == .damaged || rows > 0) else {
                let hint = kind == .damaged || rows > 0 ? "; pixel data is missing or damaged (--allow-damaged renders what was decoded)" : ""
                throw ImageError(kind, path: path, what + hint)
            }
            warn("\(what); the rest is grey (--allow-damaged)")
            for y in (f.y + rows)..<(f.y + f.height) {
                let row = pixels + y * canvasStride + f.x * bpp
                row.initializeMemory(as: UInt8.self, repeating: 128, count: f.width * bpp)
                if bpp == 4 { for x in 0..<f.width { row.storeBytes(of: 255, toByteOffset: x * 4 + 3, as: UInt8.self) } }
            }
        } else if file.fileSize < file.declaredSize {
            warn("file is shorter than its RIFF header declares\(sizeNote(file)); chunks after the image may be lost")
        }
        // Canvas outside an animation's first frame is transparent, as libwebp's animation decoder leaves it.
        for y in 0..<height {
            let row = pixels + y * canvasStride
            if y < f.y || y >= f.y + f.height {
                row.initializeMemory(as: UInt8.self, repeating: 0, count: width * bpp)
            } else {
                row.initializeMemory(as: UInt8.self, repeating: 0, count: f.x * bpp)
                (row + (f.x + f.width) * bpp).initializeMemory(as: UInt8.self, repeating: 0, count: (width - f.x - f.width) * bpp)
            }
        }
        container = nil
    }

    private func sizeNote(_ file: WebPContainer) -> String {
        file.fileSize < file.declaredSize ? " (\(file.fileSize) of the \(file.declaredSize) bytes its RIFF header declares)" : ""
    }

    /// Runs libwebp's incremental decoder over a bitstream into `target` (rows `stride` bytes
    /// apart) and returns its status with the number of complete rows.
    private func decodeIncrementally(_ bitstream: UnsafeRawBufferPointer, into target: UnsafeMutableRawPointer,
                                     width w: Int, height h: Int) -> (VP8StatusCode, Int)
    {
        // The decoder keeps pointers to the configuration's options and output: they must not move.
        let config = UnsafeMutablePointer<WebPDecoderConfig>.allocate(capacity: 1)
        defer { config.deallocate() }
        guard WebPInitDecoderConfig(config) != 0 else { return (VP8_STATUS_INVALID_PARAM, 0) }
        config.pointee.options.use_threads = 0
        config.pointee.output.colorspace = format.colorModel == .rgba ? MODE_RGBA : MODE_RGB
        config.pointee.output.is_external_memory = 1
        config.pointee.output.u.RGBA.rgba = target.assumingMemoryBound(to: UInt8.self)
        config.pointee.output.u.RGBA.stride = Int32(canvasStride)
        config.pointee.output.u.RGBA.size = canvasStride * (h - 1) + w * format.bytesPerPixel
        guard let idec = WebPIDecode(nil, 0, config) else { return (VP8_STATUS_OUT_OF_MEMORY, 0) }
        defer {
            WebPIDelete(idec)
            WebPFreeDecBuffer(&config.pointee.output)
        }
        var status = WebPIUpdate(idec, bitstream.baseAddress!.assumingMemoryBound(to: UInt8.self), bitstream.count)
        var lastY: Int32 = 0, outW: Int32 = 0, outH: Int32 = 0, outStride: Int32 = 0
        let decoded = WebPIDecGetRGB(idec, &lastY, &outW, &outH, &outStride) == nil ? 0 : Int(lastY)
        if status == VP8_STATUS_OK && (Int(outW) != w || Int(outH) != h) {
            // A frame whose bitstream disagrees with its ANMF header.
            status = VP8_STATUS_BITSTREAM_ERROR
        }
        return (status, max(0, min(decoded, h)))
    }

    private func warn(_ message: String) {
        let w = ImageWarning(path: path, message)
        if !warnings.contains(w) { warnings.append(w) }
    }
}

extension WebPDecoder {
    /// libwebp's decoder version at run time (`WebPGetDecoderVersion`: 0x010204 for 1.2.4).
    static var libwebpVersion: String {
        let v = Int(WebPGetDecoderVersion())
        return "\(v >> 16).\(v >> 8 & 0xFF).\(v & 0xFF)"
    }
}
