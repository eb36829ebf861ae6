import RecipeCore
import RecipeKernels
import RecipeRender
import Testing

@Suite("blur stage")
struct BlurStageTests {
    static let modes: [(String, BlurStage.Mode)] = [
        ("blur", .blur), ("unsharp", .unsharp(amount: 0.8, threshold: 0, luma: false)),
        ("unsharp luma", .unsharp(amount: 0.5, threshold: 0.02, luma: true)),
        ("shadows/highlights", .shadowsHighlights(shadows: 0.4, highlights: 0.3)),
    ]

    @Test("split across threads, the passes give the bytes of one thread, whatever the strip heights",
          arguments: [0, 1, 2, 3])
    func pooled(_ index: Int) throws {
        let (name, mode) = Self.modes[index]
        let (width, height) = (61, 23)  // not whole vectors; fewer rows than the window
        var state: UInt32 = 7
        let bytes: [UInt8] = (0..<(3 * width * height)).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        func render(threads: Int, chunk: Int, capacity: Int) throws -> [UInt8] {
            // σ 4: 27 taps, more than the six rows a vertical pass makes and than the image's 23.
            let stage = BlurStage(source: MemoryImage(bytes, width: width, height: height, chunk: chunk), sigma: 4,
                                  mode: mode, threads: threads, minimumPooledWork: 0)
            return try readAll(stage, capacity: capacity)
        }
        let single = try render(threads: 1, chunk: 7, capacity: 5)
        #expect(try render(threads: 3, chunk: 7, capacity: 5) == single, "\(name)")
        #expect(try render(threads: 2, chunk: 1, capacity: 1) == single, "\(name)")
        #expect(try render(threads: 1, chunk: 23, capacity: 16) == single, "\(name)")
        // And the blur does something: not the input.
        #expect(single != bytes, "\(name)")
    }
}
