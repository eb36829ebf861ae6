import Foundation
import Testing
import TestSupport

/// `lens: auto` end to end: photos whose EXIF (written by exiftool) names a camera and lens are
/// corrected by the profile lensfun has for them, through `render` and `apply`; photos with no
/// profile render uncorrected, and `apply` says which.
@Suite("lens corrections through render and apply")
struct LensCommandTests: CLITest {
    func pixels(_ path: String) throws -> [UInt8] { try decodedPixels(path) }

    /// Ten camera/lens combinations as their EXIF names them: eight lensfun has a profile for,
    /// two it has none for (a manual lens, a lens it does not know).
    static let combinations: [(make: String, model: String, lens: String, focal: String, matched: Bool)] = [
        ("Canon", "Canon EOS 5D Mark II", "EF24-70mm f/2.8L USM", "24", true),
        ("Canon", "Canon EOS 600D", "EF-S18-55mm f/3.5-5.6 IS", "18", true),
        ("NIKON CORPORATION", "NIKON D3S", "AF-S Zoom-Nikkor 24-70mm f/2.8G ED", "35", true),
        ("NIKON CORPORATION", "NIKON D7000", "AF-S DX Nikkor 35mm f/1.8G", "35", true),
        ("OLYMPUS IMAGING CORP.", "E-M5", "OLYMPUS M.30mm F3.5 Macro", "30", true),
        ("OLYMPUS IMAGING CORP.", "E-M5", "OLYMPUS M.12-50mm F3.5-6.3", "12", true),
        ("Panasonic", "DMC-GH4", "LEICA DG 12-60/F2.8-4.0", "12", true),
        ("Canon", "Canon EOS 7D", "EF35mm f/2 IS USM", "35", true),
        ("SONY", "ILCE-7M2", "Manual lens", "50", false),
        ("FUJIFILM", "X-T2", "Imaginary 23mm F0.7 Dream", "23", false),
    ]

    /// A grid photo (so that a correction moves visible lines), 240×160.
    func base(in dir: URL) throws -> String {
        let path = dir.appendingPathComponent("grid.jpg").path
        let r = try ExternalTool.run("/usr/bin/convert", ["-size", "240x160", "xc:#dde3ea", "-stroke", "#202830", "-strokewidth", "2",
                                                       "-draw", "path 'M 0,20 L 240,20 M 0,80 L 240,80 M 0,140 L 240,140 M 20,0 L 20,160 M 120,0 L 120,160 M 220,0 L 220,160'",
                                                       "-quality", "95", path])
        try #require(r.status == 0, "\(r.stderr)")
        return path
    }

    func tag(_ photo: String, _ c: (make: String, model: String, lens: String, focal: String, matched: Bool)) throws {
        let r = try ExternalTool.run(try Requirement.path("exiftool"), ["-q", "-overwrite_original", "-Make=\(c.make)", "-Model=\(c.model)",
                                                                         "-LensModel=\(c.lens)", "-FocalLength=\(c.focal)", "-FNumber=8", photo])
        try #require(r.status == 0, "\(r.stderr)")
    }

    @Test("apply over 200 photos of 10 camera/lens combinations: the matched ones corrected, the 40 others rendered as they are and listed by name",
          Requirement.tool("exiftool"), Requirement.imageMagick)
    func applyFolder() throws {
        let dir = TestPaths.temporaryDirectory("lens-apply")
        defer { try? FileManager.default.removeItem(at: dir) }
        let grid = try base(in: dir)
        let photos = dir.appendingPathComponent("photos"), out = dir.appendingPathComponent("out").path
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        var expected: [String: Bool] = [:]
        for (i, c) in Self.combinations.enumerated() {
            let first = photos.appendingPathComponent("c\(i)-00.jpg").path
            try FileManager.default.copyItem(atPath: grid, toPath: first)
            try tag(first, c)
            for k in 0..<20 {
                let name = "c\(i)-\(String(format: "%02d", k)).jpg"
                if k > 0 { try FileManager.default.copyItem(atPath: first, toPath: photos.appendingPathComponent(name).path) }
                expected[name] = c.matched
            }
        }
        let lens = dir.appendingPathComponent("lens.recipe.yaml").path, plain = dir.appendingPathComponent("plain.recipe.yaml").path
        try write("format: dev.recipe.edit\nversion: 1.3\nstages:\n  - lens: auto\n", lens)
        try write("format: dev.recipe.edit\nversion: 1.3\nstages:\n  - exposure: 0\n", plain)
        let r = try recipe(["apply", photos.path, "--recipe", lens, "-o", out, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        // Every photo rendered; the unmatched ones carry why, in the JSON and in the summary's list.
        var uncorrected: Set<String> = []
        var rendered = 0
        for line in String(decoding: r.stdout, as: UTF8.self).split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            if object["status"] as? String == "summary" {
                #expect(object["lens_uncorrected"] as? Int == 40)
                continue
            }
            #expect(object["status"] as? String == "rendered", "\(object)")
            rendered += 1
            if object["lens_uncorrected"] != nil { uncorrected.insert(URL(fileURLWithPath: object["source"] as! String).lastPathComponent) }
        }
        #expect(rendered == 200)
        #expect(uncorrected == Set(expected.filter { !$0.value }.keys))
        #expect(r.stderr.contains("40 photos rendered without lens correction:"))
        for name in expected.keys where !expected[name]! { #expect(r.stderr.contains(name), "\(name) is not listed") }
        // A matched photo's output differs from the photo rendered without the stage; an
        // unmatched one's is the same.
        let flat = dir.appendingPathComponent("flat.png").path
        _ = try ok(["render", grid, "--recipe", plain, "-o", flat])
        let reference = try pixels(flat)
        for i in Self.combinations.indices {
            let corrected = try pixels(out + "/c\(i)-07.jpg")
            let plainJPEG = dir.appendingPathComponent("plain-\(i).jpg").path
            _ = try ok(["render", grid, "--recipe", plain, "-o", plainJPEG])
            let uncorrectedBytes = try pixels(plainJPEG)
            let same = corrected == uncorrectedBytes
            #expect(same != Self.combinations[i].matched, "\(Self.combinations[i].lens): corrected \(!same), matched \(Self.combinations[i].matched)")
            #expect(corrected.count == reference.count)
        }
    }

    @Test("a required correction with no profile fails the render (exit 1) naming the photo and why; explain shows the profile used",
          Requirement.tool("exiftool"), Requirement.imageMagick)
    func requiredAndExplain() throws {
        let dir = TestPaths.temporaryDirectory("lens-required")
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = try base(in: dir)
        try tag(photo, Self.combinations[8])
        let recipe = dir.appendingPathComponent("r.recipe.yaml").path
        try write("format: dev.recipe.edit\nversion: 1.3\nstages:\n  - lens: {required: true}\n", recipe)
        let failed = try self.recipe(["render", photo, "--recipe", recipe, "-o", dir.appendingPathComponent("o.jpg").path])
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("grid.jpg") && failed.stderr.contains("manual lens") || failed.stderr.contains("Manual lens"), "\(failed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("o.jpg").path))
        try tag(photo, Self.combinations[0])
        let explained = try ok(["explain", recipe, "--photo", photo])
        #expect(explained.contains("lens (stage 1): Canon EF 24-70mm f/2.8L USM (lensfun) at 24 mm f/8"), "\(explained)")
        #expect(explained.contains("lens correction (distortion"), "\(explained)")
    }

    @Test("a profile named in the recipe corrects a photo whose EXIF matches none (a manual lens), required: true; explain says it was named",
          Requirement.tool("exiftool"), Requirement.imageMagick)
    func namedProfile() throws {
        let dir = TestPaths.temporaryDirectory("lens-named")
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = try base(in: dir)
        try tag(photo, Self.combinations[8])
        let recipe = dir.appendingPathComponent("r.recipe.yaml").path
        try write("format: dev.recipe.edit\nversion: 1.3\nstages:\n  - lens: {profile: \"Canon EF 24-70mm f/2.8L USM\", crop-factor: 1, required: true}\n", recipe)
        let named = dir.appendingPathComponent("named.png").path, plain = dir.appendingPathComponent("plain.png").path
        _ = try ok(["render", photo, "--recipe", recipe, "-o", named])
        _ = try ok(["render", photo, "-o", plain])
        #expect(try pixels(named) != pixels(plain), "the named profile corrected nothing")
        let explained = try ok(["explain", recipe, "--photo", photo])
        #expect(explained.contains("lens (stage 1): Canon EF 24-70mm f/2.8L USM (lensfun) at 50 mm f/8, crop factor 1: distortion"), "\(explained)")
        #expect(explained.contains("(named in the recipe)"), "\(explained)")
    }

    @Test("the display size corrects too: --size 1000 against the full render downscaled, ≥ 40 dB (a 4352×2448 JPEG decoded at a quarter in the DCT, as a 24 MP photo is at --size 1600)",
          Requirement.tool("exiftool"), Requirement.corpus)
    func displaySize() throws {
        let dir = TestPaths.temporaryDirectory("lens-display")
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = dir.appendingPathComponent("bridge.jpg").path
        try FileManager.default.copyItem(atPath: try Requirement.corpusURL().appendingPathComponent("photos/Bridge_by_Sander_Klootwijk.jpg").path,
                                         toPath: photo)
        try tag(photo, Self.combinations[1])
        let recipePath = dir.appendingPathComponent("lens.recipe.yaml").path
        try write("format: dev.recipe.edit\nversion: 1.3\nstages:\n  - lens: auto\n", recipePath)
        let full = dir.appendingPathComponent("full.png").path, down = dir.appendingPathComponent("down.png").path
        let display = dir.appendingPathComponent("display.png").path
        _ = try ok(["render", photo, "--recipe", recipePath, "-o", full])
        _ = try ok(["render", full, "--size", "1000", "-o", down])
        _ = try ok(["render", photo, "--recipe", recipePath, "--size", "1000", "-o", display])
        let flat = dir.appendingPathComponent("flat.png").path
        _ = try ok(["render", photo, "--size", "1000", "-o", flat])
        let psnr = RecipeRenderTests.psnr(try pixels(down), try pixels(display))
        let uncorrected = RecipeRenderTests.psnr(try pixels(down), try pixels(flat))
        testNote("lens at --size 1000: \(String(format: "%.1f", psnr)) dB against the full render downscaled (uncorrected: \(String(format: "%.1f", uncorrected)) dB)")
        #expect(psnr >= 40, "\(psnr) dB")
        #expect(uncorrected < 30, "the correction should show at display size (\(uncorrected) dB without it)")
    }

    @Test("the straighten, crop and flip after the lens are the same resampling: explain shows one pass for the four stages, and the picture is the unfused one's (two resamplings) within 40 dB",
          Requirement.tool("exiftool"), Requirement.imageMagick)
    func foldedGeometry() throws {
        let dir = TestPaths.temporaryDirectory("lens-fold")
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = try base(in: dir)
        try tag(photo, Self.combinations[1])
        let recipePath = dir.appendingPathComponent("fold.recipe.yaml").path
        try write("format: dev.recipe.edit\nversion: 1.3\nstages:\n  - lens: auto\n  - straighten: -1.5\n  - crop: {aspect: \"1:1\"}\n  - flip: horizontal\n", recipePath)
        let plan = try ok(["explain", recipePath, "--photo", photo])
        #expect(plan.contains("lens correction (distortion") && plan.contains("then straighten -1.5°, only its 160×160 at (40, 0), mirrored left–right")
                && plan.contains("← lens (stage 1), straighten (stage 2), crop (stage 3), flip (stage 4)"), "\(plan)")
        let fused = dir.appendingPathComponent("fused.png").path, apart = dir.appendingPathComponent("apart.png").path
        _ = try ok(["render", photo, "--recipe", recipePath, "-o", fused])
        _ = try ok(["render", photo, "--recipe", recipePath, "--no-fuse", "-o", apart])
        let psnr = RecipeRenderTests.psnr(try pixels(fused), try pixels(apart))
        testNote("lens + straighten + crop + flip, one resampling against two: \(String(format: "%.1f", psnr)) dB")
        #expect(psnr >= 40 && psnr < 99, "\(psnr) dB")
    }
}
