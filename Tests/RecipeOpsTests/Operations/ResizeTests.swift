import RecipeCore
@testable import RecipeOps
import Testing

@Suite struct ResizeTests {
    let resize = Operations.resize

    @Test func longEdgeKeepsTheAspect() {
        // 4000·2048/6000 = 1365.33.
        #expect(resize.size(6000, 4000, ["long-edge": .length(.px(2048))]) == size(2048, 1365))
        #expect(resize.size(4000, 6000, ["long-edge": .length(.px(2048))]) == size(1365, 2048))
        #expect(resize.size(3000, 3000, ["long-edge": .length(.px(1000))]) == size(1000, 1000))
    }

    @Test func oneSideKeepsTheAspect() {
        #expect(resize.size(6000, 4000, ["width": .length(.px(1200))]) == size(1200, 800))
        #expect(resize.size(6000, 4000, ["height": .length(.px(1000))]) == size(1500, 1000))
        // 4000·1001/6000 = 667.33.
        #expect(resize.size(6000, 4000, ["width": .length(.px(1001))]) == size(1001, 667))
        #expect(resize.size(6000, 4000, ["width": .length(.percent(50))]) == size(3000, 2000))
    }

    @Test func widthAndHeightGiveExactlyThatSize() {
        #expect(resize.size(6000, 4000, ["width": .length(.px(1080)), "height": .length(.px(1080))]) == size(1080, 1080))
    }

    @Test func scaleMultipliesBothSides() {
        #expect(resize.size(6000, 4000, ["scale": .number(0.5)]) == size(3000, 2000))
        #expect(resize.size(101, 51, ["scale": .number(2.5)]) == size(253, 128))  // 252.5, 127.5 round up
        #expect(resize.size(500, 300, ["scale": .number(0.001)]) == size(1, 1))    // 0.5 → 1, 0.3 → 0 → min 1
    }

    @Test func nothingIsAProblem() {
        let problems = resize.problems()
        #expect(problems.count == 1)
        #expect(problems.first?.param == nil)
    }

    @Test func widthAndScaleIsAProblem() {
        let problems = resize.problems(["width": .length(.px(1200)), "scale": .number(0.5)])
        #expect(problems.count == 1)
        #expect(problems.first?.param == "scale")
    }

    @Test func twoOfTheOtherSizesAreAProblem() {
        #expect(resize.problems(["height": .length(.px(800)), "long-edge": .length(.px(2048))]).count == 1)
        #expect(resize.problems(["width": .length(.px(800)), "height": .length(.px(600)),
                                 "long-edge": .length(.px(2048))]).count == 1)
    }

    @Test func singleSizesAndWidthWithHeightAreFine() {
        for key in ["width", "height", "long-edge"] {
            #expect(resize.problems([key: .length(.px(1000))]).isEmpty, "\(key)")
        }
        #expect(resize.problems(["scale": .number(0.25)]).isEmpty)
        #expect(resize.problems(["width": .length(.px(800)), "height": .length(.px(600))]).isEmpty)
    }
}
