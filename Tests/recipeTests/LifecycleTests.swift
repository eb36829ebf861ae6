import Foundation
import RecipeCodecs
import RecipeCore
import RecipeHistory
import Testing
import TestSupport

/// `recipe edit / render / revert / history / relink`: the edit lifecycle as a user runs it, with
/// every expectation computed apart from the history: a plain `recipe render --recipe` of the
/// remaining stages on the frozen pixels (the same renderer, so this checks the history, not the
/// ops), the frozen pixels themselves, or, where a single exposure remains, the formula. The
/// originals are hashed after every command.
/// The sheet's size from ContactSheet's layout formula (cell = box + 2·border, label lines below).
enum RecipeRenderSheetSize {
    static func expected(tiles: Int, box: Int) throws -> (width: Int, height: Int) {
        let margin = 16, border = 1, gap = 6, labelScale = 2, sublabelScale = 1
        let cellW = box + 2 * border, cellH = box + 2 * border + gap + 9 * labelScale + 9 * sublabelScale
        return (margin + tiles * (cellW + margin), margin + (cellH + margin))
    }
}

@Suite("edit lifecycle: sidecars, frozen bases, revert")
struct LifecycleTests: CLITest {

    /// 8-bit samples of a PNG or JPEG, through our decoder.
    func pixels(_ path: String) throws -> [UInt8] { try decodedPixels(path) }


    func recipeText(_ stages: [String]) -> String {
        "format: dev.recipe.edit\nversion: 1.1\nstages:\n" + (stages.isEmpty ? "  []\n" : stages.map { "  - \($0)\n" }.joined())
    }

    /// The expectation apart from the history: the stages rendered by a plain recipe onto `source`.
    func expected(_ source: String, _ stages: [String], in dir: String) throws -> [UInt8] {
        let r = dir + "/expect-\(UUID().uuidString).recipe.yaml"
        try write(stages.isEmpty ? "format: dev.recipe.edit\nversion: 1.1\nstages: []\n" : recipeText(stages), r)
        let out = dir + "/expect-\(UUID().uuidString).png"
        _ = try ok(["render", source, "--recipe", r, "-o", out])
        return try pixels(out)
    }

    /// A second, formula-made expectation where the stages allow one: a single `exposure: ev`
    /// is linear light times 2^ev (IEC 61966-2-1 written out), per sample, to within a code of
    /// rounding. Nil for other stages (their renders above come from `recipe render`).
    func formulaExpected(_ source: String, _ stages: [String]) throws -> [Double]? {
        guard stages.count == 1, stages[0].hasPrefix("exposure: "), let ev = Double(stages[0].dropFirst(10)) else { return nil }
        func decode(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
        func encode(_ l: Double) -> Double { l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1 / 2.4) - 0.055 }
        return try pixels(source).map { encode(min(1, decode(Double($0) / 255) * pow(2, ev))) * 255 }
    }

    /// `got` within 1/255 of the formula's values, when there is a formula for `stages`.
    func expectFormula(_ got: [UInt8], _ source: String, _ stages: [String], _ what: String) throws {
        guard let want = try formulaExpected(source, stages) else { return }
        #expect(got.count == want.count, "\(what)")
        let worst = zip(got, want).reduce(0.0) { max($0, abs(Double($1.0) - $1.1)) }
        #expect(worst <= 1, "\(what): \(worst)/255 from 2^ev in linear light")
    }

    static let aae = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>adjustmentBaseVersion</key>
        \t<integer>0</integer>
        \t<key>adjustmentData</key>
        \t<data>
        \tYnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMS
        \t</data>
        \t<key>adjustmentEditorBundleID</key>
        \t<string>com.apple.mobileslideshow</string>
        \t<key>adjustmentFormatIdentifier</key>
        \t<string>com.apple.photo</string>
        \t<key>adjustmentFormatVersion</key>
        \t<string>1.5</string>
        \t<key>adjustmentRenderTypes</key>
        \t<integer>0</integer>
        \t<key>adjustmentTimestamp</key>
        \t<date>2019-07-20T16:45:21Z</date>
        </dict>
        </plist>

        """

    /// A folder with an Apple Photos export: IMG_0001.JPG, IMG_0001.AAE and the rendering
    /// IMG_E0001.JPG (made here by a warm recipe, standing in for Photos).
    func appleExport() throws -> String {
        let dir = TestPaths.temporaryDirectory("lifecycle").path
        try FileManager.default.copyItem(atPath: TestPaths.fixture("jpeg/pil_hopper.jpg"), toPath: dir + "/IMG_0001.JPG")
        try write(Self.aae, dir + "/IMG_0001.AAE")
        try write(recipeText(["white-balance: {temp: 5200, tint: 8}", "exposure: 0.2"]), dir + "/photos-look.recipe.yaml")
        _ = try ok(["render", dir + "/IMG_0001.JPG", "--recipe", dir + "/photos-look.recipe.yaml", "-o", dir + "/IMG_E0001.JPG"])
        return dir
    }

    func digests(_ paths: [String]) throws -> [String] { try paths.map { try ContentHash.file($0).sha256 } }

    @Test("scenario: AAE → 3 stages → foreign v99 recipe → 2 stages; every layer reverted in turn against plain renders (and 2^ev where one exposure is left); blobs extract byte for byte; inputs never written")
    func scenario() throws {
        let dir = try appleExport()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let photo = dir + "/IMG_0001.JPG", current = dir + "/current.png", apple = dir + "/IMG_E0001.JPG"
        let future = dir + "/future.recipe.yaml", futurePixels = dir + "/future.jpg"
        let s1 = ["exposure: 0.3", "saturation: 1.2", "vignette: 0.3"]
        let s2 = ["contrast: 1.1", "exposure: -0.2"]

        // 1. The AAE edit becomes the bottom base; three native stages on top of its pixels.
        _ = try ok(["edit", photo] + s1.flatMap { ["--stage", $0] } + ["-o", current])
        let afterApple = try pixels(current)
        let appleExpected = try expected(apple, s1, in: dir)
        let appleSame = afterApple == appleExpected
        #expect(appleSame)

        // 2. A foreign recipe (major version 99) and its rendering laid on top, then two stages.
        try write("format: dev.recipe.edit\nversion: 99.0\n# written by a future build\nstages:\n  - hyper-tone: {amount: 3}\n", future)
        _ = try ok(["render", current, "--recipe", dir + "/photos-look.recipe.yaml", "-o", futurePixels])
        let inputs = [photo, dir + "/IMG_0001.AAE", apple, future, futurePixels]
        let inputDigests = try digests(inputs)
        _ = try ok(["edit", photo, "--foreign", future, "--rendered", futurePixels] + s2.flatMap { ["--stage", $0] } + ["-o", current])
        let afterFuture = try pixels(current) == (try expected(futurePixels, s2, in: dir))
        #expect(afterFuture)

        // Every foreign blob comes back byte for byte.
        let history = try ok(["history", photo, "--extract", dir + "/kept"])
        #expect(history.contains("com.apple.photo 1.5 by com.apple.mobileslideshow"))
        #expect(history.contains("dev.recipe.edit 99.0"))
        let extracted = try FileManager.default.contentsOfDirectory(atPath: dir + "/kept").sorted()
        #expect(extracted == ["1-base-1.IMG_0001.AAE", "1-base-1.pixels.jpg", "5-base-2.future.recipe.yaml", "5-base-2.pixels.jpg"])
        for (extracted, original) in [("1-base-1.IMG_0001.AAE", dir + "/IMG_0001.AAE"), ("1-base-1.pixels.jpg", apple),
                                      ("5-base-2.future.recipe.yaml", future), ("5-base-2.pixels.jpg", futurePixels)] {
            let a = try Data(contentsOf: URL(fileURLWithPath: dir + "/kept/" + extracted))
            let b = try Data(contentsOf: URL(fileURLWithPath: original))
            #expect(a == b, "\(extracted) differs from \(original)")
        }

        // 3. Revert each layer from the top, checking the pixels after every step.
        func revert(_ args: [String], expect stages: [String], on source: String) throws {
            _ = try ok(["revert", photo] + args + ["-o", current])
            let got = try pixels(current)
            let want = stages.isEmpty ? try pixels(source) : try expected(source, stages, in: dir)
            let same = got == want
            #expect(same, "after revert \(args.joined(separator: " "))")
            try expectFormula(got, source, stages, "after revert \(args.joined(separator: " "))")
            #expect(try digests(inputs) == inputDigests, "an input changed after revert \(args)")
        }
        try revert(["--stage", "exposure-2"], expect: ["contrast: 1.1"], on: futurePixels)
        try revert(["--stage", "contrast"], expect: [], on: futurePixels)
        try revert(["--base"], expect: s1, on: apple)
        try revert(["--stage", "vignette"], expect: Array(s1.prefix(2)), on: apple)
        try revert(["--stage", "3"], expect: ["exposure: 0.3"], on: apple)  // position 3: base-1, exposure, saturation
        try revert(["--stage", "exposure"], expect: [], on: apple)
        try revert(["--base"], expect: [], on: photo)

        // Nothing left: the current version is the original, byte for byte.
        _ = try ok(["render", photo])
        let copy = try Data(contentsOf: URL(fileURLWithPath: dir + "/IMG_0001.edited.JPG"))
        #expect(copy == (try Data(contentsOf: URL(fileURLWithPath: photo))))
        #expect(try digests(inputs) == inputDigests)
        // The peeled bases' objects are still in the store (nothing is lost).
        let appleHash = try ContentHash.file(apple)
        let kept = try ObjectStore.beside(photo).verify(ObjectReference(sha256: appleHash.sha256, size: appleHash.size))
        #expect(FileManager.default.fileExists(atPath: kept))
    }

    @Test("a stage is disabled with one line and enabled again; --all removes every layer")
    func disableAndAll() throws {
        let dir = TestPaths.temporaryDirectory("lifecycle").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let photo = dir + "/p.jpg", current = dir + "/c.png"
        try FileManager.default.copyItem(atPath: TestPaths.fixture("jpeg/pil_hopper.jpg"), toPath: photo)
        _ = try ok(["edit", photo, "--stage", "exposure: 0.5", "--stage", "sepia: 0.6", "-o", current])
        let before = try String(contentsOfFile: photo + ".recipe.yaml", encoding: .utf8)
        _ = try ok(["revert", photo, "--stage", "sepia", "--disable", "-o", current])
        let after = try String(contentsOfFile: photo + ".recipe.yaml", encoding: .utf8)
        let added = after.split(separator: "\n").filter { !before.split(separator: "\n").contains($0) }
        #expect(added == ["    enabled: false"])
        #expect(try pixels(current) == (try expected(photo, ["exposure: 0.5"], in: dir)))
        try expectFormula(try pixels(current), photo, ["exposure: 0.5"], "sepia disabled")
        _ = try ok(["revert", photo, "--stage", "sepia", "--enable", "-o", current])
        #expect(try pixels(current) == (try expected(photo, ["exposure: 0.5", "sepia: 0.6"], in: dir)))
        // The contact sheet: one labelled tile per layer (original + 2 stages), laid out by ContactSheet.
        let sheetOutput = try ok(["history", photo, "--sheet", dir + "/sheet.png", "--thumbnail", "64"])
        #expect(sheetOutput.contains("wrote \(dir)/sheet.png (3 thumbnails)"))
        let sheet = try ImageDecoders.open(dir + "/sheet.png").info
        let layout = try RecipeRenderSheetSize.expected(tiles: 3, box: 64)
        #expect(sheet.width == layout.width && sheet.height == layout.height)
        _ = try ok(["revert", photo, "--all", "-o", current])
        #expect(try pixels(current) == (try pixels(photo)))
        let text = try String(contentsOfFile: photo + ".recipe.yaml", encoding: .utf8)
        #expect(text.contains("stages: []"))
    }

    @Test("--add appends a whole recipe's stages and params, each stage named by its op (a look of seven stages)")
    func addRecipe() throws {
        let dir = TestPaths.temporaryDirectory("lifecycle-add").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let photo = dir + "/p.jpg", current = dir + "/c.png"
        try FileManager.default.copyItem(atPath: TestPaths.fixture("jpeg/pil_hopper.jpg"), toPath: photo)
        let look = TestPaths.recipes.appendingPathComponent("warm-portrait.recipe.yaml").path
        let said = try ok(["edit", photo, "--stage", "exposure: 0.1", "--add", look, "-o", current])
        // Stages are counted, not arguments (it said "1 added" for the look's seven).
        #expect(said.contains("(8 layers, 8 added)"), "\(said)")
        let text = try String(contentsOfFile: photo + ".recipe.yaml", encoding: .utf8)
        let ids = text.split(separator: "\n").filter { $0.hasPrefix("  - id: ") }.map { String($0.dropFirst(8)) }
        // --add stages come before --stage ones; the second exposure is numbered.
        #expect(ids == ["white-balance", "exposure", "saturation", "vibrance", "shadows-highlights", "clarity", "vignette", "exposure-2"], "\(text)")
        #expect(text.contains("  warmth: {default: 7500"), "the look's param comes with it")
        _ = try ok(["check", photo + ".recipe.yaml"])
        let reverted = try ok(["revert", photo, "--stage", "clarity", "-o", current])
        #expect(!(try String(contentsOfFile: photo + ".recipe.yaml", encoding: .utf8)).contains("clarity"))
        // The stage is named by what it was (it said "removed stage 6 (clarity)" by id, "removed stage 1 (1)" by number).
        #expect(reverted.contains("removed stage 6 (clarity)"), "\(reverted)")
        let byNumber = try ok(["revert", photo, "--stage", "7", "-o", current])
        #expect(byNumber.contains("removed stage 7 (exposure-2: exposure)"), "\(byNumber)")
    }

    @Test("a sidecar that is not UTF-8 (a Latin-1 comment) is refused by edit and revert, naming the line, and left byte for byte (edit rewrote it with U+FFFD, exit 0)")
    func invalidUTF8Sidecar() throws {
        let dir = TestPaths.temporaryDirectory("lifecycle-utf8").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let photo = dir + "/p.jpg", sidecar = dir + "/p.jpg.recipe.yaml"
        try FileManager.default.copyItem(atPath: TestPaths.fixture("jpeg/pil_hopper.jpg"), toPath: photo)
        _ = try ok(["edit", photo, "--stage", "exposure: 0.1", "--no-render"])
        let latin1 = Array("# caf".utf8) + [0xE9] + Array(" note\n".utf8) + Array(try Data(contentsOf: URL(fileURLWithPath: sidecar)))
        try Data(latin1).write(to: URL(fileURLWithPath: sidecar))
        for args in [["edit", photo, "--stage", "contrast: 1.1", "--no-render"], ["revert", photo, "--stage", "1", "--no-render"]] {
            let r = try recipe(args)
            #expect(r.status == 1 && r.stderr.contains("is not valid UTF-8 (line 1, byte 6)"), "\(args[0]): exit \(r.status), \(r.stderr)")
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: sidecar))) == latin1, "\(args[0]) changed the sidecar")
        }
    }

    @Test("a param whose last stage is reverted goes with it (every later command warned it was never used); a param the user left unused stays")
    func revertTakesParams() throws {
        let dir = TestPaths.temporaryDirectory("lifecycle-params").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let photo = dir + "/p.jpg", current = dir + "/c.png", sidecar = dir + "/p.jpg.recipe.yaml"
        try FileManager.default.copyItem(atPath: TestPaths.fixture("jpeg/pil_hopper.jpg"), toPath: photo)
        let look = TestPaths.recipes.appendingPathComponent("warm-portrait.recipe.yaml").path
        _ = try ok(["edit", photo, "--add", look, "-o", current])
        #expect(try String(contentsOfFile: sidecar, encoding: .utf8).contains("warmth:"))
        // The one stage that uses $warmth.
        _ = try ok(["revert", photo, "--stage", "white-balance", "-o", current])
        var text = try String(contentsOfFile: sidecar, encoding: .utf8)
        #expect(!text.contains("warmth"), "\(text)")
        func check() throws -> String {
            let r = try recipe(["check", sidecar])
            #expect(r.status == 0, "\(r.stderr)")
            return String(decoding: r.stdout, as: UTF8.self) + r.stderr
        }
        var checked = try check()
        #expect(checked.contains("no errors") && !checked.contains("warning"), "\(checked)")
        // --all, with a param the user declared unused beforehand: that one is theirs to keep.
        _ = try ok(["edit", photo, "--add", look, "-o", current])
        text = try String(contentsOfFile: sidecar, encoding: .utf8)
        try text.replacingOccurrences(of: "params:\n", with: "params:\n  spare: {default: 1}\n").write(toFile: sidecar, atomically: true, encoding: .utf8)
        _ = try ok(["revert", photo, "--all", "-o", current])
        text = try String(contentsOfFile: sidecar, encoding: .utf8)
        #expect(!text.contains("warmth") && text.contains("spare"), "\(text)")
        checked = try check()
        #expect(checked.contains("param `spare` is never used") && !checked.contains("warmth"), "\(checked)")
    }

    @Test("darktable: the XMP and its export become a frozen base (corpus/foreign/darktable)", Requirement.corpus)
    func darktable() throws {
        let corpus = try Requirement.corpusURL()
        let dir = TestPaths.temporaryDirectory("darktable").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let src = corpus.appendingPathComponent("foreign/darktable").path
        for f in ["photo.jpg", "photo.jpg.xmp", "photo.darktable.jpg"] {
            try FileManager.default.copyItem(atPath: src + "/" + f, toPath: dir + "/" + f)
        }
        let photo = dir + "/photo.jpg"
        // Without the export: a clear error naming the XMP, nothing written.
        let missing = try recipe(["edit", photo, "--stage", "exposure: 0.1"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("photo.jpg.xmp: darktable edit without its rendering"))
        #expect(!FileManager.default.fileExists(atPath: photo + ".recipe.yaml"))
        _ = try ok(["edit", photo, "--rendered", dir + "/photo.darktable.jpg", "--stage", "exposure: 0.1", "-o", dir + "/c.png"])
        let history = try ok(["history", photo, "--extract", dir + "/kept"])
        #expect(history.contains("org.darktable.xmp 5 by darktable"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/kept/1-base-1.photo.jpg.xmp")) == (try Data(contentsOf: URL(fileURLWithPath: src + "/photo.jpg.xmp"))))
        #expect(try pixels(dir + "/c.png") == (try expected(dir + "/photo.darktable.jpg", ["exposure: 0.1"], in: dir)))
    }

    @Test("another tool's rendering may be a TIFF or a WebP (its export), not only a JPEG or PNG: the stages after the base apply to its pixels; extracted under its own extension; a raw is refused")
    func renderedInOtherFormats() throws {
        let dir = TestPaths.temporaryDirectory("rendered-formats").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let photo = dir + "/p.jpg"
        try FileManager.default.copyItem(atPath: TestPaths.fixture("jpeg/pil_hopper.jpg"), toPath: photo)
        try "tool settings\n".write(toFile: dir + "/tool.txt", atomically: true, encoding: .utf8)
        for (ext, extracted) in [("tif", "tif"), ("webp", "webp")] {
            try? FileManager.default.removeItem(atPath: photo + ".recipe.yaml")
            let rendered = dir + "/export." + ext
            _ = try ok(["render", photo, "--recipe", TestPaths.recipes.appendingPathComponent("black-and-white.recipe.yaml").path, "-o", rendered]
                       + (ext == "webp" ? ["--lossless"] : []))
            // It was refused: "the rendered pixels must be a JPEG or PNG file".
            _ = try ok(["edit", photo, "--foreign", dir + "/tool.txt", "--format", "com.example.tool", "--format-version", "1",
                        "--rendered", rendered, "-o", dir + "/current.png"])
            // Nothing after the base: the current version is the export's pixels.
            #expect(try decodedPixels(dir + "/current.png") == (try decodedPixels(rendered)), "\(ext): the current version is not the export")
            _ = try ok(["history", photo, "--extract", dir + "/kept-" + ext])
            let names = try FileManager.default.contentsOfDirectory(atPath: dir + "/kept-" + ext)
            #expect(names.contains { $0.hasSuffix(".pixels." + extracted) }, "\(ext): extracted as \(names)")
        }
        try? FileManager.default.removeItem(atPath: photo + ".recipe.yaml")
        let raw = try recipe(["edit", photo, "--foreign", dir + "/tool.txt", "--format", "com.example.tool", "--format-version", "1",
                              "--rendered", TestPaths.fixture("raw/kodim03-crop.dng"), "--no-render"])
        #expect(raw.status != 0 && raw.stderr.contains("not a camera raw"), "\(raw.stderr)")
    }

    @Test("opaque foreign data (Filtster's NSKeyedArchiver blob) is kept as base64 and extracted byte for byte")
    func opaqueData() throws {
        let dir = TestPaths.temporaryDirectory("opaque").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let photo = dir + "/p.jpg"
        try FileManager.default.copyItem(atPath: TestPaths.fixture("jpeg/pil_hopper.jpg"), toPath: photo)
        var blob = Array("bplist00".utf8) + [0xD4, 0x01, 0x02, 0x00, 0xFF, 0x80, 0x5F, 0x10]
        for i in 0..<300 { blob.append(UInt8((i * 37) & 0xFF)) }
        try Data(blob).write(to: URL(fileURLWithPath: dir + "/filster.data"))
        _ = try ok(["render", photo, "-o", dir + "/filster.jpg", "--quality", "80"])
        _ = try ok(["edit", photo, "--foreign", dir + "/filster.data", "--format", "com.shinobicontrols.filster", "--format-version", "1.0",
                    "--rendered", dir + "/filster.jpg", "--no-render"])
        let text = try String(contentsOfFile: photo + ".recipe.yaml", encoding: .utf8)
        #expect(text.contains("format: com.shinobicontrols.filster"))
        #expect(text.contains("data-base64: |"))
        _ = try ok(["history", photo, "--extract", dir + "/kept"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/kept/1-base-1.filster.data")) == Data(blob))
    }

    @Test("history --extract writes inside the folder given, whatever a base's source says: `x/../../../F.xmp` becomes 1-base-1.F.xmp there")
    func extractStaysInside() throws {
        let dir = TestPaths.temporaryDirectory("extract-escape").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let photo = dir + "/a/b/p.jpg"
        try FileManager.default.createDirectory(atPath: dir + "/a/b", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: TestPaths.fixture("jpeg/pil_hopper.jpg"), toPath: photo)
        try Data("opaque edit".utf8).write(to: URL(fileURLWithPath: dir + "/a/b/filster.data"))
        _ = try ok(["render", photo, "-o", dir + "/a/b/filster.jpg", "--quality", "80"])
        _ = try ok(["edit", photo, "--foreign", dir + "/a/b/filster.data", "--format", "com.shinobicontrols.filster", "--format-version", "1.0",
                    "--rendered", dir + "/a/b/filster.jpg", "--no-render"])
        let sidecar = photo + ".recipe.yaml"
        let text = try String(contentsOfFile: sidecar, encoding: .utf8)
        #expect(text.contains("source: filster.data"), "\(text)")
        try text.replacingOccurrences(of: "source: filster.data", with: "source: x/../../../F.xmp").write(toFile: sidecar, atomically: true, encoding: .utf8)
        _ = try ok(["check", sidecar])
        _ = try ok(["history", photo, "--extract", dir + "/a/b/kept"])
        // kept/1-base-1.x/../../../F.xmp would be dir/a/F.xmp.
        #expect(!FileManager.default.fileExists(atPath: dir + "/a/F.xmp"), "written outside the folder given")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/a/b/kept/1-base-1.F.xmp")) == Data("opaque edit".utf8))
    }

    @Test("bad input: another photo's sidecar, a tampered or missing object, an AAE that is no plist, an AAE without its rendering: clear errors, nothing overwritten")
    func badInput() throws {
        let dir = try appleExport()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let photo = dir + "/IMG_0001.JPG"
        _ = try ok(["edit", photo, "--stage", "exposure: 0.2", "--no-render"])
        let sidecar = try Data(contentsOf: URL(fileURLWithPath: photo + ".recipe.yaml"))

        // A sidecar beside another photo (copied): refused, naming the sidecar.
        let other = dir + "/other.jpg"
        try FileManager.default.copyItem(atPath: TestPaths.fixture("jpeg/pil_iptc.jpg"), toPath: other)
        try sidecar.write(to: URL(fileURLWithPath: other + ".recipe.yaml"))
        let wrong = try recipe(["render", other])
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("other.jpg.recipe.yaml: was made for another photo IMG_0001.JPG"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/other.edited.jpg"))
        let wrongEdit = try recipe(["edit", other, "--stage", "sepia: 1"])
        #expect(wrongEdit.status == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: other + ".recipe.yaml")) == sidecar)

        // The same size, one byte of the picture data changed: the content, not the size, binds.
        let twin = dir + "/twin.jpg"
        var twinBytes = try Data(contentsOf: URL(fileURLWithPath: photo))
        twinBytes[twinBytes.count / 2] ^= 0x01
        try twinBytes.write(to: URL(fileURLWithPath: twin))
        try sidecar.write(to: URL(fileURLWithPath: twin + ".recipe.yaml"))
        let sameSize = try recipe(["render", twin])
        #expect(sameSize.status == 1)
        #expect(sameSize.stderr.contains("twin.jpg.recipe.yaml: was made for another photo IMG_0001.JPG"), "\(sameSize.stderr)")

        // A tampered object: its path and the mismatch are named; the sidecar is untouched.
        let objects = try FileManager.default.subpathsOfDirectory(atPath: dir + "/recipe-objects").filter { $0.count > 60 }
        #expect(objects.count == 1)
        let object = dir + "/recipe-objects/" + objects[0]
        let good = try Data(contentsOf: URL(fileURLWithPath: object))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: object)
        var bad = good
        bad[bad.count / 2] ^= 0x55
        try bad.write(to: URL(fileURLWithPath: object))
        let tampered = try recipe(["render", photo, "-o", dir + "/t.jpg"])
        #expect(tampered.status == 1)
        #expect(tampered.stderr.contains(objects[0]) && tampered.stderr.contains("object is damaged or was changed"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/t.jpg"))
        // A missing object.
        try FileManager.default.removeItem(atPath: object)
        let missing = try recipe(["render", photo, "-o", dir + "/t.jpg"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("is missing from the store"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: photo + ".recipe.yaml")) == sidecar)
        // Changing an edit whose base is missing: refused before anything is written.
        for args in [["edit", photo, "--stage", "sepia: 0.3"], ["revert", photo, "--stage", "exposure"],
                     ["edit", photo, "--stage", "sepia: 0.3", "--no-render"]] {
            let r = try recipe(args)
            #expect(r.status == 1, "\(args): \(r.stderr)")
            #expect(r.stderr.contains("is missing from the store"), "\(args): \(r.stderr)")
            #expect(!String(decoding: r.stdout, as: UTF8.self).contains("wrote"), "\(args) says it wrote")
            #expect(try Data(contentsOf: URL(fileURLWithPath: photo + ".recipe.yaml")) == sidecar, "\(args) changed the sidecar")
        }

        // A sidecar that does not parse: every revert refuses with the parse error (exit 2), and
        // the file keeps its bytes.
        let broken = "format: dev.recipe.edit\nversion: 1.1\nstages:\n  - exposure: [0.3\n"
        try write(broken, photo + ".recipe.yaml")
        for args in [["revert", photo, "--all"], ["revert", photo, "--stage", "exposure"], ["revert", photo, "--base"]] {
            let r = try recipe(args)
            #expect(r.status == 2, "\(args): \(r.stderr)")
            #expect(!r.stderr.contains("no stage has the id"), "\(args): \(r.stderr)")
            #expect(!String(decoding: r.stdout, as: UTF8.self).contains("wrote"), "\(args) says it wrote")
            #expect(try String(contentsOfFile: photo + ".recipe.yaml", encoding: .utf8) == broken, "\(args) changed the sidecar")
        }
        try sidecar.write(to: URL(fileURLWithPath: photo + ".recipe.yaml"))

        // An AAE that is not a property list; an AAE without IMG_E….
        let p2 = dir + "/IMG_0002.JPG"
        try FileManager.default.copyItem(atPath: photo, toPath: p2)
        try write("this is not a plist\n", dir + "/IMG_0002.AAE")
        let notPlist = try recipe(["edit", p2, "--stage", "exposure: 0.1"])
        #expect(notPlist.status == 1)
        #expect(notPlist.stderr.contains("IMG_0002.AAE: not an Apple adjustment file"))
        #expect(!FileManager.default.fileExists(atPath: p2 + ".recipe.yaml"))
        try write(Self.aae, dir + "/IMG_0002.AAE")
        let noRendering = try recipe(["edit", p2, "--stage", "exposure: 0.1"])
        #expect(noRendering.status == 1)
        #expect(noRendering.stderr.contains("IMG_E0002.JPG is missing"))
        #expect(!FileManager.default.fileExists(atPath: p2 + ".recipe.yaml"))
    }

    @Test("relink: a renamed photo finds its sidecar by content; a replaced original is refused until --accept")
    func relink() throws {
        let dir = TestPaths.temporaryDirectory("relink").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/new", withIntermediateDirectories: true)
        let photo = dir + "/a.jpg"
        try FileManager.default.copyItem(atPath: TestPaths.fixture("jpeg/pil_hopper.jpg"), toPath: photo)
        _ = try ok(["render", photo, "-o", dir + "/look.jpg"])
        _ = try ok(["edit", photo, "--foreign", TestPaths.fixture("jpeg/pil_hopper.jpg"), "--format", "org.example.raw", "--format-version", "2",
                    "--rendered", dir + "/look.jpg", "--stage", "exposure: 0.4", "--no-render"])
        try FileManager.default.moveItem(atPath: photo, toPath: dir + "/new/b.jpg")
        _ = try ok(["relink", dir + "/new/b.jpg", "--search", dir])
        #expect(FileManager.default.fileExists(atPath: dir + "/new/b.jpg.recipe.yaml"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/a.jpg.recipe.yaml"))
        _ = try ok(["render", dir + "/new/b.jpg", "-o", dir + "/b.png"])
        #expect(try pixels(dir + "/b.png") == (try expected(dir + "/look.jpg", ["exposure: 0.4"], in: dir)))

        // The original replaced: refused, then accepted on request.
        try FileManager.default.removeItem(atPath: dir + "/new/b.jpg")
        try FileManager.default.copyItem(atPath: TestPaths.fixture("jpeg/pil_iptc.jpg"), toPath: dir + "/new/b.jpg")
        let refused = try recipe(["render", dir + "/new/b.jpg", "-o", dir + "/b2.png"])
        #expect(refused.status == 1 && refused.stderr.contains("was made for another photo b.jpg"))
        _ = try ok(["relink", dir + "/new/b.jpg", "--accept"])
        _ = try ok(["render", dir + "/new/b.jpg", "-o", dir + "/b2.png"])
    }

    @Test("crash safety: edits and renders killed with SIGKILL at random points never leave a torn sidecar, object or output; the next run completes")
    func killedRuns() throws {
        let dir = TestPaths.temporaryDirectory("kill").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let photo = dir + "/big.jpg"
        try FileManager.default.copyItem(atPath: TestPaths.samples.appendingPathComponent("Landscape_1.jpg").path, toPath: photo)
        _ = try ok(["render", photo, "-o", dir + "/look.jpg", "--quality", "95"])
        let original = try ContentHash.file(photo)
        try write("opaque adjustment data of a tool that gets killed\n", dir + "/kill.data")
        var generator = SystemRandomNumberGenerator()
        var killed = 0
        for round in 0..<14 {
            let args = round % 2 == 0
                ? ["edit", photo, "--foreign", dir + "/kill.data", "--format", "org.example.kill", "--format-version", "\(round)", "--rendered", dir + "/look.jpg",
                   "--stage", "exposure: 0.05", "--threads", "2"]
                : ["render", photo, "--threads", "2"]
            let process = Process()
            process.executableURL = URL(fileURLWithPath: TestPaths.recipeBinary)
            process.arguments = args
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(UInt32.random(in: 5_000...250_000, using: &generator))
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                killed += 1
            }
            process.waitUntilExit()
            // Whatever is on disk is whole: the sidecar checks, every object hashes to its name,
            // the current version decodes completely.
            if FileManager.default.fileExists(atPath: photo + ".recipe.yaml") {
                let r = try recipe(["check", photo + ".recipe.yaml"])
                #expect(r.status == 0, "torn sidecar after round \(round): \(r.stderr)")
            }
            for sub in (try? FileManager.default.subpathsOfDirectory(atPath: dir + "/recipe-objects")) ?? [] where sub.count == 71 {
                let name = sub.replacingOccurrences(of: "sha256/", with: "").replacingOccurrences(of: "/", with: "")
                #expect(try ContentHash.file(dir + "/recipe-objects/" + sub).sha256 == name, "torn object \(sub)")
            }
            if FileManager.default.fileExists(atPath: dir + "/big.edited.jpg") {
                #expect(throws: Never.self) { _ = try pixels(dir + "/big.edited.jpg") }
            }
        }
        testNote("crash safety: \(killed) of 14 runs killed mid-way")
        // The next run completes, and the original was never touched. Under load every edit may
        // have been killed before it wrote the sidecar, so the edit is run once more, to the end.
        _ = try ok(["edit", photo, "--foreign", dir + "/kill.data", "--format", "org.example.kill", "--format-version", "99",
                    "--rendered", dir + "/look.jpg", "--stage", "exposure: 0.05", "--threads", "2"])
        _ = try ok(["check", photo + ".recipe.yaml"])
        _ = try ok(["render", photo])
        #expect(try pixels(dir + "/big.edited.jpg").count == 1800 * 1200 * 3)
        #expect(try ContentHash.file(photo).sha256 == original.sha256)
    }

    @Test("a killed writer's temporaries are removed by the next write in that folder; a live writer's, a fresh one's and links are left", Requirement.tool("flock"))
    func abandonedTemporaries() throws {
        let fm = FileManager.default
        let dir = TestPaths.temporaryDirectory("lifecycle-temporaries").path
        defer { try? fm.removeItem(atPath: dir) }
        try fm.copyItem(atPath: TestPaths.fixture("jpeg/pil_hopper.jpg"), toPath: dir + "/p.jpg")
        let hourAgo = Date(timeIntervalSinceNow: -3600)
        func temporary(_ name: String, old: Bool) throws -> String {
            let path = dir + "/" + name
            try Data(repeating: 7, count: 4096).write(to: URL(fileURLWithPath: path))
            if old { try fm.setAttributes([.modificationDate: hourAgo], ofItemAtPath: path) }
            return path
        }
        let abandoned = try temporary(".p.jpg.recipe.yaml.recipe-tmp-Ab12Cd", old: true)
        let abandonedOutput = try temporary(".p.edited.jpg.recipe-tmp-Zz99Yy", old: true)
        let held = try temporary(".q.jpg.recipe-tmp-Hh00Ll", old: true)
        let fresh = try temporary(".r.jpg.recipe-tmp-Ff11Rr", old: false)
        let other = try temporary(".notes.recipe-tmp-old", old: true)  // not our pattern (no six-character suffix)
        try fm.createSymbolicLink(atPath: dir + "/.s.jpg.recipe-tmp-Ss22Ll", withDestinationPath: abandoned)
        // A live writer: another process holds the lock on its temporary, as AtomicOutputFile does.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: ExternalTool.find("flock")!)
        holder.arguments = ["--exclusive", held, "sleep", "30"]
        try holder.run()
        defer { holder.terminate() }
        Thread.sleep(forTimeInterval: 0.5)
        _ = try ok(["edit", dir + "/p.jpg", "--stage", "exposure: 0.1"])
        #expect(!fm.fileExists(atPath: abandoned) && !fm.fileExists(atPath: abandonedOutput), "a killed writer's temporaries are still there")
        #expect(fm.fileExists(atPath: held), "a live writer's temporary was removed")
        #expect(fm.fileExists(atPath: fresh), "a temporary younger than a minute was removed")
        #expect(fm.fileExists(atPath: other))
        #expect((try? fm.destinationOfSymbolicLink(atPath: dir + "/.s.jpg.recipe-tmp-Ss22Ll")) != nil, "a link was removed")
    }
}

@Suite("recipe check on sidecars")
struct SidecarCheckTests {
    @Test("a file named like a sidecar gets the 16 MiB sidecar limit; a hand-written recipe keeps 1 MiB")
    func limits() throws {
        let dir = TestPaths.temporaryDirectory("sidecar-limit").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let padding = String(repeating: "# embedded data stands in for a frozen base's plist text, 64 bytes\n", count: 24_000)
        let text = "format: dev.recipe.edit\nversion: 1.1\n" + padding + "stages:\n  - exposure: 0.3\n"
        #expect(text.utf8.count > 1 << 20)
        for name in ["IMG_0001.JPG.recipe.yaml", "big.recipe.yaml"] { try text.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8) }
        let sidecar = try ExternalTool.run(TestPaths.recipeBinary, ["check", dir + "/IMG_0001.JPG.recipe.yaml"])
        #expect(sidecar.status == 0, "\(sidecar.stderr)")
        let recipe = try ExternalTool.run(TestPaths.recipeBinary, ["check", dir + "/big.recipe.yaml"])
        #expect(recipe.status == 2)
        #expect(String(decoding: recipe.stdout, as: UTF8.self).contains("R105") || recipe.stderr.contains("R105"))
        #expect(Sidecar.isSidecarName("a/b/IMG_1.jpeg.recipe.yaml"))
        #expect(!Sidecar.isSidecarName("look.recipe.yaml"))
        #expect(!Sidecar.isSidecarName(".jpg.recipe.yaml"))
        // every format recipe edits has sidecars: HEIC, TIFF, WebP, AVIF and raws too
        for photo in ["IMG_2.HEIC", "scan.tif", "a.webp", "b.avif", "IMG_3.CR2", "DSC_4.NEF", "x.dng"] {
            #expect(Sidecar.isSidecarName(photo + ".recipe.yaml"), "\(photo)")
        }
        #expect(!Sidecar.isSidecarName("notes.txt.recipe.yaml"))
    }
}
