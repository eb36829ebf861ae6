import Foundation
import Testing
import TestSupport

/// `mask: {image: …}` through the command line: a grey PNG made with ImageMagick masks a stage
/// that turns a black photo white, so the output's grey is the mask's weight. Full size against
/// the mask itself, a display-size render against the full size's block means, a file bound by
/// `sha256` and then changed, a file that is not an image.
@Suite("raster masks from files")
struct RasterMaskTests: CLITest {
    /// The grey samples of an image file, through ImageMagick's PGM.
    static func grey(_ path: String) throws -> NetpbmImage {
        let r = try ExternalTool.run("/usr/bin/convert", [path, "-depth", "8", "pgm:-"])
        try #require(r.status == 0, "\(r.stderr)")
        return try #require(NetpbmImage(r.stdout), "ImageMagick's PGM of \(path)")
    }

    /// A folder with a black 1200×800 PNG, a grey mask PNG of `size` (a soft ellipse) and a
    /// recipe whose one stage makes the photo white where the mask says.
    static func setUp(_ dir: URL, maskSize: String, blur: Int = 3) throws {
        for args in [["-size", "1200x800", "xc:black", "black.png"],
                     ["-size", maskSize, "xc:black", "-fill", "white", "-draw", "ellipse 50%,50% 30%,25% 0,360", "-blur", "0x\(blur)",
                      "-colorspace", "Gray", "-depth", "8", "mask.png"]] {
            // `-draw` takes pixel sizes: the ellipse in the mask's own pixels.
            let size = maskSize.split(separator: "x").compactMap { Double($0) }
            let fixed = args.map { arg -> String in
                if arg.hasSuffix(".png") { return dir.appendingPathComponent(arg).path }
                guard arg.hasPrefix("ellipse") else { return arg }
                return "ellipse \(size[0] / 2),\(size[1] / 2) \(size[0] * 0.3),\(size[1] * 0.25) 0,360"
            }
            let r = try ExternalTool.run("/usr/bin/convert", fixed)
            try #require(r.status == 0, "\(r.stderr)")
        }
        try recipeText(dir, sha256: nil)
    }

    static func recipeText(_ dir: URL, sha256: String?) throws {
        let bound = sha256.map { ", sha256: \($0)" } ?? ""
        try "format: dev.recipe.edit\nversion: 1.4\nstages:\n  - levels: {out-black: 1, out-white: 1}\n    mask: {image: {file: mask.png\(bound)}}\n"
            .write(to: dir.appendingPathComponent("m.recipe.yaml"), atomically: true, encoding: .utf8)
    }

    @Test("full size: the output is the mask (same size: exactly; half size: its 2×2 means, to 1 code)", Requirement.imageMagick)
    func fullSize() throws {
        for (maskSize, factor) in [("1200x800", 1), ("2400x1600", 2)] {
            let dir = TestPaths.temporaryDirectory("raster-mask")
            defer { try? FileManager.default.removeItem(at: dir) }
            try Self.setUp(dir, maskSize: maskSize)
            let out = dir.appendingPathComponent("out.png").path
            let r = try recipe(["render", dir.appendingPathComponent("black.png").path, "--recipe", dir.appendingPathComponent("m.recipe.yaml").path, "-o", out])
            try #require(r.status == 0, "\(r.stderr)")
            let got = try Self.grey(out), mask = try Self.grey(dir.appendingPathComponent("mask.png").path)
            var worst = 0.0
            for y in 0..<800 {
                for x in 0..<1200 {
                    var sum = 0
                    for j in 0..<factor { for i in 0..<factor { sum += mask.samples[(y * factor + j) * mask.width + x * factor + i] } }
                    worst = max(worst, abs(Double(got.samples[y * 1200 + x]) - Double(sum) / Double(factor * factor)))
                }
            }
            #expect(worst <= (factor == 1 ? 0 : 1), "mask \(maskSize): worst \(worst) codes")
        }
    }

    /// A display render shrinks the full-size picture with the renderer's Lanczos in linear light;
    /// on a soft mask (σ 40 px) any shrinking filter agrees with the block means to a code, so
    /// this holds the mask's placement, not the filter, to the full size's.
    @Test("a display-size render equals the full size's 4×4 block means within 1 code (soft mask)", Requirement.imageMagick)
    func previewAgrees() throws {
        let dir = TestPaths.temporaryDirectory("raster-mask-preview")
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.setUp(dir, maskSize: "1500x1000", blur: 40)
        let photo = dir.appendingPathComponent("black.png").path, recipePath = dir.appendingPathComponent("m.recipe.yaml").path
        let full = dir.appendingPathComponent("full.png").path, small = dir.appendingPathComponent("small.png").path
        for (args, out) in [([String](), full), (["--size", "300"], small)] {
            let r = try recipe(["render", photo, "--recipe", recipePath, "-o", out] + args)
            try #require(r.status == 0, "\(r.stderr)")
        }
        let f = try Self.grey(full), s = try Self.grey(small)
        try #require(s.width == 300 && s.height == 200)
        var worst = 0.0
        for y in 0..<200 {
            for x in 0..<300 {
                var sum = 0
                for j in 0..<4 { for i in 0..<4 { sum += f.samples[(4 * y + j) * 1200 + 4 * x + i] } }
                worst = max(worst, abs(Double(s.samples[y * 300 + x]) - Double(sum) / 16))
            }
        }
        testNote("display size against full size: worst \(worst) codes")
        #expect(worst <= 1, "worst \(worst) codes")
    }

    @Test("a mask bound by sha256 and changed afterwards: exit 1 naming the file; a file that is not an image: a located error",
          Requirement.imageMagick)
    func boundAndBad() throws {
        let dir = TestPaths.temporaryDirectory("raster-mask-bound")
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.setUp(dir, maskSize: "600x400")
        let maskPath = dir.appendingPathComponent("mask.png").path
        let digest = try ExternalTool.run("/usr/bin/sha256sum", [maskPath])
        try Self.recipeText(dir, sha256: String(String(decoding: digest.stdout, as: UTF8.self).prefix(64)))
        let photo = dir.appendingPathComponent("black.png").path, recipePath = dir.appendingPathComponent("m.recipe.yaml").path
        let out = dir.appendingPathComponent("out.png").path
        let ok = try recipe(["render", photo, "--recipe", recipePath, "-o", out])
        #expect(ok.status == 0, "\(ok.stderr)")
        // Edited afterwards: one pixel painted.
        let edit = try ExternalTool.run("/usr/bin/convert", [maskPath, "-fill", "white", "-draw", "point 1,1", maskPath])
        try #require(edit.status == 0)
        try? FileManager.default.removeItem(atPath: out)
        let changed = try recipe(["render", photo, "--recipe", recipePath, "-o", out])
        #expect(changed.status == 1)
        #expect(changed.stderr.contains("mask.png") && changed.stderr.contains("has changed"), "\(changed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out), "a render was written with another mask")
        // Not an image at all.
        try Data("not a picture\n".utf8).write(to: URL(fileURLWithPath: maskPath))
        try "format: dev.recipe.edit\nversion: 1.4\nstages:\n  - exposure: 1\n    mask: {image: {file: mask.png}}\n"
            .write(toFile: recipePath, atomically: true, encoding: .utf8)
        let bad = try recipe(["render", photo, "--recipe", recipePath, "-o", out])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("m.recipe.yaml:5:") && bad.stderr.contains("not a PNG or TIFF image") && bad.stderr.contains("R222"), "\(bad.stderr)")
        // A colour image: refused with how to convert it.
        let colour = try ExternalTool.run("/usr/bin/convert", ["-size", "60x40", "xc:red", "PNG24:" + maskPath])
        try #require(colour.status == 0)
        let refused = try recipe(["render", photo, "--recipe", recipePath, "-o", out])
        #expect(refused.status == 1 && refused.stderr.contains("colour image") && refused.stderr.contains("mask.png"), "\(refused.stderr)")
    }

    @Test("recipe edit binds an image mask to its bytes in the sidecar; painting the mask again makes the sidecar render exit 1, naming it",
          Requirement.imageMagick)
    func sidecarBinding() throws {
        let dir = TestPaths.temporaryDirectory("raster-mask-sidecar")
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.setUp(dir, maskSize: "600x400")
        let photo = dir.appendingPathComponent("black.png").path, maskPath = dir.appendingPathComponent("mask.png").path
        let out = dir.appendingPathComponent("out.png").path
        for stage in ["{levels: {out-black: 1, out-white: 1}, mask: {image: {file: mask.png}}}",
                      "exposure: 0.2\nmask:\n  all:\n    - image:\n        file: mask.png\n    - luminance: {min: 0.5}"] {
            let r = try recipe(["edit", photo, "--stage", stage, "-o", out])
            try #require(r.status == 0, "\(r.stderr)")
        }
        let sidecar = try String(contentsOfFile: photo + ".recipe.yaml", encoding: .utf8)
        let digest = String(String(decoding: try ExternalTool.run("/usr/bin/sha256sum", [maskPath]).stdout, as: UTF8.self).prefix(64))
        #expect(sidecar.components(separatedBy: digest).count == 3, "both masks bound:\n\(sidecar)")
        let again = try recipe(["render", photo, "-o", out])
        #expect(again.status == 0, "\(again.stderr)")
        let edit = try ExternalTool.run("/usr/bin/convert", [maskPath, "-fill", "white", "-draw", "point 1,1", maskPath])
        try #require(edit.status == 0)
        let changed = try recipe(["render", photo, "-o", out])
        #expect(changed.status == 1 && changed.stderr.contains("mask.png") && changed.stderr.contains("has changed"), "\(changed.stderr)")
    }
}
