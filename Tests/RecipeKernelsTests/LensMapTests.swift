import Foundation
import RecipeCore
import RecipeKernels
import Testing
import TestSupport

/// Lens maps against lensfun itself: `python3 Tests/Tools/lens_reference.py` runs lensfunpy
/// (lensfun 0.3.4, whose maths are 0.3.3's) over the system's lensfun database for 26 cases
/// (every distortion, TCA and vignetting model the database uses; a lens on a camera of another
/// crop factor; portrait and 4:3 frames; fixed and automatic scale) and prints the interpolated
/// calibration, lensfun's per-channel source positions on a grid of output pixels, and its
/// vignetting gains. `LensGeometry` is built from the calibration and must land within 0.05 px
/// of lensfun's positions (the bound) and 0.002 of its gains.
@Suite("lens maps against lensfun")
struct LensMapTests {
    struct Case: Decodable {
        struct Model: Decodable { var model: String; var terms: [Double] }
        struct Point: Decodable { var x: Int; var y: Int; var position: [Double]?; var gain: Double? }
        var camera: String, lens: String
        var focal: Double, aperture: Double, distance: Double
        var width: Int, height: Int, scale: Double
        var cameraCrop: Double, lensCrop: Double, aspectRatio: Double, centerX: Double, centerY: Double
        var distortion: Model?, tca: Model?, vignetting: Model?
        var points: [Point]
    }

    static func cases() throws -> [Case] {
        let python = try Requirement.path("python3")
        let script = TestPaths.packageRoot.appendingPathComponent("Tests/Tools/lens_reference.py").path
        let result = try ExternalTool.run(python, [script])
        struct ScriptFailed: Error { var stderr: String }
        guard result.status == 0 else { throw ScriptFailed(stderr: result.stderr) }
        return try JSONDecoder().decode([Case].self, from: result.stdout)
    }

    static func calibration(_ c: Case) -> LensCalibration {
        var cal = LensCalibration(source: .lensfun(profile: c.lens), calibrationCropFactor: c.lensCrop,
                                  calibrationAspectRatio: c.aspectRatio, centerX: c.centerX, centerY: c.centerY)
        if let d = c.distortion {
            let t = d.terms
            cal.distortion = switch d.model {
            case "poly3": .poly3(k1: t[0])
            case "poly5": .poly5(k1: t[0], k2: t[1])
            default: .ptlens(a: t[0], b: t[1], c: t[2])
            }
        }
        if let m = c.tca {
            let t = m.terms
            cal.tca = m.model == "linear" ? .linear(kr: t[0], kb: t[1]) : .poly3(vr: t[0], vb: t[1], cr: t[2], cb: t[3], br: t[4], bb: t[5])
        }
        if let v = c.vignetting { cal.vignetting = .pa(k1: v.terms[0], k2: v.terms[1], k3: v.terms[2]) }
        return cal
    }

    @Test("positions within 0.05 px and vignetting gains within 0.002 of lensfun's, 26 lens/focal/aperture cases",
          Requirement.python("lensfunpy", "numpy"))
    func againstLensfun() throws {
        let cases = try Self.cases()
        #expect(cases.count >= 20)
        var worstPosition = 0.0, worstGain = 0.0, compared = 0
        for c in cases {
            var g = LensGeometry(calibration: Self.calibration(c), cameraCropFactor: c.cameraCrop, width: c.width, height: c.height)
            let scale = c.scale == 0 ? try #require(g.autoScale(), "\(c.lens): no automatic scale") : c.scale
            g = g.with(scale: scale)
            let vignetting = g.vignettingStep
            var worstHere = 0.0
            defer { testNote("\(c.lens) at \(c.focal) mm, scale \(scale): worst \(worstHere) px") }
            for p in c.points {
                if let want = p.position {
                    let got = g.position(x: Double(p.x), y: Double(p.y))
                    let mine = [got.red.x, got.red.y, got.green.x, got.green.y, got.blue.x, got.blue.y]
                    let error = zip(mine, want).map { abs($0 - $1) }.max()!
                    #expect(error < 0.05, "\(c.lens) at \(c.focal) mm, \(c.width)×\(c.height), pixel (\(p.x), \(p.y)): \(mine) against \(want)")
                    worstPosition = max(worstPosition, error)
                    worstHere = max(worstHere, error)
                    compared += 1
                }
                if let want = p.gain {
                    let step = try #require(vignetting, "\(c.lens): lensfun corrects vignetting, the geometry gives no step")
                    let got = PointStep.reference(SIMD3(1, 1, 1), steps: [step], x: p.x, y: p.y).y
                    #expect(abs(got - want) < 0.002, "\(c.lens) gain at (\(p.x), \(p.y)): \(got) against \(want)")
                    worstGain = max(worstGain, abs(got - want))
                } else {
                    #expect(c.vignetting == nil || vignetting == nil)
                }
            }
        }
        testNote("lens maps: \(compared) positions, worst \(worstPosition) px; worst vignetting gain \(worstGain)")
    }

    @Test("a DNG WarpRectilinear through the warp kernel lands where DNGLensMaps' formula puts it, in every EXIF orientation (within 0.001 px)",
          arguments: Orientation.allCases)
    func dngWarpTurned(_ orientation: Orientation) {
        let planes = [
            LensCalibration.DNGWarpPlane(kr: [1.0004, -0.012, 0.003, -0.0005], kt: [0.0011, -0.0007]),
            LensCalibration.DNGWarpPlane(kr: [1, -0.011, 0.0028, -0.0004], kt: [0.001, -0.0006]),
            LensCalibration.DNGWarpPlane(kr: [0.9995, -0.0105, 0.0027, -0.0004], kt: [0.0009, -0.0005]),
        ]
        let calibration = LensCalibration(source: .camera("DNG OpcodeList3"), distortion: .dngWarp(planes: planes, centerX: 0.47, centerY: 0.53),
                                          vignetting: .dngRadial(k: [0.4, -0.1, 0.02, 0, 0], centerX: 0.47, centerY: 0.53))
        let (storedW, storedH) = (601, 400)
        let upright = orientation.orientedSize(width: storedW, height: storedH)
        var g = LensGeometry(calibration: calibration, cameraCropFactor: 1, width: upright.width, height: upright.height)
        g.orientation = orientation
        let warp = DNGLensMaps.warp(calibration.distortion, width: storedW, height: storedH)!
        let vignette = DNGLensMaps.vignette(calibration.vignetting, width: storedW, height: storedH)!
        let step = g.vignettingStep!
        var worst = 0.0, worstGain = 0.0
        for (x, y) in [(0, 0), (upright.width - 1, 0), (0, upright.height - 1), (upright.width - 1, upright.height - 1), (123, 45), (300, 200)] {
            let s = orientation.sourceCoordinate(x: x, y: y, uprightWidth: upright.width, uprightHeight: upright.height)
            let got = g.position(x: Double(x), y: Double(y))
            for (plane, mine) in [got.red, got.green, got.blue].enumerated() {
                let (sx, sy) = warp.source(x: Double(s.x), y: Double(s.y), plane: plane)
                // The stored position turned upright: where the same stored point is on the upright canvas.
                let ex = orientation.uprightPosition(x: sx, y: sy, storedWidth: storedW, storedHeight: storedH)
                worst = max(worst, abs(mine.x - ex.x), abs(mine.y - ex.y))
            }
            let gain = PointStep.reference(SIMD3(1, 1, 1), steps: [step], x: x, y: y).x
            worstGain = max(worstGain, abs(gain - vignette.gain(x: Double(s.x), y: Double(s.y))))
        }
        #expect(worst < 0.001, "\(orientation): \(worst) px")
        #expect(worstGain < 1e-5, "\(orientation): gain off by \(worstGain)")
    }
}

extension Orientation {
    /// Where stored position (x, y) lies on the upright canvas: the inverse of `sourceCoordinate`,
    /// found by solving its affine map from three points.
    func uprightPosition(x: Double, y: Double, storedWidth: Int, storedHeight: Int) -> (x: Double, y: Double) {
        let up = orientedSize(width: storedWidth, height: storedHeight)
        func at(_ i: Int, _ j: Int) -> (Double, Double) {
            let p = sourceCoordinate(x: i, y: j, uprightWidth: up.width, uprightHeight: up.height)
            return (Double(p.x), Double(p.y))
        }
        let o = at(0, 0), ex = at(1, 0), ey = at(0, 1)
        let (a, c, b, d) = (ex.0 - o.0, ex.1 - o.1, ey.0 - o.0, ey.1 - o.1)
        let (dx, dy) = (x - o.0, y - o.1)
        return (a * dx + c * dy, b * dx + d * dy)
    }
}
