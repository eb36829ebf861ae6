internal import CHeif
import RecipeCore
#if canImport(Glibc)
import Glibc
#endif

/// HEIF and AVIF output settings.
public struct HEIFOptions: Sendable, Equatable {
    /// libheif's lossy quality, 0…100 (what `heif-enc -q` and libvips' `Q` mean; 50 by default
    /// there). The encoders' own scales sit behind it: x265's CRF for HEVC, aom's quantiser for AV1.
    public var quality: Int = 50
    /// Lossless: the encoder's lossless mode on the RGB samples themselves (4:4:4, the identity
    /// matrix, full range), so the file decodes to exactly the codes written (8 bits, or the 10 of
    /// a deep HEIC). An encoder that cannot do it is refused, not used lossily.
    public var lossless: Bool = false

    public init(quality: Int = 50, lossless: Bool = false) {
        self.quality = quality
        self.lossless = lossless
    }
}

/// Writes a HEIF (HEVC, through x265) or an AVIF (AV1, through aom) with libheif: 8-bit RGB(A)
/// rows as 8-bit images, 16-bit rows as 10-bit HEICs (8-bit AVIFs: see `init`); the ICC profile as a
/// `prof` colour box, else an sRGB `nclx` box (a lossless file has an `nclx` box beside its profile
/// too: it says the samples are RGB, not YCbCr), EXIF and XMP as metadata items.
///
/// Lossy files are YCbCr 4:2:0 with the BT.601 matrix, full range (libheif's default); lossless
/// ones are 4:4:4 with the identity matrix (`matrix_coefficients` 0: G, B, R planes), so nothing
/// is lost to a colour conversion or to subsampling. Debian 12's libheif 1.15 needs both the
/// image's `nclx` (the conversion and the encoder's VUI follow it, not the options'
/// `output_nclx_profile`) and `macOS_compatibility_workaround_no_nclx_profile` off, or a HEIC gets
/// no colour box at all.
///
/// libheif encodes whole pictures, so the rows are gathered into the image libheif will encode
/// (3 or 6 bytes a pixel, no other copy) and `finish()` encodes and writes it to `handle`.
public final class HEIFEncoder: RowSink {
    public let width: Int
    public let height: Int
    public let format: PixelFormat
    public private(set) var warnings: [String] = []

    private let path: String
    private let handle: UnsafeMutablePointer<FILE>
    private let codec: ImageFileFormat
    private let metadata: ImageMetadata
    private let options: HEIFOptions
    private let bits: Int
    private let image: OpaquePointer
    private let plane: UnsafeMutablePointer<UInt8>
    private let stride: Int
    private var rowsWritten = 0

    /// `codec` is `.heif` (HEVC) or `.avif` (AV1).
    public init(handle: UnsafeMutablePointer<FILE>, path: String, width: Int, height: Int, format: PixelFormat,
                codec: ImageFileFormat, metadata: ImageMetadata, options: HEIFOptions = HEIFOptions()) throws(ImageError)
    {
        precondition(codec == .heif || codec == .avif, "HEIFEncoder writes HEIF or AVIF")
        precondition(format.sampleType != .float32 && (format.colorModel == .rgb || format.colorModel == .rgba),
                     "HEIF takes 8- or 16-bit RGB(A) rows")
        try HEIFLibrary.initialise(for: path)
        self.width = width
        self.height = height
        self.format = format
        self.path = path
        self.handle = handle
        self.codec = codec
        self.metadata = metadata
        self.options = options
        // 16-bit rows become a 10-bit HEIC. AVIF stays 8-bit: Debian 12's libheif 1.15 with aom
        // 3.6 aborts the process (an assertion in aom's bitstream writer) on any 10-bit AVIF, as
        // `heif-enc -A -b 10` does; so 16-bit rows are rounded to 8 bits for AVIF.
        bits = format.sampleType == .uint16 && codec == .heif ? 10 : 8
        let alpha = format.colorModel.hasAlpha
        let chroma: heif_chroma = bits > 8
            ? (alpha ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RRGGBB_LE)
            : (alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB)
        var made: OpaquePointer?
        var err = heif_image_create(Int32(width), Int32(height), heif_colorspace_RGB, chroma, &made)
        guard err.code == heif_error_Ok, let made else { throw Self.failure(err, path: path) }
        err = heif_image_add_plane(made, heif_channel_interleaved, Int32(width), Int32(height), Int32(bits))
        var s: Int32 = 0
        guard err.code == heif_error_Ok, let p = heif_image_get_plane(made, heif_channel_interleaved, &s) else {
            heif_image_release(made)
            throw Self.failure(err, path: path)
        }
        image = made
        plane = p
        stride = Int(s)
    }

    deinit { heif_image_release(image) }

    public func writeRows(from buffer: PixelBuffer) throws {
        precondition(buffer.width == width && buffer.format == format, "strip does not match the encoder")
        let n = buffer.rowCount
        precondition(rowsWritten + n <= height, "more rows than the image has")
        let samples = width * format.channels
        for i in 0..<n {
            let to = plane + (rowsWritten + i) * stride
            if bits > 8 {
                // 16-bit samples to 10-bit codes, rounded (65535 → 1023).
                let from = buffer.samples(i, as: UInt16.self)
                let out = UnsafeMutableRawPointer(to)
                for k in 0..<samples {
                    let v = (UInt32(from[k]) * 1023 + 32767) / 65535
                    out.storeBytes(of: UInt16(v).littleEndian, toByteOffset: 2 * k, as: UInt16.self)
                }
            } else if format.sampleType == .uint16 {
                // 16-bit rows into an 8-bit image (AVIF): rounded.
                let from = buffer.samples(i, as: UInt16.self)
                for k in 0..<samples { to[k] = UInt8((UInt32(from[k]) * 255 + 32767) / 65535) }
            } else {
                to.update(from: buffer.row(i).assumingMemoryBound(to: UInt8.self), count: samples)
            }
        }
        rowsWritten += n
    }

    public func finish() throws {
        precondition(rowsWritten == height, "HEIF finished after \(rowsWritten) of \(height) rows")
        guard let context = heif_context_alloc() else { throw ImageError(.writeFailed, path: path, "libheif could not start") }
        defer { heif_context_free(context) }
        let encoder = try makeEncoder(context)
        defer { heif_encoder_release(encoder) }
        // One encoding thread per job: `apply` runs a job per core already.
        _ = heif_encoder_set_parameter_integer(encoder, "threads", 1)

        guard let nclx = heif_nclx_color_profile_alloc() else { throw ImageError(.writeFailed, path: path, "libheif could not start") }
        defer { heif_nclx_color_profile_free(nclx) }
        // Without a profile the nclx box says sRGB (BT.709 primaries, the sRGB curve); beside one
        // it leaves the colours to the profile and says only how the samples are coded.
        nclx.pointee.color_primaries = metadata.icc == nil ? heif_color_primaries_ITU_R_BT_709_5 : heif_color_primaries_unspecified
        nclx.pointee.transfer_characteristics = metadata.icc == nil ? heif_transfer_characteristic_IEC_61966_2_1
            : heif_transfer_characteristic_unspecified
        nclx.pointee.matrix_coefficients = options.lossless ? heif_matrix_coefficients_RGB_GBR : heif_matrix_coefficients_ITU_R_BT_601_6
        nclx.pointee.full_range_flag = 1
        var err = heif_image_set_nclx_color_profile(image, nclx)
        guard err.code == heif_error_Ok else { throw Self.failure(err, path: path) }
        if let icc = metadata.icc {
            err = icc.withUnsafeBytes { heif_image_set_raw_color_profile(image, "prof", $0.baseAddress, $0.count) }
            guard err.code == heif_error_Ok else { throw Self.failure(err, path: path) }
        }
        guard let encoding = heif_encoding_options_alloc() else { throw ImageError(.writeFailed, path: path, "libheif could not start") }
        defer { heif_encoding_options_free(encoding) }
        encoding.pointee.save_alpha_channel = 1
        // libheif 1.15 leaves a HEIC's nclx box out by default (iOS 12 could not open files with
        // one); every output says its colours, so it goes in.
        encoding.pointee.macOS_compatibility_workaround_no_nclx_profile = 0
        // A lossless file's samples are G, B, R planes: a reader must learn that from the nclx
        // box even when a profile gives the colours.
        encoding.pointee.save_two_colr_boxes_when_ICC_and_nclx_available = options.lossless ? 1 : 0
        var out: OpaquePointer?
        err = heif_context_encode_image(context, image, encoder, encoding, &out)
        guard err.code == heif_error_Ok, let out else { throw Self.failure(err, path: path) }
        defer { heif_image_handle_release(out) }
        if let exif = metadata.exif {
            err = exif.withUnsafeBytes { heif_context_add_exif_metadata(context, out, $0.baseAddress, Int32($0.count)) }
            if err.code != heif_error_Ok { warnings.append("EXIF not written: \(HEIFLibrary.text(err))") }
        }
        if let xmp = metadata.xmp {
            err = xmp.withUnsafeBytes { heif_context_add_XMP_metadata(context, out, $0.baseAddress, Int32($0.count)) }
            if err.code != heif_error_Ok { warnings.append("XMP not written: \(HEIFLibrary.text(err))") }
        }
        var writer = heif_writer(writer_api_version: 1, write: { _, data, size, user in
            let file = user!.assumingMemoryBound(to: FILE.self)
            guard size == 0 || fwrite(data, 1, size, file) == size else {
                return heif_error(code: heif_error_Encoding_error, subcode: heif_suberror_Cannot_write_output_data,
                                  message: HEIFLibrary.writeFailedMessage)
            }
            return heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: HEIFLibrary.okMessage)
        })
        err = heif_context_write(context, &writer, UnsafeMutableRawPointer(handle))
        guard err.code == heif_error_Ok else {
            throw ImageError(.writeFailed, path: path, "cannot write the file: \(errnoText())")
        }
    }

    /// The encoder for the codec: libheif's first, or for a lossless file the first that has a
    /// lossless mode, set to it and to 4:4:4 chroma; an encoder that cannot do both is refused
    /// with its limit named (`.unsupported`).
    private func makeEncoder(_ context: OpaquePointer) throws(ImageError) -> OpaquePointer {
        let compression = codec == .avif ? heif_compression_AV1 : heif_compression_HEVC
        let kind = codec == .avif ? "AV1" : "HEVC"
        var found = [OpaquePointer?](repeating: nil, count: 8)
        let count = Int(found.withUnsafeMutableBufferPointer { heif_get_encoder_descriptors(compression, nil, $0.baseAddress, Int32($0.count)) })
        let descriptors = found.prefix(max(0, min(count, found.count))).compactMap { $0 }
        guard let first = descriptors.first else {
            throw ImageError(.unsupported, path: path, "this libheif has no \(kind) encoder")
        }
        let name = { (d: OpaquePointer) in heif_encoder_descriptor_get_name(d).map { String(cString: $0) } ?? "unnamed" }
        var chosen = first
        if options.lossless {
            guard let able = descriptors.first(where: { heif_encoder_descriptor_supports_lossless_compression($0) != 0 }) else {
                throw ImageError(.unsupported, path: path, "cannot write a lossless \(codec.rawValue.uppercased()): this libheif's \(kind) "
                    + "encoders (\(descriptors.map(name).joined(separator: ", "))) have no lossless mode")
            }
            chosen = able
        }
        var made: OpaquePointer?
        var err = heif_context_get_encoder(context, chosen, &made)
        guard err.code == heif_error_Ok, let encoder = made else {
            throw ImageError(.unsupported, path: path, "libheif could not start its \(kind) encoder (\(HEIFLibrary.text(err)))")
        }
        if options.lossless {
            err = heif_encoder_set_lossless(encoder, 1)
            if err.code == heif_error_Ok { err = heif_encoder_set_parameter_string(encoder, "chroma", "444") }
            guard err.code == heif_error_Ok else {
                heif_encoder_release(encoder)
                throw ImageError(.unsupported, path: path, "cannot write a lossless \(codec.rawValue.uppercased()): the \(name(chosen)) "
                    + "encoder takes no 4:4:4 chroma, which it needs (\(HEIFLibrary.text(err)))")
            }
        } else {
            err = heif_encoder_set_lossy_quality(encoder, Int32(max(0, min(100, options.quality))))
            guard err.code == heif_error_Ok else {
                heif_encoder_release(encoder)
                throw Self.failure(err, path: path)
            }
        }
        return encoder
    }

    private static func failure(_ e: heif_error, path: String) -> ImageError {
        ImageError(.writeFailed, path: path, "libheif: \(HEIFLibrary.text(e))")
    }
}

extension HEIFLibrary {
    /// Static C strings for the writer callback's results (libheif keeps the pointer).
    nonisolated(unsafe) static let okMessage: UnsafePointer<CChar> = UnsafePointer(strdup("Success")!)
    nonisolated(unsafe) static let writeFailedMessage: UnsafePointer<CChar> = UnsafePointer(strdup("write failed")!)
}
