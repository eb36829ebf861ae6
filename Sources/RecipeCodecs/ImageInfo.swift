import RecipeCore

/// File formats the codecs read and write.
public enum ImageFileFormat: String, Sendable, CaseIterable {
    case jpeg = "JPEG"
    case png = "PNG"
    case tiff = "TIFF"
    case webp = "WebP"
    /// HEIF with HEVC images (HEIC: the iPhone's photos).
    case heif = "HEIF"
    /// HEIF with AV1 images.
    case avif = "AVIF"
    /// A camera's raw sensor data (DNG, CR2, NEF, …), read through LibRaw: input only.
    case raw = "camera raw"

    /// How many leading bytes `sniff` wants (a HEIF names its brands in its first box).
    public static let sniffLength = 64

    /// Recognises a format by its first bytes (never by the file name).
    public static func sniff(_ bytes: [UInt8]) -> ImageFileFormat? {
        if bytes.count >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF { return .jpeg }
        if bytes.count >= 8 && bytes.prefix(8).elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            return .png
        }
        // Classic TIFF (II*\0, MM\0*) and BigTIFF (II+\0, MM\0+).
        if bytes.count >= 4 && ((bytes[0] == 0x49 && bytes[1] == 0x49 && (bytes[2] == 0x2A || bytes[2] == 0x2B) && bytes[3] == 0)
            || (bytes[0] == 0x4D && bytes[1] == 0x4D && bytes[2] == 0 && (bytes[3] == 0x2A || bytes[3] == 0x2B))) {
            return .tiff
        }
        if bytes.count >= 12 && bytes[0..<4].elementsEqual("RIFF".utf8) && bytes[8..<12].elementsEqual("WEBP".utf8) {
            return .webp
        }
        return heifBrand(bytes)
    }

    /// A HEIF by its `ftyp` box: AVIF when the major brand or a compatible one says AV1 (`avif`,
    /// `avis`), HEIF for the HEVC and generic image brands.
    static func heifBrand(_ bytes: [UInt8]) -> ImageFileFormat? {
        guard bytes.count >= 16, bytes[4..<8].elementsEqual("ftyp".utf8) else { return nil }
        let size = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        let end = min(max(size, 16), bytes.count)
        let major = String(decoding: bytes[8..<12], as: UTF8.self)
        var brands = [major]
        var i = 16
        while i + 4 <= end {
            brands.append(String(decoding: bytes[i..<(i + 4)], as: UTF8.self))
            i += 4
        }
        let av1: Set = ["avif", "avis"]
        let hevc: Set = ["heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs"]
        let generic: Set = ["mif1", "msf1", "miaf"]
        if av1.contains(major) { return .avif }
        if hevc.contains(major) { return .heif }
        if brands.contains(where: hevc.contains) { return .heif }
        if brands.contains(where: av1.contains) { return .avif }
        return brands.contains(where: generic.contains) ? .heif : nil
    }

    /// The output format for a file name's extension (`.jpg`, `.jpeg`, `.png`, `.tif`, `.tiff`,
    /// `.webp`, `.heic`, `.heif`, `.hif`, `.avif`, any case).
    public init?(pathExtension path: String) {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: ".") else { return nil }
        switch name[name.index(after: dot)...].lowercased() {
        case "jpg", "jpeg", "jpe": self = .jpeg
        case "png": self = .png
        case "tif", "tiff": self = .tiff
        case "webp": self = .webp
        case "heic", "heif", "hif": self = .heif
        case "avif": self = .avif
        default: return nil
        }
    }

    /// The extension an output in this format gets when none is given.
    public var preferredExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .tiff: "tif"
        case .webp: "webp"
        case .heif: "heic"
        case .avif: "avif"
        case .raw: "jpg"  // a raw is never written: its renders are JPEGs unless asked otherwise
        }
    }

    /// Every extension `init(pathExtension:)` knows, lower case (what `apply` walks by default).
    public static let knownExtensions = ["jpg", "jpeg", "jpe", "png", "tif", "tiff", "webp", "heic", "heif", "hif", "avif"]
}

/// What a decoder learned from a file's header, before any pixel is decoded.
public struct ImageInfo: Sendable {
    public var format: ImageFileFormat
    /// Stored size (before orientation is applied).
    public var width: Int
    public var height: Int
    /// Colour model of the decoded rows.
    public var colorModel: ColorModel
    /// Bits per sample in the file (1, 2, 4, 8, 12 or 16).
    public var bitDepth: Int
    /// The file's own colour encoding ("YCbCr", "grayscale", "CMYK (Adobe, inverted)", "palette", …).
    public var fileColorSpace: String
    /// Progressive JPEG, or interlaced (Adam7) PNG.
    public var progressive: Bool
    /// Format-specific facts for `recipe info` (chroma subsampling, entropy coding, gamma …).
    public var details: [(label: String, value: String)] = []
    public var metadata: ImageMetadata
    /// A camera raw file's camera, mosaic and colour (nil for other formats).
    public var raw: RawImageInfo?

    /// Orientation from EXIF.
    public var orientation: Orientation { metadata.orientation }
    /// Size once upright.
    public var uprightSize: (width: Int, height: Int) { orientation.orientedSize(width: width, height: height) }
}

/// Limits and policies for decoding untrusted files.
public struct DecodeOptions: Sendable {
    /// Files declaring more pixels than this are refused before any large allocation.
    public var maxPixels: Int = DecodeOptions.defaultMaxPixels
    /// Render what was decoded from a truncated or damaged stream (with a warning) instead of failing.
    public var allowDamaged: Bool = false
    /// Progressive JPEGs with more scans than this are refused (a CPU-exhaustion guard).
    public var maxProgressiveScans: Int = 1000
    /// How a camera raw file is developed (the recipe's `develop` stage; other formats ignore it).
    public var develop = RawDevelop()
    /// LibRaw's own limit on what it allocates for a raw file's data, in bytes: a render sets it
    /// from its budget (`RenderRequest.decodeOptions`); LibRaw's default, 2 GiB, otherwise.
    public var maxRawMemory: Int = 2 << 30

    /// 2^28 pixels (about 268 MP): a 16384×16384 image, beyond any camera sold today.
    public static let defaultMaxPixels = PixelLimits.defaultMaxPixels

    public init(maxPixels: Int = DecodeOptions.defaultMaxPixels, allowDamaged: Bool = false, develop: RawDevelop = RawDevelop()) {
        self.maxPixels = maxPixels
        self.allowDamaged = allowDamaged
        self.develop = develop
    }
}

/// A decoder: header facts first, then rows on demand.
public protocol ImageDecoder: RowSource {
    var info: ImageInfo { get }
    /// Problems that did not stop decoding so far (grows while rows are read).
    var warnings: [ImageWarning] { get }
    /// DCT-domain reduction factors the decoder can apply (1 = none).
    var supportedScaleDenominators: [Int] { get }
    /// Chooses the reduction and starts decoding; `width`/`height`/`format` are final afterwards.
    func start(scaleDenominator: Int) throws(ImageError)
    /// What decoding holds at its peak besides the rows it hands out, from the header alone
    /// (before `start`): a progressive JPEG's coefficients, a whole-image decode, the library's
    /// working rows. For the memory estimate a render is checked against before decoding.
    func decodingBytes(scaleDenominator: Int) -> Int
}

/// A decoder that can start on a window of the image at full size, decoding little or nothing
/// of what lies outside it (`JPEGDecoder.start(window:)`): returns the rectangle its rows then
/// cover, which holds the window.
public protocol WindowDecoding: ImageDecoder {
    func start(window: (x: Int, y: Int, width: Int, height: Int), scaleDenominator: Int) throws(ImageError)
        -> (x: Int, y: Int, width: Int, height: Int)
}

extension JPEGDecoder: WindowDecoding {}

/// A decoder of files that may store CMYK (JPEG, TIFF): given a converter (the colour module's
/// transform through the photo's profile), it hands out 16-bit RGB rows instead.
public protocol CMYKDecoding: ImageDecoder {
    /// Whether the file stores CMYK (or YCCK) samples.
    var storesCMYK: Bool { get }
    /// Set before `start`; nil keeps the plain device formula.
    var cmykConverter: JPEGDecoder.CMYKConverter? { get set }
}

extension JPEGDecoder: CMYKDecoding {}
extension TIFFDecoder: CMYKDecoding {}

/// Opens the right decoder for a file, by content.
public enum ImageDecoders {
    public static func open(_ path: String, options: DecodeOptions = DecodeOptions()) throws(ImageError) -> any ImageDecoder {
        let head = try InputFile.prefix(path, count: ImageFileFormat.sniffLength)
        switch ImageFileFormat.sniff(head) {
        case .jpeg: return try JPEGDecoder(path: path, options: options)
        case .png: return try PNGDecoder(path: path, options: options)
        case .heif: return try HEIFDecoder(path: path, options: options, format: .heif)
        case .avif: return try HEIFDecoder(path: path, options: options, format: .avif)
        case .webp: return try WebPDecoder(path: path, options: options)
        case .tiff:
            // DNG, CR2, NEF, ARW, PEF … are TIFF files: LibRaw reads those, libtiff the rest.
            if RawDetection.isRawTIFF(try InputFile.prefix(path, count: RawDetection.probeLength)) {
                return try RawDecoder(path: path, options: options)
            }
            return try TIFFDecoder(path: path, options: options)
        case .raw: return try RawDecoder(path: path, options: options)
        case nil where head.count >= 4 && head.starts(with: [0xFF, 0xD8]):
            // A JPEG's start-of-image marker, then no marker where one must begin.
            throw ImageError(.corrupt, path: path, "damaged JPEG: no marker at byte 2, after the start-of-image marker "
                + "(found \(hexByte(head[2])) \(hexByte(head[3])) where a marker begins with FF)")
        case nil where head.starts(with: [0x89, 0x50, 0x4E, 0x47]) || head.dropFirst().starts(with: [0x50, 0x4E, 0x47, 0x0D]):
            throw ImageError(.corrupt, path: path, "damaged PNG signature (was the file copied in text mode?)")
        case nil:
            // The raw formats with magic of their own (ORF, RW2, RAF, CR3, MRW, QuickTake, …):
            // LibRaw recognises them by content, or says it cannot.
            do {
                return try RawDecoder(path: path, options: options)
            } catch where error.kind == .unsupported && error.reason.hasPrefix("not a raw format") {
                let shown = head.prefix(4).map { hexByte($0) }.joined(separator: " ")
                throw ImageError(.corrupt, path: path, "not a JPEG, PNG, TIFF, WebP, HEIF, AVIF or camera raw file (it starts with \(shown))")
            }
        }
    }
}

func hexByte(_ b: UInt8) -> String {
    let s = String(b, radix: 16, uppercase: true)
    return s.count == 1 ? "0" + s : s
}

/// Lower-cases the first letter of a library message so every error line reads alike.
func sentence(_ message: String) -> String {
    guard let first = message.first, first.isUppercase, message.dropFirst().first?.isLowercase ?? true else { return message }
    return first.lowercased() + message.dropFirst()
}
