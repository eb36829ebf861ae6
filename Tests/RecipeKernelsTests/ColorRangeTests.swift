import Foundation
import RecipeKernels
import Testing
import TestSupport

/// The colour-range mask and mask combinations: the kernel's weights against
/// `Tests/Tools/color_reference.py` (pypng and numpy, the documented formula in double precision)
/// over the shared Kodak photos, and `all`/`any` against their formulas.
@Suite("colour-range masks")
struct ColorRangeTests {
    struct Settings {
        var hueMin: Float, hueMax: Float, hueFeather: Float
        var chroma: (Float, Float, Float)
        var lightness: (Float, Float, Float)
        var json: String {
            "{\"hue_min\": \(hueMin), \"hue_max\": \(hueMax), \"hue_feather\": \(hueFeather), \"chroma_min\": \(chroma.0), \"chroma_max\": \(chroma.1), "
                + "\"chroma_feather\": \(chroma.2), \"lightness_min\": \(lightness.0), \"lightness_max\": \(lightness.1), \"lightness_feather\": \(lightness.2)}"
        }
        func range(linear: Bool) -> ColorRange {
            ColorRange(hueFrom: hueMin, hueTo: hueMax, hueFeather: hueFeather, chromaLow: chroma.0, chromaHigh: chroma.1, chromaFeather: chroma.2,
                       lightnessLow: lightness.0, lightnessHigh: lightness.1, lightnessFeather: lightness.2, inputIsLinear: linear)
        }
    }

    /// A sky (blues, light), the reds through 0° (a wrapping arc) in the midtones, foliage with a
    /// narrow chroma band, and everything coloured (the whole circle).
    static let settings: [Settings] = [
        Settings(hueMin: 200, hueMax: 270, hueFeather: 20, chroma: (0.02, 0.5, 0.02), lightness: (0.5, 1, 0.1)),
        Settings(hueMin: 330, hueMax: 40, hueFeather: 15, chroma: (0.03, 0.5, 0.03), lightness: (0.3, 0.8, 0.05)),
        Settings(hueMin: 90, hueMax: 150, hueFeather: 10, chroma: (0.04, 0.12, 0.02), lightness: (0, 1, 0.05)),
        Settings(hueMin: 0, hueMax: 360, hueFeather: 15, chroma: (0.05, 0.5, 0.05), lightness: (0.2, 0.9, 0.2)),
    ]

    /// The kernel's weights of 8-bit pixels read as sRGB-encoded values (the mask on an encoded
    /// stage: decoded, then OKLab), a tile of 256 at a time as a pass runs it.
    static func weights(_ shape: MaskShape, _ rgb: [UInt8]) -> [Float] {
        let count = rgb.count / 3
        var out = [Float](repeating: 0, count: count + 8)
        var planes = [Float](repeating: 0, count: 3 * 264)
        var start = 0
        while start < count {
            let n = min(256, count - start)
            for i in 0..<n {
                for c in 0..<3 { planes[c * 264 + i] = Float(rgb[3 * (start + i) + c]) / 255 }
            }
            planes.withUnsafeBufferPointer { p in
                out.withUnsafeMutableBufferPointer { w in
                    shape.weights(x0: start, y: 0.5, r: p.baseAddress!, g: p.baseAddress! + 264, b: p.baseAddress! + 528,
                                  count: n, into: w.baseAddress! + start)
                }
            }
            start += n
        }
        return Array(out[..<count])
    }

    @Test("the kernel's weights equal numpy's from the documented formula within 1/255 over the Kodak photos",
          Requirement.corpus, Requirement.python("png", "numpy"))
    func againstNumpy() throws {
        let files = TestPaths.corpusFiles("kodak", extensions: ["png"])
        #expect(files.count >= 10)
        let python = try Requirement.path("python3")
        let script = TestPaths.packageRoot.appendingPathComponent("Tests/Tools/color_reference.py").path
        var worst: Float = 0, pixels = 0, selected = 0
        for (i, file) in files.enumerated() {
            let s = Self.settings[i % Self.settings.count]
            let result = try ExternalTool.run(python, [script, "range", file, s.json])
            try #require(result.status == 0, "\(result.stderr)")
            let data = result.stdout
            let size = data.prefix(8).withUnsafeBytes { (Int($0.load(as: UInt32.self)), Int($0.load(fromByteOffset: 4, as: UInt32.self))) }
            let count = size.0 * size.1
            try #require(data.count == 8 + 3 * count + 4 * count)
            let rgb = [UInt8](data[8..<(8 + 3 * count)])
            let want = data[(8 + 3 * count)...].withUnsafeBytes { raw in (0..<count).map { raw.load(fromByteOffset: 4 * $0, as: Float.self) } }
            let got = Self.weights(.color(s.range(linear: false)), rgb)
            var worstHere: Float = 0
            for k in 0..<count { worstHere = max(worstHere, abs(got[k] - want[k])) }
            worst = max(worst, worstHere)
            pixels += count
            selected += want.filter { $0 > 0.5 }.count
            #expect(worstHere <= 1.0 / 255, "\((file as NSString).lastPathComponent), settings \(i % Self.settings.count): worst \(worstHere)")
        }
        testNote("colour-range weights on \(files.count) Kodak photos (\(pixels) pixels, \(selected) selected over half): worst \(worst) against numpy")
        #expect(selected > pixels / 50, "the settings select almost nothing: the comparison would prove little")
    }

    @Test("hard edges (no feathers): inside 1, outside 0, on colours well away from the edges")
    func hardEdges() {
        let range = ColorRange(hueFrom: 200, hueTo: 270, hueFeather: 0, chromaLow: 0.05, chromaHigh: 0.2, chromaFeather: 0,
                               lightnessLow: 0.3, lightnessHigh: 0.8, lightnessFeather: 0, inputIsLinear: true)
        func lch(_ l: Double, _ c: Double, _ h: Double) -> SIMD3<Double> { OKLab.rgb(SIMD3(l, c * cos(h * .pi / 180), c * sin(h * .pi / 180))) }
        let cases: [(SIMD3<Double>, Float)] = [
            (lch(0.6, 0.1, 235), 1), (lch(0.6, 0.1, 190), 0), (lch(0.6, 0.1, 280), 0), (lch(0.6, 0.03, 235), 0),
            (lch(0.6, 0.25, 235), 0), (lch(0.2, 0.1, 235), 0), (lch(0.9, 0.05, 235), 0), (lch(0.5, 0.06, 205), 1),
        ]
        var planes = [Float](repeating: 0, count: 3 * 16)
        for (i, c) in cases.enumerated() { planes[i] = Float(c.0.x); planes[16 + i] = Float(c.0.y); planes[32 + i] = Float(c.0.z) }
        var w = [Float](repeating: -1, count: 16)
        planes.withUnsafeBufferPointer { p in
            MaskShape.color(range).weights(x0: 0, y: 0.5, r: p.baseAddress!, g: p.baseAddress! + 16, b: p.baseAddress! + 32, count: cases.count, into: &w)
        }
        for (i, c) in cases.enumerated() {
            #expect(w[i] == c.1, "case \(i): \(w[i]), want \(c.1)")
            #expect(Float(range.weight(c.0)) == c.1, "reference, case \(i)")
        }
    }

    @Test("`all` is the product and `any` the largest of the parts' weights (each inverted and scaled as it says)")
    func combinations() {
        var rng = SplitMix64(seed: 99)
        let rgb = (0..<(3 * 700)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let sky = MaskPart(shape: .color(Self.settings[0].range(linear: false)), invert: false, amount: 1)
        let notRed = MaskPart(shape: .color(Self.settings[1].range(linear: false)), invert: true, amount: 0.8)
        let bright = MaskPart(shape: .luminance(min: 0.4, max: 1, feather: 0.1, inputIsLinear: false), invert: false, amount: 1)
        let ramp = MaskPart(shape: .gradient(fromX: 0, fromY: 0, toX: 700, toY: 0), invert: false, amount: 0.5)
        let parts = [sky, notRed, bright, ramp]
        func one(_ p: MaskPart) -> [Float] { Self.weights(p.shape, rgb).map { (p.invert ? 1 - $0 : $0) * p.amount } }
        let each = parts.map(one)
        let all = Self.weights(.all(parts), rgb), any = Self.weights(.any(parts), rgb)
        for k in 0..<700 {
            let product = each.reduce(Float(1)) { $0 * $1[k] }, largest = each.map { $0[k] }.max()!
            #expect(abs(all[k] - product) < 1e-6, "all at \(k): \(all[k]) against \(product)")
            #expect(abs(any[k] - largest) < 1e-6, "any at \(k): \(any[k]) against \(largest)")
        }
        // Nested: all(any(sky, bright), ramp).
        let nested = Self.weights(.all([MaskPart(shape: .any([sky, bright]), invert: false, amount: 1), ramp]), rgb)
        for k in 0..<700 { #expect(abs(nested[k] - max(each[0][k], each[2][k]) * each[3][k]) < 1e-6) }
        #expect(MaskShape.all(parts).readsPosition && !MaskShape.any([sky, bright]).readsPosition)
    }
}
