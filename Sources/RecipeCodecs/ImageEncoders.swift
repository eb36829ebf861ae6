import RecipeCore
#if canImport(Glibc)
import Glibc
#endif

/// An encoder: rows in, a file out, and what it could not carry over as warnings.
public protocol ImageEncoder: RowSink {
    /// Blocks or settings the format could not hold (an EXIF block over a JPEG segment's 64 KB).
    var warnings: [String] { get }
}

extension JPEGEncoder: ImageEncoder {}
extension PNGEncoder: ImageEncoder {}
extension HEIFEncoder: ImageEncoder {}
extension WebPEncoder: ImageEncoder {}
extension TIFFEncoder: ImageEncoder {}

/// How every output format is encoded: one value the front ends (render, apply, edit) carry, so a
/// new format or option is added here once.
///
/// ```swift
/// var encoding = OutputEncoding()
/// encoding.setQuality(82)                     // each lossy format on its own scale
/// let sink = try ImageEncoders.open(.heif, handle: f, path: "out.heic", width: w, height: h,
///                                   format: ImageEncoders.pixelFormat(.heif, for: .rgb, deep: false),
///                                   metadata: meta, encoding: encoding)
/// ```
public struct OutputEncoding: Sendable, Equatable {
    public var jpeg = JPEGOptions()
    public var png = PNGOptions()
    public var heif = HEIFOptions()
    public var webp = WebPOptions(quality: 85)
    public var tiff = TIFFOptions()

    /// `--max-bytes` (or the recipe's `output: {max-bytes:}`): the most bytes a lossy output
    /// may have; a render then finds the highest quality whose file fits (`quality` is the
    /// highest it tries). nil: no limit.
    public var maxBytes: Int?
    /// The quality `setQuality` was given (nil: each format's default).
    public private(set) var explicitQuality: Int?

    public init() {}

    /// The quality an output in `format` is written at (nil: not a lossy format, or written
    /// lossless).
    public func quality(of format: ImageFileFormat) -> Int? {
        switch format {
        case .jpeg: jpeg.quality
        case .webp: webp.lossless ? nil : webp.quality
        case .heif, .avif: heif.lossless ? nil : heif.quality
        case .png, .tiff, .raw: nil
        }
    }

    /// This encoding with `format`'s quality set to `q` (a try of the `maxBytes` search).
    public func with(quality q: Int, for format: ImageFileFormat) -> OutputEncoding {
        var e = self
        switch format {
        case .jpeg: e.jpeg.quality = q
        case .webp: e.webp.quality = q
        case .heif, .avif: e.heif.quality = q
        case .png, .tiff, .raw: break
        }
        return e
    }

    /// `--quality`: the quality of every lossy format, each on its own scale (libjpeg's 1–100,
    /// libwebp's and libheif's 0–100). Unset, each keeps its default: JPEG 90, WebP 85,
    /// HEIC/AVIF 50 (libheif's and libvips' default).
    public mutating func setQuality(_ q: Int) {
        explicitQuality = q
        jpeg.quality = q
        webp.quality = q
        heif.quality = q
    }

    /// `--lossless`: the formats with a lossless mode use it (WebP, HEIC, AVIF).
    public var lossless: Bool {
        get { heif.lossless }
        set {
            heif.lossless = newValue
            webp.lossless = newValue
        }
    }

    /// The settings that change the bytes of an output in `format` (part of `apply`'s up-to-date
    /// key): another format's options do not make an output stale.
    public func key(for format: ImageFileFormat) -> String {
        let limit = maxBytes.map { quality(of: format) == nil ? "" : " max-bytes \($0)" } ?? ""
        return settingsKey(for: format) + limit
    }

    private func settingsKey(for format: ImageFileFormat) -> String {
        switch format {
        case .jpeg: "jpeg quality \(jpeg.quality) subsampling \(jpeg.subsampling) progressive \(jpeg.progressive) optimize \(jpeg.optimizeCoding)"
        case .png: "png level \(png.compressionLevel)"
        case .heif, .avif: "\(format.rawValue) quality \(heif.quality) lossless \(heif.lossless)"
        case .webp: "webp quality \(webp.quality) lossless \(webp.lossless) effort \(webp.effort)"
        case .tiff: "tiff compression \(tiff.compression.rawValue)"
        case .raw: "camera raw (not written)"
        }
    }
}

/// Opens the encoder for an output format.
public enum ImageEncoders {
    /// The rows an encoder of `format` takes for an image of `model` (`deep`: the photo has more
    /// than 8 bits, kept where the format can hold them): JPEG gray or RGB 8-bit; PNG and TIFF any
    /// model, 8 or 16 bits; HEIF RGB(A), 16-bit rows for a deep photo (written as 10 bits); AVIF
    /// and WebP RGB(A) 8-bit (AVIF is written 8-bit: see `HEIFEncoder`). A render's last stage
    /// writes these samples, so what the file holds is rounded once, from the floats.
    public static func pixelFormat(_ format: ImageFileFormat, for model: ColorModel, deep: Bool) -> PixelFormat {
        switch format {
        case .jpeg, .raw: PixelFormat(model.withoutAlpha, .uint8)
        case .png, .tiff: PixelFormat(model, deep ? .uint16 : .uint8)
        case .webp, .avif: PixelFormat(model.hasAlpha ? .rgba : .rgb, .uint8)
        case .heif: PixelFormat(model.hasAlpha ? .rgba : .rgb, deep ? .uint16 : .uint8)
        }
    }

    /// What encoding a `width`×`height` image of `pixels` into `format` holds at its peak, before
    /// the encoder exists (for the memory estimate a render is checked against):
    /// - JPEG: libjpeg's rows of samples and tables (about 48 bytes a column); progressive or
    ///   optimized output keeps every coefficient of the image (2 bytes each: 3 bytes a pixel at
    ///   4:2:0, 4 at 4:2:2, 6 at 4:4:4) until the last scan is written;
    /// - PNG: two rows and zlib's deflate state (about 256 KiB at level 6 and above);
    /// - TIFF: a strip of 64 KiB and its compressed copy;
    /// - WebP: the whole picture (see `WebPEncoder`: about 4.5 bytes a pixel lossy, 25 lossless,
    ///   measured);
    /// - HEIF, AVIF: the rows gathered for libheif, its YCbCr image and the encoder's own frames
    ///   (x265 or aom): 16 bytes a pixel and 24 MiB (measured: 23 bytes a pixel at 3 MP with either,
    ///   17.7 at 12 MP with x265); lossless, whose planes are all full size (4:4:4), 30 bytes a
    ///   pixel with x265 and 38 with aom (measured at 22 MP: 29 and 36).
    public static func encodingBytes(_ format: ImageFileFormat, width: Int, height: Int, pixels: PixelFormat,
                                     encoding: OutputEncoding) -> Int {
        let pixelCount = width * height
        switch format {
        case .jpeg, .raw:
            let whole = encoding.jpeg.progressive || encoding.jpeg.optimizeCoding
            let chroma = switch encoding.jpeg.subsampling {
            case .s420: 1
            case .s422: 2
            case .s444: 4
            }
            let perPixel = pixels.channels == 1 ? 2 : 2 + chroma
            return 48 * width + (256 << 10) + (whole ? perPixel * pixelCount : 0)
        case .png: return 2 * width * pixels.bytesPerPixel + (256 << 10)
        case .tiff: return 2 * max(64 << 10, width * pixels.bytesPerPixel) + (256 << 10)
        case .webp: return (encoding.webp.lossless ? 50 : 9) * pixelCount / 2 + (1 << 20)
        case .heif, .avif:
            let perPixel = encoding.heif.lossless ? (format == .avif ? 38 : 30) : 16
            return perPixel * pixelCount + (24 << 20)
        }
    }

    /// An encoder writing `format` to `handle` (the caller owns the file: flushing, closing,
    /// renaming into place). `pixels` must be `pixelFormat(format, …)`.
    public static func open(_ format: ImageFileFormat, handle: UnsafeMutablePointer<FILE>, path: String, width: Int, height: Int,
                            pixels: PixelFormat, metadata: ImageMetadata, encoding: OutputEncoding) throws(ImageError) -> any ImageEncoder {
        switch format {
        case .jpeg:
            return try JPEGEncoder(handle: handle, path: path, width: width, height: height, colorModel: pixels.colorModel,
                                   metadata: metadata, options: encoding.jpeg)
        case .png:
            return try PNGEncoder(handle: handle, path: path, width: width, height: height, format: pixels, metadata: metadata,
                                  options: encoding.png)
        case .heif, .avif:
            return try HEIFEncoder(handle: handle, path: path, width: width, height: height, format: pixels, codec: format,
                                   metadata: metadata, options: encoding.heif)
        case .webp:
            return try WebPEncoder(handle: handle, path: path, width: width, height: height, format: pixels, metadata: metadata,
                                   options: encoding.webp)
        case .tiff:
            return try TIFFEncoder(handle: handle, path: path, width: width, height: height, format: pixels, metadata: metadata,
                                   options: encoding.tiff)
        case .raw:
            throw ImageError(.writeFailed, path: path, "camera raw files are read, never written: name a .jpg, .png, .tif, .webp, .heic or .avif output")
        }
    }
}
