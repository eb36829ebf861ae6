import RecipeCodecs
import Testing

@Suite("DCT-domain reduction for smaller renders")
struct ReducedDecodeTests {
    static let jpeg = [1, 2, 4, 8]

    @Test("the decoded image stays at least twice the target, or is the 1/2 reduction with 1.4× to spare")
    func choice() {
        // (width, height, target width, target height, expected denominator)
        let cases: [(Int, Int, Int, Int, Int)] = [
            (6000, 4000, 2048, 1365, 2),  // display size: 3000 ≥ 2048, the fast path
            (4032, 3024, 1000, 750, 2),   // 2016 ≥ 2·1000; 1/4 (1008) would do it all in gamma space
            (6000, 4000, 600, 400, 4),    // 1500 ≥ 1200
            (6000, 4000, 256, 171, 8),    // 750 ≥ 512
            (1800, 1200, 600, 400, 2),    // 900 < 1200, but 1/2 fits with 1.5× to spare
            (3051, 4529, 1380, 2048, 1),  // 2265 fits 2048 with only 1.11× to spare: the full decode
            (4256, 3219, 2048, 1549, 1),  // 2128: 1.04×
            (4000, 6000, 1366, 2048, 2),  // 3000: 1.46×
            (1800, 1200, 1000, 667, 1),   // 900 < 1000: the full decode
            (6000, 4000, 6000, 4000, 1),  // full size
            (4000, 6000, 1365, 2048, 2),  // portrait
            (4001, 3001, 1000, 750, 2),   // odd sizes round up: 2001 ≥ 2000
        ]
        for (w, h, tw, th, expected) in cases {
            let d = ReducedDecode.denominator(width: w, height: h, target: (tw, th), supported: Self.jpeg)
            #expect(d == expected, "\(w)×\(h) → \(tw)×\(th): 1/\(d), expected 1/\(expected)")
        }
        // A decoder without reduction (PNG) always decodes in full.
        #expect(ReducedDecode.denominator(width: 6000, height: 4000, target: (600, 400), supported: [1]) == 1)
    }
}
