import RecipeCore
@testable import RecipeOps
import Testing

@Suite struct RotateTests {
    @Test(arguments: [(0.0, false), (90, true), (180, false), (270, true)])
    func quarterTurnsSwapTheSides(angle: Double, swaps: Bool) {
        let result = Operations.rotate.size(6000, 4000, ["angle": .angle(angle)])
        #expect(result == (swaps ? size(4000, 6000) : size(6000, 4000)))
    }

    @Test func angleIsRequiredAndRestricted() {
        let angle = Operations.rotate.param("angle")
        #expect(angle?.required == true)
        #expect(angle?.kind == .angle(0...270, allowed: [0, 90, 180, 270]))
    }
}
