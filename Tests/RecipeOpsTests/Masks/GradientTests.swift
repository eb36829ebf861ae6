import RecipeCore
@testable import RecipeOps
import Testing

@Suite struct GradientTests {
    @Test func coincidingEndsAreAProblem() {
        let problems = Operations.gradientMask.problems(["from": .point(CanvasPoint(0.3, 0.3)),
                                                         "to": .point(CanvasPoint(0.3, 0.3))])
        #expect(problems.map(\.param) == ["to"])
        // The defaults are [0.5, 0] → [0.5, 1], so a `to` of [0.5, 0] meets the default `from`.
        #expect(Operations.gradientMask.problems(["to": .point(CanvasPoint(0.5, 0))]).count == 1)
    }

    @Test func distinctEndsAreFine() {
        #expect(Operations.gradientMask.problems(["from": .point(CanvasPoint(0.5, 0)),
                                                  "to": .point(CanvasPoint(0.5, 0.45))]).isEmpty)
    }
}
