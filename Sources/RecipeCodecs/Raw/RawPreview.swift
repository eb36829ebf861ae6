internal import CRawLoader
import RecipeCore

/// The JPEG preview a camera embeds in its raw file: its own rendering of the photo, made when it
/// was taken, usually 1–2 MP (some cameras store the full size). Decoding it takes a few
/// milliseconds where a develop takes most of a second, so thumbnails of raws (the preview page's
/// folder grid, the original in `recipe history --sheet`) are drawn from it when it is large
/// enough. It is the camera's look (its tone curve and white balance), not the develop's: a
/// thumbnail from it shows the stages after `develop` on the camera's picture.
///
/// ```swift
/// if let preview = try RawPreview.jpeg(of: "IMG_0001.CR2", atLeast: 240) {
///     preview.jpeg      // a JPEG file's bytes, with the raw's EXIF (orientation, camera, exposure)
/// }
/// ```
public struct RawPreview: Sendable {
    /// A whole JPEG file: the camera's preview with the raw's EXIF block in its APP1 segment (in
    /// place of the preview's own, if any), so it shows upright and carries the raw's facts.
    public var jpeg: [UInt8]
    /// The preview's size as stored (before the orientation).
    public var width: Int
    public var height: Int

    /// The embedded preview of the raw file at `path` when it is a JPEG whose long edge is at
    /// least `longEdge` and whose shape is the raw image's (within 2%: a preview with black bars
    /// or stored already turned would not line up); nil when there is none such.
    /// Any other photo is nil from its first bytes, without loading LibRaw; the file is opened as
    /// photos are (a FIFO or a device is refused, never waited on).
    public static func jpeg(of path: String, atLeast longEdge: Int, options: DecodeOptions = DecodeOptions()) throws(ImageError) -> RawPreview? {
        let head = try InputFile.prefix(path, count: RawDetection.probeLength)
        switch ImageFileFormat.sniff(head) {
        case .jpeg, .png, .heif, .avif, .webp: return nil
        case .tiff where !RawDetection.isRawTIFF(head): return nil
        default: break
        }
        let raw = try RawDecoder(path: path, options: options)
        guard let facts = raw.info.raw, let stored = raw.embeddedJPEG(),
              max(stored.width, stored.height) >= longEdge, stored.width > 0, stored.height > 0 else { return nil }
        let shape = Double(raw.info.width) / Double(raw.info.height)
        guard abs(Double(stored.width) / Double(stored.height) / shape - 1) <= 0.02 else { return nil }
        let exif = facts.exifBlock(orientation: raw.info.orientation, width: stored.width, height: stored.height)
        guard let jpeg = withEXIF(stored.bytes, exif) else { return nil }
        return RawPreview(jpeg: jpeg, width: stored.width, height: stored.height)
    }

    /// `jpeg` with its APP1 EXIF segments replaced by one holding `exif` (none when nil), put
    /// after the start-of-image marker and any APP0 (JFIF). Nil when the bytes are not a JPEG
    /// whose segments can be walked up to the first non-APP marker.
    static func withEXIF(_ jpeg: [UInt8], _ exif: [UInt8]?) -> [UInt8]? {
        guard jpeg.count > 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { return nil }
        var kept: [UInt8] = []
        var afterJFIF: [UInt8] = []
        var i = 2
        // APPn segments (E0–EF) come first; the walk stops at the first other marker.
        while i + 4 <= jpeg.count, jpeg[i] == 0xFF, (0xE0...0xEF).contains(jpeg[i + 1]) {
            let length = Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3])
            guard length >= 2, i + 2 + length <= jpeg.count else { return nil }
            let segment = jpeg[i..<(i + 2 + length)]
            let isEXIF = jpeg[i + 1] == 0xE1 && segment.dropFirst(4).starts(with: Array("Exif\0\0".utf8))
            if jpeg[i + 1] == 0xE0 && kept.isEmpty && afterJFIF.isEmpty { kept += segment }
            else if !isEXIF { afterJFIF += segment }
            i += 2 + length
        }
        var out: [UInt8] = [0xFF, 0xD8] + kept
        if let exif {
            let body = Array("Exif\0\0".utf8) + exif
            guard body.count + 2 <= 0xFFFF else { return nil }
            out += [0xFF, 0xE1, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 255)] + body
        }
        return out + afterJFIF + jpeg[i...]
    }
}

extension RawDecoder {
    /// The embedded preview's bytes when it is a JPEG (LibRaw reads it from the file; nothing of
    /// the mosaic is unpacked). Before `start` only.
    func embeddedJPEG() -> (bytes: [UInt8], width: Int, height: Int)? {
        guard let handle = libRawHandle else { return nil }
        var length = 0, format: Int32 = 0, width: Int32 = 0, height: Int32 = 0, colors: Int32 = 0, code: Int32 = 0
        guard let bytes = rcp_raw_thumbnail(handle, &length, &format, &width, &height, &colors, &code),
              format == 1, length > 4 else { return nil }
        return (Array(UnsafeBufferPointer(start: bytes, count: length)), Int(width), Int(height))
    }
}
