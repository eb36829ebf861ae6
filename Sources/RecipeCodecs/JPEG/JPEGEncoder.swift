internal import CJPEG
internal import CJPEGShim
import RecipeCore
#if canImport(Glibc)
import Glibc
#endif

/// JPEG output settings.
public struct JPEGOptions: Sendable, Equatable {
    /// Chroma subsampling of the output.
    public enum Subsampling: String, Sendable, CaseIterable {
        case s420 = "4:2:0"
        case s422 = "4:2:2"
        case s444 = "4:4:4"

        var lumaFactors: (h: Int32, v: Int32) {
            switch self {
            case .s420: (2, 2)
            case .s422: (2, 1)
            case .s444: (1, 1)
            }
        }
    }

    /// 1…100; 90 by default.
    public var quality: Int = 90
    public var subsampling: Subsampling = .s420
    public var progressive: Bool = false
    /// Optimized Huffman tables (smaller file, slower encode).
    public var optimizeCoding: Bool = false

    public init(quality: Int = 90, subsampling: Subsampling = .s420, progressive: Bool = false, optimizeCoding: Bool = false) {
        self.quality = quality
        self.subsampling = subsampling
        self.progressive = progressive
        self.optimizeCoding = optimizeCoding
    }
}

/// Streams scanlines into a JPEG through libjpeg-turbo and writes the metadata blocks verbatim.
///
/// Takes 8-bit gray or RGB rows. Markers follow SOI in the order EXIF (APP1), ICC (APP2 chunks),
/// XMP and extended XMP (APP1), IPTC (APP13), comments. A JFIF header is written only when there
/// is no EXIF block (EXIF requires its APP1 to follow SOI).
public final class JPEGEncoder: RowSink {
    public let width: Int
    public let height: Int
    public let format: PixelFormat
    /// Blocks that could not be written (each too big for a JPEG segment), as warnings.
    public private(set) var warnings: [String] = []

    private let path: String
    private let e: UnsafeMutablePointer<rcp_jpeg_encoder>
    private var rowPointers: [UnsafeMutablePointer<JSAMPLE>?] = []
    private var rowsWritten = 0

    /// Starts a JPEG on `handle` (an open output stream owned by the caller).
    public init(handle: UnsafeMutablePointer<FILE>, path: String, width: Int, height: Int, colorModel: ColorModel,
                metadata: ImageMetadata, options: JPEGOptions) throws(ImageError)
    {
        precondition(colorModel == .gray || colorModel == .rgb, "JPEG takes gray or RGB rows")
        precondition((1...100).contains(options.quality))
        guard width <= 65500 && height <= 65500 else {
            throw ImageError(.writeFailed, path: path, "\(width)×\(height) is larger than JPEG allows (65500 per side)")
        }
        self.width = width
        self.height = height
        self.format = PixelFormat(colorModel, .uint8)
        self.path = path
        self.e = .allocate(capacity: 1)
        memset(e, 0, MemoryLayout<rcp_jpeg_encoder>.size)
        let (h, v) = options.subsampling.lumaFactors
        guard rcp_jpeg_encoder_open(e, handle) == 1,
              rcp_jpeg_encoder_configure(e, UInt32(width), UInt32(height), Int32(colorModel.channels), Int32(options.quality),
                                         h, v, options.progressive ? 1 : 0, options.optimizeCoding ? 1 : 0,
                                         metadata.exif == nil ? 1 : 0) == 1,
              rcp_jpeg_encoder_start(e) == 1
        else { throw lastError() }
        try writeMetadata(metadata)
    }

    deinit {
        rcp_jpeg_encoder_destroy(e)
        e.deallocate()
    }

    private func writeMetadata(_ m: ImageMetadata) throws(ImageError) {
        let maxPayload = 65533
        if let exif = m.exif {
            let payload = Array("Exif\0\0".utf8) + exif
            if payload.count <= maxPayload { try marker(JPEG_APP0 + 1, payload) } else { warnings.append("EXIF block over 64 KB cannot be stored in a JPEG; dropped") }
        }
        if let icc = m.icc {
            let ok = icc.withUnsafeBufferPointer { rcp_jpeg_encoder_write_icc(e, $0.baseAddress, UInt32($0.count)) }
            guard ok == 1 else { throw lastError() }
        }
        if let xmp = m.xmp {
            let payload = XMP.jpegNamespace + xmp
            if payload.count <= maxPayload {
                try marker(JPEG_APP0 + 1, payload)
                for ext in m.extendedXMP where ext.count + XMP.jpegExtendedNamespace.count <= maxPayload {
                    try marker(JPEG_APP0 + 1, XMP.jpegExtendedNamespace + ext)
                }
            } else {
                warnings.append("XMP packet over 64 KB cannot be stored in one JPEG segment; dropped")
            }
        }
        if let iptc = m.iptc {
            if iptc.count <= maxPayload { try marker(JPEG_APP0 + 13, iptc) } else { warnings.append("IPTC block over 64 KB dropped") }
        }
        for comment in m.comments where comment.count <= maxPayload {
            try marker(JPEG_COM, comment)
        }
    }

    private func marker(_ code: Int32, _ payload: [UInt8]) throws(ImageError) {
        let ok = payload.withUnsafeBufferPointer { rcp_jpeg_encoder_write_marker(e, code, $0.baseAddress, UInt32($0.count)) }
        guard ok == 1 else { throw lastError() }
    }

    public func writeRows(from buffer: PixelBuffer) throws {
        precondition(buffer.width == width && buffer.format == format, "strip does not match the encoder")
        let n = buffer.rowCount
        guard n > 0 else { return }
        precondition(rowsWritten + n <= height, "more rows than the image has")
        if rowPointers.count < n { rowPointers = Array(repeating: nil, count: n) }
        for i in 0..<n { rowPointers[i] = buffer.row(i).assumingMemoryBound(to: JSAMPLE.self) }
        let ok = rowPointers.withUnsafeMutableBufferPointer { rcp_jpeg_encoder_write(e, $0.baseAddress, UInt32(n)) }
        guard ok == 1 else { throw lastError() }
        rowsWritten += n
    }

    public func finish() throws {
        precondition(rowsWritten == height, "JPEG finished after \(rowsWritten) of \(height) rows")
        guard rcp_jpeg_encoder_finish(e) == 1 else { throw lastError() }
    }

    private func lastError() -> ImageError {
        let text = withUnsafeBytes(of: e.pointee.err.message) { String(cString: $0.baseAddress!.assumingMemoryBound(to: CChar.self)) }
        let detail = errno != 0 && text.lowercased().contains("write") ? "\(sentence(text)): \(errnoText())" : sentence(text)
        return ImageError(.writeFailed, path: path, detail)
    }
}
