import RecipeCore
@testable import RecipeOps
import Testing

@Suite struct LevelsTests {
    let levels = Operations.levels

    @Test(arguments: [(0.8, 0.5), (0.5, 0.5), (1.0, 0.0)])
    func blackNotBelowWhiteIsAProblem(black: Double, white: Double) {
        let problems = levels.problems(["black": .number(black), "white": .number(white)])
        #expect(problems.count == 1)
        #expect(["black", "white"].contains(problems.first?.param))
    }

    @Test func problemPointsAtTheKeyTheRecipeGave() {
        #expect(levels.problems(["white": .number(0)]).first?.param == "white")
        #expect(levels.problems(["black": .number(1)]).first?.param == "black")
    }

    @Test func outBlackAboveOutWhiteIsAProblem() {
        let problems = levels.problems(["out-black": .number(0.6), "out-white": .number(0.4)])
        #expect(problems.count == 1)
        #expect(["out-black", "out-white"].contains(problems.first?.param))
    }

    @Test func equalOutputLevelsAreFine() {
        #expect(levels.problems(["out-black": .number(0.5), "out-white": .number(0.5)]).isEmpty)
        #expect(levels.problems(["black": .number(0.05), "white": .number(0.95), "gamma": .number(1.2)]).isEmpty)
    }

    @Test func bothRulesReportTogether() {
        let problems = levels.problems(["black": .number(0.9), "white": .number(0.1),
                                        "out-black": .number(1), "out-white": .number(0)])
        #expect(problems.count == 2)
    }
}
