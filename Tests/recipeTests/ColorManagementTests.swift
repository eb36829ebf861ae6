import Foundation
import RecipeCodecs
import RecipeCore
import RecipeKernels
import Testing
import TestSupport

/// CIEDE2000 between two sRGB-encoded 8-bit colours (their `CIELab`), the formula of Sharma, Wu and
/// Dalal (2005) written out.
func deltaE2000(_ a: (Int, Int, Int), _ b: (Int, Int, Int)) -> Double {
    func lab(_ c: (Int, Int, Int)) -> (Double, Double, Double) {
        let v = CIELab(red: Double(c.0) / 255, green: Double(c.1) / 255, blue: Double(c.2) / 255)
        return (v.l, v.a, v.b)
    }
    let (l1, a1, b1) = lab(a), (l2, a2, b2) = lab(b)
    let c1 = (a1 * a1 + b1 * b1).squareRoot(), c2 = (a2 * a2 + b2 * b2).squareRoot()
    let cMean = (c1 + c2) / 2
    let g = 0.5 * (1 - (pow(cMean, 7) / (pow(cMean, 7) + pow(25, 7))).squareRoot())
    let ap1 = (1 + g) * a1, ap2 = (1 + g) * a2
    let cp1 = (ap1 * ap1 + b1 * b1).squareRoot(), cp2 = (ap2 * ap2 + b2 * b2).squareRoot()
    func hue(_ b: Double, _ a: Double) -> Double {
        if a == 0 && b == 0 { return 0 }
        let h = atan2(b, a) * 180 / .pi
        return h < 0 ? h + 360 : h
    }
    let hp1 = hue(b1, ap1), hp2 = hue(b2, ap2)
    let dL = l2 - l1, dC = cp2 - cp1
    var dh = 0.0
    if cp1 * cp2 != 0 {
        dh = hp2 - hp1
        if dh > 180 { dh -= 360 } else if dh < -180 { dh += 360 }
    }
    let dH = 2 * (cp1 * cp2).squareRoot() * sin(dh * .pi / 360)
    let lMean = (l1 + l2) / 2, cpMean = (cp1 + cp2) / 2
    var hMean = hp1 + hp2
    if cp1 * cp2 != 0 {
        if abs(hp1 - hp2) <= 180 { hMean /= 2 } else { hMean = hp1 + hp2 < 360 ? (hMean + 360) / 2 : (hMean - 360) / 2 }
    }
    let t = 1 - 0.17 * cos((hMean - 30) * .pi / 180) + 0.24 * cos(2 * hMean * .pi / 180)
        + 0.32 * cos((3 * hMean + 6) * .pi / 180) - 0.20 * cos((4 * hMean - 63) * .pi / 180)
    let dTheta = 30 * exp(-pow((hMean - 275) / 25, 2))
    let rc = 2 * (pow(cpMean, 7) / (pow(cpMean, 7) + pow(25, 7))).squareRoot()
    let sl = 1 + 0.015 * pow(lMean - 50, 2) / (20 + pow(lMean - 50, 2)).squareRoot()
    let sc = 1 + 0.045 * cpMean, sh = 1 + 0.015 * cpMean * t
    let rt = -sin(2 * dTheta * .pi / 180) * rc
    return (pow(dL / sl, 2) + pow(dC / sc, 2) + pow(dH / sh, 2) + rt * (dC / sc) * (dH / sh)).squareRoot()
}

/// Colour management against Little CMS itself, through libvips' `icc_transform` (lcms2, the same
/// relative colorimetric intent, no black-point compensation): the reference is made in the test
/// from the same file, never our own earlier output.
@Suite("colour management")
struct ColorManagementTests: CLITest {
    /// A file's pixels as 8-bit RGB (16-bit samples rounded, grey repeated), its size, and its ICC profile.
    func rgb8(_ path: String) throws -> (pixels: [(Int, Int, Int)], width: Int, height: Int, icc: [UInt8]?) {
        let d = try decodedSamples(path)
        let values = d.bits == 16 ? d.values.map { ($0 * 255 + 32767) / 65535 } : d.values
        let colour = d.hasAlpha ? d.channels - 1 : d.channels
        let pixels = (0..<(d.width * d.height)).map { p in
            let base = p * d.channels
            return colour == 1 ? (values[base], values[base], values[base]) : (values[base], values[base + 1], values[base + 2])
        }
        return (pixels, d.width, d.height, d.icc)
    }

    /// Mean and max ΔE2000 between two files of one size.
    func difference(_ a: String, _ b: String) throws -> (mean: Double, max: Double) {
        let x = try rgb8(a), y = try rgb8(b)
        try #require(x.width == y.width && x.height == y.height, "sizes \(x.width)×\(x.height) and \(y.width)×\(y.height)")
        var sum = 0.0, worst = 0.0
        for (p, q) in zip(x.pixels, y.pixels) {
            let e = deltaE2000(p, q)
            sum += e
            worst = max(worst, e)
        }
        return (sum / Double(x.pixels.count), worst)
    }

    func vips() throws -> String { try Requirement.path("vips") }

    func run(_ tool: String, _ args: [String]) throws {
        let r = try ExternalTool.run(tool, args)
        try #require(r.status == 0, "\(tool) \(args.joined(separator: " ")): \(r.stderr)")
    }

    static let p3Profile = TestPaths.packageRoot.appendingPathComponent("Tests/RecipeColorTests/Fixtures/broken_iccp_inflated.icc").path
    static let adobeProfile = TestPaths.packageRoot.appendingPathComponent("Tests/RecipeColorTests/Fixtures/AdobeRGB1998.icc").path
    static let kodim03 = TestPaths.samples.appendingPathComponent("kodim03.png").path

    /// kodim03 converted to Display P3 by vips (lcms2, relative), with the P3 profile embedded.
    func p3Photo(_ vips: String, in dir: URL) throws -> String {
        let photo = dir.appendingPathComponent("p3.png").path
        try run(vips, ["icc_transform", Self.kodim03, photo, Self.p3Profile, "--input-profile", "srgb", "--intent", "relative"])
        return photo
    }

    /// Our conversion of `photo` to sRGB against vips' (upright and flattened onto white, as ours
    /// is), as ΔE2000.
    func toSRGB(_ photo: String, vips: String, in dir: URL, intent: String = "relative") throws -> (mean: Double, max: Double) {
        let name = (photo as NSString).lastPathComponent
        let ours = dir.appendingPathComponent("ours-\(name).png").path
        let r = try recipe(["render", photo, "--profile", "srgb", "-o", ours])
        #expect(r.status == 0, "\(r.stderr)")
        let converted = dir.appendingPathComponent("vips-\(name).v").path, reference = dir.appendingPathComponent("vips-\(name).png").path
        var input = photo
        if try ImageDecoders.open(photo).info.colorModel.hasAlpha {
            input = dir.appendingPathComponent("flat-\(name).v").path
            try run(vips, ["flatten", photo, input, "--background", "255 255 255"])
        }
        try run(vips, ["icc_transform", input, converted, "srgb", "--embedded", "--intent", intent])
        try run(vips, ["autorot", converted, reference])
        #expect(try rgb8(ours).icc.map { String(decoding: $0[16..<20], as: UTF8.self) } == "RGB ", "\(name): the sRGB output carries an RGB profile")
        return try difference(ours, reference)
    }

    @Test("a Display P3 and an Adobe RGB photo (kodim03 converted by vips) convert to sRGB as lcms2 does: mean ΔE2000 ≤ 0.5, max ≤ 2", Requirement.tool("vips"))
    func madeWideGamut() throws {
        let vips = try vips()
        let dir = TestPaths.temporaryDirectory("colour")
        defer { try? FileManager.default.removeItem(at: dir) }
        for (label, profile) in [("p3", Self.p3Profile), ("adobe", Self.adobeProfile)] {
            let photo = dir.appendingPathComponent("kodim03-\(label).png").path
            try run(vips, ["icc_transform", Self.kodim03, photo, profile, "--input-profile", "srgb", "--intent", "relative"])
            let (mean, worst) = try toSRGB(photo, vips: vips, in: dir)
            testNote("kodim03 as \(label) → sRGB vs vips icc_transform: ΔE2000 mean \(String(format: "%.3f", mean)), max \(String(format: "%.2f", worst))")
            #expect(mean <= 0.5 && worst <= 2, "\(label): mean \(mean), max \(worst)")
        }
    }

    /// The files, with the intent vips is asked for: "TIFF RGB" has only a perceptual table
    /// (A2B0), which lcms2 uses for every intent (transicc -t1 gives our values), while vips
    /// refuses the relative intent and leaves the pixels unconverted; asked for perceptual, it
    /// converts through that same table.
    static let corpusProfiled = [("photos/pil_xmp_test.jpg", "relative"), ("photos/pil_icc_profile_big.jpg", "perceptual"),
                                 ("photos/pil_xmp_tags_orientation.png", "relative"), ("photos/ljt_monkey16.png", "relative"),
                                 ("photos/ljt_vgl_5674_0098.png", "relative"), ("photos/jd_ycck.jpg", "relative"),
                                 ("broken/png_broken_iccp.png", "relative")]

    /// Adobe RGB (1998), TIFF RGB, ColorMatch RGB, sRGB2014 (8 and 16 bits), SWOP CMYK (YCCK) and
    /// Display P3 (with alpha): every corpus photo whose profile is usable.
    @Test("every corpus photo with a profile converts to sRGB as lcms2 does: mean ΔE2000 ≤ 0.5, max ≤ 2", Requirement.tool("vips"), Requirement.corpus,
          arguments: corpusProfiled)
    func corpus(_ file: String, _ vipsIntent: String) throws {
        let corpus = try Requirement.corpusURL()
        let vips = try vips()
        let dir = TestPaths.temporaryDirectory("colour-corpus")
        defer { try? FileManager.default.removeItem(at: dir) }
        let (mean, worst) = try toSRGB(corpus.appendingPathComponent(file).path, vips: vips, in: dir, intent: vipsIntent)
        testNote("\(file) → sRGB vs vips icc_transform: ΔE2000 mean \(String(format: "%.3f", mean)), max \(String(format: "%.2f", worst))")
        #expect(mean <= 0.5 && worst <= 2, "\(file): mean \(mean), max \(worst)")
    }

    @Test("a P3 photo keeps P3 through a recipe by default: its own profile is carried, and its pixels are the sRGB render's colours", Requirement.tool("vips"))
    func keep() throws {
        let vips = try vips()
        let dir = TestPaths.temporaryDirectory("colour-keep")
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = try p3Photo(vips, in: dir)
        let recipePath = dir.appendingPathComponent("r.recipe.yaml").path
        try "format: dev.recipe.edit\nversion: 1.1\nstages:\n  - exposure: 0.4\n  - contrast: 1.2\n  - blur: 1\n"
            .write(toFile: recipePath, atomically: true, encoding: .utf8)
        let kept = dir.appendingPathComponent("kept.png").path, srgb = dir.appendingPathComponent("srgb.png").path
        #expect(try recipe(["render", photo, "--recipe", recipePath, "-o", kept]).status == 0)
        #expect(try recipe(["render", photo, "--recipe", recipePath, "--profile", "srgb", "-o", srgb]).status == 0)
        #expect(try rgb8(kept).icc == rgb8(photo).icc, "the photo's own profile bytes")
        let back = dir.appendingPathComponent("kept-as-srgb.png").path
        try run(vips, ["icc_transform", kept, back, "srgb", "--embedded", "--intent", "relative"])
        let (mean, worst) = try difference(back, srgb)
        testNote("P3 kept through a recipe, then to sRGB by vips, vs the recipe rendered to sRGB: ΔE2000 mean \(String(format: "%.3f", mean)), max \(String(format: "%.2f", worst))")
        // Two 8-bit roundings, one of them in the wider space (a P3 code spans more colour than
        // an sRGB one): the conversion itself is held to ΔE 2 above, the round trip to 4.
        #expect(mean <= 0.5 && worst <= 4)
    }

    @Test("--profile display-p3, adobe-rgb and rec2020 write that space with its profile; lcms2 brings it back to the sRGB original", Requirement.tool("vips"),
          arguments: ["display-p3", "adobe-rgb", "rec2020"])
    func outputProfiles(_ name: String) throws {
        let vips = try vips()
        let dir = TestPaths.temporaryDirectory("colour-out")
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.png").path
        let r = try recipe(["render", Self.kodim03, "--profile", name, "-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        let info = try recipe(["info", out])
        let expected = ["display-p3": "Display P3", "adobe-rgb": "Adobe RGB", "rec2020": "BT.2020"][name]!
        #expect(String(decoding: info.stdout, as: UTF8.self).contains("colour space: ") && String(decoding: info.stdout, as: UTF8.self).contains(expected), "\(info.stdout)")
        let back = dir.appendingPathComponent("back.png").path
        try run(vips, ["icc_transform", out, back, "srgb", "--embedded", "--intent", "relative"])
        let (mean, worst) = try difference(back, Self.kodim03)
        testNote("kodim03 → \(name) → sRGB (vips) vs kodim03: ΔE2000 mean \(String(format: "%.3f", mean)), max \(String(format: "%.2f", worst))")
        // A round trip through 8 bits in a wider space (Rec. 2020's codes are the coarsest): ΔE 4.
        #expect(mean <= 0.5 && worst <= 4)
    }

    /// `png` with its iCCP chunk replaced by a cICP chunk of `code` (primaries, transfer, matrix, range).
    static func retagged(_ png: [UInt8], cicp code: [UInt8]) -> [UInt8] {
        func crc32(_ bytes: [UInt8]) -> UInt32 {
            // The PNG chunk CRC (ISO 3309, polynomial 0xEDB88320), bit by bit: a few chunks only.
            var c: UInt32 = 0xFFFF_FFFF
            for b in bytes {
                c ^= UInt32(b)
                for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            }
            return c ^ 0xFFFF_FFFF
        }
        func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        var out = Array(png[0..<8]), i = 8
        while i + 8 <= png.count {
            let length = Int(png[i]) << 24 | Int(png[i + 1]) << 16 | Int(png[i + 2]) << 8 | Int(png[i + 3])
            let type = String(decoding: png[(i + 4)..<(i + 8)], as: UTF8.self)
            let end = i + 12 + length
            if type != "iCCP" { out += png[i..<end] }
            if type == "IHDR" {
                let body = Array("cICP".utf8) + code
                out += be(4) + body + be(crc32(body))
            }
            i = end
        }
        return out
    }

    @Test("a PNG's cICP chunk says its colours: Display P3 pixels tagged by cICP instead of iCCP come back to the sRGB original")
    func pngCICP() throws {
        let dir = TestPaths.temporaryDirectory("colour-cicp")
        defer { try? FileManager.default.removeItem(at: dir) }
        let p3 = dir.appendingPathComponent("p3.png").path, tagged = dir.appendingPathComponent("cicp.png").path
        let back = dir.appendingPathComponent("back.png").path
        _ = try ok(["render", Self.kodim03, "--profile", "display-p3", "-o", p3])
        let bytes = Self.retagged([UInt8](try Data(contentsOf: URL(fileURLWithPath: p3))), cicp: [12, 13, 0, 1])
        try Data(bytes).write(to: URL(fileURLWithPath: tagged))
        let info = try ok(["info", tagged])
        #expect(info.contains("Display P3 primaries") && info.contains("PNG cICP"), "\(info)")
        _ = try ok(["render", tagged, "--profile", "srgb", "-o", back])
        let (mean, worst) = try difference(back, Self.kodim03)
        testNote("kodim03 → P3 (tagged by cICP) → sRGB vs kodim03: ΔE2000 mean \(String(format: "%.3f", mean)), max \(String(format: "%.2f", worst))")
        #expect(mean <= 0.5 && worst <= 2)
    }

    /// The damage policy for colour: a warning naming the file and the problem, the photo
    /// rendered as sRGB, and no profile the pixels are not in.
    @Test("damaged or mismatched profiles render as sRGB with a warning naming the file, and the output carries no profile",
          arguments: ["broken/jd_icc_chunk_count_mismatch.jpeg", "broken/jd_icc_chunk_order.jpeg", "jpeg/moz_jpg-srgb-icc.jpg"])
    func damaged(_ fixture: String) throws {
        let dir = TestPaths.temporaryDirectory("colour-bad")
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = TestPaths.fixture(fixture)
        let out = dir.appendingPathComponent("out.png").path
        let r = try recipe(["render", photo, "--profile", "srgb", "-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains(photo) && r.stderr.contains("warning"), "\(r.stderr)")
        #expect(try rgb8(out).icc == nil, "\(fixture): a profile its pixels are not in")
    }

    /// (Also across runs: the built-in profiles an output carries have a fixed creation date.)
    /// The second recipe is one fused pass from the decoder's codes to the encoder's, which keeps
    /// a colour cache a thread (`PixelCache`) where the CPU has AVX-512 VBMI, on a photo of a
    /// megapixel or more: the P3 photo twice as large (1536×1024).
    @Test("a P3 photo through a recipe gives the same bytes on 1, 2 and 3 threads, to sRGB and kept", Requirement.tool("vips"),
          arguments: ["  - contrast: 1.2\n  - sharpen: 0.6\n  - vignette: 0.3\n", "  - exposure: 0.25\n  - contrast: 1.15\n  - saturation: 1.3\n"])
    func threads(_ stages: String) throws {
        let vips = try vips()
        let dir = TestPaths.temporaryDirectory("colour-threads")
        defer { try? FileManager.default.removeItem(at: dir) }
        var photo = try p3Photo(vips, in: dir)
        let recipePath = dir.appendingPathComponent("r.recipe.yaml").path
        try ("format: dev.recipe.edit\nversion: 1.1\nstages:\n" + stages).write(toFile: recipePath, atomically: true, encoding: .utf8)
        if stages.contains("saturation") {
            let large = dir.appendingPathComponent("p3-large.png").path
            try run(vips, ["resize", photo, large, "2"])
            photo = large
            #expect(PixelCache.worthIt(width: 1536, height: 1024) == PixelCache.supported)
        }
        if stages.contains("saturation") && PixelCache.supported {
            let plan = try ok(["explain", recipePath, "--photo", photo, "--profile", "srgb"])
            #expect(plan.contains("colour cache"), "the point-only recipe should take the colour cache: \(plan)")
        }
        for profile in ["srgb", "keep"] {
            var outputs: [Data] = []
            for threads in [1, 2, 3] {
                let out = dir.appendingPathComponent("t\(threads)-\(profile).jpg").path
                #expect(try recipe(["render", photo, "--recipe", recipePath, "--profile", profile, "--threads", "\(threads)", "-o", out]).status == 0)
                outputs.append(try Data(contentsOf: URL(fileURLWithPath: out)))
            }
            #expect(outputs[0] == outputs[1] && outputs[0] == outputs[2], "\(profile): bytes differ by thread count")
        }
    }

    @Test("a recipe's `output: {profile: srgb}` converts its renders; --profile on the command line wins; a wrong word is R209 with a fix", Requirement.tool("vips"))
    func recipeOutput() throws {
        let vips = try vips()
        let dir = TestPaths.temporaryDirectory("colour-output")
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = try p3Photo(vips, in: dir)
        let web = dir.appendingPathComponent("web.recipe.yaml").path
        try "format: dev.recipe.edit\nversion: 1.1\noutput: {profile: srgb}\nstages:\n  - contrast: 1.1\n"
            .write(toFile: web, atomically: true, encoding: .utf8)
        let converted = dir.appendingPathComponent("web.png").path, kept = dir.appendingPathComponent("kept.png").path
        #expect(try recipe(["render", photo, "--recipe", web, "-o", converted]).status == 0)
        #expect(try recipe(["render", photo, "--recipe", web, "--profile", "keep", "-o", kept]).status == 0)
        func space(_ path: String) throws -> String { String(decoding: try recipe(["info", path]).stdout, as: UTF8.self) }
        let convertedInfo = try space(converted), keptInfo = try space(kept)
        #expect(convertedInfo.contains("colour space: sRGB"), "\(convertedInfo)")
        #expect(keptInfo.contains("colour space: Display P3"), "\(keptInfo)")
        let bad = dir.appendingPathComponent("bad.recipe.yaml").path
        try "format: dev.recipe.edit\nversion: 1.1\noutput: {profile: srbg}\nstages: []\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let r = try recipe(["check", bad])
        let said = String(decoding: r.stdout, as: UTF8.self) + r.stderr
        #expect(r.status == 2 && said.contains("R209") && said.contains("did you mean `srgb`?"), "\(said)")
    }

    /// The Unsplash photos of the bench carry "c2", a 524-byte sRGB profile whose 26-point curves
    /// are 0.44 of an 8-bit step from sRGB's: an sRGB photo, which must pay nothing.
    @Test("a photo with a compact sRGB profile (c2) converts nothing", Requirement.corpus)
    func compactSRGB() throws {
        let corpus = try Requirement.corpusURL()
        let dir = TestPaths.temporaryDirectory("colour-c2")
        defer { try? FileManager.default.removeItem(at: dir) }
        let recipePath = dir.appendingPathComponent("r.recipe.yaml").path
        try "format: dev.recipe.edit\nversion: 1.1\nstages:\n  - contrast: 1.2\n".write(toFile: recipePath, atomically: true, encoding: .utf8)
        let photo = corpus.appendingPathComponent("bench/fatih-kgqu_qs3B78-unsplash.jpg").path
        let explain = String(decoding: try recipe(["explain", recipePath, "--photo", photo]).stdout, as: UTF8.self)
        #expect(explain.contains("colour: sRGB in, sRGB out; nothing to convert"), "\(explain)")
    }

    @Test("a CMYK photo without a profile converts through the system's default CMYK profile as lcms2 does, with a warning naming it", Requirement.tool("vips"),
          Requirement.file("/usr/share/color/icc/ghostscript/default_cmyk.icc"))
    func cmykWithoutProfile() throws {
        let dir = TestPaths.temporaryDirectory("colour-cmyk")
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = TestPaths.fixture("jpeg/moz_jpg-cmyk-1.jpg")
        let out = dir.appendingPathComponent("out.png").path
        let r = try recipe(["render", photo, "--profile", "srgb", "-o", out])
        #expect(r.status == 0 && r.stderr.contains("CMYK") && r.stderr.contains("approximate"), "\(r.stderr)")
        let system = "/usr/share/color/icc/ghostscript/default_cmyk.icc"
        #expect(r.stderr.contains(system), "\(r.stderr)")
        let vips = try vips()
        let converted = dir.appendingPathComponent("vips.v").path, reference = dir.appendingPathComponent("vips.png").path
        try run(vips, ["icc_transform", photo, converted, "srgb", "--input-profile", system, "--intent", "relative"])
        try run(vips, ["copy", converted, reference])
        let (mean, worst) = try difference(out, reference)
        testNote("CMYK without a profile, through \(system), vs vips icc_transform: ΔE2000 mean \(String(format: "%.3f", mean)), max \(String(format: "%.2f", worst))")
        #expect(mean <= 0.5 && worst <= 2, "mean \(mean), max \(worst)")
    }

    @Test("recipe info names the colour space, its profile class and whether it is wide gamut; explain shows the conversions", Requirement.tool("vips"))
    func visible() throws {
        let vips = try vips()
        let dir = TestPaths.temporaryDirectory("colour-info")
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = try p3Photo(vips, in: dir)
        let info = try recipe(["info", photo])
        #expect(String(decoding: info.stdout, as: UTF8.self).contains("colour space: Display P3 (ICC v4.0 display profile, rgb, wide gamut)"), "\(info.stdout)")
        let recipePath = dir.appendingPathComponent("r.recipe.yaml").path
        try "format: dev.recipe.edit\nversion: 1.1\nstages:\n  - contrast: 1.2\n".write(toFile: recipePath, atomically: true, encoding: .utf8)
        let explain = try recipe(["explain", recipePath, "--photo", photo, "--profile", "srgb"])
        #expect(String(decoding: explain.stdout, as: UTF8.self).contains("colour: Display P3 in, sRGB out"), "\(explain.stdout)")
        #expect(String(decoding: explain.stdout, as: UTF8.self).contains("← colour: Display P3 → working space"), "\(explain.stdout)")
    }
}
