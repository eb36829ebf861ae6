import Foundation
import RecipeCore
import Testing
import TestSupport
@testable import RecipeCodecs

/// The embedded JPEG preview of a raw, which thumbnails are drawn from: found as LibRaw finds it,
/// refused when too small or of another shape, and given the raw's EXIF so it shows upright.
@Suite("RawPreview")
struct RawPreviewTests {
    /// kodim03-crop-preview.dng: the 256×192 crop stored turned (orientation 6) with the crop as a
    /// 192×256 JPEG preview in a sub-IFD (Tests/Fixtures/LICENSES.md).
    let withPreview = TestPaths.fixture("raw/kodim03-crop-preview.dng")

    @Test("a raw's JPEG preview is found at or above the size asked for, with the raw's orientation in its EXIF")
    func found() throws {
        let preview = try #require(try RawPreview.jpeg(of: withPreview, atLeast: 240))
        #expect(preview.width == 192 && preview.height == 256)
        #expect(preview.jpeg.starts(with: [0xFF, 0xD8]))
        let file = TestPaths.temporaryDirectory("raw-preview").appendingPathComponent("p.jpg")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try Data(preview.jpeg).write(to: file)
        let decoder = try JPEGDecoder(path: file.path)
        #expect(decoder.info.width == 192 && decoder.info.height == 256)
        #expect(decoder.info.orientation == .right, "the raw's orientation 6, so it shows upright")
        #expect(decoder.info.uprightSize.width == 256 && decoder.info.uprightSize.height == 192)
    }

    @Test("no preview when it is smaller than asked for, when the raw has none, or for a photo that is not a raw")
    func notFound() throws {
        #expect(try RawPreview.jpeg(of: TestPaths.fixture("jpeg/pil_hopper.jpg"), atLeast: 16) == nil)
        #expect(try RawPreview.jpeg(of: withPreview, atLeast: 257) == nil)
        #expect(try RawPreview.jpeg(of: TestPaths.fixture("raw/kodim03-crop.dng"), atLeast: 16) == nil)
    }

    @Test("the EXIF segment replaces the JPEG's own, after JFIF, and the rest is kept byte for byte")
    func exifSegment() throws {
        let jfif: [UInt8] = [0xFF, 0xE0, 0x00, 0x07] + Array("JFIF\0".utf8)
        let oldExif: [UInt8] = [0xFF, 0xE1, 0x00, 0x0A] + Array("Exif\0\0".utf8) + [1, 2]
        let xmp: [UInt8] = [0xFF, 0xE1, 0x00, 0x06] + Array("http".utf8)
        let rest: [UInt8] = [0xFF, 0xDB, 0x00, 0x03, 0x00, 0xFF, 0xD9]
        let jpeg: [UInt8] = [0xFF, 0xD8] + jfif + oldExif + xmp + rest
        let out = try #require(RawPreview.withEXIF(jpeg, [7, 7, 7]))
        let exif: [UInt8] = [0xFF, 0xE1, 0x00, 0x0B] + Array("Exif\0\0".utf8) + [7, 7, 7]
        #expect(out == [0xFF, 0xD8] + jfif + exif + xmp + rest)
        #expect(RawPreview.withEXIF([0x00, 0x01, 0x02, 0x03, 0x04], nil) == nil, "not a JPEG")
        #expect(RawPreview.withEXIF([0xFF, 0xD8, 0xFF, 0xE1, 0x40, 0x00, 0x00], nil) == nil, "a segment longer than the file")
    }
}
