import Foundation
import RecipeCodecs
import RecipeCore
import RecipeHistory
import Testing
import TestSupport

/// `recipe import` and `apply --with-lightroom` as a user runs them: a preset becomes a look that
/// `fmt --check` and `check` pass; a photo's Lightroom sidecar becomes its recipe sidecar, which
/// reverts stage by stage back to the original; malformed XMP fails with the file and the key;
/// and each mapped key, moved alone, changes the render the way docs/lightroom.md says, by about
/// the amount its formula gives (measured on the photo's pixels, the formula written out here).
@Suite("Lightroom: recipe import")
struct LightroomImportTests: CLITest {
    static func preset(_ attributes: String, elements: String = "") -> String {
        """
        <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="Adobe XMP Core 7.0-c000 1.000000, 0000/00/00-00:00:00">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about="" xmlns:crs="http://ns.adobe.com/camera-raw-settings/1.0/"
           crs:PresetType="Normal" crs:Version="15.4" crs:ProcessVersion="15.4" crs:HasSettings="True" \(attributes)>
          \(elements)
          </rdf:Description>
         </rdf:RDF>
        </x:xmpmeta>
        """
    }

    @Test("a preset becomes a look that recipe fmt --check and recipe check pass")
    func presetToLook() throws {
        let dir = TestPaths.temporaryDirectory("lr-preset").path
        for file in ["lightroom/pedropark99/example-preset1.xmp", "lightroom/photoprism/ladybug.xmp"] {
            let look = dir + "/" + (file.split(separator: "/").last!.replacing(".xmp", with: "")) + ".recipe.yaml"
            let out = try ok(["import", TestPaths.fixture(file), "-o", look])
            #expect(out.contains("wrote \(look)"))
            _ = try ok(["fmt", "--check", look])
            let check = try recipe(["check", look])
            #expect(check.status == 0 && check.stderr.contains("no errors"), "\(check.stderr)")
        }
    }

    @Test("a photo's Lightroom sidecar becomes its recipe sidecar; reverting every stage gives the original's render")
    func sidecarRoundTrip() throws {
        let dir = TestPaths.temporaryDirectory("lr-sidecar").path
        let photo = dir + "/IMG_0001.png"
        try FileManager.default.copyItem(atPath: TestPaths.samples.appendingPathComponent("kodim03.png").path, toPath: photo)
        try write(Self.preset(#"crs:Exposure2012="+0.40" crs:Vibrance="+25" crs:Dehaze="+15" crs:LuminanceSmoothing="20""#), dir + "/IMG_0001.xmp")
        let out = try ok(["import", photo, "--no-render"])
        #expect(out.contains("not translated: Dehaze +15"))
        #expect(out.contains("disabled frozen base `lightroom`"))
        let sidecar = try String(contentsOfFile: photo + ".recipe.yaml", encoding: .utf8)
        #expect(sidecar.contains("format: com.adobe.camera-raw-settings") && sidecar.contains("enabled: false"))
        _ = try ok(["check", photo + ".recipe.yaml"])
        let original = dir + "/original.png"
        _ = try ok(["render", photo, "--recipe", TestPaths.recipes.appendingPathComponent("basic-corrections.recipe.yaml").path, "-o", dir + "/warm.png"])
        try write("format: dev.recipe.edit\nversion: 1.4\nstages: []\n", dir + "/none.recipe.yaml")
        _ = try ok(["render", photo, "--recipe", dir + "/none.recipe.yaml", "-o", original])
        let edited = dir + "/edited.png"
        _ = try ok(["render", photo, "-o", edited])
        #expect(try decodedPixels(edited) != decodedPixels(original))
        for stage in ["denoise", "vibrance", "exposure"] {
            _ = try ok(["revert", photo, "--stage", stage, "--no-render"])
        }
        _ = try ok(["render", photo, "-o", dir + "/reverted.png"])
        #expect(try decodedPixels(dir + "/reverted.png") == decodedPixels(original))
    }

    @Test("malformed XMP and values out of range: exit 1, the file and the key named")
    func malformed() throws {
        let dir = TestPaths.temporaryDirectory("lr-bad").path
        try write(Self.preset(#"crs:Exposure2012="+9.0""#), dir + "/bad.xmp")
        let r = try recipe(["import", dir + "/bad.xmp", "-o", dir + "/bad.recipe.yaml"])
        let message = r.stderr
        #expect(r.status == 1)
        #expect(message.contains("bad.xmp") && message.contains("Exposure2012") && message.contains("-5…5"), "\(message)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/bad.recipe.yaml"))
        try write("<x:xmpmeta><rdf:RDF>", dir + "/torn.xmp")
        #expect(try recipe(["import", dir + "/torn.xmp", "-o", dir + "/torn.recipe.yaml"]).status == 1)
    }

    @Test("apply --with-lightroom renders each photo through its translated Lightroom sidecar")
    func applyWithLightroom() throws {
        let dir = TestPaths.temporaryDirectory("lr-apply").path
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        for name in ["a", "b"] {
            try FileManager.default.copyItem(atPath: TestPaths.samples.appendingPathComponent("kodim03.png").path, toPath: dir + "/in/\(name).png")
        }
        try write(Self.preset(#"crs:Exposure2012="-1.00""#), dir + "/in/a.png.xmp")
        _ = try ok(["apply", dir + "/in", "-o", dir + "/out", "--with-lightroom", "--progress", "none"])
        try write(Self.preset(#"crs:Exposure2012="-1.00""#), dir + "/look.xmp")
        _ = try ok(["import", dir + "/look.xmp", "-o", dir + "/look.recipe.yaml"])
        _ = try ok(["render", dir + "/in/a.png", "--recipe", dir + "/look.recipe.yaml", "-o", dir + "/a-look.png"])
        #expect(try decodedPixels(dir + "/out/a.png") == decodedPixels(dir + "/a-look.png"))
        #expect(try decodedPixels(dir + "/out/b.png") == decodedPixels(dir + "/in/b.png"))
    }

    // MARK: direction and strength

    struct Pixels {
        var rgb: [[Double]]   // encoded 0…1
        var width: Int
        var height: Int
        static func lin(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
        func luma(_ i: Int) -> Double { 0.2126 * rgb[i][0] + 0.7152 * rgb[i][1] + 0.0722 * rgb[i][2] }
        func chroma(_ i: Int) -> Double { rgb[i].max()! - rgb[i].min()! }
    }

    func pixels(_ path: String) throws -> Pixels {
        let s = try decodedSamples(path)
        let scale = Double((1 << s.bits) - 1)
        let rgb = stride(from: 0, to: s.values.count, by: s.channels).map { i in (0..<3).map { Double(s.values[i + $0]) / scale } }
        return Pixels(rgb: rgb, width: s.width, height: s.height)
    }

    func render(_ attributes: String, elements: String = "", _ photo: String, in dir: String) throws -> Pixels {
        let name = UUID().uuidString
        try write(Self.preset(attributes, elements: elements), "\(dir)/\(name).xmp")
        _ = try ok(["import", "\(dir)/\(name).xmp", "-o", "\(dir)/\(name).recipe.yaml"])
        _ = try ok(["render", photo, "--recipe", "\(dir)/\(name).recipe.yaml", "-o", "\(dir)/\(name).png"])
        return try pixels("\(dir)/\(name).png")
    }

    /// Mean of `f(after)/f(before)` style measures over the pixels `where` picks in the original.
    func ratio(_ a: Pixels, _ b: Pixels, where pick: (Int) -> Bool, _ f: (Pixels, Int) -> Double) -> Double {
        var num = 0.0, den = 0.0
        for i in a.rgb.indices where pick(i) { num += f(b, i); den += f(a, i) }
        return num / max(den, 1e-9)
    }

    @Test("each mapped key moved alone changes the render in the documented direction, by about the documented amount")
    func directionAndStrength() throws {
        let dir = TestPaths.temporaryDirectory("lr-direction").path
        let photo = TestPaths.samples.appendingPathComponent("kodim03.png").path
        let o = try pixels(photo)
        func linearMean(_ p: Pixels, _ i: Int) -> Double { p.rgb[i].map(Pixels.lin).reduce(0, +) / 3 }
        func report(_ what: String, _ got: Double, _ range: ClosedRange<Double>) {
            print("Lightroom direction: \(what): \(String(format: "%.3f", got)) (expected \(range.lowerBound)…\(range.upperBound))")
            #expect(range.contains(got), "\(what): \(got)")
        }
        // Exposure2012 ±1: linear light ×2 / ×0.5 where nothing clips.
        let dim = { (i: Int) in o.rgb[i].allSatisfy { Pixels.lin($0) < 0.45 && $0 > 0.05 } }
        report("Exposure2012 +1, linear ratio", ratio(o, try render(#"crs:Exposure2012="+1.00""#, photo, in: dir), where: dim, linearMean), 1.9...2.1)
        report("Exposure2012 -1, linear ratio", ratio(o, try render(#"crs:Exposure2012="-1.00""#, photo, in: dir), where: dim, linearMean), 0.47...0.53)
        // Contrast2012 +50: encoded distance from 0.5 ×1.25.
        let mid = { (i: Int) in o.rgb[i].allSatisfy { $0 > 0.2 && $0 < 0.8 } }
        let contrast = try render(#"crs:Contrast2012="+50""#, photo, in: dir)
        report("Contrast2012 +50, spread ratio", ratio(o, contrast, where: mid) { p, i in p.rgb[i].map { abs($0 - 0.5) }.reduce(0, +) }, 1.2...1.3)
        // Shadows2012 +100 lifts dark pixels (up to a stop), Highlights2012 -100 darkens bright ones.
        let dark = { (i: Int) in o.luma(i) < 0.25 }, bright = { (i: Int) in o.luma(i) > 0.75 }
        report("Shadows2012 +100, dark linear ratio", ratio(o, try render(#"crs:Shadows2012="+100""#, photo, in: dir), where: dark, linearMean), 1.3...2.05)
        report("Highlights2012 -100, bright linear ratio", ratio(o, try render(#"crs:Highlights2012="-100""#, photo, in: dir), where: bright, linearMean), 0.5...0.85)
        // Whites2012 +100: encoded ×1.25 below the new white; Blacks2012 -100: (v − 0.1)/0.9.
        let lowMid = { (i: Int) in o.rgb[i].allSatisfy { $0 > 0.2 && $0 < 0.7 } }
        report("Whites2012 +100, encoded ratio", ratio(o, try render(#"crs:Whites2012="+100""#, photo, in: dir), where: lowMid) { p, i in p.rgb[i].reduce(0, +) }, 1.22...1.28)
        let blacks = try render(#"crs:Blacks2012="-100""#, photo, in: dir)
        var got = 0.0, want = 0.0
        for i in o.rgb.indices where lowMid(i) { got += blacks.rgb[i].reduce(0, +); want += o.rgb[i].map { ($0 - 0.1) / 0.9 }.reduce(0, +) }
        report("Blacks2012 -100, against (v − 0.1)/0.9", got / want, 0.97...1.03)
        // Temperature and tint offsets, vibrance, saturation, black & white.
        let any = { (_: Int) in true }
        let warm = try render(#"crs:IncrementalTemperature="+50""#, photo, in: dir)
        report("IncrementalTemperature +50, red over blue ratio", ratio(o, warm, where: any) { p, i in p.rgb[i][0] } / ratio(o, warm, where: any) { p, i in p.rgb[i][2] }, 1.05...1.6)
        let magenta = try render(#"crs:IncrementalTint="+50""#, photo, in: dir)
        report("IncrementalTint +50, green over red+blue ratio", ratio(o, magenta, where: any) { p, i in p.rgb[i][1] } / ratio(o, magenta, where: any) { p, i in p.rgb[i][0] + p.rgb[i][2] }, 0.7...0.98)
        report("Vibrance +50, chroma ratio", ratio(o, try render(#"crs:Vibrance="+50""#, photo, in: dir), where: any) { p, i in p.chroma(i) }, 1.05...2)
        let grey = try render(#"crs:Saturation="-100""#, photo, in: dir)
        report("Saturation -100, largest chroma left", grey.rgb.indices.map { grey.chroma($0) }.max()!, 0...0.02)
        let bw = try render(#"crs:ConvertToGrayscale="True""#, photo, in: dir)
        report("ConvertToGrayscale, largest chroma left", bw.rgb.indices.map { bw.chroma($0) }.max()!, 0...0.02)
        // Saturation +50: linear distance from luminance ×1.5 where nothing clips.
        func linChroma(_ p: Pixels, _ i: Int) -> Double {
            let l = p.rgb[i].map(Pixels.lin), y = 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2]
            return l.map { abs($0 - y) }.reduce(0, +)
        }
        report("Saturation +50, linear chroma ratio", ratio(o, try render(#"crs:Saturation="+50""#, photo, in: dir), where: mid, linChroma), 1.4...1.6)
        // HSL: blue saturation down on bluish pixels.
        let bluish = { (i: Int) in o.rgb[i][2] > o.rgb[i][0] + 0.1 && o.rgb[i][2] > o.rgb[i][1] }
        report("SaturationAdjustmentBlue -100, bluish chroma ratio", ratio(o, try render(#"crs:SaturationAdjustmentBlue="-100""#, photo, in: dir), where: bluish) { p, i in p.chroma(i) }, 0...0.8)
        // Tone curve: (128, 160) lifts the middle by about 32/255.
        let curve = try render("", elements: "<crs:ToneCurvePV2012><rdf:Seq><rdf:li>0, 0</rdf:li><rdf:li>128, 160</rdf:li><rdf:li>255, 255</rdf:li></rdf:Seq></crs:ToneCurvePV2012>", photo, in: dir)
        let nearMid = { (i: Int) in o.rgb[i].allSatisfy { abs($0 - 0.5) < 0.03 } }
        report("ToneCurvePV2012 (128→160), mid lift", ratio(o, curve, where: nearMid) { p, i in p.rgb[i].reduce(0, +) } * 0.5 - 0.5, 0.09...0.16)
        // Parametric darks +100 lifts the darks' centre (0.375) by about 0.1.
        let darks = try render(#"crs:ParametricDarks="+100""#, photo, in: dir)
        let nearDarks = { (i: Int) in o.rgb[i].allSatisfy { abs($0 - 0.375) < 0.03 } }
        report("ParametricDarks +100, lift at 0.375", ratio(o, darks, where: nearDarks) { p, i in p.rgb[i].reduce(0, +) } * 0.375 - 0.375, 0.07...0.12)
        // Vignette -100 darkens the corners against the centre.
        let vignette = try render(#"crs:PostCropVignetteAmount="-100""#, photo, in: dir)
        let corner = { (i: Int) in let x = i % o.width, y = i / o.width; return (x < o.width / 10 || x > o.width * 9 / 10) && (y < o.height / 10 || y > o.height * 9 / 10) }
        report("PostCropVignetteAmount -100, corner linear ratio", ratio(o, vignette, where: corner, linearMean), 0...0.6)
        // Crop: a 10 % margin all round leaves 80 % of each side.
        let cropped = try render(#"crs:HasCrop="True" crs:CropTop="0.1" crs:CropLeft="0.1" crs:CropBottom="0.9" crs:CropRight="0.9""#, photo, in: dir)
        report("HasCrop 0.1…0.9, width ratio", Double(cropped.width) / Double(o.width), 0.79...0.81)
        // Sharpening and clarity raise the local contrast (mean absolute difference of neighbours).
        func detail(_ p: Pixels) -> Double {
            var s = 0.0
            for i in p.rgb.indices where i % p.width > 0 { s += abs(p.luma(i) - p.luma(i - 1)) }
            return s
        }
        report("Sharpness 150, neighbour-difference ratio", detail(try render(#"crs:Sharpness="150""#, photo, in: dir)) / detail(o), 1.1...3)
        report("Clarity2012 +100, neighbour-difference ratio", detail(try render(#"crs:Clarity2012="+100""#, photo, in: dir)) / detail(o), 1.02...2)
        // Colour grade: blue shadows.
        let graded = try render(#"crs:ColorGradeShadowHue="220" crs:ColorGradeShadowSat="100""#, photo, in: dir)
        let shadowBlue = ratio(o, graded, where: dark) { p, i in p.rgb[i][2] + 0.01 } / ratio(o, graded, where: dark) { p, i in p.rgb[i][0] + 0.01 }
        report("ColorGradeShadow hue 220 sat 100, blue over red in shadows", shadowBlue, 1.03...3)
    }
}
