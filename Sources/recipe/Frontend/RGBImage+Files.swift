import RecipeCodecs
import RecipeCore
import RecipeRender
#if canImport(Glibc)
import Glibc
import RecipeSession
#endif

/// Whole-image reads and writes for small pictures (thumbnails, contact sheets): the codecs'
/// strips gathered into an RGBImage, and back out as a PNG.
extension RGBImage {
    /// Decodes a JPEG or PNG into 8-bit RGB (gray is spread to three channels, alpha dropped,
    /// 16-bit samples keep their high byte).
    static func read(_ path: String) throws -> RGBImage {
        let decoder = try ImageDecoders.open(path)
        try decoder.start(scaleDenominator: 1)
        let strip = PixelBuffer(width: decoder.width, rowCapacity: 16, format: decoder.format)
        var image = RGBImage(width: decoder.width, height: decoder.height, filledWith: .gray(0))
        var pixels = [UInt8](repeating: 0, count: decoder.width * decoder.height * 3)
        let channels = decoder.format.channels
        let wide = decoder.format.sampleType == .uint16
        while try decoder.readRows(into: strip) > 0 {
            for r in 0..<strip.rowCount {
                let row = strip.row(r)
                let y = strip.originY + r
                for x in 0..<decoder.width {
                    for c in 0..<3 {
                        let source = channels >= 3 ? c : 0
                        let i = x * channels + source
                        let v = wide ? row.load(fromByteOffset: 2 * i, as: UInt16.self) >> 8 : UInt16(row.load(fromByteOffset: i, as: UInt8.self))
                        pixels[(y * decoder.width + x) * 3 + c] = UInt8(v)
                    }
                }
            }
        }
        image = RGBImage(width: decoder.width, height: decoder.height, pixels: pixels)
        return image
    }

    /// Writes an 8-bit RGB PNG, atomically.
    func writePNG(_ path: String) throws {
        let out = try AtomicOutputFile(path: path)
        let format = PixelFormat(.rgb, .uint8)
        try out.writing {
            let encoder = try PNGEncoder(handle: out.handle, path: path, width: width, height: height, format: format, metadata: ImageMetadata())
            let strip = PixelBuffer(width: width, rowCapacity: 1, format: format)
            for y in 0..<height {
                pixels.withUnsafeBytes { src in
                    strip.row(0).copyMemory(from: src.baseAddress! + y * width * 3, byteCount: width * 3)
                }
                strip.rowCount = 1
                strip.originY = y
                try encoder.writeRows(from: strip)
            }
            try encoder.finish()
        }
        try out.commit()
    }
}

/// A private folder under $TMPDIR (or /tmp), removed with everything in it.
struct TemporaryFolder {
    let path: String

    init() throws {
        let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array("\(base)/recipe-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw ImageError(.writeFailed, path: base, "cannot create a temporary folder: \(errnoText())")
        }
        path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    func remove() {
        guard let dir = opendir(path) else { return }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { unlink(path + "/" + name) }
        }
        closedir(dir)
        rmdir(path)
    }
}
