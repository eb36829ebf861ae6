internal import CRawLoader
import RecipeCore
import RecipeKernels
#if canImport(Glibc)
import Glibc
#endif

/// Camera raw files (DNG, CR2, NEF, ARW, RAF, ORF, RW2, PEF, QuickTake, … every format LibRaw 0.20
/// opens): their header facts, and their mosaic or LibRaw's develop of it.
///
/// The header is read at `init` (no pixel unpacked). `start` resolves the recipe's `develop`
/// settings (`DecodeOptions.develop`, as `RawDevelopPlan`) and then either
/// - unpacks the Bayer mosaic and hands it out (`undeveloped`, a `MosaicSource`): the render's
///   demosaic stage (`DemosaicStage`) white-balances and demosaics it; or
/// - runs LibRaw's whole develop (what is not a plain Bayer mosaic, LibRaw's demosaics by name,
///   its highlight modes, its grey world) and hands out its rows.
/// A DNG's opcode lists are read at `init` (`RawImageInfo.opcodes`, their problems among
/// `warnings`); the lens shading of its `OpcodeList2` is multiplied into a copy of the mosaic the
/// demosaic stage reads.
/// Either way the rows are 16-bit camera RGB, linear, the white level of the least-multiplied
/// channel at `65535 / headroom`; the camera matrix (`PhotoColor.raw`) takes them to the working
/// space in the first point pass, in float, so nothing of a wide colour clips.
///
/// ```swift
/// let raw = try RawDecoder(path: "IMG_0001.CR2", options: DecodeOptions())
/// raw.info.raw?.model            // "EOS 550D"
/// try raw.start(scaleDenominator: 2)   // half size: each 2×2 cell of the mosaic is a pixel
/// let rows = DemosaicStage.rows(of: raw)
/// ```
public final class RawDecoder: ImageDecoder, MosaicSource {
    public let path: String
    public private(set) var info: ImageInfo
    public private(set) var warnings: [ImageWarning] = []
    public private(set) var width: Int
    public private(set) var height: Int
    public let format = PixelFormat(.rgb, .uint16)
    /// Half size decodes each 2×2 cell of the mosaic as one pixel (LibRaw's `half_size`), with no
    /// demosaic: a quarter of the pixels at a fifth of the time.
    public var supportedScaleDenominators: [Int] { options.develop.demosaic == .halfSize || info.raw?.cfa.isEmpty != false ? [1] : [1, 2] }
    private let options: DecodeOptions
    /// What LibRaw is told it may allocate for the raw data, in MiB (`libRawLimitMB`): every
    /// unpack and develop of this decoder is handed this value.
    public let libRawLimit: UInt32
    private var handle: OpaquePointer?
    /// LibRaw's handle until the last row is read (for `embeddedJPEG`).
    var libRawHandle: OpaquePointer? { handle }
    private var image: UnsafePointer<UInt16>?
    private var nextRow = 0
    /// What the samples are multiplied by to put them on the scale `headroom` promises.
    private var rescale = 1.0
    /// recipe's own develop: the mosaic LibRaw unpacked (borrowed: it goes with the file once the
    /// demosaic stage has made its last row) and the develop the stage runs on it. What the
    /// preview copies to develop again without unpacking.
    public private(set) var undeveloped: MosaicDevelop?

    public init(path: String, options: DecodeOptions) throws(ImageError) {
        self.path = path
        self.options = options
        libRawLimit = Self.libRawLimitMB(options)
        var message: UnsafePointer<CChar>?
        guard rcp_raw_load(&message) == 1 else {
            throw ImageError(.unsupported, path: path, "camera raw files need LibRaw (libraw_r.so.20, Debian's libraw20), which cannot be loaded: \(message.map { String(cString: $0) } ?? "?")")
        }
        // A CR3 (ISO media) whose boxes do not fit together can keep LibRaw reading for ever.
        if let head = try? InputFile.prefix(path, count: 8), ISOBoxCheck.isISOMedia(head), let problem = ISOBoxCheck.problem(path) {
            throw ImageError(.corrupt, path: path, "is damaged: \(problem); not read")
        }
        var c = rcp_raw_info()
        var code: Int32 = 0
        guard let opened = rcp_raw_open(path, &c, &code) else {
            throw Self.openError(code, info: c, path: path)
        }
        handle = opened
        var raw = Self.rawInfo(c)
        guard c.width > 0, c.height > 0 else {
            rcp_raw_close(handle)
            handle = nil
            throw ImageError(.corrupt, path: path, "\(raw.camera): the raw file declares no image (\(c.width)×\(c.height))")
        }
        let (w, h) = options.develop.demosaic == .halfSize && c.filters != 0 ? ((Int(c.width) + 1) / 2, (Int(c.height) + 1) / 2)
                                                                               : (Int(c.width), Int(c.height))
        width = w
        height = h
        var metadata = ImageMetadata()
        metadata.orientation = Self.orientation(libRawFlip: Int(c.flip))
        info = ImageInfo(format: .raw, width: w, height: h, colorModel: .rgb, bitDepth: 16,
                         fileColorSpace: "camera RGB" + (raw.cfa.isEmpty ? "" : " (\(raw.cfa) Bayer mosaic)"),
                         progressive: false, details: [], metadata: metadata)
        if raw.dngVersion != nil, let opcodes = DNGOpcodes.read(path: path) {
            raw.opcodes = opcodes
            warnings += opcodes.warnings.map { ImageWarning(path: path, $0) }
        }
        info.raw = raw
        info.details = RawImageInfo.details(raw)
        info.metadata.exif = raw.exifBlock(orientation: metadata.orientation, width: w, height: h)
        let pixels = Int(c.raw_width) * Int(c.raw_height)
        guard pixels <= options.maxPixels, w * h <= options.maxPixels else {
            rcp_raw_close(handle)
            handle = nil
            throw ImageError(.tooLarge, path: path, "\(raw.camera): \(c.raw_width)×\(c.raw_height) sensor is over the limit of \(options.maxPixels) pixels")
        }
    }

    deinit {
        undeveloped = nil  // it lends LibRaw's frame: gone before the handle
        rcp_raw_close(handle)
    }

    /// Closes the file once its rows are all handed out: LibRaw's frame, mosaic and developed
    /// image go with it.
    private func close() {
        undeveloped = nil
        image = nil
        rcp_raw_close(handle)
        handle = nil
    }

    /// The limit handed to LibRaw for what it allocates for the raw data (`max_raw_memory_mb`), in
    /// MiB: the render's budget (`DecodeOptions.maxRawMemory`, which the render request sets from
    /// `--max-memory`), and at least 64 MiB, below which LibRaw cannot unpack even a small camera's
    /// file (the render's own estimate refuses such a raw first).
    public static func libRawLimitMB(_ options: DecodeOptions) -> UInt32 {
        UInt32(clamping: max(64, options.maxRawMemory >> 20))
    }

    /// A C string field of LibRaw's, as text fit for a one-line message: a damaged file's bytes
    /// land in these fields, so control characters (an ESC a terminal would obey, a newline that
    /// would split the line) and what is not UTF-8 are dropped, and spaces collapsed.
    private static func string<T>(_ tuple: T) -> String {
        let text = withUnsafeBytes(of: tuple) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        let kept = text.unicodeScalars.filter { !$0.properties.generalCategory.isControlOrFormat && $0 != "\u{FFFD}" }
        return String(String.UnicodeScalarView(kept)).split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    static func rawInfo(_ c: rcp_raw_info) -> RawImageInfo {
        let m = [c.cam_mul.0, c.cam_mul.1, c.cam_mul.2].map(Double.init)
        let d = [c.pre_mul.0, c.pre_mul.1, c.pre_mul.2].map(Double.init)
        func normalised(_ v: [Double]) -> [Double]? {
            guard v.allSatisfy({ $0 > 0 && $0.isFinite }), v[1] > 0 else { return nil }
            return v.map { $0 / v[1] }
        }
        let x = c.cam_xyz
        let xyz = [x.0.0, x.0.1, x.0.2, x.1.0, x.1.1, x.1.2, x.2.0, x.2.1, x.2.2].map(Double.init)
        let r = c.rgb_cam
        let rgb = [r.0.0, r.0.1, r.0.2, r.1.0, r.1.1, r.1.2, r.2.0, r.2.1, r.2.2].map(Double.init)
        let formats = [1: "JPEG", 2: "8-bit bitmap", 3: "16-bit bitmap", 4: "layered bitmap", 5: "Rollei bitmap"]
        let dng = c.dng_version
        return RawImageInfo(
            make: string(c.make), model: string(c.model), lens: string(c.lens), decoder: string(c.decoder),
            rawWidth: Int(c.raw_width), rawHeight: Int(c.raw_height), colors: Int(c.colors), cfa: string(c.cfa),
            black: Int(c.black), white: Int(c.maximum),
            asShot: normalised(m), daylight: normalised(d) ?? [1, 1, 1], xyzToCamera: xyz, libRawCameraToSRGB: rgb,
            dngVersion: dng == 0 ? nil : "\(dng >> 24).\(dng >> 16 & 255).\(dng >> 8 & 255).\(dng & 255)",
            baselineExposure: Double(c.baseline_exposure),
            // LibRaw names the preview's format only once it is read (tformat is 0 until then).
            preview: c.thumb_length > 0 && c.thumb_width > 0 && c.thumb_height > 0
                ? (formats[Int(c.thumb_format)] ?? "", Int(c.thumb_width), Int(c.thumb_height), Int(c.thumb_length)) : nil,
            iso: c.iso > 0 ? Double(c.iso) : nil, shutter: c.shutter > 0 ? Double(c.shutter) : nil,
            aperture: c.aperture > 0 ? Double(c.aperture) : nil, focalLength: c.focal_length > 0 ? Double(c.focal_length) : nil,
            timestamp: c.timestamp > 0 ? Int(c.timestamp) : nil,
            gps: c.has_gps != 0 ? (c.latitude, c.longitude, c.altitude) : nil,
            lensMake: string(c.lens_make), lensID: c.lens_id >= 0 ? Int64(c.lens_id) : nil,
            focalLength35mm: c.focal_length_35mm > 0 ? Double(c.focal_length_35mm) : nil,
            lensSpecification: c.lens_min_focal > 0 && c.lens_max_focal >= c.lens_min_focal
                ? (Double(c.lens_min_focal), Double(c.lens_max_focal), c.lens_max_aperture_wide > 0 ? Double(c.lens_max_aperture_wide) : nil,
                   c.lens_max_aperture_tele > 0 ? Double(c.lens_max_aperture_tele) : nil) : nil)
    }

    /// EXIF orientation for LibRaw's flip code (dcraw's `"50132467"[orientation]` read backwards).
    static func orientation(libRawFlip flip: Int) -> Orientation {
        switch flip {
        case 1: .upMirrored
        case 2: .downMirrored
        case 3: .down
        case 4: .leftMirrored
        case 5: .left
        case 6: .right
        case 7: .rightMirrored
        default: .up
        }
    }

    /// A failure to open, in words, with the camera when LibRaw identified one.
    static func openError(_ code: Int32, info c: rcp_raw_info, path: String) -> ImageError {
        let camera = RawImageInfo.camera(make: string(c.make), model: string(c.model))
        let named = string(c.model).isEmpty && string(c.make).isEmpty ? "" : camera + ": "
        if code == 1 { return ImageError(.unsupported, path: path, "LibRaw cannot be loaded") }
        if code == Int32(RCP_RAW_FILE_UNSUPPORTED), !named.isEmpty {
            return ImageError(.unsupported, path: path, named + "LibRaw \(libRawVersion ?? "") names the camera but cannot read this file: its raw data is missing, or in a variant it does not know (LibRaw: unsupported file format or not RAW file)")
        }
        return ImageError(problem(code) == .corrupt ? .corrupt : problem(code), path: path, named + words(code))
    }

    private static func problem(_ code: Int32) -> ImageError.Kind {
        switch code {
        case Int32(RCP_RAW_FILE_UNSUPPORTED): .unsupported
        case Int32(RCP_RAW_TOO_BIG), Int32(RCP_RAW_UNSUFFICIENT_MEMORY), Int32(RCP_RAW_MEMPOOL_OVERFLOW): .tooLarge
        case Int32(RCP_RAW_IO_ERROR): .damaged
        default: .corrupt
        }
    }

    /// LibRaw's error codes in words (its own message follows in brackets).
    static func words(_ code: Int32) -> String {
        let said = String(cString: rcp_raw_strerror(code))
        let words: String = switch code {
        case Int32(RCP_RAW_FILE_UNSUPPORTED): "not a raw format LibRaw \(libRawVersion ?? "") can read, or not a raw file"
        case Int32(RCP_RAW_IO_ERROR): "the file ends before its image data (truncated, or its pixel data stripped)"
        case Int32(RCP_RAW_DATA_ERROR): "the raw image data is corrupt"
        case Int32(RCP_RAW_TOO_BIG): "the image declares a size beyond LibRaw's limits"
        case Int32(RCP_RAW_UNSUFFICIENT_MEMORY), Int32(RCP_RAW_MEMPOOL_OVERFLOW): "not enough memory to unpack the raw data within LibRaw's limit"
        case Int32(RCP_RAW_REQUEST_FOR_NONEXISTENT_IMAGE): "the file holds no such image"
        case Int32(RCP_RAW_NOT_IMPLEMENTED): "this variant of the format is not implemented by LibRaw"
        case Int32(RCP_RAW_BAD_CROP): "the file's crop is outside its image"
        default: "LibRaw could not read it"
        }
        return "\(words) (LibRaw: \(said.prefix(1).lowercased() + said.dropFirst()))"
    }

    /// LibRaw's version, nil when it cannot be loaded (for `recipe --version`).
    public static var libRawVersion: String? { rcp_raw_version().map { String(cString: $0) } }

    public func start(scaleDenominator: Int) throws(ImageError) {
        precondition(image == nil, "decoder started twice")
        guard let handle, let raw = info.raw else { throw ImageError(.corrupt, path: path, "the raw file is closed") }
        let develop = options.develop
        let plan = RawDevelopPlan(develop, raw: raw, scaleDenominator: scaleDenominator)
        let half = plan.half
        // Raw data is compressed 3:1 at the most (lossless JPEG, Canon's CRX, Nikon's Huffman): a
        // file under half a bit a pixel has lost its pixel data (a metadata sample, a cut
        // download), and unpacking it would decode noise for seconds. Refused before LibRaw starts.
        var st = stat()
        let declared = raw.rawWidth * raw.rawHeight
        if stat(path, &st) == 0, declared > 0, Int(st.st_size) < declared / 16 {
            let what = "the file is \(st.st_size) bytes, too few for the \(raw.rawWidth)×\(raw.rawHeight) sensor its header declares: its pixel data is missing or cut"
            guard options.allowDamaged else {
                throw ImageError(.damaged, path: path, "\(raw.camera): \(what) (--allow-damaged renders what can be decoded)")
            }
            warnings.append(ImageWarning(path: path, "\(raw.camera): \(what); rendered as decoded"))
        }
        if plan.isStage {
            var mosaic = rcp_raw_mosaic()
            var problems = rcp_raw_problems()
            var status = rcp_raw_unpack_mosaic(handle, libRawLimit, &mosaic, &problems)
            if status == Int32(RCP_RAW_IO_ERROR), reopenPadded(raw), let padded = self.handle {
                problems = rcp_raw_problems()
                status = rcp_raw_unpack_mosaic(padded, libRawLimit, &mosaic, &problems)
            }
            if status == 0 {
                try checkProblems(problems, camera: raw.camera)
                let full = develop.demosaic == .halfSize ? ((width - 1) * 2 + 1...width * 2, (height - 1) * 2 + 1...height * 2)
                                                          : (width...width, height...height)
                guard full.0.contains(Int(mosaic.width)), full.1.contains(Int(mosaic.height)) else {
                    throw ImageError(.unsupported, path: path, "\(raw.camera): the mosaic is \(mosaic.width)×\(mosaic.height), not the \(width)×\(height) the header declares")
                }
                let frame = RawMosaic(borrowing: mosaic.raw, pitch: Int(mosaic.raw_pitch), top: Int(mosaic.top), left: Int(mosaic.left),
                                      width: Int(mosaic.width), height: Int(mosaic.height),
                                      pattern: [mosaic.pattern.0, mosaic.pattern.1, mosaic.pattern.2, mosaic.pattern.3].map(Int.init),
                                      black: [mosaic.black.0, mosaic.black.1, mosaic.black.2, mosaic.black.3], maximum: mosaic.maximum)
                let stage = plan.stage(shaded(frame, raw), daylight: raw.daylight) { [weak self] in self?.close() }
                (width, height) = (stage.width, stage.height)
                undeveloped = stage
                return
            }
            if status != 1 { throw ImageError(Self.problem(status), path: path, "\(raw.camera): \(Self.words(status))") }
            // Not a plain Bayer mosaic after all: LibRaw develops it (AHD), from a fresh handle.
            rcp_raw_close(self.handle)
            var c = rcp_raw_info()
            var code: Int32 = 0
            guard let reopened = rcp_raw_open(path, &c, &code) else { throw Self.openError(code, info: c, path: path) }
            self.handle = reopened
        }
        guard let handle = self.handle else { throw ImageError(.corrupt, path: path, "the raw file is closed") }
        if raw.opcodes?.gainMaps.isEmpty == false {
            warnings.append(ImageWarning(path: path, "\(raw.camera): the lens shading of OpcodeList2 (GainMap) is applied by recipe's own develop only; LibRaw's develop, which this photo takes, renders it uncorrected"))
        }
        var d = rcp_raw_develop()
        d.quality = develop.demosaic.libRawQuality
        d.half_size = half ? 1 : 0
        let (mode, m) = (plan.libRawMode, plan.libRawMultipliers)
        d.white_balance = mode
        if case .asShot = develop.whiteBalance, raw.asShot == nil {
            warnings.append(ImageWarning(path: path, "\(raw.camera): no as-shot white balance in the file; balanced automatically (grey world), as LibRaw does"))
        }
        if mode == 2 || mode == 3 {
            let g = m[1]
            d.multipliers = (Float(m[0] / g), 1, Float(m[2] / g), 1)
            d.white_balance = 2
        }
        d.highlight = develop.highlights.libRawMode
        d.aberration_red = develop.chromaticAberration.red
        d.aberration_blue = develop.chromaticAberration.blue
        d.noise_threshold = Float(develop.noiseThreshold)
        d.max_memory_mb = libRawLimit
        var problems = rcp_raw_problems()
        var status = rcp_raw_develop_image(handle, &d, &problems)
        if status == Int32(RCP_RAW_IO_ERROR), reopenPadded(raw), let padded = self.handle {
            problems = rcp_raw_problems()
            status = rcp_raw_develop_image(padded, &d, &problems)
        }
        let camera = raw.camera
        if status != 0 {
            throw ImageError(Self.problem(status), path: path, "\(camera): \(Self.words(status))")
        }
        try checkProblems(problems, camera: camera)
        var w: Int32 = 0, h: Int32 = 0
        var gain = 1.0
        guard let pixels = rcp_raw_image(handle, &w, &h, &gain), w > 0, h > 0 else {
            throw ImageError(.corrupt, path: path, "\(camera): LibRaw developed no image")
        }
        let expected = half && develop.demosaic != .halfSize ? ((width + 1) / 2, (height + 1) / 2) : (width, height)
        guard (Int(w), Int(h)) == expected else {
            throw ImageError(.unsupported, path: path, "\(camera): the developed image is \(w)×\(h), not the \(expected.0)×\(expected.1) the header declares (a sensor layout recipe does not develop yet, such as Fuji's SuperCCD)")
        }
        (width, height) = (Int(w), Int(h))
        image = pixels
        // The rows are promised on the scale `headroom` says; LibRaw's own scale differs only for
        // an auto white balance that keeps highlights.
        rescale = gain / plan.headroom
    }

    /// The mosaic with the DNG's `OpcodeList2` gain maps (a phone's lens shading) multiplied in,
    /// a copy; the frame itself when there are none, or (with a warning) when the maps were made
    /// for an image of another size than LibRaw's visible mosaic.
    private func shaded(_ frame: RawMosaic, _ raw: RawImageInfo) -> RawMosaic {
        guard let opcodes = raw.opcodes, !opcodes.gainMaps.isEmpty else { return frame }
        guard frame.width == opcodes.imageWidth, frame.height == opcodes.imageHeight else {
            warnings.append(ImageWarning(path: path, "\(raw.camera): the lens shading of OpcodeList2 (GainMap) is for a \(opcodes.imageWidth)×\(opcodes.imageHeight) image, but the mosaic is \(frame.width)×\(frame.height); rendered uncorrected"))
            return frame
        }
        return DNGGainMap.apply(opcodes.gainMaps, to: frame)
    }

    /// With `--allow-damaged`, a file LibRaw found cut short is opened again from memory with
    /// zeros where the rest should be (as much as a 16-bit mosaic of its sensor could need), so
    /// what is there develops and the missing part is black, with a warning. False without the
    /// flag, or when it cannot be read so.
    private func reopenPadded(_ raw: RawImageInfo) -> Bool {
        guard options.allowDamaged else { return false }
        var c = rcp_raw_info()
        var code: Int32 = 0
        guard let padded = rcp_raw_open_padded(path, raw.rawWidth * raw.rawHeight * 2 + 65536, &c, &code) else { return false }
        rcp_raw_close(handle)
        handle = padded
        warnings.append(ImageWarning(path: path, "\(raw.camera): the file ends before its image data does (truncated, or its pixel data cut); what is missing is rendered black"))
        return true
    }

    /// Data errors LibRaw met while unpacking: refused as damaged unless `--allow-damaged`.
    private func checkProblems(_ problems: rcp_raw_problems, camera: String) throws(ImageError) {
        guard problems.data_errors > 0 else { return }
        let what = problems.end_of_file != 0 ? "the raw data ends before the image does (the file is truncated or its pixel data cut)"
            : "the raw data is corrupt at byte \(problems.first_offset)\(problems.data_errors > 1 ? " (\(problems.data_errors) errors)" : "")"
        guard options.allowDamaged else {
            throw ImageError(.damaged, path: path, "\(camera): \(what) (--allow-damaged renders what was decoded)")
        }
        warnings.append(ImageWarning(path: path, "\(camera): \(what); rendered as decoded"))
    }

    public func decodingBytes(scaleDenominator: Int) -> Int {
        guard let raw = info.raw else { return 0 }
        let plan = RawDevelopPlan(options.develop, raw: raw, scaleDenominator: scaleDenominator)
        let mosaic = raw.rawWidth * raw.rawHeight * 2
        // recipe's own develop: the mosaic, which the demosaic stage reads (its own rows are its
        // part of the estimate).
        // A DNG's lens shading (GainMap) is multiplied into a copy of the mosaic.
        if plan.isStage { return raw.opcodes?.gainMaps.isEmpty == false ? 2 * mosaic : mosaic }
        let half = plan.half
        let pixels = half ? ((width + 1) / 2) * ((height + 1) / 2) : width * height
        // LibRaw's 4-sample image, its raw copy, and the demosaic's working tiles (AHD: three
        // 512×512 tiles of 2 + 4 + 4 + 1 bytes a pixel per thread).
        return mosaic + pixels * 8 + (half ? 0 : 2 * 512 * 512 * 33)
    }

    public func readRows(into buffer: PixelBuffer) throws -> Int {
        precondition(buffer.width == width && buffer.format == format, "strip does not match the decoder")
        guard undeveloped == nil else {
            throw ImageError(.unsupported, path: path, "this raw's develop is a render stage: its rows come from DemosaicStage.rows(of:)")
        }
        guard nextRow < height, image != nil else {
            buffer.rowCount = 0
            return 0
        }
        let n = developedRows(into: buffer)
        buffer.rowCount = n
        buffer.originY = nextRow
        nextRow += n
        if nextRow == height { close() }
        return n
    }

    /// The next rows of LibRaw's developed image (4 samples a pixel, the first three kept), put
    /// on the scale `headroom` promised.
    private func developedRows(into buffer: PixelBuffer) -> Int {
        guard let image else { return 0 }
        let n = min(buffer.rowCapacity, height - nextRow)
        let scale = rescale
        for i in 0..<n {
            let src = image + (nextRow + i) * width * 4
            let dst = buffer.samples(i, as: UInt16.self)
            if abs(scale - 1) < 1e-6 {
                for x in 0..<width {
                    dst[3 * x] = src[4 * x]
                    dst[3 * x + 1] = src[4 * x + 1]
                    dst[3 * x + 2] = src[4 * x + 2]
                }
            } else {
                for x in 0..<width * 4 where x & 3 != 3 {
                    dst[3 * (x >> 2) + (x & 3)] = UInt16(min(65535, (Double(src[x]) * scale).rounded()))
                }
            }
        }
        return n
    }
}
