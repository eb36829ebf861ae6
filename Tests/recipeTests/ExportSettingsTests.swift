import Foundation
import Testing
import TestSupport

/// The export settings of a recipe's `output:` (format, quality, `max-bytes`, output sharpening,
/// watermark), end to end through `recipe render` and `recipe apply`, against ImageMagick.
@Suite("export settings: output sharpening, watermark, max-bytes, format")
struct ExportSettingsTests: CLITest {
    static let photo = TestPaths.samples.appendingPathComponent("kodim03.png").path

    func pixels(_ path: String) throws -> [UInt8] { try decodedPixels(path) }

    /// A recipe of one exposure stage and `output` (nil: none).
    func recipeFile(_ output: String?, in dir: URL, name: String = "r") throws -> String {
        let path = dir.appendingPathComponent("\(name).recipe.yaml").path
        try write("format: dev.recipe.edit\nversion: 1.2\n" + (output.map { "output: \($0)\n" } ?? "") + "stages:\n  - exposure: 0.2\n", path)
        return path
    }

    func differences(_ a: [UInt8], _ b: [UInt8]) -> (max: Int, over: (Int) -> Int) {
        let d = zip(a, b).map { abs(Int($0) - Int($1)) }
        return (d.max() ?? 0, { limit in d.filter { $0 > limit }.count })
    }

    @Test("output sharpening is ImageMagick's -unsharp of the unsharpened render, at full and display size (after the last resize), for screen, matte and glossy: within 3 codes (5 at amount 1), over 2 for < 0.2 % of samples",
          Requirement.imageMagick,
          arguments: [("screen", "0x0.6+0.6+0", 3), ("matte", "0x1+1+0", 3), ("glossy", "0x0.8+0.8+0", 3), ("{for: screen, amount: high}", "0x0.6+1+0", 5)])
    func sharpeningMatchesImageMagick(_ target: String, _ unsharp: String, _ tolerance: Int) throws {
        let dir = TestPaths.temporaryDirectory("export-sharpen")
        defer { try? FileManager.default.removeItem(at: dir) }
        let plain = try recipeFile(nil, in: dir, name: "plain")
        let sharp = try recipeFile("{sharpen: \(target)}", in: dir, name: "sharp")
        for size in [[], ["--size", "400"]] {
            let base = dir.appendingPathComponent("base.png").path, ours = dir.appendingPathComponent("ours.png").path
            _ = try ok(["render", Self.photo, "--recipe", plain, "-o", base] + size)
            _ = try ok(["render", Self.photo, "--recipe", sharp, "-o", ours] + size)
            let reference = dir.appendingPathComponent("im.png").path
            try #require(try ExternalTool.run("/usr/bin/convert", [base, "-unsharp", unsharp, reference]).status == 0)
            let (a, b, unsharpened) = (try pixels(ours), try pixels(reference), try pixels(base))
            try #require(a.count == b.count)
            let d = differences(a, b)
            testNote("sharpen \(target) \(size.joined(separator: " ")): max \(d.max), over 2: \(d.over(2)) of \(a.count)")
            // ImageMagick integrates its Gaussian over thirds of a pixel (KernelRank 3: σ 0.6 acts
            // as about 0.66), ours is the continuous one's response (`bandLimited`): the
            // difference grows with the amount, to 5 codes at amount 1 and σ 0.6.
            #expect(d.max <= tolerance && d.over(2) * 500 < a.count, "sharpen \(target) \(size): max \(d.max), \(d.over(2)) samples over 2 against -unsharp \(unsharp)")
            // It sharpens (not the render unchanged), by about the amount asked.
            #expect(differences(a, unsharpened).max > 12, "sharpen \(target): hardly different from the unsharpened render")
        }
    }

    @Test("a watermark is ImageMagick's composite -dissolve of the PNG over the render without it, at its position and margin: within 1 code",
          Requirement.imageMagick, arguments: [("bottom-right", "southeast"), ("top-left", "northwest"), ("center", "center")])
    func watermarkMatchesComposite(_ position: String, _ gravity: String) throws {
        let dir = TestPaths.temporaryDirectory("export-watermark")
        defer { try? FileManager.default.removeItem(at: dir) }
        let logo = dir.appendingPathComponent("logo.png").path
        // 192 px wide: 25 % of kodim03's 768, so the mark is laid at its own size.
        try #require(try ExternalTool.run("/usr/bin/convert", ["-size", "192x64", "xc:none", "-fill", "rgba(255,255,255,0.85)",
                                                                "-draw", "roundrectangle 4,4 187,59 12,12", "-fill", "rgb(200,30,30)",
                                                                "-draw", "circle 40,32 40,12", "-depth", "8", logo]).status == 0)
        let plain = try recipeFile(nil, in: dir, name: "plain")
        let marked = try recipeFile("{watermark: {image: logo.png, position: \(position), scale: 25%, margin: 3%, opacity: 0.6}}", in: dir, name: "marked")
        let base = dir.appendingPathComponent("base.png").path, ours = dir.appendingPathComponent("ours.png").path
        _ = try ok(["render", Self.photo, "--recipe", plain, "-o", base])
        _ = try ok(["render", Self.photo, "--recipe", marked, "-o", ours])
        // The margin: 3 % of the shorter side (512 px), 15 px; none at the centre.
        let margin = position == "center" ? "+0+0" : "+15+15"
        let reference = dir.appendingPathComponent("im.png").path
        try #require(try ExternalTool.run("/usr/bin/composite", ["-dissolve", "60", "-gravity", gravity, "-geometry", margin, logo, base, reference]).status == 0)
        let (a, b, unmarked) = (try pixels(ours), try pixels(reference), try pixels(base))
        let d = differences(a, b)
        testNote("watermark \(position): max \(d.max), \(d.over(0)) samples off by 1")
        #expect(d.max <= 1, "watermark at \(position): max \(d.max) against composite -dissolve 60 -gravity \(gravity)")
        #expect(differences(a, unmarked).max > 40, "no watermark to be seen")
    }

    @Test("a watermark scaled to a share of the photo's width covers that width, at the margin from the corner; a PNG without alpha is an opaque mark",
          Requirement.imageMagick)
    func watermarkScaled() throws {
        let dir = TestPaths.temporaryDirectory("export-watermark-scale")
        defer { try? FileManager.default.removeItem(at: dir) }
        // An opaque 100×50 black PNG, made 10 % of 768 (77 px) wide, 38 or 39 px high.
        let logo = dir.appendingPathComponent("black.png").path
        try #require(try ExternalTool.run("/usr/bin/convert", ["-size", "100x50", "xc:black", "-type", "TrueColor", "PNG24:" + logo]).status == 0)
        let marked = try recipeFile("{watermark: {image: black.png, position: bottom-left, scale: 10%, margin: 5%, opacity: 1}}", in: dir)
        let out = dir.appendingPathComponent("out.png").path
        _ = try ok(["render", Self.photo, "--recipe", marked, "-o", out])
        let rgb = try pixels(out)
        func value(_ x: Int, _ y: Int) -> Int { Int(rgb[(y * 768 + x) * 3]) + Int(rgb[(y * 768 + x) * 3 + 1]) + Int(rgb[(y * 768 + x) * 3 + 2]) }
        // The margin is 5 % of 512: 26 px from the left and the bottom.
        let (left, bottom) = (26, 511 - 26)
        #expect(value(left + 2, bottom - 2) == 0 && value(left + 74, bottom - 36) == 0, "inside the mark is black")
        #expect(value(left - 2, bottom - 10) > 0 && value(left + 80, bottom - 10) > 0 && value(left + 30, bottom + 2) > 0 && value(left + 30, bottom - 42) > 0,
                "the mark spreads beyond 77×38 px at 26 px from the corner")
    }

    @Test("a watermark keeps its colours in a Display P3 output: its sRGB red is laid as P3's encoding of sRGB red (as the engine converts a red photo, within 1 code), not as P3's own red",
          Requirement.imageMagick)
    func watermarkInOutputSpace() throws {
        let dir = TestPaths.temporaryDirectory("export-watermark-p3")
        defer { try? FileManager.default.removeItem(at: dir) }
        let red = dir.appendingPathComponent("red.png").path
        try #require(try ExternalTool.run("/usr/bin/convert", ["-size", "192x64", "xc:rgb(255,0,0)", "-type", "TrueColor", "PNG24:" + red]).status == 0)
        let marked = try recipeFile("{profile: display-p3, watermark: {image: red.png, position: top-left, scale: 25%, margin: 0%, opacity: 1}}", in: dir)
        let out = dir.appendingPathComponent("out.png").path
        _ = try ok(["render", Self.photo, "--recipe", marked, "-o", out])
        let rgb = try pixels(out)
        // The engine's own conversion of sRGB red into P3: a red photo rendered to display-p3.
        let redPhoto = dir.appendingPathComponent("redphoto.png").path, converted = dir.appendingPathComponent("converted.png").path
        try #require(try ExternalTool.run("/usr/bin/convert", ["-size", "8x8", "xc:rgb(255,0,0)", "-type", "TrueColor", "PNG24:" + redPhoto]).status == 0)
        _ = try ok(["render", redPhoto, "-o", converted, "--profile", "display-p3"])
        let expected = Array(try pixels(converted).prefix(3))
        let mark = Array(rgb[(10 * 768 + 10) * 3..<(10 * 768 + 10) * 3 + 3])
        #expect(expected[0] < 250 && expected[1] > 20, "sRGB red in P3 is not P3's red: \(expected)")
        #expect(zip(mark, expected).allSatisfy { abs(Int($0) - Int($1)) <= 1 }, "the mark's red \(mark), sRGB red in P3 \(expected)")
    }

    @Test("--max-bytes finds the highest quality that fits within one step in 4 encodes, and says so; a lossless output or one that cannot fit is refused with nothing written",
          arguments: ["jpg", "webp"])
    func maxBytes(_ ext: String) throws {
        let dir = TestPaths.temporaryDirectory("export-max-bytes")
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.\(ext)").path
        let limit = 40 * 1024
        let r = try recipe(["render", Self.photo, "-o", out, "--max-bytes", "40K"])
        try #require(r.status == 0, "\(r.stderr)")
        let said = r.stderr
        let match = try #require(said.firstMatch(of: /quality (\d+): .* \((\d) encodes?\)/), "no quality reported: \(said)")
        let (quality, encodes) = (Int(match.output.1)!, Int(match.output.2)!)
        let size = try FileManager.default.attributesOfItem(atPath: out)[.size] as! Int
        testNote("\(ext) --max-bytes 40K: quality \(quality), \(size) bytes, \(encodes) encodes")
        #expect(size <= limit && encodes <= 4)
        // Two steps higher does not fit (so the best that fits is this one or the one between),
        // and this quality gives the same file.
        func bytes(at q: Int) throws -> Int {
            let file = dir.appendingPathComponent("q\(q).\(ext)").path
            // With a limit, JPEG's Huffman tables are optimised.
            _ = try ok(["render", Self.photo, "-o", file, "--quality", "\(q)"] + (ext == "jpg" ? ["--optimize"] : []))
            return try FileManager.default.attributesOfItem(atPath: file)[.size] as! Int
        }
        // JPEG's size follows its quantiser scale closely enough for that; libwebp's jumps above
        // quality 75 (its filtering changes), and 4 encodes may stop a few steps below there.
        if ext == "jpg" { #expect(try bytes(at: quality + 2) > limit, "quality \(quality + 2) fits too") }
        #expect(try bytes(at: quality) == size)
        // A PNG has no quality to lower; a limit nothing reaches is refused.
        for (args, words) in [(["-o", dir.appendingPathComponent("x.png").path, "--max-bytes", "40K"], "lossless"),
                              (["-o", dir.appendingPathComponent("y.\(ext)").path, "--max-bytes", "1K"], "does not fit")] {
            let refused = try recipe(["render", Self.photo] + args)
            #expect(refused.status != 0 && refused.stderr.contains(words), "\(args): \(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: args[1]))
        }
    }

    @Test("a recipe's output quality and max-bytes apply unless the command line says otherwise")
    func recipeQuality() throws {
        let dir = TestPaths.temporaryDirectory("export-quality")
        defer { try? FileManager.default.removeItem(at: dir) }
        let low = try recipeFile("{quality: 30}", in: dir, name: "low")
        let plain = try recipeFile(nil, in: dir, name: "plain")
        func size(_ args: [String]) throws -> Int {
            let out = dir.appendingPathComponent("\(UUID().uuidString).jpg").path
            _ = try ok(["render", Self.photo, "-o", out] + args)
            return try FileManager.default.attributesOfItem(atPath: out)[.size] as! Int
        }
        let (q30, q90) = (try size(["--recipe", plain, "--quality", "30"]), try size(["--recipe", plain]))
        #expect(try size(["--recipe", low]) == q30, "the recipe's quality 30")
        #expect(try size(["--recipe", low, "--quality", "90"]) == q90, "--quality over the recipe's")
        let limited = try recipeFile("{max-bytes: 30K}", in: dir, name: "limited")
        #expect(try size(["--recipe", limited]) <= 30 * 1024)
    }

    @Test("a recipe's metadata policy, through render and apply, as exiftool reads the output: location and serials stripped, credits set (EXIF, XMP, IPTC), the rest kept; keep: copyright and none",
          Requirement.tool("exiftool"))
    func metadataPolicy() throws {
        let dir = TestPaths.temporaryDirectory("export-metadata")
        defer { try? FileManager.default.removeItem(at: dir) }
        let exiftool = try Requirement.path("exiftool")
        let photo = dir.appendingPathComponent("in.jpg").path
        _ = try ok(["render", Self.photo, "-o", photo])
        let tagged = try ExternalTool.run(exiftool, ["-q", "-overwrite_original", "-GPSLatitude=48.8583", "-GPSLatitudeRef=N", "-GPSLongitude=2.2945",
                                                     "-GPSLongitudeRef=E", "-SerialNumber=ABC123456", "-LensSerialNumber=L987", "-OwnerName=Jane Owner",
                                                     "-Artist=Old Artist", "-Make=Canon", "-Model=EOS Test", "-DateTimeOriginal=2026:01:02 03:04:05",
                                                     "-XMP:City=Paris", "-IPTC:City=Paris", "-IPTC:Keywords=caps", photo])
        try #require(tagged.status == 0, "\(tagged.stderr)")
        func tags(_ path: String) throws -> [String: String] {
            let r = try ExternalTool.run(exiftool, ["-j", "-G1", "-a", "-s", path])
            let list = try JSONSerialization.jsonObject(with: r.stdout) as? [[String: Any]]
            return (list?.first ?? [:]).mapValues { "\($0)" }
        }
        func has(_ t: [String: String], _ name: String) -> Bool { t.keys.contains { $0.hasSuffix(":" + name) } }
        let before = try tags(photo)
        try #require(has(before, "GPSLatitude") && has(before, "SerialNumber") && has(before, "City"))
        let stripped = try recipeFile("{metadata: {strip: [location, serials], copyright: \"© 2026 Zoë & <Co>\", creator: \"Zoë Ångström\"}}", in: dir, name: "strip")
        let out = dir.appendingPathComponent("out.jpg").path
        _ = try ok(["render", photo, "--recipe", stripped, "-o", out])
        let after = try tags(out)
        for gone in ["GPSLatitude", "GPSLongitude", "SerialNumber", "LensSerialNumber", "OwnerName", "City"] {
            #expect(!has(after, gone), "\(gone) is still there: \(after.filter { $0.key.hasSuffix(gone) })")
        }
        #expect(after["IFD0:Artist"] == "Zoë Ångström" && after["IFD0:Copyright"] == "© 2026 Zoë & <Co>", "\(after)")
        #expect(after["XMP-dc:Creator"] == "Zoë Ångström" && after["XMP-dc:Rights"] == "© 2026 Zoë & <Co>", "\(after)")
        #expect(after["IPTC:By-line"] == "Zoë Ångström" && after["IPTC:Keywords"] == "caps", "\(after)")
        #expect(after["IFD0:Make"] == "Canon" && after["ExifIFD:DateTimeOriginal"] == "2026:01:02 03:04:05", "\(after)")
        // Nothing of the coordinates in the bytes.
        #expect(!String(decoding: try Data(contentsOf: URL(fileURLWithPath: out)), as: UTF8.self).contains("Paris"))
        // keep: copyright: the credits and nothing else; keep: none: nothing (the colour stays).
        let credits = try recipeFile("{metadata: {keep: copyright}}", in: dir, name: "credits")
        _ = try ok(["render", photo, "--recipe", credits, "-o", out])
        let kept = try tags(out)
        #expect(kept["IFD0:Artist"] == "Old Artist" && !has(kept, "Make") && !has(kept, "DateTimeOriginal") && !has(kept, "Keywords"), "\(kept)")
        let none = try recipeFile("{metadata: none}", in: dir, name: "none")
        _ = try ok(["render", photo, "--recipe", none, "-o", out])
        let bare = try tags(out)
        #expect(!has(bare, "Artist") && !has(bare, "Make") && !has(bare, "GPSLatitude") && !has(bare, "Keywords"), "\(bare)")
        // apply writes the same policy.
        let folder = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: photo, toPath: folder.appendingPathComponent("p.jpg").path)
        _ = try ok(["apply", stripped, folder.path, "-o", dir.appendingPathComponent("out").path])
        let applied = try tags(dir.appendingPathComponent("out/p.jpg").path)
        #expect(!has(applied, "GPSLatitude") && applied["IFD0:Artist"] == "Zoë Ångström", "\(applied)")
    }

    @Test("explain says what the export does after the plan: the sharpening and watermark after the last resize, the metadata, the format and limit")
    func explainExport() throws {
        let dir = TestPaths.temporaryDirectory("export-explain")
        defer { try? FileManager.default.removeItem(at: dir) }
        try write("", dir.appendingPathComponent("logo.png").path)
        let r = try recipeFile("{format: jpeg, max-bytes: 300K, sharpen: {for: matte, amount: high}, watermark: {image: logo.png, scale: 15%}, metadata: {strip: [location]}}",
                               in: dir)
        let out = try ok(["explain", r])
        for line in ["export: after the last resize: output sharpening for matte (high): an unsharp mask of σ 1.0 px, amount 1.5",
                     "export: after the last resize: watermark logo.png, 15 % of the width, bottom-right", "export: metadata: all metadata but location",
                     "export: format: jpeg", "export: max-bytes: 300 KiB"] {
            #expect(out.contains(line), "no `\(line)` in:\n\(out)")
        }
    }

    @Test("apply writes the format a recipe's output names (web-export's TIFF becomes a JPEG); --format overrides it")
    func applyFormat() throws {
        let dir = TestPaths.temporaryDirectory("export-format")
        defer { try? FileManager.default.removeItem(at: dir) }
        let photos = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.photo, toPath: photos.appendingPathComponent("a.png").path)
        let jpeg = try recipeFile("{format: jpeg}", in: dir)
        _ = try ok(["apply", jpeg, photos.path, "-o", dir.appendingPathComponent("out").path])
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("out/a.jpg").path))
        _ = try ok(["apply", jpeg, photos.path, "-o", dir.appendingPathComponent("out2").path, "--format", "webp"])
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("out2/a.webp").path))
        // With a size limit, each line says the quality found (--json: its fields).
        let limited = try ok(["apply", jpeg, photos.path, "-o", dir.appendingPathComponent("small").path, "--max-bytes", "40K", "--json"])
        let line = try #require(limited.split(separator: "\n").first { $0.contains("\"rendered\"") })
        let bytes = try #require(line.firstMatch(of: /"bytes":(\d+)/)).output.1
        let written = try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent("small/a.jpg").path)[.size] as! Int
        #expect(line.contains("\"quality\":") && Int(bytes)! <= 40 * 1024 && Int(bytes)! == written, "\(line)")
        let web = TestPaths.recipes.appendingPathComponent("web-export.recipe.yaml").path
        _ = try ok(["apply", web, photos.path, "-o", dir.appendingPathComponent("web").path])
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("web/a.jpg").path), "web-export writes JPEGs")
    }
}
