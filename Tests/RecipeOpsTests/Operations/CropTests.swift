import RecipeCore
@testable import RecipeOps
import Testing

@Suite struct CropTests {
    let crop = Operations.crop

    @Test func aspectKeepsTheLargestRectangle() {
        #expect(crop.size(6000, 4000, ["aspect": .aspect(3, 2)]) == size(6000, 4000))
        #expect(crop.size(6000, 4000, ["aspect": .aspect(1, 1)]) == size(4000, 4000))
        #expect(crop.size(6000, 4000, ["aspect": .aspect(16, 9)]) == size(6000, 3375))
        #expect(crop.size(6000, 4000, ["aspect": .aspect(4, 5)]) == size(3200, 4000))
        // Portrait: 4000·2/3 = 2666.67 rounds to 2667.
        #expect(crop.size(4000, 6000, ["aspect": .aspect(3, 2)]) == size(4000, 2667))
    }

    @Test func anchorDoesNotChangeTheSize() {
        #expect(crop.size(6000, 4000, ["aspect": .aspect(1, 1), "anchor": .choice("top-left")]) == size(4000, 4000))
    }

    @Test func rectangleInPixelsRoundsHalfAwayFromZero() {
        let given: [String: ParamValue] = ["x": .length(.px(100)), "y": .length(.px(50)),
                                           "width": .length(.px(1000.5)), "height": .length(.px(999.4))]
        #expect(crop.size(6000, 4000, given) == size(1001, 999))
    }

    @Test func rectangleInPercentTakesWidthAndHeight() {
        let given: [String: ParamValue] = ["x": .length(.percent(10)), "y": .length(.percent(5)),
                                           "width": .length(.percent(50)), "height": .length(.percent(25))]
        #expect(crop.size(6000, 4000, given) == size(3000, 1000))
    }

    @Test func rectangleIsClampedToTheCanvas() {
        let overRight: [String: ParamValue] = ["x": .length(.px(5000)), "width": .length(.px(2000)),
                                               "height": .length(.px(5000))]
        #expect(crop.size(6000, 4000, overRight) == size(1000, 4000))
        let outside: [String: ParamValue] = ["x": .length(.px(7000)), "y": .length(.px(9000)),
                                             "width": .length(.px(10)), "height": .length(.px(10))]
        #expect(crop.size(6000, 4000, outside) == size(1, 1))
        let tiny: [String: ParamValue] = ["width": .length(.px(0.2)), "height": .length(.px(0.4))]
        #expect(crop.size(6000, 4000, tiny) == size(1, 1))
    }

    @Test func nothingToCropIsAProblem() {
        let problems = crop.problems()
        #expect(problems.count == 1)
        #expect(problems.first?.param == nil)
    }

    @Test func aspectAndRectangleExcludeEachOther() {
        let problems = crop.problems(["aspect": .aspect(3, 2), "width": .length(.percent(50)),
                                      "height": .length(.percent(50))])
        #expect(problems.count == 1)
        #expect(problems.first?.param == "width")
        #expect(problems.first?.message.contains("aspect") == true)
    }

    @Test func rectangleNeedsWidthAndHeight() {
        let onlyWidth = crop.problems(["x": .length(.px(10)), "width": .length(.px(100))])
        #expect(onlyWidth.map(\.param) == ["height"])
        let onlyOrigin = crop.problems(["x": .length(.px(10)), "y": .length(.px(10))])
        #expect(onlyOrigin.map(\.param) == ["width", "height"])
    }

    @Test func emptyRectangleIsAProblem() {
        let problems = crop.problems(["width": .length(.percent(0)), "height": .length(.px(10))])
        #expect(problems.map(\.param) == ["width"])
    }

    @Test func anchorNeedsAspect() {
        let problems = crop.problems(["width": .length(.px(10)), "height": .length(.px(10)),
                                      "anchor": .choice("top")])
        #expect(problems.map(\.param) == ["anchor"])
    }

    @Test func validShapesHaveNoProblems() {
        #expect(crop.problems(["aspect": .aspect(3, 2)]).isEmpty)
        #expect(crop.problems(["aspect": .aspect(3, 2), "anchor": .choice("bottom-right")]).isEmpty)
        #expect(crop.problems(["width": .length(.percent(80)), "height": .length(.percent(80))]).isEmpty)
        #expect(crop.problems(["x": .length(.px(1)), "y": .length(.px(2)),
                               "width": .length(.px(3)), "height": .length(.px(4))]).isEmpty)
    }
}
