import Foundation
import Testing
import TestSupport

/// The formats of issue 21 through the command line: what `render` writes is what libvips reads
/// back (size, depth, profile), and `apply` walks and renders a folder of every format.
@Suite("formats: HEIF, AVIF, WebP and TIFF from the command line")
struct FormatsCommandTests: CLITest {
    /// vipsheader's field, or nil when vips is not installed or cannot read the file.
    func header(_ path: String, _ field: String) throws -> String? {
        guard let tool = ExternalTool.find("vipsheader") else { return nil }
        let r = try ExternalTool.run(tool, ["-f", field, path])
        return r.status == 0 ? String(decoding: r.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) : nil
    }

    @Test("every format render writes is read back by libvips with the size, sample depth and ICC profile it should have (skips without vips)")
    func writtenFilesReadBack() throws {
        guard ExternalTool.find("vipsheader") != nil else {
            testNote("format read-back skipped: vips not installed")
            return
        }
        let dir = TestPaths.temporaryDirectory("formats-out").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A 16-bit PNG converted to Display P3: deep formats keep 16 bits (HEIC as 10), and every
        // output carries the P3 profile its pixels are in.
        let source = TestPaths.fixture("png/basn2c16.png")
        for (ext, depth) in [("tif", "ushort"), ("png", "ushort"), ("heic", "ushort"), ("avif", "uchar"), ("webp", "uchar"), ("jpg", "uchar")] {
            let out = dir + "/p3.\(ext)"
            _ = try ok(["render", source, "-o", out, "--profile", "display-p3", "--quality", "90"])
            let (w, h, format) = (try header(out, "width"), try header(out, "height"), try header(out, "format"))
            #expect(w == "32" && h == "32", "\(ext): size \(w ?? "?")×\(h ?? "?")")
            #expect(format?.lowercased().hasSuffix(depth + ")") == true || format == depth, "\(ext): \(format ?? "unreadable"), want \(depth)")
            let info = try ok(["info", out])
            #expect(info.contains("Display P3"), "\(ext): the written file should say Display P3: \(info)")
        }
    }

    @Test("a camera JPEG's EXIF reaches HEIC, AVIF, WebP and TIFF outputs, and comes back out of them into a JPEG")
    func metadataCrossesFormats() throws {
        let dir = TestPaths.temporaryDirectory("formats-meta").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A camera EXIF block of 4.8 KB (TIFF outputs keep its IFD0 and EXIF sub-IFD, not the
        // IFD1 thumbnail: a TIFF's second directory would be a second page).
        let photo = TestPaths.fixture("jpeg/pil_exif-72dpi-int.jpg")
        let source = try ok(["info", photo])
        #expect(source.contains("EXIF"))
        for ext in ["heic", "avif", "webp", "tif"] {
            let out = dir + "/m.\(ext)", back = dir + "/back-\(ext).jpg"
            _ = try ok(["render", photo, "-o", out])
            let info = try ok(["info", out])
            #expect(info.contains("EXIF") && info.contains("orientation: 1"), "\(ext): \(info)")
            _ = try ok(["render", out, "-o", back])
            #expect(try ok(["info", back]).contains("EXIF"), "\(ext) → JPEG lost the EXIF block")
        }
    }

    @Test("a 16-bit PNG through an identity recipe into a TIFF keeps every 16-bit sample")
    func sixteenBitTIFF() throws {
        let dir = TestPaths.temporaryDirectory("formats-16").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = TestPaths.fixture("png/basn2c16.png")
        _ = try ok(["render", source, "-o", dir + "/a.tif"])
        _ = try ok(["render", dir + "/a.tif", "-o", dir + "/b.png"])
        let a = try decodedSamples(source), t = try decodedSamples(dir + "/a.tif"), b = try decodedSamples(dir + "/b.png")
        #expect(a.bits == 16 && t.bits == 16 && b.bits == 16)
        #expect(t.values == a.values && b.values == a.values)
    }

    @Test("apply over a folder of HEIC, AVIF, WebP, TIFF, PNG and JPEG renders every file, and a re-run skips them all")
    func applyMixedFolder() throws {
        let dir = TestPaths.temporaryDirectory("formats-apply").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let photos = dir + "/shoot", out = dir + "/out"
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        let png = TestPaths.fixture("png/basn2c08.png")
        try FileManager.default.copyItem(atPath: TestPaths.fixture("heif/exif-samples_samplefilehub.heif"), toPath: photos + "/phone.heif")
        try FileManager.default.copyItem(atPath: png, toPath: photos + "/scan.png")
        try FileManager.default.copyItem(atPath: TestPaths.fixture("jpeg/ljt_testorig.jpg"), toPath: photos + "/camera.JPG")
        for ext in ["avif", "webp", "tif"] { _ = try ok(["render", png, "-o", photos + "/made-\(ext).\(ext)"]) }
        let look = dir + "/warm.recipe.yaml"
        try write("format: dev.recipe.edit\nversion: 1.1\nstages:\n  - exposure: 0.2\n", look)
        let first = try recipe(["apply", look, photos, "-o", out, "--progress", "none"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("rendered 6, up to date 0, failed 0"), "\(first.stderr)")
        let written = Set((try? FileManager.default.contentsOfDirectory(atPath: out))?.filter { !$0.hasPrefix(".") } ?? [])
        #expect(written == ["phone.heif", "scan.png", "camera.JPG", "made-avif.avif", "made-webp.webp", "made-tif.tif"])
        let again = try recipe(["apply", look, photos, "-o", out, "--progress", "none"])
        #expect(again.status == 0 && again.stderr.contains("rendered 0, up to date 6, failed 0"), "\(again.stderr)")
        // --format and the {ext} placeholder follow the new formats.
        let webp = try recipe(["apply", look, photos, "-o", dir + "/web", "--format", "webp", "--progress", "none"])
        #expect(webp.status == 0)
        let names = Set((try? FileManager.default.contentsOfDirectory(atPath: dir + "/web"))?.filter { !$0.hasPrefix(".") } ?? [])
        #expect(names == ["phone.webp", "scan.webp", "camera.webp", "made-avif.webp", "made-webp.webp", "made-tif.webp"], "\(names)")
    }
}
