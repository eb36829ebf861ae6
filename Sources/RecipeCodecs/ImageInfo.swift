import RecipeCore

/// File formats the codecs read and write.
public enum ImageFileFormat: String, Sendable, CaseIterable {
    case jpeg = "JPEG"
    case png = "PNG"

    /// Recognises a format by its first bytes (never by the file name).
    public static func sniff(_ bytes: [UInt8]) -> ImageFileFormat? {
        if bytes.count >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF { return .jpeg }
        if bytes.count >= 8 && bytes.prefix(8).elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            return .png
        }
        return nil
    }

    /// The output format for a file name's extension (`.jpg`, `.jpeg`, `.png`, any case).
    public init?(pathExtension path: String) {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: ".") else { return nil }
        switch name[name.index(after: dot)...].lowercased() {
        case "jpg", "jpeg", "jpe": self = .jpeg
        case "png": self = .png
        default: return nil
        }
    }
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

    /// 2^28 pixels (about 268 MP): a 16384×16384 image, beyond any camera sold today.
    public static let defaultMaxPixels = 1 << 28

    public init(maxPixels: Int = DecodeOptions.defaultMaxPixels, allowDamaged: Bool = false) {
        self.maxPixels = maxPixels
        self.allowDamaged = allowDamaged
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
}

/// Opens the right decoder for a file, by content.
public enum ImageDecoders {
    public static func open(_ path: String, options: DecodeOptions = DecodeOptions()) throws(ImageError) -> any ImageDecoder {
        let head = try InputFile.prefix(path, count: 8)
        switch ImageFileFormat.sniff(head) {
        case .jpeg: return try JPEGDecoder(path: path, options: options)
        case .png: return try PNGDecoder(path: path, options: options)
        case nil where head.starts(with: [0x89, 0x50, 0x4E, 0x47]) || head.dropFirst().starts(with: [0x50, 0x4E, 0x47, 0x0D]):
            throw ImageError(.corrupt, path: path, "damaged PNG signature (was the file copied in text mode?)")
        case nil:
            let shown = head.prefix(4).map { hexByte($0) }.joined(separator: " ")
            throw ImageError(.corrupt, path: path, "not a JPEG or PNG file (starts with \(shown))")
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
