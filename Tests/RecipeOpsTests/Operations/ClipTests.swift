import RecipeCore
@testable import RecipeOps
import Testing

@Suite struct ClipTests {
    @Test func minNotBelowMaxIsAProblem() {
        #expect(Operations.clip.problems(["min": .number(0.5), "max": .number(0.5)]).map(\.param) == ["min"])
        #expect(Operations.clip.problems(["max": .number(0)]).map(\.param) == ["max"])
    }

    @Test func orderedBoundsAreFine() {
        #expect(Operations.clip.problems(["min": .number(0.1), "max": .number(0.9)]).isEmpty)
    }
}
