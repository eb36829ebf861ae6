internal import CHeif
internal import CHeifLoader
import RecipeCore
#if canImport(Glibc)
import Glibc
#endif

/// Reads the primary image of a HEIF (HEIC, and AVIF) through libheif.
///
/// libheif applies the transforms the format makes normative (`clap` crop, `irot` rotation,
/// `imir` mirror) while decoding, so the rows come out upright and `info.width`/`height` are the
/// upright size. The EXIF Orientation tag that Apple writes beside `irot` is therefore *not*
/// applied again: `metadata.orientation` is always `.up` (libvips and Apple's own readers do the
/// same).
///
/// Grid (tiled) images are assembled by libheif; 10- and 12-bit images come out as 16-bit rows
/// (each value scaled to the full 0…65535 range), 8-bit as 8-bit; alpha gives RGBA. Colour comes
/// from the `colr` boxes: an ICC profile (`prof`/`rICC`) into `metadata.icc`, an `nclx` box into
/// `metadata.cicp`, for colour management to convert.
///
/// Memory: libheif decodes a whole image at once (libheif 1.15 has no API to decode a grid's
/// tiles one by one), so the decoder holds the decoded image, released as the last row is read;
/// `start` decodes.
///
/// ```swift
/// let d = try HEIFDecoder(path: "IMG_0001.heic")
/// try d.start(scaleDenominator: 1)
/// ```
public final class HEIFDecoder: ImageDecoder {
    public let path: String
    public private(set) var info: ImageInfo
    public private(set) var warnings: [ImageWarning] = []
    public let supportedScaleDenominators = [1]
    public let width: Int
    public let height: Int
    public let format: PixelFormat

    private let options: DecodeOptions
    private let context: OpaquePointer
    private let handle: OpaquePointer
    private let bits: Int
    private var image: OpaquePointer?
    private var plane: UnsafePointer<UInt8>?
    private var stride = 0
    private var nextRow = 0

    /// `format`: `.heif` or `.avif` when the caller has sniffed the file already (else it is read here).
    public init(path: String, options: DecodeOptions = DecodeOptions(), format sniffed: ImageFileFormat? = nil) throws(ImageError) {
        try HEIFLibrary.initialise(for: path)
        self.path = path
        self.options = options
        // libheif opens the file itself; check first that we may read it, for our own message.
        fclose(try InputFile.open(path))
        guard let ctx = heif_context_alloc() else { throw ImageError(.unreadable, path: path, "libheif could not start") }
        // Per-side limit inside libheif (it refuses larger grids and tiles before allocating);
        // the area limit is checked below against the handle's size.
        heif_context_set_maximum_image_size_limit(ctx, Int32(min(options.maxPixels, 1 << 16)))
        // An error's message lives in the context: make ours before freeing it.
        var err = heif_context_read_from_file(ctx, path, nil)
        guard err.code == heif_error_Ok else {
            let error = HEIFLibrary.error(err, path: path, reading: true)
            heif_context_free(ctx)
            throw error
        }
        var primary: OpaquePointer?
        err = heif_context_get_primary_image_handle(ctx, &primary)
        guard err.code == heif_error_Ok, let primary else {
            let error = HEIFLibrary.error(err, path: path, reading: true)
            heif_context_free(ctx)
            throw error
        }
        context = ctx
        handle = primary
        let w = Int(heif_image_handle_get_width(primary)), h = Int(heif_image_handle_get_height(primary))
        guard w > 0, h > 0 else {
            heif_image_handle_release(primary)
            heif_context_free(ctx)
            throw ImageError(.corrupt, path: path, "damaged HEIF: the primary image has no size")
        }
        guard w.multipliedReportingOverflow(by: h).partialValue <= options.maxPixels else {
            heif_image_handle_release(primary)
            heif_context_free(ctx)
            throw ImageError(.tooLarge, path: path, pixelLimitMessage(w, h, options.maxPixels))
        }
        width = w
        height = h
        let luma = Int(heif_image_handle_get_luma_bits_per_pixel(primary))
        bits = luma > 8 ? luma : 8
        let alpha = heif_image_handle_has_alpha_channel(primary) != 0
        format = PixelFormat(alpha ? .rgba : .rgb, bits > 8 ? .uint16 : .uint8)

        let kind = sniffed ?? Self.codec(path: path)
        var details: [(label: String, value: String)] = [("codec", kind == .avif ? "AV1" : "HEVC")]
        let ispeW = Int(heif_image_handle_get_ispe_width(primary)), ispeH = Int(heif_image_handle_get_ispe_height(primary))
        if ispeW != w || ispeH != h, ispeW > 0, ispeH > 0 {
            // The stored (coded) size differs from the upright one: a rotation or a crop.
            details.append(("stored size", "\(ispeW)×\(ispeH) (rotated or cropped by the file's transforms)"))
        }
        if alpha { details.append(("alpha", heif_image_handle_is_premultiplied_alpha(primary) != 0 ? "premultiplied" : "yes")) }
        let thumbnails = Int(heif_image_handle_get_number_of_thumbnails(primary))
        if thumbnails > 0 { details.append(("thumbnails", "\(thumbnails)")) }
        let depth = Int(heif_image_handle_get_number_of_depth_images(primary))
        if depth > 0 { details.append(("depth images", "\(depth)")) }
        let images = Int(heif_context_get_number_of_top_level_images(ctx))
        if images > 1 { details.append(("images", "\(images) (the primary one is shown)")) }

        var meta = ImageMetadata()
        var found: [ImageWarning] = []
        Self.readColour(primary, into: &meta, details: &details)
        Self.readMetadata(primary, into: &meta, warn: { found.append(ImageWarning(path: path, $0)) })
        info = ImageInfo(format: kind, width: w, height: h, colorModel: format.colorModel, bitDepth: bits,
                         fileColorSpace: luma < 0 ? "unknown" : meta.cicp?.matrix == 0 ? "RGB" : "YCbCr", progressive: false,
                         details: details, metadata: meta)
        warnings = found
    }

    deinit {
        if let image { heif_image_release(image) }
        heif_image_handle_release(handle)
        heif_context_free(context)
    }

    /// HEIF or AVIF, by the file's brands (the decoder is the same).
    private static func codec(path: String) -> ImageFileFormat {
        let head = (try? InputFile.prefix(path, count: ImageFileFormat.sniffLength)) ?? []
        return ImageFileFormat.sniff(head) == .avif ? .avif : .heif
    }

    /// The `colr` boxes: an ICC profile and/or an nclx description.
    private static func readColour(_ handle: OpaquePointer, into meta: inout ImageMetadata,
                                   details: inout [(label: String, value: String)]) {
        let size = heif_image_handle_get_raw_color_profile_size(handle)
        if size > 0 {
            var icc = [UInt8](repeating: 0, count: size)
            let err = icc.withUnsafeMutableBytes { heif_image_handle_get_raw_color_profile(handle, $0.baseAddress) }
            if err.code == heif_error_Ok { meta.icc = icc }
        }
        var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
        let err = heif_image_handle_get_nclx_color_profile(handle, &nclx)
        if err.code == heif_error_Ok, let nclx {
            let n = nclx.pointee
            meta.cicp = CICP(primaries: Int(n.color_primaries.rawValue), transfer: Int(n.transfer_characteristics.rawValue),
                             matrix: Int(n.matrix_coefficients.rawValue), fullRange: n.full_range_flag != 0)
            heif_nclx_color_profile_free(nclx)
        }
        if let cicp = meta.cicp { details.append(("nclx", "primaries \(cicp.primaries), transfer \(cicp.transfer), matrix \(cicp.matrix), \(cicp.fullRange ? "full" : "limited") range")) }
    }

    /// EXIF and XMP blocks. A HEIF `Exif` item starts with a 4-byte offset to the TIFF header
    /// (ISO/IEC 23008-12 A.2.1), usually past an `Exif\0\0` prefix.
    private static func readMetadata(_ handle: OpaquePointer, into meta: inout ImageMetadata, warn: (String) -> Void) {
        let count = Int(heif_image_handle_get_number_of_metadata_blocks(handle, nil))
        guard count > 0 else { return }
        var ids = [heif_item_id](repeating: 0, count: count)
        let n = Int(heif_image_handle_get_list_of_metadata_block_IDs(handle, nil, &ids, Int32(count)))
        for id in ids.prefix(n) {
            let type = heif_image_handle_get_metadata_type(handle, id).map { String(cString: $0) } ?? ""
            let contentType = heif_image_handle_get_metadata_content_type(handle, id).map { String(cString: $0) } ?? ""
            let size = heif_image_handle_get_metadata_size(handle, id)
            guard size > 0, size < 64 << 20 else { continue }
            var bytes = [UInt8](repeating: 0, count: size)
            let err = bytes.withUnsafeMutableBytes { heif_image_handle_get_metadata(handle, id, $0.baseAddress) }
            guard err.code == heif_error_Ok else { warn("a metadata block could not be read; dropped"); continue }
            if type == "Exif" {
                guard meta.exif == nil else { warn("second EXIF block ignored"); continue }
                guard bytes.count >= 4 else { warn("EXIF block too short; EXIF dropped"); continue }
                let offset = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
                guard offset <= bytes.count - 4 else { warn("EXIF block's TIFF header offset is past its end; EXIF dropped"); continue }
                var tiff = Array(bytes[(4 + offset)...])
                // Some writers count the offset from a different place: find the TIFF header.
                if !(tiff.starts(with: [0x49, 0x49, 0x2A, 0]) || tiff.starts(with: [0x4D, 0x4D, 0, 0x2A])),
                   let i = Self.tiffHeader(in: bytes) {
                    tiff = Array(bytes[i...])
                }
                if let problem = EXIF.problem(in: tiff) { warn("\(problem); EXIF dropped") } else { meta.exif = tiff }
            } else if type == "mime" && contentType == "application/rdf+xml" {
                if let problem = XMP.problem(in: bytes) { warn("\(problem); XMP dropped") } else if meta.xmp == nil { meta.xmp = bytes }
            }
        }
        // libheif has applied irot/imir: the EXIF tag must not turn the picture again.
        meta.orientation = .up
    }

    private static func tiffHeader(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 8 else { return nil }
        for i in 0..<min(bytes.count - 4, 64) {
            let b = bytes[i..<(i + 4)]
            if b.elementsEqual([0x49, 0x49, 0x2A, 0]) || b.elementsEqual([0x4D, 0x4D, 0, 0x2A]) { return i }
        }
        return nil
    }

    /// libheif's whole-image decode: the HEVC or AV1 decoder's pictures, the YCbCr planes and the
    /// RGB image made from them. Measured over the decoded RGB image (peak RSS of an identity
    /// render less the process's 14 MiB): 2.0× (a 16 MP grid), 2.2× (an 8.5 MP grid), 2.7× (a
    /// 12 MP single image), 3.6× (a 10-bit 2048², 16-bit rows); taken as 2.2× (3.6× beyond 8
    /// bits) and 8 MiB of the decoder's own. (The decode's peak passes before the stages fill
    /// their buffers, and the estimate adds the two: it is 0.9–1.4 times the peak of the identity
    /// and the warm-portrait renders of those photos.)
    public func decodingBytes(scaleDenominator: Int) -> Int {
        (bits > 8 ? 18 : 11) * width * height * format.bytesPerPixel / 5 + (8 << 20)
    }

    public func start(scaleDenominator: Int) throws(ImageError) {
        precondition(scaleDenominator == 1, "HEIF has no reduced decode")
        try decodeIfNeeded()
    }

    private func decodeIfNeeded() throws(ImageError) {
        guard image == nil, nextRow == 0 else { return }
        guard let decoding = heif_decoding_options_alloc() else { throw ImageError(.unreadable, path: path, "libheif could not start") }
        defer { heif_decoding_options_free(decoding) }
        decoding.pointee.ignore_transformations = 0
        decoding.pointee.convert_hdr_to_8bit = 0
        let alpha = format.colorModel.hasAlpha
        let chroma: heif_chroma = bits > 8
            ? (alpha ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RRGGBB_LE)
            : (alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB)
        var out: OpaquePointer?
        let err = heif_decode_image(handle, &out, heif_colorspace_RGB, chroma, decoding)
        guard err.code == heif_error_Ok, let out else {
            if let out { heif_image_release(out) }
            throw HEIFLibrary.error(err, path: path, reading: false)
        }
        image = out
        let w = Int(heif_image_get_width(out, heif_channel_interleaved)), h = Int(heif_image_get_height(out, heif_channel_interleaved))
        guard w == width, h == height else {
            throw ImageError(.corrupt, path: path, "damaged HEIF: the image decodes to \(w)×\(h), its header says \(width)×\(height)")
        }
        var s: Int32 = 0
        guard let p = heif_image_get_plane_readonly(out, heif_channel_interleaved, &s) else {
            throw ImageError(.corrupt, path: path, "damaged HEIF: libheif returned no pixels")
        }
        plane = p
        stride = Int(s)
        collectDecodingWarnings(out)
    }

    private func collectDecodingWarnings(_ image: OpaquePointer) {
        var list = [heif_error](repeating: heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: nil), count: 8)
        let n = Int(heif_image_get_decoding_warnings(image, 0, &list, Int32(list.count)))
        for e in list.prefix(n) {
            warnings.append(ImageWarning(path: path, HEIFLibrary.text(e)))
        }
    }

    public func readRows(into buffer: PixelBuffer) throws -> Int {
        precondition(buffer.width == width && buffer.format == format, "strip does not match the decoder")
        try decodeIfNeeded()
        guard nextRow < height, let plane else {
            release()
            buffer.rowCount = 0
            return 0
        }
        let n = min(buffer.rowCapacity, height - nextRow)
        let channels = format.channels
        for i in 0..<n {
            let source = plane + (nextRow + i) * stride
            let row = buffer.row(i)
            if bits > 8 {
                // libheif gives the coded values (0…2^bits − 1) in 16-bit words: scale to 0…65535,
                // rounded (1023 → 65535, 512 → 32800).
                let top = UInt32((1 << bits) - 1)
                let from = UnsafeRawPointer(source)
                let to = row.assumingMemoryBound(to: UInt16.self)
                for k in 0..<(width * channels) {
                    let v = UInt32(UInt16(littleEndian: from.loadUnaligned(fromByteOffset: 2 * k, as: UInt16.self)))
                    to[k] = UInt16(min((v * 65535 + top / 2) / top, 65535))
                }
            } else {
                row.copyMemory(from: source, byteCount: width * channels)
            }
        }
        buffer.rowCount = n
        buffer.originY = nextRow
        nextRow += n
        if nextRow >= height { release() }
        return n
    }

    /// Frees the decoded image once its last row is out.
    private func release() {
        if let image { heif_image_release(image) }
        image = nil
        plane = nil
    }
}

/// libheif's one-time set-up (loading it: see CHeifLoader) and its errors in our words.
enum HEIFLibrary {
    /// nil once libheif is loaded and initialised, else why not.
    private static let problem: String? = {
        var message: UnsafePointer<CChar>?
        guard rcp_heif_load(&message) == 1 else { return message.map { String(cString: $0) } ?? "libheif cannot be loaded" }
        _ = heif_init(nil)
        return nil
    }()

    /// Loads libheif on first use; an error naming `path` when it is not installed.
    static func initialise(for path: String) throws(ImageError) {
        if let problem {
            throw ImageError(.unsupported, path: path, "HEIF and AVIF need libheif (Debian: libheif1): \(problem)")
        }
    }

    /// A library message as one printable line ("unknown error" when there is none).
    static func text(_ e: heif_error) -> String {
        let raw = e.message.map { String(cString: $0) } ?? ""
        let printable = String(String.UnicodeScalarView(raw.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }))
        let line = printable.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()
        return line.isEmpty ? "unknown error" : sentence(String(line))
    }

    static func error(_ e: heif_error, path: String, reading: Bool) -> ImageError {
        let text = Self.text(e)
        switch e.code {
        case heif_error_Unsupported_filetype, heif_error_Unsupported_feature:
            return ImageError(.unsupported, path: path, "unsupported HEIF: \(text)")
        case heif_error_Memory_allocation_error:
            return ImageError(.tooLarge, path: path, "HEIF too large: \(text)")
        case heif_error_Decoder_plugin_error where !reading:
            return ImageError(.corrupt, path: path, "damaged HEIF: the image data does not decode (\(text))")
        default:
            return ImageError(.corrupt, path: path, "damaged HEIF: \(text)")
        }
    }
}

extension HEIFDecoder {
    /// libheif's version as loaded (`heif_get_version`), nil when libheif.so.1 cannot be loaded.
    static var libheifVersion: String? { rcp_heif_version().map { String(cString: $0) } }
}
