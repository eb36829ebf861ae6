internal import CPNG
internal import CPNGShim
import RecipeCore
import RecipeKernels
#if canImport(Glibc)
import Glibc
#endif

/// Streams a PNG through libpng, row by row for non-interlaced files.
///
/// Every valid PNG variant decodes to 8- or 16-bit gray, gray+alpha, RGB or RGBA: palettes and
/// 1/2/4-bit gray are expanded, tRNS becomes alpha, 16-bit stays 16-bit. Interlaced (Adam7) files
/// are the one case that needs the whole image in memory. Samples are returned as stored: the
/// colour chunks (iCCP, sRGB, gAMA, cHRM) are read into the metadata for colour management,
/// so 8→8 and 16→16-bit renders are exact and gamma-aware viewers show the output as the input.
public final class PNGDecoder: ImageDecoder {
    public let path: String
    public private(set) var info: ImageInfo
    public private(set) var warnings: [ImageWarning] = []
    public let supportedScaleDenominators = [1]
    public private(set) var width: Int
    public private(set) var height: Int
    public private(set) var format: PixelFormat

    private let options: DecodeOptions
    private let file: UnsafeMutablePointer<FILE>
    private let r: UnsafeMutablePointer<rcp_png>
    private var passes: Int32 = 1
    private var nextRow = 0
    private var started = false
    private var finished = false
    private var wholeImage: PixelBuffer?
    private var damagedFrom: Int?
    private var rowPointers: [UnsafeMutablePointer<UInt8>?] = []

    public init(path: String, options: DecodeOptions = DecodeOptions()) throws(ImageError) {
        self.path = path
        self.options = options
        self.file = try InputFile.open(path)
        self.r = .allocate(capacity: 1)
        memset(r, 0, MemoryLayout<rcp_png>.size)
        self.info = ImageInfo(format: .png, width: 0, height: 0, colorModel: .rgb, bitDepth: 8, fileColorSpace: "",
                              progressive: false, metadata: ImageMetadata())
        self.width = 0
        self.height = 0
        self.format = PixelFormat(.rgb, .uint8)
        // Per-side limit for libpng; the area limit is checked below before any row is allocated.
        let side = UInt32(min(options.maxPixels, 1_000_000))
        guard rcp_png_reader_open(r, file, side, side) == 1 else { throw failure(.corrupt) }

        var w: png_uint_32 = 0, h: png_uint_32 = 0
        var depth: Int32 = 0, colorType: Int32 = 0, interlace: Int32 = 0, comp: Int32 = 0, filter: Int32 = 0
        png_get_IHDR(r.pointee.png, r.pointee.info, &w, &h, &depth, &colorType, &interlace, &comp, &filter)
        guard Int(w).multipliedReportingOverflow(by: Int(h)).partialValue <= options.maxPixels else {
            throw ImageError(.tooLarge, path: path, pixelLimitMessage(Int(w), Int(h), options.maxPixels))
        }
        let hasTRNS = png_get_valid(r.pointee.png, r.pointee.info, PNG_INFO_tRNS) != 0
        let model: ColorModel
        let space: String
        switch colorType {
        case PNG_COLOR_TYPE_GRAY: model = hasTRNS ? .grayAlpha : .gray; space = "grayscale"
        case PNG_COLOR_TYPE_GRAY_ALPHA: model = .grayAlpha; space = "grayscale+alpha"
        case PNG_COLOR_TYPE_PALETTE: model = hasTRNS ? .rgba : .rgb; space = "palette"
        case PNG_COLOR_TYPE_RGB: model = hasTRNS ? .rgba : .rgb; space = "RGB"
        default: model = .rgba; space = "RGBA"
        }
        let sampleType: SampleType = depth == 16 ? .uint16 : .uint8
        var meta = ImageMetadata()
        var details: [(label: String, value: String)] = []
        readMetadata(into: &meta, details: &details, bitDepth: Int(depth))
        if hasTRNS { details.append(("transparency", "tRNS")) }

        guard rcp_png_reader_configure(r, &passes) == 1 else { throw failure(.corrupt) }
        info = ImageInfo(format: .png, width: Int(w), height: Int(h), colorModel: model, bitDepth: Int(depth),
                         fileColorSpace: space, progressive: interlace != PNG_INTERLACE_NONE, details: details, metadata: meta)
        width = Int(w)
        height = Int(h)
        format = PixelFormat(model, sampleType)
        collectWarnings()
    }

    deinit {
        rcp_png_destroy(r)
        r.deallocate()
        fclose(file)
    }

    private func readMetadata(into meta: inout ImageMetadata, details: inout [(label: String, value: String)], bitDepth: Int) {
        let png = r.pointee.png, pinfo = r.pointee.info
        var name: png_charp? = nil, comp: Int32 = 0, profile: png_bytep? = nil, plen: png_uint_32 = 0
        if png_get_iCCP(png, pinfo, &name, &comp, &profile, &plen) != 0, let profile {
            let bytes = Array(UnsafeBufferPointer(start: profile, count: Int(plen)))
            if let problem = ICCProfile.validate(bytes) { warn("\(problem); ICC dropped") } else { meta.icc = bytes }
        }
        var exifPtr: png_bytep? = nil, exifLen: png_uint_32 = 0
        if png_get_eXIf_1(png, pinfo, &exifLen, &exifPtr) != 0, let exifPtr {
            adoptEXIF(Array(UnsafeBufferPointer(start: exifPtr, count: Int(exifLen))), into: &meta)
        }
        var texts: png_textp? = nil, count: Int32 = 0
        if png_get_text(png, pinfo, &texts, &count) > 0, let texts {
            for i in 0..<Int(count) { adoptText(texts[i], into: &meta) }
        }
        // Post-IDAT eXIf/tEXt/iTXt chunks are only reached by libpng after the pixels, too late
        // for a streaming encoder; a quick walk over the chunk list finds them now.
        for chunk in PNGChunkScanner.ancillaryChunksAfterImageData(path: path) {
            switch chunk.type {
            case "eXIf" where meta.exif == nil: adoptEXIF(chunk.data, into: &meta)
            case "tEXt", "iTXt": if let t = PNGChunkScanner.decodeText(chunk) { adoptText(t, into: &meta) }
            case "cICP" where chunk.data.count == 4:
                // Primaries, transfer, matrix (0: RGB, the only one PNG allows), full-range flag.
                meta.cicp = CICP(primaries: Int(chunk.data[0]), transfer: Int(chunk.data[1]), matrix: Int(chunk.data[2]),
                                 fullRange: chunk.data[3] != 0)
                details.append(("cICP", "primaries \(chunk.data[0]), transfer \(chunk.data[1])"))
            case "cICP": warn("cICP chunk of \(chunk.data.count) bytes (4 expected) ignored")
            default: break
            }
        }
        var intent: Int32 = 0
        let hasSRGB = png_get_sRGB(png, pinfo, &intent) != 0
        var gamma: Double = 0
        if hasSRGB {
            meta.pngSRGBIntent = Int(intent)
            details.append(("sRGB chunk", "rendering intent \(intent)"))
        } else if png_get_gAMA(png, pinfo, &gamma) != 0 && gamma > 0 {
            meta.pngGamma = gamma
            details.append(("gamma", gammaText(gamma)))
        }
        var (wx, wy, rx, ry, gx, gy, bx, by) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        if !hasSRGB, png_get_cHRM(png, pinfo, &wx, &wy, &rx, &ry, &gx, &gy, &bx, &by) != 0 {
            meta.pngChromaticities = [wx, wy, rx, ry, gx, gy, bx, by]
        }
    }

    private func adoptEXIF(_ tiff: [UInt8], into meta: inout ImageMetadata) {
        if let problem = EXIF.problem(in: tiff) {
            warn("\(problem); EXIF dropped")
        } else {
            meta.exif = tiff
            meta.orientation = Orientation(exifValue: EXIF(tiff)?.orientation ?? 1)
        }
    }

    private func adoptText(_ t: png_text, into meta: inout ImageMetadata) {
        adoptText(PNGText(keyword: t.key.map { String(cString: $0) } ?? "",
                          text: t.text.map { Array(UnsafeBufferPointer(start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self),
                                                                       count: t.compression >= 1 ? t.itxt_length : t.text_length)) } ?? [],
                          compressed: t.compression == PNG_TEXT_COMPRESSION_zTXt || t.compression == PNG_ITXT_COMPRESSION_zTXt,
                          international: t.compression >= 1,
                          languageTag: t.lang.map { String(cString: $0) } ?? "",
                          translatedKeyword: t.lang_key.map { String(cString: $0) } ?? ""),
                  into: &meta)
    }

    private func adoptText(_ t: PNGText, into meta: inout ImageMetadata) {
        if t.keyword == XMP.pngKeyword {
            if let problem = XMP.problem(in: t.text) { warn("\(problem); XMP dropped") } else if meta.xmp == nil { meta.xmp = t.text }
        } else if !meta.pngText.contains(t) {
            meta.pngText.append(t)
        }
    }

    /// An interlaced file's whole image (its rows come in seven passes); otherwise libpng's row and
    /// the previous one it unfilters against, and zlib's window and state.
    public func decodingBytes(scaleDenominator: Int) -> Int {
        (info.progressive ? PixelBuffer.bytes(width: width, rowCapacity: height, format: format) : 2 * width * format.bytesPerPixel)
            + (64 << 10)
    }

    public func start(scaleDenominator: Int) throws(ImageError) {
        precondition(scaleDenominator == 1, "PNG has no reduced decode")
        started = true
    }

    public func readRows(into buffer: PixelBuffer) throws -> Int {
        started = true
        precondition(buffer.width == width && buffer.format == format, "strip does not match the decoder")
        guard nextRow < height else {
            try finishIfNeeded()
            buffer.rowCount = 0
            return 0
        }
        let n = min(buffer.rowCapacity, height - nextRow)
        if passes > 1 {
            // Adam7: libpng needs every row of the image for each of the seven passes.
            if wholeImage == nil { try readInterlaced() }
            let whole = wholeImage!
            for i in 0..<n { buffer.row(i).copyMemory(from: whole.row(nextRow + i), byteCount: buffer.rowBytes) }
        } else if let from = damagedFrom, nextRow >= from {
            for i in 0..<n { buffer.row(i).initializeMemory(as: UInt8.self, repeating: 0, count: buffer.rowBytes) }
        } else {
            if rowPointers.count < n { rowPointers = Array(repeating: nil, count: n) }
            for i in 0..<n { rowPointers[i] = buffer.row(i).assumingMemoryBound(to: UInt8.self) }
            let ok = rowPointers.withUnsafeMutableBufferPointer { rcp_png_reader_read_rows(r, $0.baseAddress, UInt32(n)) }
            if ok != 1 {
                try damage()
                damagedFrom = nextRow
                for i in 0..<n { buffer.row(i).initializeMemory(as: UInt8.self, repeating: 0, count: buffer.rowBytes) }
            }
        }
        buffer.rowCount = n
        buffer.originY = nextRow
        nextRow += n
        collectWarnings()
        if nextRow >= height { try finishIfNeeded() }
        return n
    }

    private func readInterlaced() throws(ImageError) {
        let whole = PixelBuffer(width: width, rowCapacity: height, format: format)
        wholeImage = whole
        var pointers = (0..<height).map { Optional(whole.row($0).assumingMemoryBound(to: UInt8.self)) }
        for _ in 0..<passes {
            let ok = pointers.withUnsafeMutableBufferPointer { rcp_png_reader_read_rows(r, $0.baseAddress, UInt32(height)) }
            if ok != 1 {
                // Rows not reached keep zeros (or the coarser passes' values): partial data.
                try damage()
                damagedFrom = 0
                return
            }
        }
    }

    private func finishIfNeeded() throws(ImageError) {
        guard !finished else { return }
        finished = true
        if damagedFrom == nil && rcp_png_reader_read_end(r) != 1 {
            warn("damaged data after the image: \(message())")
        }
        collectWarnings()
    }

    private func damage() throws(ImageError) {
        let what = message()
        if options.allowDamaged {
            warn("\(what); pixel data is incomplete, rendering what was decoded (--allow-damaged)")
        } else {
            throw ImageError(.damaged, path: path, "\(what); pixel data is missing or damaged (--allow-damaged renders what was decoded)")
        }
    }

    private var seenWarnings = 0
    private func collectWarnings() {
        let distinct = Int(r.pointee.distinct_warnings)
        guard distinct > seenWarnings else { return }
        for i in seenWarnings..<distinct {
            let text = withUnsafeBytes(of: r.pointee.warnings) { raw in
                String(cString: raw.baseAddress!.advanced(by: i * Int(RCP_PNG_MESSAGE)).assumingMemoryBound(to: CChar.self))
            }
            warn(sentence(text))
        }
        seenWarnings = distinct
    }

    private func warn(_ message: String) {
        let w = ImageWarning(path: path, message)
        if !warnings.contains(w) { warnings.append(w) }
    }

    private func message() -> String {
        let text = withUnsafeBytes(of: r.pointee.message) { String(cString: $0.baseAddress!.assumingMemoryBound(to: CChar.self)) }
        return sentence(text.isEmpty ? "unknown libpng error" : text)
    }

    private func failure(_ kind: ImageError.Kind) -> ImageError {
        let text = message()
        if text.hasPrefix("read Error") || text.lowercased().contains("read error") {
            return ImageError(.damaged, path: path, "file ends inside the PNG header (truncated)")
        }
        if text.contains("Not a PNG file") || text.lowercased().hasPrefix("not a png") {
            return ImageError(.corrupt, path: path, "not a PNG file")
        }
        return ImageError(kind, path: path, text)
    }
}

private func gammaText(_ g: Double) -> String {
    let scaled = (g * 100000).rounded() / 100000
    return "\(scaled)"
}

extension PNGDecoder {
    /// libpng's version string at run time (`png_get_libpng_ver`).
    static var libpngVersion: String { String(cString: png_get_libpng_ver(nil)) }
}
