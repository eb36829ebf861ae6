internal import CPNG
internal import CPNGShim
import RecipeCore
#if canImport(Glibc)
import Glibc
#endif

/// PNG output settings.
public struct PNGOptions: Sendable, Equatable {
    /// zlib level 0…9 (6 by default, as libpng and vips).
    public var compressionLevel: Int = 6
    public init(compressionLevel: Int = 6) { self.compressionLevel = compressionLevel }
}

/// Streams rows into a PNG through libpng: 8- or 16-bit gray, gray+alpha, RGB or RGBA, with
/// iCCP, eXIf, XMP (iTXt `XML:com.adobe.xmp`) and the source's other text chunks.
public final class PNGEncoder: RowSink {
    public let width: Int
    public let height: Int
    public let format: PixelFormat
    public private(set) var warnings: [String] = []

    private let path: String
    private let w: UnsafeMutablePointer<rcp_png>
    private var rowPointers: [UnsafeMutablePointer<UInt8>?] = []
    private var rowsWritten = 0

    public init(handle: UnsafeMutablePointer<FILE>, path: String, width: Int, height: Int, format: PixelFormat,
                metadata: ImageMetadata, options: PNGOptions = PNGOptions()) throws(ImageError)
    {
        precondition(format.sampleType != .float32, "PNG takes 8- or 16-bit rows")
        self.width = width
        self.height = height
        self.format = format
        self.path = path
        self.w = .allocate(capacity: 1)
        memset(w, 0, MemoryLayout<rcp_png>.size)
        let colorType: Int32 = switch format.colorModel {
        case .gray: PNG_COLOR_TYPE_GRAY
        case .grayAlpha: PNG_COLOR_TYPE_GRAY_ALPHA
        case .rgb: PNG_COLOR_TYPE_RGB
        case .rgba: PNG_COLOR_TYPE_RGB_ALPHA
        }
        guard rcp_png_writer_open(w, handle) == 1,
              rcp_png_writer_header(w, UInt32(width), UInt32(height), Int32(format.sampleType.bitDepth), colorType,
                                    Int32(options.compressionLevel)) == 1
        else { throw failure() }
        try writeMetadata(metadata)
        guard rcp_png_writer_write_info(w) == 1 else { throw failure() }
    }

    deinit {
        rcp_png_destroy(w)
        w.deallocate()
    }

    private func writeMetadata(_ m: ImageMetadata) throws(ImageError) {
        if let icc = m.icc {
            let ok = icc.withUnsafeBufferPointer { rcp_png_writer_set_iccp(w, "ICC profile", $0.baseAddress, UInt32($0.count)) }
            guard ok == 1 else { throw failure() }
        }
        if let intent = m.pngSRGBIntent {
            guard rcp_png_writer_set_srgb(w, Int32(intent)) == 1 else { throw failure() }
        } else if let gamma = m.pngGamma {
            guard rcp_png_writer_set_gama(w, gamma) == 1 else { throw failure() }
        }
        if var exif = m.exif {
            let ok = exif.withUnsafeMutableBufferPointer { rcp_png_writer_set_exif(w, $0.baseAddress, UInt32($0.count)) }
            guard ok == 1 else { throw failure() }
        }
        var texts = m.pngText
        if let xmp = m.xmp { texts.insert(PNGText(keyword: XMP.pngKeyword, text: xmp, international: true), at: 0) }
        guard !texts.isEmpty else { return }
        // png_set_text copies everything; the C strings only need to live through the call.
        var allocations: [UnsafeMutableRawPointer] = []
        defer { allocations.forEach { free($0) } }
        func cString(_ bytes: [UInt8]) -> UnsafeMutablePointer<CChar> {
            let p = malloc(bytes.count + 1)!.assumingMemoryBound(to: CChar.self)
            if !bytes.isEmpty { bytes.withUnsafeBytes { UnsafeMutableRawPointer(p).copyMemory(from: $0.baseAddress!, byteCount: bytes.count) } }
            p[bytes.count] = 0
            allocations.append(UnsafeMutableRawPointer(p))
            return p
        }
        var entries: [png_text] = []
        for t in texts where !t.keyword.isEmpty && t.keyword.utf8.count < 80 {
            var entry = png_text()
            entry.compression = t.international ? (t.compressed ? PNG_ITXT_COMPRESSION_zTXt : PNG_ITXT_COMPRESSION_NONE)
                : (t.compressed ? PNG_TEXT_COMPRESSION_zTXt : PNG_TEXT_COMPRESSION_NONE)
            entry.key = cString(Array(t.keyword.utf8))
            entry.text = cString(t.text)
            if t.international {
                entry.itxt_length = t.text.count
                entry.lang = cString(Array(t.languageTag.utf8))
                entry.lang_key = cString(Array(t.translatedKeyword.utf8))
            } else {
                entry.text_length = t.text.count
            }
            entries.append(entry)
        }
        let ok = entries.withUnsafeBufferPointer { rcp_png_writer_set_text(w, $0.baseAddress, Int32($0.count)) }
        guard ok == 1 else { throw failure() }
    }

    public func writeRows(from buffer: PixelBuffer) throws {
        precondition(buffer.width == width && buffer.format == format, "strip does not match the encoder")
        let n = buffer.rowCount
        guard n > 0 else { return }
        precondition(rowsWritten + n <= height, "more rows than the image has")
        if rowPointers.count < n { rowPointers = Array(repeating: nil, count: n) }
        for i in 0..<n { rowPointers[i] = buffer.row(i).assumingMemoryBound(to: UInt8.self) }
        let ok = rowPointers.withUnsafeMutableBufferPointer { rcp_png_writer_write_rows(w, $0.baseAddress, UInt32(n)) }
        guard ok == 1 else { throw failure() }
        rowsWritten += n
    }

    public func finish() throws {
        precondition(rowsWritten == height, "PNG finished after \(rowsWritten) of \(height) rows")
        guard rcp_png_writer_finish(w) == 1 else { throw failure() }
        // libpng drops what it will not write (an RGB ICC profile on a gray image, say) with a
        // warning; pass those on so the user knows a block did not make it.
        for i in 0..<Int(w.pointee.distinct_warnings) {
            let text = withUnsafeBytes(of: w.pointee.warnings) { raw in
                String(cString: raw.baseAddress!.advanced(by: i * Int(RCP_PNG_MESSAGE)).assumingMemoryBound(to: CChar.self))
            }
            warnings.append(sentence(text))
        }
    }

    private func failure() -> ImageError {
        let text = withUnsafeBytes(of: w.pointee.message) { String(cString: $0.baseAddress!.assumingMemoryBound(to: CChar.self)) }
        return ImageError(.writeFailed, path: path, sentence(text.isEmpty ? "libpng could not write the file" : text))
    }
}
