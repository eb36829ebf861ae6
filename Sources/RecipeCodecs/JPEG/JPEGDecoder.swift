internal import CJPEG
internal import CJPEGShim
import RecipeCore
import RecipeKernels
#if canImport(Glibc)
import Glibc
#endif

/// Streams a JPEG through libjpeg-turbo, a strip of scanlines at a time.
///
/// Baseline, progressive (libjpeg keeps its coefficient buffer; nothing more is held here),
/// arithmetic-coded, restart markers, grayscale, CMYK and YCCK (converted to RGB, Adobe-inverted
/// CMYK included). `start(scaleDenominator:)` asks libjpeg for a DCT-domain reduction (1/2, 1/4,
/// 1/8), which decodes only what a display-size render needs.
///
/// ```swift
/// let jpeg = try JPEGDecoder(path: "photo.jpg", options: DecodeOptions())
/// try jpeg.start(scaleDenominator: 2)
/// let strip = PixelBuffer(width: jpeg.width, rowCapacity: 16, format: jpeg.format)
/// while try jpeg.readRows(into: strip) > 0 { … }
/// ```
public final class JPEGDecoder: ImageDecoder {
    public let path: String
    public private(set) var info: ImageInfo
    public private(set) var warnings: [ImageWarning] = []
    public let supportedScaleDenominators = [1, 2, 4, 8]

    public private(set) var width: Int
    public private(set) var height: Int
    public var format: PixelFormat { cmykConverter == nil ? PixelFormat(info.colorModel, .uint8) : PixelFormat(.rgb, .uint16) }

    /// Converts a row of CMYK samples as stored (`inverted`: Adobe's inverted CMYK and YCCK) to
    /// 16-bit RGB: the colour module's transform through the photo's CMYK profile.
    public typealias CMYKConverter = @Sendable (_ cmyk: UnsafePointer<UInt8>, _ inverted: Bool, _ rgb: UnsafeMutablePointer<UInt16>, _ pixels: Int) -> Void

    /// Whether the file stores CMYK (or YCCK) samples.
    public var storesCMYK: Bool { isCMYK }

    /// Set before decoding starts, a CMYK photo's rows go through it into 16-bit RGB (the format
    /// becomes RGB 16-bit); without one they get the device formula of `ColorConversion.cmykToRGB`.
    public var cmykConverter: CMYKConverter? {
        willSet { precondition(!started && isCMYK, "a CMYK converter is set before decoding a CMYK photo") }
    }

    private let options: DecodeOptions
    private let file: UnsafeMutablePointer<FILE>
    private let d: UnsafeMutablePointer<rcp_jpeg_decoder>
    private var started = false
    private var finished = false
    private var isCMYK = false
    private var cmykStrip: PixelBuffer?
    private var rowPointers: [UnsafeMutablePointer<JSAMPLE>?] = []
    private var seenWarnings = 0
    /// A window decode (`start(window:)`): the rows libjpeg skipped above it, and the output row
    /// after its last.
    private var skippedRows = 0
    private var endRow: Int?

    public init(path: String, options: DecodeOptions = DecodeOptions()) throws(ImageError) {
        self.path = path
        self.options = options
        self.file = try InputFile.open(path)
        self.d = .allocate(capacity: 1)
        memset(d, 0, MemoryLayout<rcp_jpeg_decoder>.size)
        self.width = 0
        self.height = 0
        self.info = ImageInfo(format: .jpeg, width: 0, height: 0, colorModel: .rgb, bitDepth: 8,
                              fileColorSpace: "", progressive: false, metadata: ImageMetadata())
        // Every stored property is set: if a step below throws, deinit releases libjpeg and the file.
        guard rcp_jpeg_decoder_open(d, file, Int32(options.maxProgressiveScans)) == 1 else { throw lastError() }
        try readHeader()
    }

    deinit {
        rcp_jpeg_decoder_destroy(d)
        d.deallocate()
        fclose(file)
    }

    private func readHeader() throws(ImageError) {
        let c = d.pointee.cinfo
        let w = Int(c.image_width), h = Int(c.image_height)
        guard w > 0, h > 0 else { throw ImageError(.corrupt, path: path, "JPEG declares an empty image (\(w)×\(h))") }
        guard w.multipliedReportingOverflow(by: h).partialValue <= options.maxPixels else {
            throw ImageError(.tooLarge, path: path, pixelLimitMessage(w, h, options.maxPixels))
        }
        var model: ColorModel = .rgb
        var space: String
        switch c.jpeg_color_space {
        case JCS_GRAYSCALE: model = .gray; space = "grayscale"
        case JCS_YCbCr: space = "YCbCr"
        case JCS_RGB: space = "RGB"
        case JCS_CMYK: isCMYK = true; space = c.saw_Adobe_marker != 0 ? "CMYK (Adobe, inverted)" : "CMYK"
        case JCS_YCCK: isCMYK = true; space = "YCCK (Adobe, inverted)"
        default:
            throw ImageError(.unsupported, path: path, "JPEG with \(c.num_components) components in an unknown colour space")
        }
        var details: [(label: String, value: String)] = []
        if c.num_components >= 3, let comps = c.comp_info {
            let y = comps[0], cb = comps[1]
            details.append(("chroma subsampling", subsamplingName(Int(y.h_samp_factor / max(cb.h_samp_factor, 1)),
                                                                   Int(y.v_samp_factor / max(cb.v_samp_factor, 1)))))
        }
        details.append(("entropy coding", c.arith_code != 0 ? "arithmetic" : "Huffman"))
        if c.restart_interval > 0 { details.append(("restart interval", "\(c.restart_interval) MCUs")) }
        if c.saw_JFIF_marker != 0 {
            details.append(("JFIF", "\(c.JFIF_major_version).\(String(format2: c.JFIF_minor_version))"))
        }
        info = ImageInfo(format: .jpeg, width: w, height: h, colorModel: model, bitDepth: Int(c.data_precision),
                         fileColorSpace: space, progressive: c.progressive_mode != 0, details: details,
                         metadata: readMarkers())
        width = w
        height = h
    }

    /// Collects EXIF, ICC (reassembled), XMP, extended XMP, IPTC and comments from saved markers,
    /// dropping damaged blocks with a warning.
    private func readMarkers() -> ImageMetadata {
        var meta = ImageMetadata()
        var iccChunks: [ICCProfile.Chunk] = []
        let exifTag: [UInt8] = Array("Exif\0\0".utf8)
        let iccTag: [UInt8] = Array("ICC_PROFILE\0".utf8)
        let iptcTag: [UInt8] = Array("Photoshop 3.0\0".utf8)
        var m = d.pointee.cinfo.marker_list
        while let marker = m {
            let bytes = Array(UnsafeBufferPointer(start: marker.pointee.data, count: Int(marker.pointee.data_length)))
            switch Int32(marker.pointee.marker) {
            case JPEG_APP0 + 1:
                if bytes.starts(with: exifTag) {
                    if meta.exif != nil { warn("second EXIF block ignored"); break }
                    let tiff = Array(bytes.dropFirst(exifTag.count))
                    if let problem = EXIF.problem(in: tiff) {
                        warn("\(problem); EXIF dropped")
                    } else {
                        meta.exif = tiff
                        meta.orientation = Orientation(exifValue: EXIF(tiff)?.orientation ?? 1)
                    }
                } else if bytes.starts(with: XMP.jpegNamespace) {
                    let packet = Array(bytes.dropFirst(XMP.jpegNamespace.count))
                    if let problem = XMP.problem(in: packet) { warn("\(problem); XMP dropped") } else { meta.xmp = packet }
                } else if bytes.starts(with: XMP.jpegExtendedNamespace) {
                    meta.extendedXMP.append(Array(bytes.dropFirst(XMP.jpegExtendedNamespace.count)))
                }
            case JPEG_APP0 + 2:
                if bytes.starts(with: iccTag), bytes.count >= iccTag.count + 2 {
                    iccChunks.append(ICCProfile.Chunk(sequence: Int(bytes[iccTag.count]), count: Int(bytes[iccTag.count + 1]),
                                                      data: bytes[(iccTag.count + 2)...]))
                }
            case JPEG_APP0 + 13:
                if bytes.starts(with: iptcTag) { meta.iptc = bytes }
            case JPEG_COM:
                meta.comments.append(bytes)
            default:
                break
            }
            m = marker.pointee.next
        }
        let icc = ICCProfile.assemble(iccChunks)
        if let problem = icc.problem { warn(problem) }
        meta.icc = icc.profile
        if meta.xmp == nil && !meta.extendedXMP.isEmpty {
            warn("extended XMP without a main XMP packet dropped")
            meta.extendedXMP = []
        }
        return meta
    }

    /// Bytes of the whole-image coefficient buffer libjpeg zero-fills for a progressive file (0 for a
    /// baseline one), and how many of them were advised for transparent huge pages after
    /// `start` (0 where the kernel has none); see CJPEGShim.c.
    var coefficientBufferBytes: (total: Int, hugePages: Int) {
        (Int(d.pointee.coefficient_bytes), Int(d.pointee.huge_page_bytes))
    }

    /// libjpeg's working memory: a progressive file's coefficients for the whole image (2 bytes
    /// a coefficient, 64 a block, each component's blocks rounded up to whole MCUs, whatever the
    /// scale: 3 bytes a pixel at 4:2:0, 72 MB for 24 MP; the `coefficientBufferBytes` libjpeg then
    /// asks for), and for every file its rows of samples around the IDCT and the upsampling at the
    /// output scale (about 48 bytes an output column, a row group of each component twice over)
    /// with its tables, and the input buffer (`RCP_JPEG_READ_BUFFER`); a CMYK file's strip of
    /// 4-byte pixels besides.
    public func decodingBytes(scaleDenominator: Int) -> Int {
        let c = d.pointee.cinfo
        let outputWidth = (width + scaleDenominator - 1) / max(1, scaleDenominator)
        var bytes = 48 * outputWidth * max(1, Int(c.num_components)) / 3 + (256 << 10) + Int(RCP_JPEG_READ_BUFFER)
        if c.progressive_mode != 0, let comps = c.comp_info {
            let components = (0..<Int(c.num_components)).map { comps[$0] }
            let maxH = components.map { Int($0.h_samp_factor) }.max() ?? 1, maxV = components.map { Int($0.v_samp_factor) }.max() ?? 1
            for comp in components {
                let h = max(1, Int(comp.h_samp_factor)), v = max(1, Int(comp.v_samp_factor))
                let blocksWide = (width * h + 8 * maxH - 1) / (8 * maxH), blocksHigh = (height * v + 8 * maxV - 1) / (8 * maxV)
                bytes += ((blocksWide + h - 1) / h * h) * ((blocksHigh + v - 1) / v * v) * 128
            }
        }
        if isCMYK { bytes += 4 * outputWidth * 64 }
        return bytes
    }

    public func start(scaleDenominator: Int) throws(ImageError) {
        precondition(!started, "JPEGDecoder started twice")
        precondition(supportedScaleDenominators.contains(scaleDenominator))
        started = true
        d.pointee.cinfo.scale_num = 1
        d.pointee.cinfo.scale_denom = UInt32(scaleDenominator)
        d.pointee.cinfo.out_color_space = isCMYK ? JCS_CMYK : (info.colorModel == .gray ? JCS_GRAYSCALE : JCS_RGB)
        guard rcp_jpeg_decoder_start(d) == 1 else { throw lastError() }
        width = Int(d.pointee.cinfo.output_width)
        height = Int(d.pointee.cinfo.output_height)
        try collectWarnings()
    }

    /// Starts a full-size decode of only the pixels in and around `window` (upright as stored):
    /// libjpeg-turbo's `jpeg_crop_scanline` leaves out the columns left and right of it (widened
    /// to whole iMCU columns) and `jpeg_skip_scanlines` the rows above it (their entropy-coded
    /// data is read, nothing more), and decoding ends after its last row. Returns the rectangle
    /// the rows handed out then cover, which holds `window`; its pixels are those of a full
    /// decode (`JPEGDecoderTests` checks that byte for byte). A CMYK photo decodes whole.
    ///
    /// With `scaleDenominator`, the window is in the pixels of the decode at that scale (DCT
    /// scaling), and its pixels are that decode's.
    public func start(window: (x: Int, y: Int, width: Int, height: Int), scaleDenominator: Int = 1) throws(ImageError)
        -> (x: Int, y: Int, width: Int, height: Int) {
        try start(scaleDenominator: scaleDenominator)
        precondition(window.x >= 0 && window.y >= 0 && window.width > 0 && window.height > 0
                     && window.x + window.width <= width && window.y + window.height <= height, "window outside the image")
        guard !isCMYK else { return (0, 0, width, height) }
        // A margin of one iMCU (an MCU's width or height, in output pixels: 8 at full size, 8/d
        // at 1/d, times the sampling factor) on every side: the fancy upsampling of subsampled
        // chroma reads the neighbouring chroma sample, which libjpeg replaces by the edge's own
        // at a cropped edge (a 4:2:0 window cut at column 40 differed in its last column without
        // it). Inside the margin the pixels are the full decode's.
        let c = d.pointee.cinfo
        let block = max(1, Int(c.min_DCT_scaled_size))
        let marginX = block * max(1, Int(c.max_h_samp_factor)), marginY = block * max(1, Int(c.max_v_samp_factor))
        let left = max(0, window.x - marginX), right = min(width, window.x + window.width + marginX)
        let top = max(0, window.y - marginY)
        var x = UInt32(left), w = UInt32(right - left)
        guard rcp_jpeg_decoder_window(d, &x, &w, UInt32(top)) == 1 else { throw lastError() }
        try collectWarnings()
        width = Int(d.pointee.cinfo.output_width)
        skippedRows = top
        endRow = window.y + window.height
        height = window.y + window.height - top
        return (Int(x), top, width, height)
    }

    public func readRows(into buffer: PixelBuffer) throws -> Int {
        if !started { try start(scaleDenominator: 1) }
        precondition(buffer.width == width && buffer.format == format, "strip does not match the decoder")
        let next = Int(d.pointee.cinfo.output_scanline) - skippedRows
        guard next < height else {
            try finishIfNeeded()
            buffer.rowCount = 0
            return 0
        }
        let want = min(buffer.rowCapacity, height - next)
        let target: PixelBuffer
        if isCMYK {
            if cmykStrip == nil || cmykStrip!.rowCapacity < want {
                cmykStrip = PixelBuffer(width: width, rowCapacity: buffer.rowCapacity, format: PixelFormat(.rgba, .uint8))
            }
            target = cmykStrip!
        } else {
            target = buffer
        }
        if rowPointers.count < want { rowPointers = Array(repeating: nil, count: want) }
        for i in 0..<want { rowPointers[i] = target.row(i).assumingMemoryBound(to: JSAMPLE.self) }
        var got: UInt32 = 0
        let ok = rowPointers.withUnsafeMutableBufferPointer { rcp_jpeg_decoder_read(d, $0.baseAddress, UInt32(want), &got) }
        guard ok == 1 else { throw lastError() }
        let n = Int(got)
        if isCMYK {
            let inverted = d.pointee.cinfo.saw_Adobe_marker != 0
            for i in 0..<n {
                if let cmykConverter {
                    cmykConverter(target.row(i).assumingMemoryBound(to: UInt8.self), inverted,
                                  buffer.row(i).assumingMemoryBound(to: UInt16.self), width)
                } else {
                    ColorConversion.cmykToRGB(target.row(i).assumingMemoryBound(to: UInt8.self),
                                              buffer.row(i).assumingMemoryBound(to: UInt8.self),
                                              width: width, adobeInverted: inverted)
                }
            }
        }
        buffer.rowCount = n
        buffer.originY = next
        try collectWarnings()
        if next + n >= height { try finishIfNeeded() }
        return n
    }

    /// After the last row: a progressive file whose scans never delivered some coefficients is
    /// missing pixel data even when libjpeg raised no warning; then read to EOI.
    private func finishIfNeeded() throws(ImageError) {
        guard !finished else { return }
        finished = true
        // A window's decode stops after its rows: libjpeg's finish would want the rest.
        guard endRow == nil else { return }
        if d.pointee.cinfo.progressive_mode != 0, let bits = d.pointee.cinfo.coef_bits {
            var missingDC = false, missingAC = false
            for comp in 0..<Int(d.pointee.cinfo.num_components) {
                withUnsafeBytes(of: bits[comp]) { raw in
                    let b = raw.bindMemory(to: Int32.self)
                    if b[0] < 0 { missingDC = true }
                    if b.dropFirst().contains(where: { $0 < 0 }) { missingAC = true }
                }
            }
            if missingDC || missingAC {
                try damage("progressive JPEG is missing its \(missingDC ? "DC" : "AC") scans (incomplete image)")
            }
        }
        if rcp_jpeg_decoder_finish(d) != 1 {
            warn("damaged data after the image: \(sentence(message(d.pointee.err.message)))")
        }
        try collectWarnings()
    }

    /// Turns new libjpeg warnings into either damage (missing or garbled pixel data) or warnings.
    private func collectWarnings() throws(ImageError) {
        let err = d.pointee.err
        let distinct = Int(err.distinct_warnings)
        guard distinct > seenWarnings else { return }
        for i in seenWarnings..<distinct {
            let code = withUnsafeBytes(of: err.warning_codes) { $0.bindMemory(to: Int32.self)[i] }
            let text = withUnsafeBytes(of: err.warnings) { raw -> String in
                let base = raw.baseAddress!.advanced(by: i * Int(JMSG_LENGTH_MAX)).assumingMemoryBound(to: CChar.self)
                return String(cString: base)
            }
            seenWarnings = i + 1
            if JPEGDecoder.damageCodes.contains(UInt32(code)) {
                try damage(sentence(text))
            } else {
                warn("recoverable damage: \(sentence(text))")
            }
        }
    }

    private static let damageCodes: Set<UInt32> = [
        JWRN_JPEG_EOF.rawValue, JWRN_HIT_MARKER.rawValue, JWRN_HUFF_BAD_CODE.rawValue,
        JWRN_MUST_RESYNC.rawValue, JWRN_NOT_SEQUENTIAL.rawValue, JWRN_BOGUS_PROGRESSION.rawValue,
        JWRN_ARITH_BAD_CODE.rawValue,
    ]

    private func damage(_ what: String) throws(ImageError) {
        if options.allowDamaged {
            warn("\(what); rendering what was decoded (--allow-damaged)")
        } else {
            throw ImageError(.damaged, path: path, "\(what); pixel data is missing or damaged (--allow-damaged renders what was decoded)")
        }
    }

    private func warn(_ message: String) {
        let w = ImageWarning(path: path, message)
        if !warnings.contains(w) { warnings.append(w) }
    }

    private func lastError() -> ImageError {
        let text = sentence(message(d.pointee.err.message))
        let code = d.pointee.err.pub.msg_code
        if code == Int32(JERR_BAD_PRECISION.rawValue) {
            return ImageError(.unsupported, path: path, "\(text) (only 8-bit JPEG is supported)")
        }
        if code == Int32(JERR_IMAGE_TOO_BIG.rawValue) {
            let c = d.pointee.cinfo
            let (w, h) = (Int(c.image_width), Int(c.image_height))
            let mp = Int((Double(w) * Double(h) / 1e6).rounded())
            return ImageError(.tooLarge, path: path, "declares \(w)×\(h) pixels (\(mp) MP), beyond JPEG's 65500-pixel side limit")
        }
        if code == Int32(JERR_OUT_OF_MEMORY.rawValue) {
            return ImageError(.tooLarge, path: path, text)
        }
        if code == Int32(JERR_INPUT_EOF.rawValue) || code == Int32(JERR_INPUT_EMPTY.rawValue) {
            return ImageError(.damaged, path: path, "\(text) (file is truncated)")
        }
        return ImageError(.corrupt, path: path, text)
    }

    private func message<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { String(cString: $0.baseAddress!.assumingMemoryBound(to: CChar.self)) }
    }
}

func pixelLimitMessage(_ w: Int, _ h: Int, _ limit: Int) -> String {
    let mp = Double(w) * Double(h) / 1e6
    return "declares \(w)×\(h) pixels (\(Int(mp.rounded())) MP), over the limit of \(limit / 1_000_000) MP (--max-pixels raises it)"
}

private func subsamplingName(_ h: Int, _ v: Int) -> String {
    switch (h, v) {
    case (1, 1): "4:4:4"
    case (2, 1): "4:2:2"
    case (2, 2): "4:2:0"
    case (1, 2): "4:4:0"
    case (4, 1): "4:1:1"
    default: "\(h)x\(v)"
    }
}

extension String {
    fileprivate init(format2 v: UInt8) { self = v < 10 ? "0\(v)" : "\(v)" }
}

extension JPEGDecoder {
    /// libjpeg-turbo's version from the header built against (`LIBJPEG_TURBO_VERSION_NUMBER`,
    /// 2001005 for 2.1.5): the libjpeg API has no call that returns it at run time.
    static var libjpegTurboVersion: String {
        let number = Int(LIBJPEG_TURBO_VERSION_NUMBER)
        return "\(number / 1_000_000).\(number / 1000 % 1000).\(number % 1000)"
    }
}
