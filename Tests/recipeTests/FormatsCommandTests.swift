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

    @Test("every format render writes is read back by libvips with the size, sample depth and ICC profile it should have", Requirement.tool("vipsheader"))
    func writtenFilesReadBack() throws {
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

    static let heifConvert = ExternalTool.find("heif-convert")
    static let heifInfo = ExternalTool.find("heif-info")

    /// The `colr` boxes of a HEIF as `heif-info -d` dumps them: each box's fields, by name.
    static func colourBoxes(_ path: String) throws -> [[String: String]] {
        let r = try ExternalTool.run(heifInfo!, ["-d", path])
        try #require(r.status == 0, "heif-info -d \(path): \(r.stderr)")
        var boxes: [[String: String]] = []
        var inside = false
        for line in String(decoding: r.stdout, as: UTF8.self).split(separator: "\n") {
            let text = line.drop { $0 == "|" || $0 == " " }
            if text.hasPrefix("Box: ") {
                inside = text.hasPrefix("Box: colr")
                if inside { boxes.append([:]) }
            } else if inside, let colon = text.firstIndex(of: ":") {
                boxes[boxes.count - 1][String(text[..<colon])] = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return boxes
    }

    /// Before, `--lossless` HEIC and AVIF were YCbCr 4:2:0: kodim05 came back at 41.3 dB, 38 codes
    /// off at worst. Now 4:4:4 with the identity matrix: the codes written are the codes read,
    /// by our decoder and by libheif's own heif-convert. The RGBA photo checks the alpha plane;
    /// the one with an ICC profile, that the nclx box saying "RGB samples" is there beside it.
    @Test("--lossless HEIC and AVIF decode to exactly the PNG render of the same recipe (ours and heif-convert)",
          Requirement.tool("heif-convert", "heif-info"),
          arguments: [TestPaths.samples.appendingPathComponent("kodim03.png").path, TestPaths.fixture("png/basn6a08.png"),
                      TestPaths.fixture("png/ljt_vgl_5674_0098.png")])
    func losslessIsExact(_ photo: String) throws {
        let dir = TestPaths.temporaryDirectory("lossless-heif").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let recipePath = dir + "/look.recipe.yaml"
        try write("format: dev.recipe.edit\nversion: 1.1\nstages:\n  - exposure: 0.3\n  - saturation: 1.2\n", recipePath)
        _ = try ok(["render", photo, "--recipe", recipePath, "-o", dir + "/ref.png"])
        let reference = try decodedSamples(dir + "/ref.png")
        let name = (photo as NSString).lastPathComponent
        for ext in ["heic", "avif"] {
            let out = dir + "/lossless.\(ext)", back = dir + "/back-\(ext).png"
            _ = try ok(["render", photo, "--recipe", recipePath, "-o", out, "--lossless"])
            let ours = try decodedSamples(out)
            let r = try ExternalTool.run(Self.heifConvert!, ["--quiet", out, back])
            try #require(r.status == 0, "heif-convert \(out): \(r.stderr)")
            let theirs = try decodedSamples(back)
            #expect(ours.channels == reference.channels && theirs.channels == reference.channels, "\(name) \(ext)")
            let worst = zip(ours.values, reference.values).map { abs($0 - $1) }.max() ?? -1
            let worstTheirs = zip(theirs.values, reference.values).map { abs($0 - $1) }.max() ?? -1
            testNote("\(name) → lossless \(ext): max error \(worst) (ours), \(worstTheirs) (heif-convert)")
            #expect(ours.values == reference.values, "\(name) \(ext): our decode is up to \(worst) codes off the PNG render")
            #expect(theirs.values == reference.values, "\(name) \(ext): heif-convert's decode is up to \(worstTheirs) codes off")
            let nclx = try Self.colourBoxes(out).first { $0["colour_type"] == "nclx" }
            #expect(nclx?["matrix_coefficients"] == "0" && nclx?["full_range_flag"] == "1", "\(name) \(ext): \(String(describing: nclx))")
        }
    }

    /// Before, a HEIC written from a photo without a profile had no `colr` box at all (libheif
    /// 1.15 leaves the nclx box out by default); AVIF had one.
    @Test("a HEIC or AVIF from a photo without a profile carries an sRGB nclx box; one with a profile its ICC (heif-info)",
          Requirement.tool("heif-info"))
    func colourIsCarried() throws {
        let dir = TestPaths.temporaryDirectory("heif-colour").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let plain = TestPaths.samples.appendingPathComponent("kodim03.png").path
        let profiled = TestPaths.fixture("png/ljt_vgl_5674_0098.png")
        for ext in ["heic", "avif"] {
            for lossless in [false, true] {
                let out = dir + "/plain.\(ext)"
                _ = try ok(["render", plain, "-o", out] + (lossless ? ["--lossless"] : []))
                let boxes = try Self.colourBoxes(out)
                let nclx = boxes.first { $0["colour_type"] == "nclx" }
                // BT.709 primaries and the sRGB curve: sRGB.
                #expect(nclx?["colour_primaries"] == "1" && nclx?["transfer_characteristics"] == "13" && nclx?["full_range_flag"] == "1",
                        "\(ext)\(lossless ? " lossless" : ""): \(boxes)")
                #expect(nclx?["matrix_coefficients"] == (lossless ? "0" : "6"), "\(ext): \(boxes)")
                #expect(try ok(["info", out]).contains("sRGB"), "\(ext): our reader should find sRGB")
            }
            let out = dir + "/profiled.\(ext)"
            _ = try ok(["render", profiled, "-o", out])
            let boxes = try Self.colourBoxes(out)
            #expect(boxes.contains { $0["colour_type"] == "prof" }, "\(ext) with a profile: \(boxes)")
        }
    }
}
