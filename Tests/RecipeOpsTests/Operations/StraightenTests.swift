import Foundation
import RecipeCore
@testable import RecipeOps
import Testing

@Suite struct StraightenTests {
    let straighten = Operations.straighten

    @Test func cropKeepsTheSize() {
        #expect(straighten.size(3000, 2000, ["angle": .angle(5)]) == size(3000, 2000))
        #expect(straighten.size(3000, 2000, ["angle": .angle(-30), "fill": .choice("crop")]) == size(3000, 2000))
    }

    @Test func expandGrowsToTheRotatedBoundingBox() {
        // 3000·cos 5° + 2000·sin 5° = 3162.90; 3000·sin 5° + 2000·cos 5° = 2253.86.
        #expect(straighten.size(3000, 2000, ["angle": .angle(5), "fill": .choice("expand")]) == size(3163, 2254))
        #expect(straighten.size(3000, 2000, ["angle": .angle(-5), "fill": .choice("expand")]) == size(3163, 2254))
        // 45°: both sides become (3000 + 2000)/√2 = 3535.53.
        #expect(straighten.size(3000, 2000, ["angle": .angle(45), "fill": .choice("expand")]) == size(3536, 3536))
    }

    @Test func expandByZeroKeepsTheSizeExactly() {
        #expect(straighten.size(3000, 2000, ["fill": .choice("expand")]) == size(3000, 2000))
    }
}
