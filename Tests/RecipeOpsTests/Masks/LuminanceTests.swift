import RecipeCore
@testable import RecipeOps
import Testing

@Suite struct LuminanceTests {
    @Test func minNotBelowMaxIsAProblem() {
        #expect(Operations.luminanceMask.problems(["min": .number(0.7), "max": .number(0.3)]).map(\.param) == ["min"])
        #expect(Operations.luminanceMask.problems(["max": .number(0)]).map(\.param) == ["max"])
    }

    @Test func orderedRangeIsFine() {
        #expect(Operations.luminanceMask.problems(["min": .number(0.7), "max": .number(1)]).isEmpty)
    }
}
