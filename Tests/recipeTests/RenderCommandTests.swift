import Foundation
import RecipeCodecs
import RecipeCore
import Testing
import TestSupport

/// End-to-end: the `recipe` binary as a user runs it.
@Suite("recipe render / info")
struct RenderCommandTests: CLITest {
    func decode(_ path: String) throws -> (NetpbmImage, any ImageDecoder) {
        let d = try ImageDecoders.open(path)
        try d.start(scaleDenominator: 1)
        let strip = PixelBuffer(width: d.width, rowCapacity: 32, format: d.format)
        var samples: [Int] = []
        while try d.readRows(into: strip) > 0 {
            for r in 0..<strip.rowCount { samples += strip.samples(r, as: UInt8.self).map(Int.init) }
        }
        return (NetpbmImage(width: d.width, height: d.height, channels: d.format.channels, maxValue: 255, samples: samples), d)
    }

    /// Orientation files: the corpus's 18 when present, else the bundled samples.
    static let orientationFiles: [String] = {
        let corpus = TestPaths.corpusFiles("orientation", extensions: ["jpg"])
        return corpus.isEmpty ? ["Landscape_6.jpg", "Portrait_8.jpg"].map { TestPaths.samples.appendingPathComponent($0).path } : corpus
    }()

    @Test("every orientation comes out upright, equal to its orientation-1 version within JPEG tolerance, tag 1",
          arguments: orientationFiles)
    func orientation(path: String) throws {
        let dir = TestPaths.temporaryDirectory("orient")
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.png").path
        let r = try recipe(["render", path, "-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        let name = (path as NSString).lastPathComponent
        let kind = name.hasPrefix("Landscape") ? "Landscape" : "Portrait"
        let referencePath = ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent("\(kind)_1.jpg")
        let (reference, _) = try decode(FileManager.default.fileExists(atPath: referencePath) ? referencePath
                                        : TestPaths.samples.appendingPathComponent("Landscape_1.jpg").path)
        let (image, decoder) = try decode(out)
        #expect(decoder.info.orientation == .up)
        if kind == "Landscape" || FileManager.default.fileExists(atPath: referencePath) {
            #expect(image.width == reference.width && image.height == reference.height, "\(name): \(image.width)×\(image.height)")
            let mean = try #require(image.meanDifference(to: reference))
            // Each file is its own JPEG encoding of the same picture (transposed ones with the
            // chroma grid transposed too), so a few levels of difference remain; a wrong rotation
            // or flip gives tens, as the mirrored control shows.
            #expect(mean < 5, "\(name): mean difference \(mean) to \(kind)_1")
            var mirrored = reference
            for y in 0..<reference.height { for x in 0..<reference.width { for c in 0..<3 {
                mirrored.samples[(y * reference.width + x) * 3 + c] = reference.samples[(y * reference.width + reference.width - 1 - x) * 3 + c]
            } } }
            #expect((image.meanDifference(to: mirrored) ?? 0) > 4 * mean, "\(name): a mirrored image must be much further away")
        }
    }

    @Test("JPEG output keeps EXIF with orientation 1")
    func exifTag() throws {
        let dir = TestPaths.temporaryDirectory("exif")
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.jpg").path
        let r = try recipe(["render", TestPaths.samples.appendingPathComponent("Landscape_6.jpg").path, "-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        let d = try JPEGDecoder(path: out)
        #expect(d.info.metadata.exif != nil && EXIF(d.info.metadata.exif!)?.orientation == 1)
        #expect(d.info.width == 1800 && d.info.height == 1200)
    }

    @Test("--size display and --size N give the long edge asked for, never upscaled")
    func sizes() throws {
        let dir = TestPaths.temporaryDirectory("size")
        defer { try? FileManager.default.removeItem(at: dir) }
        let src = TestPaths.samples.appendingPathComponent("Landscape_6.jpg").path  // upright 1800×1200
        for (size, w, h) in [("500", 500, 333), ("display", 1800, 1200), ("1200", 1200, 800), ("4000", 1800, 1200)] {
            let out = dir.appendingPathComponent("s\(size).jpg").path
            let r = try recipe(["render", src, "-o", out, "--size", size])
            #expect(r.status == 0, "\(r.stderr)")
            let d = try JPEGDecoder(path: out)
            #expect(d.info.width == w && d.info.height == h, "--size \(size): \(d.info.width)×\(d.info.height)")
        }
    }

    @Test("a missing photo: one line naming it, exit 1, no output, no temporary left")
    func missingFile() throws {
        let dir = TestPaths.temporaryDirectory("missing")
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.jpg").path
        let r = try recipe(["render", "/nonexistent/photo.jpg", "-o", out])
        #expect(r.status == 1)
        #expect(r.stderr == "recipe: /nonexistent/photo.jpg: no such file or directory\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    @Test("a truncated photo fails without output; --allow-damaged renders it with a warning")
    func truncated() throws {
        let dir = TestPaths.temporaryDirectory("trunc")
        defer { try? FileManager.default.removeItem(at: dir) }
        let src = TestPaths.fixture("broken/pil_truncated_jpeg.jpg")
        let out = dir.appendingPathComponent("out.jpg").path
        let r = try recipe(["render", src, "-o", out])
        #expect(r.status == 1 && r.stderr.hasPrefix("recipe: \(src): premature end of JPEG file"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty, "no output and no temporary file")
        let r2 = try recipe(["render", src, "-o", out, "--allow-damaged"])
        #expect(r2.status == 0 && r2.stderr.hasPrefix("recipe: warning: \(src):"))
        #expect(FileManager.default.fileExists(atPath: out))
    }

    @Test("an output that cannot be written whole (a file-size limit, as a full disk) fails naming it, and the old output stays as it was")
    func outputWriteFails() throws {
        let dir = TestPaths.temporaryDirectory("write-fails")
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = TestPaths.samples.appendingPathComponent("Landscape_1.jpg").path
        let out = dir.appendingPathComponent("out.png").path
        try write("the previous render", out)
        // 256 KiB at most per file (dash counts 512-byte blocks), with SIGXFSZ ignored so the
        // write fails with EFBIG, as it would with ENOSPC on a full disk; the PNG is megabytes.
        let r = try ExternalTool.run("/bin/sh", ["-c", "trap '' XFSZ; ulimit -f 512; exec \"$0\" \"$@\"",
                                                 TestPaths.recipeBinary, "render", photo, "-o", out])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.hasPrefix("recipe: \(out): "), "\(r.stderr)")
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "the previous render")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["out.png"], "no temporary file left")
    }

    @Test("the original is never written: -o onto the input is refused and the file is unchanged")
    func refusesOriginal() throws {
        let dir = TestPaths.temporaryDirectory("orig")
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = dir.appendingPathComponent("photo.jpg").path
        try FileManager.default.copyItem(atPath: TestPaths.fixture("jpeg/pil_hopper.jpg"), toPath: photo)
        let before = try Data(contentsOf: URL(fileURLWithPath: photo))
        let r = try recipe(["render", photo, "-o", dir.appendingPathComponent("./photo.jpg").path])
        #expect(r.status == 1 && r.stderr.contains("refusing to overwrite"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: photo)) == before)
    }

    @Test("usage errors exit 2")
    func usage() throws {
        #expect(try recipe(["render", "x.jpg"]).status == 2)
        #expect(try recipe(["render", "x.jpg", "-o", "y.jpg", "--quality", "0"]).status == 2)
        #expect(try recipe(["frobnicate"]).status == 2)
    }

    @Test("an unknown output extension is a clear error")
    func unknownExtension() throws {
        let r = try recipe(["render", TestPaths.fixture("jpeg/pil_hopper.jpg"), "-o", "/tmp/out.gif"])
        #expect(r.status == 1 && r.stderr.contains("cannot tell the output format"))
    }

    @Test("info prints size, format, colour model, depth, progressive, orientation and metadata")
    func info() throws {
        let r = try recipe(["info", TestPaths.samples.appendingPathComponent("Landscape_6.jpg").path])
        let text = String(decoding: r.stdout, as: UTF8.self)
        for needle in ["format: JPEG", "width: 1800", "height: 1200", "colour model: YCbCr", "bit depth: 8",
                       "progressive: no", "orientation: 6", "metadata: EXIF"] {
            #expect(text.contains(needle), "missing \(needle) in\n\(text)")
        }
        let json = try recipe(["info", "--json", TestPaths.fixture("png/basn2c16.png")])
        let line = String(decoding: json.stdout, as: UTF8.self)
        #expect(line.contains("\"bit_depth\":16") && line.contains("\"format\":\"PNG\""))
    }
}
