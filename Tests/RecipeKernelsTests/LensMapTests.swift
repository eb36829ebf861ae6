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
}
