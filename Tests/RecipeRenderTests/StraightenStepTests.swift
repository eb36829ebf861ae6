import Foundation
import RecipeCore
import RecipeKernels
import RecipeRender
import Testing
import TestSupport


private func randomImage(width: Int, height: Int, seed: UInt64) -> [UInt8] {
    var rng = SplitMix64(seed: seed)
    return (0..<(3 * width * height)).map { _ in rng.byte() }
}

/// Photo-like: smooth waves plus ±16 of noise, so interpolation errors are not dominated by
/// pixel-to-pixel jumps of 255.
private func smoothImage(width: Int, height: Int, seed: UInt64) -> [UInt8] {
    var rng = SplitMix64(seed: seed)
    var out = [UInt8](repeating: 0, count: 3 * width * height)
    for y in 0..<height { for x in 0..<width { for c in 0..<3 {
        let wave = 110 * sin(Double(x) * 0.21 + Double(c)) * cos(Double(y) * 0.17 - Double(c))
        let v = 128 + wave + Double(Int(rng.byte() >> 3) - 16)
        out[(y * width + x) * 3 + c] = UInt8(max(0, min(255, v.rounded())))
    } } }
    return out
}

/// The straighten formula written out directly in double precision (ops-reference §4, §6): inverse
/// rotation and scale of each output pixel centre about the centres, Keys a = −0.5 bicubic on the
/// IEC-decoded values with clamped taps, IEC encode, round. `fractionStep` rounds the sub-pixel
/// position to that grid first (vips uses 1/64).
private func reference(_ image: [UInt8], width w: Int, height h: Int, angle: Double, fill: StraightenStep.Fill,
                       outWidth ow: Int, outHeight oh: Int, fractionStep: Double? = nil) -> [UInt8]
{
    func decode(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
    func encode(_ l: Double) -> Double { l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1 / 2.4) - 0.055 }
    func keys(_ x: Double) -> Double {
        let a = abs(x)
        if a < 1 { return 1.5 * a * a * a - 2.5 * a * a + 1 }
        if a < 2 { return -0.5 * a * a * a + 2.5 * a * a - 4 * a + 2 }
        return 0
    }
    let theta = angle * .pi / 180
    let (c, s) = (cos(theta), sin(theta))
    let (W, H) = (Double(w), Double(h))
    let scale = fill == .crop ? cos(abs(theta)) + max(W / H, H / W) * sin(abs(theta)) : 1
    let linear = image.map { decode(Double($0) / 255) }
    var out = [UInt8](repeating: 0, count: 3 * ow * oh)
    for i in 0..<oh {
        for j in 0..<ow {
            let u = Double(j) + 0.5 - Double(ow) / 2, v = Double(i) + 0.5 - Double(oh) / 2
            let x = W / 2 - 0.5 + (u * c - v * s) / scale
            let y = H / 2 - 0.5 + (u * s + v * c) / scale
            if fill == .expand && !(x >= -0.5 && x <= W - 0.5 && y >= -0.5 && y <= H - 0.5) { continue }
            let (fx, fy) = (x.rounded(.down), y.rounded(.down))
            var (tx, ty) = (x - fx, y - fy)
            if let q = fractionStep { tx = (tx / q).rounded() * q; ty = (ty / q).rounded() * q }
            for ch in 0..<3 {
                var sum = 0.0
                for m in -1...2 {
                    let yy = min(max(Int(fy) + m, 0), h - 1)
                    for n in -1...2 {
                        let xx = min(max(Int(fx) + n, 0), w - 1)
                        sum += keys(Double(m) - ty) * keys(Double(n) - tx) * linear[(yy * w + xx) * 3 + ch]
                    }
                }
                out[(i * ow + j) * 3 + ch] = UInt8((encode(min(max(sum, 0), 1)) * 255).rounded())
            }
        }
    }
    return out
}

private func maxDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
    zip(a, b).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
}

private func outputSize(_ w: Int, _ h: Int, _ angle: Double, _ fill: StraightenStep.Fill) -> (Int, Int) {
    fill == .crop ? (w, h) : Rotation.expandedSize(width: w, height: h, angleDegrees: angle)
}

private func straighten(_ image: [UInt8], _ w: Int, _ h: Int, angle: Double, fill: StraightenStep.Fill, capacity: Int = 5) throws -> [UInt8] {
    let (ow, oh) = outputSize(w, h, angle, fill)
    let step = StraightenStep(source: floatRows(MemoryImage(image, width: w, height: h), in: .linear), angleDegrees: angle, fill: fill,
                              width: ow, height: oh)
    #expect(step.width == ow && step.height == oh)
    return try readCodes(step, from: .linear, capacity: capacity)
}

private func writePPM(_ bytes: [UInt8], width: Int, height: Int, to path: String) throws {
    var data = Data("P6\n\(width) \(height)\n255\n".utf8)
    data.append(contentsOf: bytes)
    try data.write(to: URL(fileURLWithPath: path))
}

@Suite("Straighten step")
struct StraightenStepTests {
    @Test("0° reproduces the input bytes exactly, in both fills")
    func identity() throws {
        let (w, h) = (37, 23)
        let image = randomImage(width: w, height: h, seed: 1)
        #expect(try straighten(image, w, h, angle: 0, fill: .crop) == image)
        #expect(try straighten(image, w, h, angle: 0, fill: .expand) == image)
    }

    @Test("a single pixel or a single row: every tap clamps onto the image")
    func degenerate() throws {
        #expect(try straighten([10, 200, 77], 1, 1, angle: 30, fill: .crop) == [10, 200, 77])
        let row = randomImage(width: 9, height: 1, seed: 5)
        let out = try straighten(row, 9, 1, angle: -3, fill: .crop)
        #expect(out.count == row.count)
        let (ow, oh) = outputSize(1, 1, 45, .expand)
        #expect(try straighten([10, 200, 77], 1, 1, angle: 45, fill: .expand).count == 3 * ow * oh)
    }

    @Test("a positive angle turns counter-clockwise on screen: a dot right of the centre moves up")
    func direction() throws {
        let (w, h) = (41, 41)
        var image = [UInt8](repeating: 0, count: 3 * w * h)
        for y in 19...21 { for x in 29...31 { for c in 0..<3 { image[(y * w + x) * 3 + c] = 255 } } }  // dot at (30, 20), centre (20, 20)
        for angle in [45.0, -45.0] {
            let (ow, oh) = outputSize(w, h, angle, .expand)
            let out = try straighten(image, w, h, angle: angle, fill: .expand)
            let brightest = (0..<(ow * oh)).max { out[3 * $0] < out[3 * $1] }!
            let (bx, by) = (Double(brightest % ow), Double(brightest / ow))
            // 10 px right of the centre, turned by the angle: (10 cos θ, −10 sin θ) from the output centre.
            let theta = angle * .pi / 180
            let (ex, ey) = (Double(ow) / 2 - 0.5 + 10 * cos(theta), Double(oh) / 2 - 0.5 - 10 * sin(theta))
            #expect(abs(bx - ex) <= 1 && abs(by - ey) <= 1, "angle \(angle): dot at (\(bx), \(by)), expected near (\(ex), \(ey))")
            #expect(angle > 0 ? by < Double(oh) / 2 - 5 : by > Double(oh) / 2 + 5)
        }
    }

    @Test("matches a double-precision scalar reference within 1/255 (random 64×48)",
          arguments: [-45.0, -17.5, -1.5, 0.3, 5, 30], [StraightenStep.Fill.crop, .expand])
    func scalarReference(angle: Double, fill: StraightenStep.Fill) throws {
        let (w, h) = (64, 48)
        let image = randomImage(width: w, height: h, seed: 7)
        let (ow, oh) = outputSize(w, h, angle, fill)
        let ours = try straighten(image, w, h, angle: angle, fill: fill)
        let ref = reference(image, width: w, height: h, angle: angle, fill: fill, outWidth: ow, outHeight: oh)
        let off = zip(ours, ref).filter { $0 != $1 }.count
        // Float accumulation in the stage against double here: off by one only next to a half-code.
        if off > 0 { testNote("straighten \(angle)° \(fill): \(off) of \(ref.count) samples off by \(maxDifference(ours, ref)) from the double reference") }
        #expect(maxDifference(ours, ref) <= 1 && off * 100 < ref.count)
    }

    @Test("a small tilt keeps a band of rows, not the image, with the bytes of the whole-image rows, on any thread count",
          arguments: [(-1.5, StraightenStep.Fill.crop, 400, 600), (3, .crop, 600, 200), (10, .expand, 300, 500), (-0.2, .crop, 257, 300)])
    func band(angle: Double, fill: StraightenStep.Fill, w: Int, h: Int) throws {
        let image = randomImage(width: w, height: h, seed: 11)
        let (ow, oh) = outputSize(w, h, angle, fill)
        // Each output row straight from the whole source image.
        let scale = fill == .crop ? Rotation.cropScale(width: w, height: h, angleDegrees: angle) : 1
        let map = Rotation.InverseMap(sourceWidth: w, sourceHeight: h, outputWidth: ow, outputHeight: oh, angleDegrees: angle, scale: scale)
        let linear = image.map { SRGB.decodeTable8[Int($0)] }
        var whole = [Float](repeating: 0, count: 3 * ow * oh)
        linear.withUnsafeBytes { img in whole.withUnsafeMutableBufferPointer { out in
            for row in 0..<oh {
                let (x, y) = map.position(column: 0, row: row)
                Rotation.resampleRow(image: img.baseAddress!, rowStride: 12 * w, width: w, height: h, startX: x, startY: y,
                                     stepX: map.stepX, stepY: map.stepY, count: ow, edge: fill == .crop ? .clamp : .black,
                                     into: out.baseAddress! + 3 * ow * row)
            }
        } }
        for (threads, capacity, chunk) in [(1, 5, 7), (1, 64, 16), (3, 40, 3)] {
            let pool = threads > 1 ? WorkerPool(threads: threads) : nil
            defer { pool?.shutdown() }
            let step = StraightenStep(source: floatRows(MemoryImage(image, width: w, height: h, chunk: chunk), in: .linear),
                                      angleDegrees: angle, fill: fill, width: ow, height: oh, pool: pool)
            #expect(step.ringRows < h / 2, "ring of \(step.ringRows) rows for \(h)")
            #expect(try readFloats(step, capacity: capacity) == whole, "\(angle)° \(fill), \(threads) threads, strips of \(capacity)")
        }
    }

    @Test("the rows do not depend on the strip size")
    func stripIndependent() throws {
        let (w, h) = (50, 31)
        let image = randomImage(width: w, height: h, seed: 3)
        let one = try straighten(image, w, h, angle: 12, fill: .crop, capacity: 1)
        #expect(try straighten(image, w, h, angle: 12, fill: .crop, capacity: 64) == one)
    }

    /// vips 8.14 as the oracle: `affine` (the operation `similarity` wraps) on a float scRGB image,
    /// with the bicubic interpolator and copy extension. `similarity` sizes its output to the
    /// rotated bounding box with a rounded origin, so its centre W×H crop can sit a fraction of a
    /// pixel off; `affine --oarea 0 0 W H` with `--idx/--idy = −(W/2 − 0.5, H/2 − 0.5)` and
    /// `--odx/--ody = (W'/2 − 0.5, H'/2 − 0.5)` states the same rotation about the centres exactly
    /// (vips puts pixel centres at integer coordinates, and angles in vips are clockwise, hence the
    /// matrix `s·[cos θ, sin θ; −sin θ, cos θ]` for our counter-clockwise θ).
    ///
    /// Measured: vips rounds the sub-pixel position to 1/64 pixel; with that rounding in the
    /// reference formula, the reference and vips agree within 1/255 everywhere (1e-7 in linear
    /// light), so the conventions are the same. Our stage (full-precision positions) differs from
    /// vips by at most 1/255 (mean 0.19/255) on the photo-like image here; on pure noise, where a
    /// 1/128-pixel shift moves a value by several steps, by up to 11/255 (mean 0.54), from that
    /// rounding alone.
    @Test("agrees with vips affine (bicubic, float scRGB)", Requirement.tool("vips"), arguments: [-20.0, -1.5, 3, 45], [StraightenStep.Fill.crop, .expand])
    func vipsOracle(angle: Double, fill: StraightenStep.Fill) throws {
        let vips = try Requirement.path("vips")
        let (w, h) = (64, 48)
        let image = smoothImage(width: w, height: h, seed: 11)
        let (ow, oh) = outputSize(w, h, angle, fill)
        let dir = TestPaths.temporaryDirectory("straighten-vips")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = { (name: String) in dir.appendingPathComponent(name).path }
        try writePPM(image, width: w, height: h, to: path("in.ppm"))
        let theta = angle * .pi / 180
        let s = fill == .crop ? Rotation.cropScale(width: w, height: h, angleDegrees: angle) : 1
        let matrix = [s * cos(theta), s * sin(theta), -s * sin(theta), s * cos(theta)].map { "\($0)" }.joined(separator: " ")
        let steps: [[String]] = [
            ["colourspace", path("in.ppm"), path("lin.v"), "scrgb"],
            ["affine", path("lin.v"), path("rot.v"), matrix, "--interpolate", "bicubic", "--extend", "copy",
             "--idx", "\(-(Double(w) / 2 - 0.5))", "--idy", "\(-(Double(h) / 2 - 0.5))",
             "--odx", "\(Double(ow) / 2 - 0.5)", "--ody", "\(Double(oh) / 2 - 0.5)", "--oarea", "0 0 \(ow) \(oh)"],
            ["colourspace", path("rot.v"), path("out.ppm"), "srgb"],
        ]
        for args in steps {
            let r = try ExternalTool.run(vips, args)
            try #require(r.status == 0, "vips \(args[0]) failed: \(r.stderr)")
        }
        let oracle = try #require(NetpbmImage(Data(contentsOf: URL(fileURLWithPath: path("out.ppm")))))
        try #require(oracle.width == ow && oracle.height == oh && oracle.channels == 3)
        let ours = try straighten(image, w, h, angle: angle, fill: fill)
        let ref64 = reference(image, width: w, height: h, angle: angle, fill: fill, outWidth: ow, outHeight: oh, fractionStep: 1.0 / 64)

        // Compared: every pixel for crop (copy extension = our clamp); for expand, the pixels whose
        // 4×4 taps lie inside the source (vips blends its black background into the border pixels,
        // ours are whole pixels in or out).
        let map = Rotation.InverseMap(sourceWidth: w, sourceHeight: h, outputWidth: ow, outputHeight: oh, angleDegrees: angle, scale: s)
        var worst = 0, worstReference = 0, total = 0, count = 0
        for i in 0..<oh { for j in 0..<ow {
            let p = map.position(column: j, row: i)
            if fill == .expand && !(p.x >= 1 && p.x <= Double(w) - 3 && p.y >= 1 && p.y <= Double(h) - 3) { continue }
            for c in 0..<3 {
                let k = (i * ow + j) * 3 + c
                let d = abs(Int(ours[k]) - oracle.samples[k])
                worst = max(worst, d)
                worstReference = max(worstReference, abs(Int(ref64[k]) - oracle.samples[k]))
                total += d
                count += 1
            }
        } }
        let mean = Double(total) / Double(max(1, count))
        testNote("straighten \(angle)° \(fill) vs vips: max \(worst)/255, mean \(String(format: "%.3f", mean)) over \(count) samples; 1/64-rounded reference max \(worstReference)/255")
        #expect(count > 0)
        #expect(worstReference <= 1, "the conventions differ from vips")
        #expect(worst <= 1 && mean < 0.25)
    }
}
