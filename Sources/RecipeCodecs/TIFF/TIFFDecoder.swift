internal import CTIFF
import RecipeCore
import RecipeKernels
#if canImport(Glibc)
import Glibc
#endif

/// Streams the first image (IFD 0) of a TIFF through libtiff, one strip or one row of tiles at a time.
///
/// What comes out, by what the file stores:
/// - gray (min-is-black or min-is-white), RGB, with or without alpha, 8- or 16-bit: as stored,
///   16-bit staying 16-bit; associated (premultiplied) alpha is divided out, other extra samples
///   are dropped;
/// - 1-, 2- and 4-bit gray, and 1- to 8-bit palette: expanded to 8-bit gray and RGB;
/// - JPEG-compressed YCbCr: RGB 8-bit (libjpeg converts, as every TIFF reader does);
/// - CMYK 8- or 16-bit: RGB by the device formula of `ColorConversion.cmykToRGB`, or 16-bit RGB
///   through `cmykConverter` (the colour module's transform through the photo's profile), as for
///   a CMYK JPEG;
/// - anything else libtiff's RGBA interface can render (old-style JPEG, uncompressed YCbCr,
///   CIE L*a*b*, LogLuv): 8-bit RGB or RGBA through `TIFFRGBAImageGet`, which loses 16-bit
///   precision and holds one strip or row of tiles as 32-bit pixels.
///
/// Refused as `.unsupported`: floating-point, signed-integer and complex samples, bit depths other
/// than 1, 2, 4, 8 and 16, 16-bit palettes and compressions this libtiff lacks.
///
/// Memory: one strip (every plane of it, for planar files) or one row of tiles is held, plus
/// libtiff's compressed copy of it; contiguous strips over 4 MiB (a single-strip scan) are read a
/// scanline at a time, which libtiff decodes from its file reads in chunks. Only IFD 0 is the photo;
/// `info.details` gives the page count when there are more. The EXIF block is rebuilt from the
/// file's own IFDs (see `TIFFRawIFD`), the ICC profile and XMP packet are copied as stored.
///
/// ```swift
/// let tiff = try TIFFDecoder(path: "scan.tif")
/// let strip = PixelBuffer(width: tiff.width, rowCapacity: 16, format: tiff.format)
/// while try tiff.readRows(into: strip) > 0 { … }
/// ```
public final class TIFFDecoder: ImageDecoder {
    public let path: String
    public private(set) var info: ImageInfo
    public private(set) var warnings: [ImageWarning] = []
    public let supportedScaleDenominators = [1]
    public private(set) var width: Int
    public private(set) var height: Int
    public var format: PixelFormat { cmykConverter == nil ? baseFormat : PixelFormat(.rgb, .uint16) }

    /// Whether the file stores CMYK samples (see `cmykConverter`).
    public var storesCMYK: Bool { isCMYK }

    /// Set before decoding starts, a CMYK photo's rows go through it into 16-bit RGB (the format
    /// becomes RGB 16-bit; 16-bit CMYK is handed over as its high bytes); without one they get the
    /// device formula. The same converter as `JPEGDecoder`'s: samples are never inverted in TIFF.
    public var cmykConverter: JPEGDecoder.CMYKConverter? {
        willSet { precondition(!started && isCMYK, "a CMYK converter is set before decoding a CMYK photo") }
    }

    /// Strips bigger than this are read a scanline at a time when the layout allows it.
    static let scanlineThreshold = 4 << 20
    /// libtiff refuses any single allocation beyond this (a hostile header cannot ask for more).
    static let maxSingleAllocation = 512 << 20

    private let options: DecodeOptions
    private let file: UnsafeMutablePointer<FILE>
    private let handle: TIFFHandle
    private var baseFormat: PixelFormat
    private var isCMYK = false
    private var reading: Reading = .scanlines
    private var unpackerKind: TIFFRowUnpacker.Kind = .raster(alpha: false)
    private var samples = 1
    private var bytesPerSample = 1
    private var separatePlanes = false
    private var rgba: UnsafeMutablePointer<TIFFRGBAImage>?
    private var started = false
    private var finished = false

    // The band: the rows of one strip, one row of tiles or a few scanlines, as libtiff decodes them.
    private var band: UnsafeMutableRawPointer?
    private var bandBytes = 0
    private var bandRowStride = 0
    private var bandPlaneStride = 0
    private var bandFirstRow = 0
    private var bandRowCount = 0
    private var tile: UnsafeMutableRawPointer?
    private var scratch: UnsafeMutableRawPointer?
    private var nextRow = 0
    private var damagedFrom: Int?
    private var damagedBands = 0

    /// How rows are read from the file.
    enum Reading: Equatable {
        /// TIFFReadEncodedStrip, one strip per band (per plane when planes are separate).
        case strips(rowsPerStrip: Int)
        /// TIFFReadScanline, for contiguous strips too big to hold whole.
        case scanlines
        /// TIFFReadEncodedTile, one row of tiles per band.
        case tiles(width: Int, length: Int)
        /// TIFFRGBAImageGet, a strip's or a tile row's height at a time.
        case rgba(rows: Int)
    }

    public init(path: String, options: DecodeOptions = DecodeOptions()) throws(ImageError) {
        self.path = path
        self.options = options
        self.file = try InputFile.open(path)
        self.handle = TIFFHandle(file: file, name: path, mode: "rm", maxSingleAllocation: TIFFDecoder.maxSingleAllocation)
        self.info = ImageInfo(format: .tiff, width: 0, height: 0, colorModel: .rgb, bitDepth: 8, fileColorSpace: "",
                              progressive: false, metadata: ImageMetadata())
        self.width = 0
        self.height = 0
        self.baseFormat = PixelFormat(.rgb, .uint8)
        // Every stored property is set: if a step below throws, deinit releases libtiff and the file.
        guard handle.tif != nil else { throw openFailure() }
        try readHeader()
        collectWarnings()
    }

    deinit {
        if let rgba {
            TIFFRGBAImageEnd(rgba)
            rgba.deallocate()
        }
        band?.deallocate()
        tile?.deallocate()
        scratch?.deallocate()
        handle.close()
        fclose(file)
    }

    /// Bytes this decoder holds for pixels between calls (the band, a tile, a scratch row), not
    /// counting libtiff's own copy of the compressed strip.
    var bufferedBytes: Int { bandBytes + (tile == nil ? 0 : tileBytes) + (scratch == nil ? 0 : width * 4) }
    private var tileBytes = 0

    /// How rows are read (for tests and `recipe info`).
    var readingMode: Reading { reading }

    // MARK: Header

    private func readHeader() throws(ImageError) {
        let tif = handle.tif!
        let w = Int(handle.uint32(TIFFTAG_IMAGEWIDTH) ?? 0), h = Int(handle.uint32(TIFFTAG_IMAGELENGTH) ?? 0)
        guard w > 0, h > 0 else { throw ImageError(.corrupt, path: path, "TIFF declares an empty image (\(w)×\(h))") }
        guard w.multipliedReportingOverflow(by: h).partialValue <= options.maxPixels else {
            throw ImageError(.tooLarge, path: path, pixelLimitMessage(w, h, options.maxPixels))
        }
        let bits = Int(handle.uint16(TIFFTAG_BITSPERSAMPLE, defaulted: true) ?? 1)
        let spp = Int(handle.uint16(TIFFTAG_SAMPLESPERPIXEL, defaulted: true) ?? 1)
        let photometric = Int32(handle.uint16(TIFFTAG_PHOTOMETRIC) ?? UInt16(PHOTOMETRIC_MINISBLACK))
        let compression = Int(handle.uint16(TIFFTAG_COMPRESSION, defaulted: true) ?? 1)
        let planar = Int32(handle.uint16(TIFFTAG_PLANARCONFIG, defaulted: true) ?? UInt16(PLANARCONFIG_CONTIG))
        let sampleFormat = Int32(handle.uint16(TIFFTAG_SAMPLEFORMAT, defaulted: true) ?? UInt16(SAMPLEFORMAT_UINT))
        let extras = handle.uint16Array(TIFFTAG_EXTRASAMPLES, defaulted: true) ?? []
        let tiled = TIFFIsTiled(tif) != 0
        samples = spp
        separatePlanes = planar == PLANARCONFIG_SEPARATE && spp > 1

        var details: [(label: String, value: String)] = []
        details.append(("compression", TIFFDecoder.compressionName(compression)))
        if let predictor = handle.uint16(TIFFTAG_PREDICTOR), predictor != 1 {
            details.append(("predictor", predictor == 2 ? "horizontal" : predictor == 3 ? "floating point" : "\(predictor)"))
        }
        details.append(("planar configuration", separatePlanes ? "separate" : "contiguous"))
        if !extras.isEmpty {
            details.append(("extra samples", extras.map { $0 == 1 ? "associated alpha" : $0 == 2 ? "alpha" : "unspecified" }.joined(separator: ", ")))
        }
        details.append(("byte order", TIFFIsBigEndian(tif) != 0 ? "big-endian (MM)" : "little-endian (II)"))
        if TIFFIsBigTIFF(tif) != 0 { details.append(("BigTIFF", "yes")) }

        // Sample format and depth first: they decide whether any of the paths below applies.
        switch sampleFormat {
        case SAMPLEFORMAT_UINT, SAMPLEFORMAT_VOID: break
        case SAMPLEFORMAT_IEEEFP:
            throw ImageError(.unsupported, path: path, "TIFF with \(bits)-bit floating-point samples (integer samples of 1 to 16 bits are read)")
        case SAMPLEFORMAT_INT:
            throw ImageError(.unsupported, path: path, "TIFF with \(bits)-bit signed samples (unsigned samples of 1 to 16 bits are read)")
        default:
            throw ImageError(.unsupported, path: path, "TIFF with complex-number samples")
        }
        guard TIFFIsCODECConfigured(UInt16(compression)) != 0 else {
            throw ImageError(.unsupported, path: path, "TIFF compression \(TIFFDecoder.compressionName(compression)) is not available in this libtiff")
        }
        let alphaExtra = extras.first.map { $0 == UInt16(EXTRASAMPLE_ASSOCALPHA) || $0 == UInt16(EXTRASAMPLE_UNASSALPHA) } ?? false
        let associated = extras.first == UInt16(EXTRASAMPLE_ASSOCALPHA)
        var space: String
        var model: ColorModel
        var sampleType: SampleType = bits == 16 ? .uint16 : .uint8
        bytesPerSample = bits == 16 ? 2 : 1
        var useRGBA = false
        switch photometric {
        case PHOTOMETRIC_MINISBLACK, PHOTOMETRIC_MINISWHITE:
            let whiteIsZero = photometric == PHOTOMETRIC_MINISWHITE
            space = whiteIsZero ? "grayscale (min-is-white)" : "grayscale"
            if bits < 8 && spp == 1 && [1, 2, 4].contains(bits) {
                model = .gray
                unpackerKind = .subByteGray(bits: bits, minIsWhite: whiteIsZero)
            } else {
                try requireDepth(bits, photometric: "gray")
                let alpha = alphaExtra && spp >= 2
                model = alpha ? .grayAlpha : .gray
                unpackerKind = .direct(colorChannels: 1, alphaSample: alpha ? 1 : nil, minIsWhite: whiteIsZero, associatedAlpha: associated)
            }
        case PHOTOMETRIC_RGB:
            space = "RGB"
            try requireDepth(bits, photometric: "RGB")
            guard spp >= 3 else { throw ImageError(.corrupt, path: path, "RGB TIFF with \(spp) samples per pixel") }
            let alpha = alphaExtra && spp >= 4
            model = alpha ? .rgba : .rgb
            unpackerKind = .direct(colorChannels: 3, alphaSample: alpha ? 3 : nil, minIsWhite: false, associatedAlpha: associated)
        case PHOTOMETRIC_PALETTE:
            space = "palette"
            guard [1, 2, 4, 8].contains(bits), spp == 1 else {
                throw ImageError(.unsupported, path: path, "TIFF palette with \(bits)-bit indices (1 to 8 bits are read)")
            }
            guard let map = handle.colorMap(entries: 1 << bits) else { throw ImageError(.corrupt, path: path, "palette TIFF without a colour map") }
            model = .rgb
            sampleType = .uint8
            unpackerKind = .palette(bits: bits, rgb: paletteTable(map))
        case PHOTOMETRIC_SEPARATED where Int32(handle.uint16(TIFFTAG_INKSET, defaulted: true) ?? 1) == INKSET_CMYK && spp - extras.count == 4:
            space = "CMYK"
            try requireDepth(bits, photometric: "CMYK")
            isCMYK = true
            model = .rgb
            unpackerKind = .cmyk(converter: nil)
            if spp > 4 { warn("CMYK extra samples (alpha or spot colours) are dropped") }
        case PHOTOMETRIC_YCBCR where compression == Int(COMPRESSION_JPEG):
            // libjpeg upsamples and converts to RGB (JPEGCOLORMODE_RGB); the strips then hold RGB.
            space = "YCbCr"
            guard bits == 8, spp == 3, !separatePlanes else {
                throw ImageError(.unsupported, path: path, "JPEG-compressed YCbCr TIFF with \(spp) samples of \(bits) bits")
            }
            handle.set(TIFFTAG_JPEGCOLORMODE, Int32(JPEGCOLORMODE_RGB))
            model = .rgb
            unpackerKind = .direct(colorChannels: 3, alphaSample: nil, minIsWhite: false, associatedAlpha: false)
            if let sub = handle.uint16Pair(TIFFTAG_YCBCRSUBSAMPLING, defaulted: true) {
                details.append(("chroma subsampling", "\(sub.0)×\(sub.1)"))
            }
        default:
            space = TIFFDecoder.photometricName(photometric)
            useRGBA = true
            model = .rgb
        }
        if useRGBA || compression == Int(COMPRESSION_OJPEG) {
            model = try beginRGBA(space: space)
            sampleType = .uint8
            bytesPerSample = 1
            details.append(("decoded through", "libtiff RGBA interface (8-bit)"))
        }

        width = w
        height = h
        baseFormat = PixelFormat(model, sampleType)
        try chooseReading(tiled: tiled, compression: compression, details: &details)
        let pages = Int(TIFFNumberOfDirectories(tif))
        if pages > 1 { details.append(("pages", "\(pages)")) }
        handle.messages.errors = []
        info = ImageInfo(format: .tiff, width: w, height: h, colorModel: model, bitDepth: bits, fileColorSpace: space,
                         progressive: false, details: details, metadata: readMetadata())
    }

    private func requireDepth(_ bits: Int, photometric: String) throws(ImageError) {
        guard bits == 8 || bits == 16 else {
            throw ImageError(.unsupported, path: path, "\(photometric) TIFF with \(bits)-bit samples (8- and 16-bit are read)")
        }
    }

    /// 256 RGB triples from the colour map: 16-bit entries are scaled down; a map whose entries all
    /// fit in 8 bits was written by software that got it wrong, and is taken as 8-bit (as libtiff does).
    private func paletteTable(_ map: (r: [UInt16], g: [UInt16], b: [UInt16])) -> [UInt8] {
        let eightBit = !(map.r + map.g + map.b).contains { $0 > 255 }
        if eightBit && map.r.count > 2 { warn("colour map with 8-bit entries (taken as 8-bit)") }
        var table = [UInt8](repeating: 0, count: 256 * 3)
        for i in 0..<map.r.count {
            for (c, channel) in [map.r, map.g, map.b].enumerated() {
                table[3 * i + c] = eightBit ? UInt8(channel[i]) : UInt8((Int(channel[i]) * 255 + 32767) / 65535)
            }
        }
        return table
    }

    /// Starts libtiff's RGBA interface for a layout the direct paths do not handle.
    private func beginRGBA(space: String) throws(ImageError) -> ColorModel {
        let tif = handle.tif!
        var message = [CChar](repeating: 0, count: 1024)
        guard TIFFRGBAImageOK(tif, &message) == 1 else {
            let text = sentence(message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
            throw ImageError(.unsupported, path: path, "\(space) TIFF: \(text.isEmpty ? "not a layout libtiff can render" : text)")
        }
        let image = UnsafeMutablePointer<TIFFRGBAImage>.allocate(capacity: 1)
        memset(image, 0, MemoryLayout<TIFFRGBAImage>.size)
        guard TIFFRGBAImageBegin(image, tif, 1, &message) == 1 else {
            image.deallocate()
            let text = sentence(message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
            throw ImageError(.unsupported, path: path, "\(space) TIFF: \(text.isEmpty ? "libtiff cannot render it" : text)")
        }
        rgba = image
        // Rows in stored order: the engine applies the orientation from the metadata itself.
        image.pointee.orientation = UInt16(ORIENTATION_TOPLEFT)
        image.pointee.req_orientation = UInt16(ORIENTATION_TOPLEFT)
        let alpha = image.pointee.alpha != 0
        unpackerKind = .raster(alpha: alpha)
        return alpha ? .rgba : .rgb
    }

    /// Picks strips, scanlines, tiles or the RGBA interface, and sizes the band for it.
    private func chooseReading(tiled: Bool, compression: Int, details: inout [(label: String, value: String)]) throws(ImageError) {
        let tif = handle.tif!
        if tiled {
            let tw = Int(handle.uint32(TIFFTAG_TILEWIDTH) ?? 0), tl = Int(handle.uint32(TIFFTAG_TILELENGTH) ?? 0)
            guard tw > 0, tl > 0 else { throw ImageError(.corrupt, path: path, "tiled TIFF with a \(tw)×\(tl) tile size") }
            guard tw.multipliedReportingOverflow(by: tl).partialValue <= options.maxPixels else {
                throw ImageError(.tooLarge, path: path, "declares \(tw)×\(tl) tiles, over the pixel limit")
            }
            let across = (width + tw - 1) / tw, down = (height + tl - 1) / tl
            details.append(("tiles", "\(across)×\(down) of \(tw)×\(tl) pixels"))
            reading = rgba != nil ? .rgba(rows: tl) : .tiles(width: tw, length: tl)
        } else {
            let rows = min(Int(handle.uint32(TIFFTAG_ROWSPERSTRIP, defaulted: true) ?? UInt32.max), height)
            let strips = (height + max(rows, 1) - 1) / max(rows, 1)
            details.append(("strips", "\(strips) × \(rows) row\(rows == 1 ? "" : "s")"))
            let stripBytes = TIFFVStripSize64(tif, UInt32(max(rows, 1)))
            if rgba != nil {
                reading = .rgba(rows: max(rows, 1))
            } else if !separatePlanes && stripBytes > UInt64(TIFFDecoder.scanlineThreshold) && compression != Int(COMPRESSION_OJPEG) {
                reading = .scanlines
            } else {
                reading = .strips(rowsPerStrip: max(rows, 1))
            }
        }
        // Band geometry, in the layout libtiff decodes into.
        switch reading {
        case let .strips(rows):
            let rowBytes = Int(TIFFScanlineSize64(tif))  // one plane's row when planes are separate
            bandRowStride = rowBytes
            bandPlaneStride = rowBytes * rows
            bandBytes = try checkedBand(rowBytes, rows, separatePlanes ? samples : 1)
        case .scanlines:
            bandRowStride = Int(TIFFScanlineSize64(tif))
            bandPlaneStride = 0
            bandBytes = try checkedBand(bandRowStride, 16, 1)
        case let .tiles(tw, tl):
            let across = (width + tw - 1) / tw
            let tileRowBytes = Int(TIFFTileRowSize64(tif))
            bandRowStride = tileRowBytes * across
            bandPlaneStride = bandRowStride * tl
            bandBytes = try checkedBand(bandRowStride, tl, separatePlanes ? samples : 1)
            tileBytes = Int(TIFFTileSize64(tif))
            guard tileBytes == tileRowBytes * tl else {
                throw ImageError(.unsupported, path: path, "tiled TIFF with a layout of \(tileBytes) bytes a tile (subsampled tiles are not read)")
            }
            tile = .allocate(byteCount: max(tileBytes, 1), alignment: 64)
        case let .rgba(rows):
            bandRowStride = width * 4
            bandPlaneStride = 0
            bandBytes = try checkedBand(bandRowStride, rows, 1)
        }
        guard bandRowStride > 0 else { throw ImageError(.corrupt, path: path, "TIFF rows have no bytes") }
        band = .allocate(byteCount: max(bandBytes, 1), alignment: 64)
        if case .cmyk = unpackerKind { scratch = .allocate(byteCount: width * 4, alignment: 64) }
    }

    private func checkedBand(_ rowBytes: Int, _ rows: Int, _ planes: Int) throws(ImageError) -> Int {
        let (a, o1) = rowBytes.multipliedReportingOverflow(by: rows)
        let (b, o2) = a.multipliedReportingOverflow(by: planes)
        guard !o1, !o2, b <= TIFFDecoder.maxSingleAllocation else {
            throw ImageError(.tooLarge, path: path, "TIFF strips or tiles of \(rows) rows need more than \(TIFFDecoder.maxSingleAllocation >> 20) MiB each")
        }
        return b
    }

    // MARK: Metadata

    private func readMetadata() -> ImageMetadata {
        var meta = ImageMetadata()
        if let icc = handle.bytes(TIFFTAG_ICCPROFILE) {
            if let problem = ICCProfile.validate(icc) { warn("\(problem); ICC dropped") } else { meta.icc = icc }
        }
        if let xmp = handle.bytes(TIFFTAG_XMLPACKET) {
            if let problem = XMP.problem(in: xmp) { warn("\(problem); XMP dropped") } else { meta.xmp = xmp }
        }
        // IPTC: Photoshop's image resources as they are, else RichTIFFIPTC's records wrapped in one.
        if let resources = handle.bytes(TIFFTAG_PHOTOSHOP) {
            meta.iptc = PhotoshopResources.app13(resources: resources)
        } else if let words = handle.bytes(TIFFTAG_RICHTIFFIPTC, unit: handle.unit(of: TIFFTAG_RICHTIFFIPTC)) {
            let records = PhotoshopResources.iimLength(words)  // without the padding to whole words
            if records > 0 { meta.iptc = PhotoshopResources.app13(iim: Array(words[..<records])) }
        }
        meta.orientation = Orientation(exifValue: Int(handle.uint16(TIFFTAG_ORIENTATION, defaulted: true) ?? 1))
        meta.exif = readEXIF()
        return meta
    }

    /// The photo's EXIF as a standalone TIFF structure: IFD0 with the descriptive tags (Make,
    /// Model, DateTime …, orientation) and the EXIF and GPS IFDs, copied entry by entry from the
    /// file. Nil when the file has none of them.
    private func readEXIF() -> [UInt8]? {
        let tif = handle.tif!
        let hasPointer = handle.uint64(TIFFTAG_EXIFIFD) != nil || handle.uint64(TIFFTAG_GPSIFD) != nil
        if TIFFIsBigTIFF(tif) != 0 {
            if hasPointer { warn("EXIF of a BigTIFF file is not carried") }
            return nil
        }
        let fd = fileno(file)
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        let size = Int(st.st_size)
        var budget = TIFFRawIFD.maxEXIFBytes
        do {
            let ifd0 = try TIFFRawIFD.read(at: Int(TIFFCurrentDirOffset(tif)), bigEndian: TIFFIsBigEndian(tif) != 0, parent: nil,
                                           budget: &budget) { offset, count in
                guard offset >= 0, count >= 0, offset <= size, count <= size - offset else { return nil }
                var bytes = [UInt8](repeating: 0, count: count)
                let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
                return n == count ? bytes : nil
            }
            for problem in ifd0.problems { warn(problem) }
            guard let block = TIFFRawIFD.exifBlock(fromFileIFD0: ifd0, bigEndian: TIFFIsBigEndian(tif) != 0) else { return nil }
            if let problem = EXIF.problem(in: block) {
                warn("\(problem); EXIF dropped")
                return nil
            }
            return block
        } catch {
            if hasPointer { warn("EXIF dropped: \(error.reason)") }
            return nil
        }
    }

    // MARK: Rows

    /// The band or tile row held between calls (`bufferedBytes`) and libtiff's compressed copy of
    /// it, taken as large again.
    public func decodingBytes(scaleDenominator: Int) -> Int {
        2 * bufferedBytes + (64 << 10)
    }

    public func start(scaleDenominator: Int) throws(ImageError) {
        precondition(scaleDenominator == 1, "TIFF has no reduced decode")
        started = true
    }

    public func readRows(into buffer: PixelBuffer) throws -> Int {
        started = true
        precondition(buffer.width == width && buffer.format == format, "strip does not match the decoder")
        guard nextRow < height else {
            finishIfNeeded()
            buffer.rowCount = 0
            return 0
        }
        let n = min(buffer.rowCapacity, height - nextRow)
        let unpacker = TIFFRowUnpacker(kind: currentKind, width: width, samples: samples, bytesPerSample: bytesPerSample,
                                       separate: separatePlanes, output: format)
        for i in 0..<n {
            let y = nextRow + i
            if let from = damagedFrom, y >= from {
                buffer.row(i).initializeMemory(as: UInt8.self, repeating: 0, count: buffer.rowBytes)
                continue
            }
            if y >= bandFirstRow + bandRowCount || y < bandFirstRow { try loadBand(containing: y) }
            if let from = damagedFrom, y >= from {
                buffer.row(i).initializeMemory(as: UInt8.self, repeating: 0, count: buffer.rowBytes)
                continue
            }
            let row = UnsafeRawPointer(band!) + (y - bandFirstRow) * bandRowStride
            unpacker.unpack(row, planeStride: bandPlaneStride, into: buffer.row(i), scratch: scratch)
        }
        buffer.rowCount = n
        buffer.originY = nextRow
        nextRow += n
        collectWarnings()
        if nextRow >= height { finishIfNeeded() }
        return n
    }

    private var currentKind: TIFFRowUnpacker.Kind {
        if case .cmyk = unpackerKind { return .cmyk(converter: cmykConverter) }
        return unpackerKind
    }

    /// Decodes the strip, tile row or scanlines holding row `y` into the band.
    private func loadBand(containing y: Int) throws(ImageError) {
        let tif = handle.tif!
        let band = self.band!
        handle.messages.errors = []
        var failed = false
        switch reading {
        case let .strips(rows):
            let strip = y / rows
            bandFirstRow = strip * rows
            bandRowCount = min(rows, height - bandFirstRow)
            memset(band, 0, bandBytes)
            let stripsPerPlane = (height + rows - 1) / rows
            for plane in 0..<(separatePlanes ? samples : 1) {
                let size = bandRowStride * bandRowCount
                let got = TIFFReadEncodedStrip(tif, UInt32(plane * stripsPerPlane + strip), band + plane * bandPlaneStride, tmsize_t(size))
                if got < 0 { failed = true }
            }
        case .scanlines:
            bandFirstRow = y
            bandRowCount = min(bandBytes / bandRowStride, height - y)
            for r in 0..<bandRowCount where !failed {
                if TIFFReadScanline(tif, band + r * bandRowStride, UInt32(y + r), 0) < 0 {
                    failed = true
                    // A strip read as scanlines cannot resume after an error: the rows after it are lost.
                    memset(band + r * bandRowStride, 0, (bandRowCount - r) * bandRowStride)
                    damagedFrom = y + r
                }
            }
        case let .tiles(tw, tl):
            bandFirstRow = y / tl * tl
            bandRowCount = min(tl, height - bandFirstRow)
            memset(band, 0, bandBytes)
            let tileRowBytes = bandRowStride / ((width + tw - 1) / tw)
            let tile = self.tile!
            for plane in 0..<(separatePlanes ? samples : 1) {
                var x = 0
                while x < width {
                    let index = TIFFComputeTile(tif, UInt32(x), UInt32(bandFirstRow), 0, UInt16(plane))
                    // Zeroed first: a tile that fails to decode keeps only what it decoded.
                    memset(tile, 0, tileBytes)
                    if TIFFReadEncodedTile(tif, index, tile, tmsize_t(tileBytes)) < 0 { failed = true }
                    let column = x / tw * tileRowBytes
                    for r in 0..<bandRowCount {
                        memcpy(band + plane * bandPlaneStride + r * bandRowStride + column, tile + r * tileRowBytes, tileRowBytes)
                    }
                    x += tw
                }
            }
        case let .rgba(rows):
            bandFirstRow = y / rows * rows
            bandRowCount = min(rows, height - bandFirstRow)
            memset(band, 0, bandBytes)
            rgba!.pointee.row_offset = Int32(bandFirstRow)
            rgba!.pointee.col_offset = 0
            if TIFFRGBAImageGet(rgba, band.assumingMemoryBound(to: UInt32.self), UInt32(width), UInt32(bandRowCount)) != 1 {
                failed = true
            }
        }
        if failed { try damage(rows: bandFirstRow, bandFirstRow + bandRowCount) }
    }

    private func damage(rows first: Int, _ end: Int) throws(ImageError) {
        let summary = handle.messages.summary(file: path)
        let what = summary.isEmpty ? "unreadable pixel data" : summary
        let rows = end - first > 1 ? "rows \(first)–\(end - 1)" : "row \(first)"
        damagedBands += 1
        if !options.allowDamaged {
            throw ImageError(.damaged, path: path, "\(rows): \(what); pixel data is missing or damaged (--allow-damaged renders what was decoded)")
        }
        if damagedBands == 1 {
            warn("\(rows): \(what); pixel data is incomplete, rendering what was decoded (--allow-damaged)")
        }
    }

    private func finishIfNeeded() {
        guard !finished else { return }
        finished = true
        if damagedBands > 1 { warn("\(damagedBands - 1) more damaged strips or tiles rendered as decoded") }
        collectWarnings()
    }

    // MARK: Messages

    private func collectWarnings() {
        for text in handle.messages.takeWarnings() where !TIFFDecoder.isNoise(text) { warn(sentence(text)) }
    }

    /// Warnings every private tag raises, and none of them matter for the pixels.
    private static func isNoise(_ text: String) -> Bool {
        text.hasPrefix("Unknown field with tag") || text.contains("Invalid TIFF directory; tags are not sorted")
    }

    private func warn(_ message: String) {
        let w = ImageWarning(path: path, message)
        if !warnings.contains(w) { warnings.append(w) }
    }

    /// Why libtiff would not open the file: its message, and a hint when the first IFD lies past
    /// the end (a truncated file loses the IFD that libtiff writes last).
    private func openFailure() -> ImageError {
        var text = handle.messages.summary(file: path)
        if text.isEmpty { text = "not a TIFF file" }
        if let head = try? InputFile.prefix(path, count: 8), head.count == 8, ImageFileFormat.sniff(head) == .tiff, head[2] != 0x2B, head[3] != 0x2B {
            let big = head[0] == 0x4D
            var offset = 0
            for k in 0..<4 { offset = offset << 8 | Int(head[4 + (big ? k : 3 - k)]) }
            var st = stat()
            if stat(path, &st) == 0, offset >= Int(st.st_size) {
                return ImageError(.corrupt, path: path, "\(text) (the first directory, at offset \(offset), lies past the end of the \(st.st_size)-byte file: truncated?)")
            }
        }
        return ImageError(.corrupt, path: path, text)
    }

    static func compressionName(_ c: Int) -> String {
        switch c {
        case 1: "none"
        case 2: "CCITT RLE"
        case 3: "CCITT Group 3"
        case 4: "CCITT Group 4"
        case 5: "LZW"
        case 6: "old-style JPEG"
        case 7: "JPEG"
        case 8, 32946: "Deflate"
        case 32773: "PackBits"
        case 34661: "JBIG"
        case 34676, 34677: "SGI LogLuv"
        case 34887: "LERC"
        case 34925: "LZMA"
        case 50000: "ZSTD"
        case 50001: "WebP"
        case 50002, 52546: "JPEG XL"
        default: "scheme \(c)"
        }
    }

    static func photometricName(_ p: Int32) -> String {
        switch p {
        case PHOTOMETRIC_MINISWHITE: "grayscale (min-is-white)"
        case PHOTOMETRIC_MINISBLACK: "grayscale"
        case PHOTOMETRIC_RGB: "RGB"
        case PHOTOMETRIC_PALETTE: "palette"
        case PHOTOMETRIC_MASK: "transparency mask"
        case PHOTOMETRIC_SEPARATED: "separated (multi-ink)"
        case PHOTOMETRIC_YCBCR: "YCbCr"
        case PHOTOMETRIC_CIELAB: "CIE L*a*b*"
        case PHOTOMETRIC_ICCLAB: "ICC L*a*b*"
        case PHOTOMETRIC_ITULAB: "ITU L*a*b*"
        case PHOTOMETRIC_CFA: "colour filter array (raw)"
        case PHOTOMETRIC_LOGL: "LogL"
        case PHOTOMETRIC_LOGLUV: "LogLuv"
        default: "photometric \(p)"
        }
    }
}
