import Glibc
import RecipeCore
import RecipeKernels
@testable import RecipeOps
import Testing

@Suite struct VignetteTests {
    @Test func version2RenamedIntensityToAmount() throws {
        let vignette = Operations.vignette
        #expect(vignette.version == 2)
        let migration = try #require(vignette.migrations.first)
        #expect(migration.toVersion == 2)
        #expect(migration.sinceFormat == FormatVersion(1, 1))
        #expect(migration.oldKeys == ["intensity", "radius", "feather", "center"])
        #expect(migration.steps == [.rename("intensity", to: "amount")])
        #expect(vignette.params.map(\.name) == ["amount", "radius", "feather", "center"])
    }

    /// ops-reference: linear light × (1 − amount·smoothstep(radius·(1 − feather), radius, d)), d the
    /// distance of the pixel centre from the vignette centre over the half-diagonal; smoothstep the
    /// cubic 3t² − 2t³. Written out here, not taken from the op.
    static func formula(x: Int, y: Int, w: Int, h: Int, amount: Double, radius: Double, feather: Double, cx: Double, cy: Double) -> Double {
        let half = (Double(w * w + h * h) / 4).squareRoot()
        let d = hypot(Double(x) + 0.5 - cx * Double(w), Double(y) + 0.5 - cy * Double(h)) / half
        let lo = radius * (1 - feather), t = min(max((d - lo) / (radius - lo), 0), 1)
        return 1 - amount * t * t * (3 - 2 * t)
    }

    @Test("every pixel of a 161×90 canvas is scaled as the formula says, for several feathers and radii and an off-centre centre",
          arguments: [(0.5, 1.0, 0.5), (0.4, 0.9, 0.2), (-0.3, 0.7, 0.85), (0.8, 1.3, 1.0)])
    func scalesAsTheFormula(_ amount: Double, _ radius: Double, _ feather: Double) {
        let (w, h) = (161, 90)
        let given: [String: ParamValue] = ["amount": .number(amount), "radius": .number(radius), "feather": .number(feather),
                                           "center": .point(CanvasPoint(0.4, 0.55))]
        let steps = Operations.vignetteSteps(checkedParams(Operations.vignette.params, given), CanvasSize(width: w, height: h))
        var worst = 0.0, spread = 0.0
        for y in 0..<h {
            for x in 0..<w {
                let got = PointStep.reference(SIMD3(0.5, 0.5, 0.5), steps: steps, x: x, y: y).x / 0.5
                let want = Self.formula(x: x, y: y, w: w, h: h, amount: amount, radius: radius, feather: feather, cx: 0.4, cy: 0.55)
                worst = max(worst, abs(got - want))
                spread = max(spread, abs(1 - want))
            }
        }
        #expect(worst < 1e-5, "amount \(amount), radius \(radius), feather \(feather): worst \(worst)")
        #expect(spread > 0.1, "the canvas should reach the fall-off (\(spread))")
    }

    @Test func isPositionalAndKeepsTheSize() {
        #expect(Operations.vignette.opClass == .positional)
        #expect(Operations.vignette.size(6000, 4000, ["amount": .number(0.4)]) == size(6000, 4000))
    }
}
