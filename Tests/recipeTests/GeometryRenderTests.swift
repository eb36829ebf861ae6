import Foundation
import RecipeCodecs
import RecipeCore
import Testing
import TestSupport

/// Geometric, shadows/highlights and blend stages through `recipe render`, against libvips and
/// independent formulas.
extension RecipeRenderTests {
    /// Width and height of a rendered file.
    func size(_ path: String) throws -> (Int, Int) {
        let d = try ImageDecoders.open(path)
        return (d.width, d.height)
    }

    /// Renders with `stages` to a PNG and returns its path.
    func renderFile(_ stages: String, extra: [String] = [], in dir: URL) throws -> String {
        let recipePath = dir.appendingPathComponent("g.recipe.yaml").path
        try ("format: dev.recipe.edit\nversion: 1.1\nstages:\n" + stages).write(toFile: recipePath, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("out-\(UUID().uuidString).png").path
        let r = try recipe(["render", Self.photo, "--recipe", recipePath, "-o", out] + extra)
        #expect(r.status == 0, "\(r.stderr)")
        return out
    }

    @Test("crop, rotate and flip equal libvips crop, rot and flip byte for byte", Requirement.tool("vips"))
    func exactGeometryVips() throws {
        let vips = try vipsOracle()
        let dir = TestPaths.temporaryDirectory("engine-geometry")
        defer { try? FileManager.default.removeItem(at: dir) }
        let cases: [(String, [String])] = [
            ("crop: {x: 100px, y: 37px, width: 301px, height: 250px}", ["crop", "IN", "OUT", "100", "37", "301", "250"]),
            ("rotate: 90", ["rot", "IN", "OUT", "d90"]),
            ("rotate: 180", ["rot", "IN", "OUT", "d180"]),
            ("rotate: 270", ["rot", "IN", "OUT", "d270"]),
            ("flip: horizontal", ["flip", "IN", "OUT", "horizontal"]),
            ("flip: vertical", ["flip", "IN", "OUT", "vertical"]),
        ]
        for (stage, args) in cases {
            let ours = try renderFile("  - \(stage)\n", in: dir)
            let ref = dir.appendingPathComponent("vips.png").path
            let r = try ExternalTool.run(vips, args.map { $0 == "IN" ? Self.photo : $0 == "OUT" ? ref : $0 })
            #expect(r.status == 0, "\(r.stderr)")
            let (a, b) = (try size(ours), try size(ref))
            #expect(a == b, "\(stage): \(a) vs \(b)")
            #expect(try pixels(ours) == pixels(ref), "\(stage): pixels differ from vips")
        }
    }

    @Test("an aspect crop keeps the largest rectangle at its anchor; fractions are of the canvas")
    func aspectCrop() throws {
        let dir = TestPaths.temporaryDirectory("engine-aspect")
        defer { try? FileManager.default.removeItem(at: dir) }
        let all = try pixels(Self.photo)  // 768×512
        func rows(_ p: [UInt8], width: Int, x: Int, y: Int, w: Int, h: Int) -> [UInt8] {
            var out: [UInt8] = []
            for r in y..<(y + h) {
                let start: Int = (r * width + x) * 3
                out += p[start..<(start + 3 * w)]
            }
            return out
        }
        let cases: [(String, (Int, Int, Int, Int))] = [
            ("crop: {aspect: \"1:1\"}", (128, 0, 512, 512)), ("crop: {aspect: \"1:1\", anchor: right}", (256, 0, 512, 512)),
            ("crop: {aspect: \"3:1\", anchor: bottom}", (0, 256, 768, 256)), ("crop: {x: 25%, width: 50%, height: 50%}", (192, 0, 384, 256)),
        ]
        for (stage, rect) in cases {
            let out = try renderFile("  - \(stage)\n", in: dir)
            #expect(try size(out) == (rect.2, rect.3), "\(stage)")
            let expected: [UInt8] = rows(all, width: 768, x: rect.0, y: rect.1, w: rect.2, h: rect.3)
            let got: [UInt8] = try pixels(out)
            #expect(got == expected, "\(stage)")
        }
    }

    @Test("resize matches libvips resize (lanczos3 and mitchell, float scRGB, gap 0) within 1/255", Requirement.tool("vips"))
    func resizeVips() throws {
        let vips = try vipsOracle()
        let dir = TestPaths.temporaryDirectory("engine-resize")
        defer { try? FileManager.default.removeItem(at: dir) }
        for kernel in ["lanczos3", "mitchell"] {
            let ours = try renderFile("  - resize: {scale: 0.25, kernel: \(kernel)}\n", in: dir)
            let lin = dir.appendingPathComponent("lin.v").path, small = dir.appendingPathComponent("small.v").path
            let ref = dir.appendingPathComponent("vips.png").path
            try runAll(vips, [["colourspace", Self.photo, lin, "scrgb"], ["resize", lin, small, "0.25", "--kernel", kernel, "--gap", "0"],
                         ["colourspace", small, ref, "srgb"]])
            #expect(try size(ours) == size(ref))
            let d = maxDifference(try pixels(ours), try pixels(ref))
            #expect(d <= 1, "\(kernel): max difference \(d)/255")
        }
    }

    @Test("geometric fusion: a straighten with the crop and flips after it composed into one resample gives the unfused pixels (within 1/255)")
    func straightenWindow() throws {
        let dir = TestPaths.temporaryDirectory("engine-straighten-window")
        defer { try? FileManager.default.removeItem(at: dir) }
        let stages = "  - straighten: 4\n  - crop: {x: 31px, y: 17px, width: 500px, height: 300px}\n  - flip: horizontal\n  - crop: {x: 7px, y: 0, width: 400px, height: 290px}\n"
        let fused = try renderFile(stages, in: dir), unfused = try renderFile(stages, extra: ["--no-fuse"], in: dir)
        #expect(try size(fused) == (400, 290) && size(unfused) == (400, 290))
        let d = maxDifference(try pixels(fused), try pixels(unfused))
        #expect(d <= 1, "max difference \(d)/255")
    }

    /// `BranchFromSource` moves the steps before a first branch point to its readers (the kept
    /// rows are then the photo's codes); a blend that lays the kept image on top keeps them where
    /// they are. Either way, the unfused pixels.
    @Test("branch points: the photo's codes kept for readers that take the steps before them, or floats for a blend on top, give the unfused pixels (within 1/255)",
          arguments: ["  - id: base\n    exposure: 0.3\n  - id: glow\n    input: base\n    blur: 6px\n  - input: base\n    blend: {with: glow, mode: soft-light, opacity: 0.6}\n",
                      "  - id: a\n    exposure: 0.3\n  - id: b\n    input: a\n    sharpen: {amount: 1, sigma: 1px}\n  - input: a\n    blur: 5px\n"
                          + "  - blend: {with: b, mode: overlay, opacity: 0.7}\n  - blend: {with: a, mode: multiply, opacity: 0.3}\n",
                      "  - id: a\n    crop: {x: 10px, y: 10px, width: 300px, height: 200px}\n  - input: a\n    blur: 3px\n  - blend: {with: a, mode: screen, opacity: 0.5}\n"])
    func branchPoints(_ stages: String) throws {
        let dir = TestPaths.temporaryDirectory("engine-branch-points")
        defer { try? FileManager.default.removeItem(at: dir) }
        let fused = try renderFile(stages, in: dir), unfused = try renderFile(stages, extra: ["--no-fuse"], in: dir)
        #expect(try size(fused) == size(unfused))
        let d = maxDifference(try pixels(fused), try pixels(unfused))
        #expect(d <= 1, "max difference \(d)/255")
    }

    @Test("a straighten keeping part of its canvas decodes only what it reads: the bytes of the same photo decoded whole")
    func straightenDecodeWindow() throws {
        let dir = TestPaths.temporaryDirectory("engine-straighten-decode-window")
        defer { try? FileManager.default.removeItem(at: dir) }
        // A JPEG (upright as stored), and its pixels as a PNG: decoded whole, as the PNG decoder
        // has no windows.
        let photo = TestPaths.samples.appendingPathComponent("Landscape_1.jpg").path
        let png = dir.appendingPathComponent("whole.png").path
        #expect(try recipe(["render", photo, "-o", png]).status == 0)
        let recipePath = dir.appendingPathComponent("s.recipe.yaml").path
        try "format: dev.recipe.edit\nversion: 1.1\nstages:\n  - exposure: 0.2\n  - straighten: 3\n  - crop: {x: 40px, y: 60px, width: 200px, height: 120px}\n  - flip: horizontal\n"
            .write(toFile: recipePath, atomically: true, encoding: .utf8)
        let explain = String(decoding: try recipe(["explain", recipePath, "--photo", photo]).stdout, as: UTF8.self)
        #expect(explain.contains("source: only the"), "\(explain)")
        let windowed = dir.appendingPathComponent("windowed.png").path, whole = dir.appendingPathComponent("whole-out.png").path
        #expect(try recipe(["render", photo, "--recipe", recipePath, "-o", windowed]).status == 0)
        #expect(try recipe(["render", png, "--recipe", recipePath, "-o", whole]).status == 0)
        let a = try pixels(windowed), b = try pixels(whole)
        #expect(a.count == 200 * 120 * 3)
        #expect(a == b, "max difference \(maxDifference(a, b))/255")
    }

    @Test("geometric fusion: a full render shrinks before its downscaling resize (decoded at 1/2 here) within 40 dB of --no-fuse, which keeps full size")
    func shrinkBeforeResize() throws {
        let dir = TestPaths.temporaryDirectory("engine-shrink-early")
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = TestPaths.samples.appendingPathComponent("Landscape_1.jpg").path  // 1800×1200
        let recipePath = dir.appendingPathComponent("square.recipe.yaml").path
        try "format: dev.recipe.edit\nversion: 1.1\nstages:\n  - straighten: -1.5\n  - crop: {aspect: \"1:1\"}\n  - flip: horizontal\n  - resize: {width: 400px, height: 400px}\n"
            .write(toFile: recipePath, atomically: true, encoding: .utf8)
        let explain = String(decoding: try recipe(["explain", recipePath, "--photo", photo]).stdout, as: UTF8.self)
        #expect(explain.contains("decoded at 1/2 of its size before the first stage"), "\(explain)")
        // …and of that, only what the straighten reads (JPEGDecoderTests: a scaled window decode
        // gives the scaled decode's pixels).
        #expect(explain.contains("source: only the"), "\(explain)")
        let fused = dir.appendingPathComponent("fused.png").path, unfused = dir.appendingPathComponent("unfused.png").path
        #expect(try recipe(["render", photo, "--recipe", recipePath, "-o", fused]).status == 0)
        #expect(try recipe(["render", photo, "--recipe", recipePath, "--no-fuse", "-o", unfused]).status == 0)
        #expect(try size(fused) == (400, 400) && size(unfused) == (400, 400))
        let psnr = Self.psnr(try pixels(fused), try pixels(unfused))
        testNote("square crop on Landscape_1, shrunk early vs --no-fuse: PSNR \(String(format: "%.1f", psnr)) dB")
        #expect(psnr >= 40 && psnr < 99, "PSNR \(psnr) dB")
    }

    /// The shadows/highlights formula of ops-reference §4.24 on one pixel, in double precision.
    static func shadowsHighlights(_ rgb: [UInt8], yb: Double, shadows: Double, highlights: Double) -> [Double] {
        let gain = pow(2, shadows * (1 - yb) * (1 - yb) - highlights * yb * yb)
        return rgb.map { v in
            let e = Double(v) / 255
            let lin = e <= 0.04045 ? e / 12.92 : pow((e + 0.055) / 1.055, 2.4)
            let o = min(1, lin * gain)
            return (o <= 0.0031308 ? 12.92 * o : 1.055 * pow(o, 1 / 2.4) - 0.055) * 255
        }
    }

    @Test("shadows-highlights with radius 0 follows the formula per pixel within 1/255, and keeps hue (scales linear light)")
    func shadowsHighlightsFormula() throws {
        let dir = TestPaths.temporaryDirectory("engine-sh")
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try pixels(Self.photo)
        let ours = try pixels(try renderFile("  - shadows-highlights: {shadows: 0.6, highlights: 0.4}\n", in: dir))
        var worst = 0.0
        for i in stride(from: 0, to: input.count, by: 3) {
            let px = Array(input[i..<(i + 3)])
            let yb = (0.2126 * Double(px[0]) + 0.7152 * Double(px[1]) + 0.0722 * Double(px[2])) / 255
            let ref = Self.shadowsHighlights(px, yb: yb, shadows: 0.6, highlights: 0.4)
            for c in 0..<3 { worst = max(worst, abs(ref[c] - Double(ours[i + c]))) }
        }
        #expect(worst <= 1, "max difference \(worst)/255")
        // Invariants: lifting shadows brightens a dark pixel by more stops than a bright one.
        func sum(_ p: [UInt8], _ i: Int) -> Int { Int(p[i]) + Int(p[i + 1]) + Int(p[i + 2]) }
        // The darkest pixel that is not black (black stays black: it only scales linear light).
        var darkest = 0
        for i in stride(from: 0, to: input.count, by: 3) where sum(input, i) >= 30 && (sum(input, darkest) < 30 || sum(input, i) < sum(input, darkest)) {
            darkest = i
        }
        let lifted = try pixels(try renderFile("  - shadows-highlights: {shadows: 1}\n", in: dir))
        #expect(sum(lifted, darkest) > sum(input, darkest))
    }

    @Test("shadows-highlights with a radius takes Yb from the luma blurred as libvips gaussblur does, within 1/255 (σ 24: on a coarse grid)", Requirement.tool("vips"),
          arguments: [6, 24])
    func shadowsHighlightsBlurred(_ radius: Int) throws {
        let vips = try vipsOracle()
        let dir = TestPaths.temporaryDirectory("engine-sh-blur")
        defer { try? FileManager.default.removeItem(at: dir) }
        let ours = try pixels(try renderFile("  - shadows-highlights: {shadows: 0.5, highlights: 0.5, radius: \(radius)px}\n", in: dir))
        // Y′ by vips recomb on the 0..255 samples, blurred by vips, written as raw floats.
        let y = dir.appendingPathComponent("y.v").path, yb = dir.appendingPathComponent("yb.v").path
        let raw = dir.appendingPathComponent("yb.raw").path
        let matrix = dir.appendingPathComponent("m.mat").path
        try "3 1\n0.2126 0.7152 0.0722\n".write(toFile: matrix, atomically: true, encoding: .utf8)
        try runAll(vips, [["recomb", Self.photo, y, matrix], ["gaussblur", y, yb, "\(radius)", "--precision", "float", "--min-ampl", "0.001"],
                     ["rawsave", yb, raw]])
        let blurred = try Data(contentsOf: URL(fileURLWithPath: raw)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let input = try pixels(Self.photo)
        #expect(blurred.count * 3 == input.count)
        var worst = 0.0
        for p in 0..<min(blurred.count, input.count / 3) {
            let ref = Self.shadowsHighlights(Array(input[3 * p..<(3 * p + 3)]), yb: Double(blurred[p]) / 255, shadows: 0.5, highlights: 0.5)
            for c in 0..<3 { worst = max(worst, abs(ref[c] - Double(ours[3 * p + c]))) }
        }
        #expect(worst <= 1, "max difference \(worst)/255")
    }

    /// The stage blends the branches' float values, the reference their 8-bit renders: half a
    /// code of rounding in each input, through soft-light's slopes (up to 1.4 here at opacity
    /// 0.6), plus the output's rounding, stays within 1.5/255.
    @Test("a blend reads the two branches it names: soft-light of a blurred copy equals the W3C formula on the two branch renders within 1.5/255")
    func blendBranches() throws {
        let dir = TestPaths.temporaryDirectory("engine-blend")
        defer { try? FileManager.default.removeItem(at: dir) }
        let base = try pixels(try renderFile("  - exposure: 0.15\n", in: dir))
        let glow = try pixels(try renderFile("  - exposure: 0.15\n  - blur: 4px\n", in: dir))
        let both = try pixels(try renderFile("""
              - id: base
                exposure: 0.15
              - id: glow
                input: base
                blur: 4px
              - input: base
                blend: {with: glow, mode: soft-light, opacity: 0.6}

            """, in: dir))
        func softLight(_ cb: Double, _ cs: Double) -> Double {
            if cs <= 0.5 { return cb - (1 - 2 * cs) * cb * (1 - cb) }
            let d = cb <= 0.25 ? ((16 * cb - 12) * cb + 4) * cb : cb.squareRoot()
            return cb + (2 * cs - 1) * (d - cb)
        }
        #expect(base.count == both.count && glow.count == both.count)
        var worst = 0.0
        for i in 0..<min(base.count, both.count) {
            let cb = Double(base[i]) / 255, cs = Double(glow[i]) / 255
            let ref = (cb + 0.6 * (softLight(cb, cs) - cb)) * 255
            worst = max(worst, abs(ref - Double(both[i])))
        }
        #expect(worst <= 1.5, "max difference \(worst)/255")
    }

    @Test("blending images of different sizes is a clear error (R224) naming the stage")
    func blendSizeMismatch() throws {
        let dir = TestPaths.temporaryDirectory("engine-blend-size")
        defer { try? FileManager.default.removeItem(at: dir) }
        let recipePath = dir.appendingPathComponent("r.recipe.yaml").path
        try "format: dev.recipe.edit\nversion: 1.1\nstages:\n  - id: base\n    exposure: 0.1\n  - id: small\n    resize: {scale: 0.5}\n  - input: base\n    blend: {with: small}\n"
            .write(toFile: recipePath, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("o.jpg").path
        let r = try recipe(["render", Self.photo, "--recipe", recipePath, "-o", out])
        #expect(r.status == 2)
        #expect(r.stderr.contains("error[R224]: `blend` mixes images of different sizes: 768×512 and 384×256"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
