import RecipeCore
@testable import RecipeOps
import Testing

@Suite struct CurveTests {
    let curve = Operations.curve

    func points(_ pairs: [(Double, Double)]) -> ParamValue { .points(pairs.map { CanvasPoint($0.0, $0.1) }) }

    @Test func decreasingXIsAProblem() {
        let problems = curve.problems(["points": points([(0, 0), (0.6, 0.5), (0.4, 0.7), (1, 1)])])
        #expect(problems.count == 1)
        #expect(problems.first?.param == "points")
        #expect(problems.first?.message.contains("point 3") == true)
    }

    @Test func repeatedXIsAProblem() {
        #expect(curve.problems(["points": points([(0, 0), (0.5, 0.4), (0.5, 0.6), (1, 1)])]).count == 1)
    }

    @Test func increasingXIsFine() {
        #expect(curve.problems(["points": points([(0, 0.02), (0.5, 0.5), (1, 0.98)])]).isEmpty)
        #expect(curve.problems().isEmpty)
    }

    @Test func defaultIsTheIdentity() {
        #expect(curve.param("points")?.defaultValue == points([(0, 0), (1, 1)]))
        #expect(curve.param("channel")?.defaultValue == .choice("rgb"))
    }
}
