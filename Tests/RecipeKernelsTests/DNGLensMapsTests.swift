import Foundation
import RecipeCore
@testable import RecipeKernels
import Testing
import TestSupport

/// The DNG lens opcodes' formulas (`DNGLensMaps`, `DNGGainMap`) against an independent numpy
/// reading of the specification (Tests/Tools/dng_opcode_reference.py) and against what the
/// formulas must do whatever their coefficients.
@Suite("DNG lens maps")
struct DNGLensMapsTests {
    /// Points on a 13 × 9 grid over the image, its corner pixels included, and a few between pixels.
    static func points(width: Int, height: Int) -> [(x: Double, y: Double)] {
        var out: [(Double, Double)] = []
        for i in 0..<9 {
            for j in 0..<13 { out.append((Double(width - 1) * Double(j) / 12, Double(height - 1) * Double(i) / 8)) }
        }
        return out + [(0.25, 0.75), (Double(width) / 3, Double(height) / 7), (-0.5, -0.5), (Double(width) - 0.5, Double(height) - 0.5)]
    }

    /// The reference script's answer to `request`.
    static func reference(_ request: [String: Any]) throws -> [String: Any] {
        let dir = TestPaths.temporaryDirectory("dng-reference")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("request.json")
        try JSONSerialization.data(withJSONObject: request).write(to: file)
        let script = TestPaths.packageRoot.appendingPathComponent("Tests/Tools/dng_opcode_reference.py").path
        let r = try ExternalTool.run("/usr/bin/env", ["python3", script, file.path])
        #expect(r.status == 0, "dng_opcode_reference.py: \(r.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
    }

    static let planes = [
        LensCalibration.DNGWarpPlane(kr: [1.0012, -0.0213, 0.0042, -0.0007], kt: [0.0011, -0.0006]),
        LensCalibration.DNGWarpPlane(kr: [1, -0.02, 0.004, -0.0005], kt: [0.001, -0.0005]),
        LensCalibration.DNGWarpPlane(kr: [0.9991, -0.0188, 0.0037, -0.0003], kt: [0.0009, -0.0004]),
    ]

    @Test("WarpRectilinear: the source position of every plane within 1e-6 px of the specification's formula (numpy)",
          Requirement.python("numpy", "pidng"),
          arguments: [(6000, 4000, 0.5, 0.5), (101, 67, 0.43, 0.58), (48, 64, 0.0, 1.0)])
    func warpAgainstReference(width: Int, height: Int, cx: Double, cy: Double) throws {
        let warp = DNGLensMaps.Warp(planes: Self.planes, centerX: cx, centerY: cy, width: width, height: height)
        let pts = Self.points(width: width, height: height)
        let answer = try Self.reference([
            "width": width, "height": height, "points": pts.map { [$0.x, $0.y] },
            "warp": ["planes": Self.planes.map { $0.kr + $0.kt }, "cx": cx, "cy": cy],
        ])
        let expected = try #require(answer["warp"] as? [[[Double]]])
        var worst = 0.0
        for plane in 0..<3 {
            for (p, want) in zip(pts, expected[plane]) {
                let got = warp.source(x: p.x, y: p.y, plane: plane)
                worst = max(worst, abs(got.x - want[0]), abs(got.y - want[1]))
            }
        }
        #expect(worst < 1e-6, "largest difference \(worst) px")
        testNote("WarpRectilinear \(width)×\(height), centre \(cx), \(cy): largest difference from numpy \(worst) px")
    }

    @Test("FixVignetteRadial: the gain within 1e-7 of the specification's formula (numpy)",
          Requirement.python("numpy", "pidng"),
          arguments: [(6000, 4000, 0.5, 0.5), (101, 67, 0.43, 0.58), (48, 64, 1.0, 0.0)])
    func vignetteAgainstReference(width: Int, height: Int, cx: Double, cy: Double) throws {
        let k = [0.38, -0.21, 0.094, -0.017, 0.0023]
        let vignette = DNGLensMaps.Vignette(k: k, centerX: cx, centerY: cy, width: width, height: height)
        let pts = Self.points(width: width, height: height)
        let answer = try Self.reference([
            "width": width, "height": height, "points": pts.map { [$0.x, $0.y] }, "vignette": ["k": k, "cx": cx, "cy": cy],
        ])
        let expected = try #require(answer["vignette"] as? [Double])
        let worst = zip(pts, expected).map { abs(vignette.gain(x: $0.0.x, y: $0.0.y) - $0.1) }.max() ?? .infinity
        #expect(worst < 1e-7, "largest difference \(worst)")
        testNote("FixVignetteRadial \(width)×\(height): largest difference from numpy \(worst)")
    }

    @Test("GainMap: the bilinear gain at pixels on and between the map's points within 1e-7 of numpy's",
          Requirement.python("numpy", "pidng"))
    func gainMapAgainstReference() throws {
        let (w, h, pv, ph) = (97, 61, 5, 7)
        let gains = (0..<(pv * ph)).map { Float(1 + 0.37 * sin(Double($0) * 1.7) * sin(Double($0) * 0.3)) }
        let map = DNGGainMap(top: 0, left: 0, bottom: 0, right: 0, plane: 0, planes: 1, rowPitch: 1, colPitch: 1,
                             pointsV: pv, pointsH: ph, spacingV: 0.27, spacingH: 0.16, originV: 0.05, originH: -0.02,
                             mapPlanes: 1, gains: gains)
        var pixels: [(Int, Int)] = []
        for r in stride(from: 0, to: h, by: 4) { for c in stride(from: 0, to: w, by: 3) { pixels.append((r, c)) } }
        pixels.append((h - 1, w - 1))
        let answer = try Self.reference([
            "width": w, "height": h,
            "gainmap": ["points": [pv, ph], "spacing": [0.27, 0.16], "origin": [0.05, -0.02], "gains": gains.map(Double.init),
                        "pixels": pixels.map { [$0.0, $0.1] }] as [String: Any],
        ])
        let expected = try #require(answer["gainmap"] as? [Double])
        let worst = zip(pixels, expected).map { abs(map.gain(row: $0.0.0, column: $0.0.1, plane: 0, imageWidth: w, imageHeight: h) - $0.1) }.max() ?? .infinity
        #expect(worst < 1e-7, "largest difference \(worst)")
        testNote("GainMap \(pv)×\(ph) on \(w)×\(h): largest difference from numpy \(worst)")
    }

    @Test("the centre is the image's own: a centred warp and vignette are symmetric about (W − 1)/2, (H − 1)/2")
    func centredIsSymmetric() {
        let (w, h) = (64, 48)
        let warp = DNGLensMaps.Warp(planes: [Self.planes[1]].map { LensCalibration.DNGWarpPlane(kr: $0.kr, kt: [0, 0]) },
                                    centerX: 0.5, centerY: 0.5, width: w, height: h)
        let a = warp.source(x: 0, y: 0, plane: 0), b = warp.source(x: Double(w - 1), y: Double(h - 1), plane: 0)
        #expect(abs(a.x + b.x - Double(w - 1)) < 1e-12 && abs(a.y + b.y - Double(h - 1)) < 1e-12)
        let middle = warp.source(x: 31.5, y: 23.5, plane: 2)
        #expect(middle == (31.5, 23.5), "the centre does not move")
        let v = DNGLensMaps.Vignette(k: [0.5, 0, 0, 0, 0], centerX: 0.5, centerY: 0.5, width: w, height: h)
        #expect(v.gain(x: 31.5, y: 23.5) == 1)
        // r = 1 at the corner of the image's area, half a pixel beyond the corner pixel's centre.
        #expect(abs(v.gain(x: -0.5, y: -0.5) - 1.5) < 1e-12 && abs(v.gain(x: 63.5, y: 47.5) - 1.5) < 1e-12)
        #expect(v.gain(x: 0, y: 0) < 1.5 && v.gain(x: 0, y: 0) == v.gain(x: 63, y: 47))
    }

    @Test("identity coefficients leave every position where it is; kr0 alone scales about the centre; kt0 moves y")
    func identityAndTerms() {
        let id = DNGLensMaps.Warp(planes: [LensCalibration.DNGWarpPlane(kr: [1, 0, 0, 0], kt: [0, 0])], centerX: 0.3, centerY: 0.8, width: 40, height: 30)
        for (x, y) in [(0.0, 0.0), (39.0, 29.0), (12.25, 7.5)] {
            let p = id.source(x: x, y: y, plane: 1)
            #expect(abs(p.x - x) < 1e-12 && abs(p.y - y) < 1e-12)
        }
        let scale = DNGLensMaps.Warp(planes: [LensCalibration.DNGWarpPlane(kr: [0.5, 0, 0, 0], kt: [0, 0])], centerX: 0.5, centerY: 0.5, width: 40, height: 30)
        let s = scale.source(x: 39.5, y: 14.5, plane: 0)
        #expect(abs(s.x - 29.5) < 1e-12 && abs(s.y - 14.5) < 1e-12, "half way to the centre at x 19.5")
        // Tangential kt0 on the horizontal axis through the centre: Δy = kt0·r², Δx = 0.
        let tangential = DNGLensMaps.Warp(planes: [LensCalibration.DNGWarpPlane(kr: [1, 0, 0, 0], kt: [0.01, 0])], centerX: 0.5, centerY: 0.5, width: 40, height: 30)
        let m = tangential.frame.radius, t = tangential.source(x: 39.5, y: 14.5, plane: 0)
        #expect(abs(t.x - 39.5) < 1e-12 && abs(t.y - (14.5 + m * 0.01 * pow(20 / m, 2))) < 1e-12)
    }

    @Test("a calibration's DNG models give the maps; other models give none")
    func fromCalibration() {
        let c = LensCalibration(source: .camera("DNG OpcodeList3"), distortion: .dngWarp(planes: Self.planes, centerX: 0.5, centerY: 0.5),
                                vignetting: .dngRadial(k: [0.1, 0, 0, 0, 0], centerX: 0.5, centerY: 0.5))
        #expect(DNGLensMaps.warp(c.distortion, width: 10, height: 10)?.planeCount == 3)
        #expect(DNGLensMaps.vignette(c.vignetting, width: 10, height: 10)?.k == [0.1, 0, 0, 0, 0])
        #expect(DNGLensMaps.warp(.poly3(k1: 0.01), width: 10, height: 10) == nil)
        #expect(DNGLensMaps.vignette(.pa(k1: -0.3, k2: 0, k3: 0), width: 10, height: 10) == nil)
    }
}

/// `DNGGainMap.apply`: which samples it changes and by how much.
@Suite("DNG gain map on a mosaic")
struct DNGGainMapApplyTests {
    /// A `width` × `height` mosaic of `value` everywhere, black 100, white 4000.
    static func mosaic(width: Int, height: Int, value: UInt16) -> (RawMosaic, UnsafeMutablePointer<UInt16>) {
        let samples = UnsafeMutablePointer<UInt16>.allocate(capacity: width * height)
        samples.initialize(repeating: value, count: width * height)
        let m = RawMosaic(borrowing: samples, pitch: width, top: 0, left: 0, width: width, height: height,
                          pattern: [0, 1, 1, 2], black: [100, 100, 100, 100], maximum: 4000)
        return (m, samples)
    }

    @Test("a one-point map of gain 2 on one Bayer position doubles the signal above black there only, clipped at white")
    func onePhase() {
        let (m, samples) = Self.mosaic(width: 6, height: 4, value: 1100)
        defer { samples.deallocate() }
        let map = DNGGainMap(top: 1, left: 0, bottom: 4, right: 6, plane: 0, planes: 1, rowPitch: 2, colPitch: 2, pointsV: 1, pointsH: 1,
                             spacingV: 1, spacingH: 1, originV: 0, originH: 0, mapPlanes: 1, gains: [2])
        let out = DNGGainMap.apply([map], to: m)
        defer { withExtendedLifetime(out) {} }
        for y in 0..<4 {
            for x in 0..<6 {
                let want: UInt16 = y % 2 == 1 && x % 2 == 0 ? 2100 : 1100
                #expect(out.samples[y * out.pitch + x] == want, "(\(x), \(y))")
            }
        }
        let bright = DNGGainMap(top: 0, left: 0, bottom: 0, right: 0, plane: 0, planes: 1, rowPitch: 1, colPitch: 1, pointsV: 1, pointsH: 1,
                                spacingV: 1, spacingH: 1, originV: 0, originH: 0, mapPlanes: 1, gains: [5])
        let clipped = DNGGainMap.apply([bright], to: m)
        withExtendedLifetime(clipped) { #expect(clipped.samples[0] == 4000, "clipped at the white level") }
        let other = DNGGainMap(top: 0, left: 0, bottom: 0, right: 0, plane: 1, planes: 2, rowPitch: 1, colPitch: 1, pointsV: 1, pointsH: 1,
                               spacingV: 1, spacingH: 1, originV: 0, originH: 0, mapPlanes: 1, gains: [5])
        let untouched = DNGGainMap.apply([other], to: m)
        withExtendedLifetime(untouched) { #expect(untouched.samples[0] == 1100, "a map for planes 1 and 2 leaves a mosaic alone") }
    }

    @Test("the area's rows and columns: from its first on its pitch, within the image")
    func area() {
        let map = DNGGainMap(top: -3, left: 1, bottom: 9, right: 100, plane: 0, planes: 1, rowPitch: 2, colPitch: 3, pointsV: 1, pointsH: 1,
                             spacingV: 1, spacingH: 1, originV: 0, originH: 0, mapPlanes: 1, gains: [1])
        let (rows, columns) = map.area(width: 11, height: 8)
        #expect(Array(rows) == [1, 3, 5, 7])
        #expect(Array(columns) == [1, 4, 7, 10])
    }
}
