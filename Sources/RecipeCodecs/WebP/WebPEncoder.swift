internal import CWebP
import RecipeCore
#if canImport(Glibc)
import Glibc
#endif

/// WebP output settings.
///
/// ```swift
/// WebPOptions(quality: 80)                  // lossy, as `cwebp -q 80 -m 4`
/// WebPOptions(lossless: true, effort: 6)    // lossless, as `cwebp -lossless -z 9`
/// ```
public struct WebPOptions: Sendable, Equatable {
    /// 0…100, libwebp's lossy quality (what `cwebp -q` means); ignored when lossless.
    public var quality: Int = 90
    /// Lossless (VP8L) instead of lossy (VP8).
    public var lossless: Bool = false
    /// 0…6, libwebp's "method": slower and smaller as it grows.
    public var effort: Int = 4

    public init(quality: Int = 90, lossless: Bool = false, effort: Int = 4) {
        self.quality = quality
        self.lossless = lossless
        self.effort = effort
    }
}

/// Encodes rows into a WebP through libwebp, with ICCP, EXIF and XMP chunks added by its muxer.
///
/// Takes 8-bit RGB or RGBA rows (WebP has no gray and no 16-bit form: the caller converts).
/// libwebp encodes whole pictures, so the rows are buffered and everything happens in `finish`:
/// the picture is imported (YUV 4:2:0 for lossy, ARGB for lossless), encoded with `thread_level`
/// 0 into memory, wrapped with the metadata chunks (the muxer writes the VP8X header), and
/// written to `handle`, which the caller flushes, closes and renames.
///
/// Lossy uses libwebp's default preset at `quality` with method `effort`, as cwebp does.
/// Lossless uses libwebp's lossless preset (cwebp's `-z`) whose method equals `effort`: 0, 1, 2,
/// 4, 6, 8, 9 for effort 0…6, so the default (4) is cwebp `-lossless` (method 4, quality 75).
/// Lossless also keeps the RGB of fully transparent pixels (`exact`), so a decode gives back
/// exactly the rows written.
///
/// Memory: the buffered rows (width × height × 3 or 4 bytes, rows padded to 64), then libwebp's
/// picture made from them (1.5 bytes a pixel for lossy, 2.5 with alpha; 4 for lossless); the rows
/// are freed before encoding starts, so the peak is the larger of rows + picture and picture +
/// libwebp's encoder + the output file's bytes (twice while the muxer adds metadata chunks).
/// Measured on a 3840×2560 photo at the default settings: lossy peaks at about 4.5 bytes a pixel
/// (rows + picture, during the import; VP8's own state is a few macroblock rows), lossless at
/// about 25, nearly all of it libwebp's VP8L encoder (hash chains, transformed copies, backward
/// references), as `cwebp -lossless` does.
///
/// ```swift
/// let out = try AtomicOutputFile(path: "out.webp")
/// let webp = try WebPEncoder(handle: out.handle, path: out.path, width: 640, height: 480,
///                            format: PixelFormat(.rgb, .uint8), metadata: meta, options: WebPOptions(quality: 85))
/// try webp.writeRows(from: strip)   // … every strip …
/// try webp.finish()
/// try out.commit()
/// ```
public final class WebPEncoder: RowSink {
    public let width: Int
    public let height: Int
    public let format: PixelFormat
    /// Problems that did not stop the file being written.
    public private(set) var warnings: [String] = []

    private let path: String
    private let handle: UnsafeMutablePointer<FILE>
    private let metadata: ImageMetadata
    private let options: WebPOptions
    private var rows: PixelBuffer?
    private var rowsWritten = 0

    /// Effort 0…6 → libwebp's lossless preset level, the one whose method equals the effort.
    private static let losslessLevels: [Int32] = [0, 1, 2, 4, 6, 8, 9]

    public init(handle: UnsafeMutablePointer<FILE>, path: String, width: Int, height: Int, format: PixelFormat,
                metadata: ImageMetadata, options: WebPOptions = WebPOptions()) throws(ImageError)
    {
        precondition(format == PixelFormat(.rgb, .uint8) || format == PixelFormat(.rgba, .uint8),
                     "WebP takes 8-bit RGB or RGBA rows, not \(format)")
        precondition((0...100).contains(options.quality) && (0...6).contains(options.effort))
        let limit = Int(WEBP_MAX_DIMENSION)
        guard (1...limit).contains(width) && (1...limit).contains(height) else {
            throw ImageError(.writeFailed, path: path, "\(width)×\(height) pixels: \(WebPStatus.text(VP8_ENC_ERROR_BAD_DIMENSION))")
        }
        self.width = width
        self.height = height
        self.format = format
        self.path = path
        self.handle = handle
        self.metadata = metadata
        self.options = options
        self.rows = PixelBuffer(width: width, rowCapacity: height, format: format)
    }

    public func writeRows(from buffer: PixelBuffer) throws {
        precondition(buffer.width == width && buffer.format == format, "strip does not match the encoder")
        let n = buffer.rowCount
        guard n > 0 else { return }
        precondition(rowsWritten + n <= height, "more rows than the image has")
        guard let rows else { preconditionFailure("rows written after finish") }
        for i in 0..<n { rows.row(rowsWritten + i).copyMemory(from: buffer.row(i), byteCount: buffer.rowBytes) }
        rowsWritten += n
    }

    public func finish() throws {
        precondition(rowsWritten == height, "WebP finished after \(rowsWritten) of \(height) rows")
        let encoded = try encode()
        defer {
            WebPMemoryWriterClear(encoded)
            encoded.deallocate()
        }
        let bitstream = UnsafeRawBufferPointer(start: encoded.pointee.mem, count: encoded.pointee.size)
        if metadata.icc == nil && metadata.exif == nil && metadata.xmp == nil {
            try write(bitstream)
        } else {
            try writeWithMetadata(bitstream)
        }
    }

    /// Imports the buffered rows into a libwebp picture, frees them, and encodes into memory.
    private func encode() throws(ImageError) -> UnsafeMutablePointer<WebPMemoryWriter> {
        let config = UnsafeMutablePointer<WebPConfig>.allocate(capacity: 1)
        let picture = UnsafeMutablePointer<WebPPicture>.allocate(capacity: 1)
        picture.initialize(to: WebPPicture())  // zeroed: safe to free whatever fails below
        defer {
            WebPPictureFree(picture)
            picture.deallocate()
            config.deallocate()
        }
        let configured = options.lossless
            ? WebPConfigInit(config) != 0 && WebPConfigLosslessPreset(config, WebPEncoder.losslessLevels[options.effort]) != 0
            : WebPConfigPreset(config, WEBP_PRESET_DEFAULT, Float(options.quality)) != 0
        guard configured, WebPPictureInit(picture) != 0 else {
            throw ImageError(.writeFailed, path: path, "libwebp version mismatch: cannot set up the encoder")
        }
        config.pointee.method = Int32(options.effort)
        config.pointee.thread_level = 0
        if options.lossless { config.pointee.exact = 1 }
        guard WebPValidateConfig(config) != 0 else {
            throw ImageError(.writeFailed, path: path, WebPStatus.text(VP8_ENC_ERROR_INVALID_CONFIGURATION))
        }

        picture.pointee.width = Int32(width)
        picture.pointee.height = Int32(height)
        picture.pointee.use_argb = options.lossless ? 1 : 0
        let imported: Int32
        do {
            guard let rows else { preconditionFailure("WebP finished twice") }
            let pixels = rows.baseAddress.assumingMemoryBound(to: UInt8.self)
            imported = format.colorModel == .rgba
                ? WebPPictureImportRGBA(picture, pixels, Int32(rows.rowStride))
                : WebPPictureImportRGB(picture, pixels, Int32(rows.rowStride))
        }
        // libwebp has its own copy now; no reference to the rows outlives the scope above.
        rows = nil
        guard imported != 0 else { throw failure(picture.pointee.error_code) }

        let writer = UnsafeMutablePointer<WebPMemoryWriter>.allocate(capacity: 1)
        WebPMemoryWriterInit(writer)
        picture.pointee.writer = WebPMemoryWrite
        picture.pointee.custom_ptr = UnsafeMutableRawPointer(writer)
        guard WebPEncode(config, picture) != 0 else {
            let error = failure(picture.pointee.error_code)
            WebPMemoryWriterClear(writer)
            writer.deallocate()
            throw error
        }
        return writer
    }

    /// Adds ICCP, EXIF and XMP chunks to the encoded image and writes the container.
    private func writeWithMetadata(_ bitstream: UnsafeRawBufferPointer) throws(ImageError) {
        var image = WebPData(bytes: bitstream.baseAddress!.assumingMemoryBound(to: UInt8.self), size: bitstream.count)
        guard let mux = WebPMuxCreate(&image, 0) else {
            throw ImageError(.writeFailed, path: path, "libwebp's muxer could not read the encoded image")
        }
        defer { WebPMuxDelete(mux) }
        // EXIF goes in as the bare TIFF structure (no "Exif\0\0"), as libwebp and exiftool expect.
        for (fourcc, block) in [("ICCP", metadata.icc), ("EXIF", metadata.exif), ("XMP ", metadata.xmp)] {
            guard let block, !block.isEmpty else { continue }
            let status = block.withUnsafeBufferPointer { bytes in
                var chunk = WebPData(bytes: bytes.baseAddress, size: bytes.count)
                return WebPMuxSetChunk(mux, fourcc, &chunk, 1)
            }
            guard status == WEBP_MUX_OK else {
                throw ImageError(.writeFailed, path: path, "cannot add the \(fourcc.trimmingSpaces) chunk: \(WebPStatus.text(status))")
            }
        }
        var assembled = WebPData()
        let status = WebPMuxAssemble(mux, &assembled)
        defer { WebPDataClear(&assembled) }
        guard status == WEBP_MUX_OK, let bytes = assembled.bytes else {
            throw ImageError(.writeFailed, path: path, "cannot assemble the WebP container: \(WebPStatus.text(status))")
        }
        try write(UnsafeRawBufferPointer(start: bytes, count: assembled.size))
    }

    private func write(_ bytes: UnsafeRawBufferPointer) throws(ImageError) {
        guard !bytes.isEmpty else { throw ImageError(.writeFailed, path: path, "libwebp produced no bytes") }
        guard fwrite(bytes.baseAddress, 1, bytes.count, handle) == bytes.count else {
            throw ImageError(.writeFailed, path: path, errnoText())
        }
    }

    private func failure(_ code: WebPEncodingError) -> ImageError {
        ImageError(.writeFailed, path: path, "libwebp could not encode the image: \(WebPStatus.text(code))")
    }
}

extension String {
    fileprivate var trimmingSpaces: String { String(self.filter { $0 != " " }) }
}
