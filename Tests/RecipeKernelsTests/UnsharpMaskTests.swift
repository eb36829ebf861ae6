import RecipeKernels
import Testing

/// The eight-pixel unsharp-mask store against its scalar definition.
@Suite("unsharp mask store")
struct UnsharpMaskTests {
    @Test("apply gives reference's values for every width, mode and threshold, and writes nothing past the row",
          arguments: [false, true])
    func againstReference(_ luma: Bool) {
        var state: UInt32 = 5
        func random() -> Float {
            state = state &* 1_664_525 &+ 1_013_904_223
            return Float(state >> 8) / Float(1 << 24)
        }
        for width in Array(1...41) + [4000] {
            // Values a little outside 0…1 as well: they pass unclamped.
            let original = (0..<(3 * width)).map { _ in random() * 1.2 - 0.1 }
            let blurred = (0..<((luma ? 1 : 3) * width)).map { _ in random() }
            for (amount, threshold) in [(Float(0.8), Float(0)), (-0.15, 0), (1.5, 0.05), (0.3, 2)] {
                var fast = [Float](repeating: -7, count: 3 * width + 8), slow = fast
                original.withUnsafeBufferPointer { o in
                    blurred.withUnsafeBufferPointer { b in
                        UnsharpMask.apply(original: o.baseAddress!, blurred: b.baseAddress!, width: width, amount: amount,
                                          threshold: threshold, luma: luma, into: &fast)
                        UnsharpMask.reference(original: o.baseAddress!, blurred: b.baseAddress!, width: width, amount: amount,
                                              threshold: threshold, luma: luma, into: &slow)
                    }
                }
                #expect(fast == slow, "width \(width), amount \(amount), threshold \(threshold)")
                #expect(fast[(3 * width)...].allSatisfy { $0 == -7 }, "width \(width): wrote past the row")
                #expect(fast[..<(3 * width)].allSatisfy { $0 != -7 }, "width \(width): left a value unwritten")
            }
        }
    }
}
