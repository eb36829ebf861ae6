import Foundation
import RecipeSession
import Testing

/// `--max-bytes`'s search against size curves given as formulas: the measured JPEG law (size as
/// libjpeg's quantiser scale to the power −0.6), a WebP-like curve with a jump, and limits that
/// nothing or everything meets.
@Suite("--max-bytes: the quality search")
struct QualitySearchTests {
    /// libjpeg's scale factor for quality q.
    static func scale(_ q: Int) -> Double { q < 50 ? 5000 / Double(q) : max(1, 200 - 2 * Double(q)) }

    /// kodim03 as measured: 81,630 bytes at quality 90 (S = 20), size ∝ S^−0.6.
    static func jpegLike(_ q: Int) -> Int { Int(81_630 * pow(scale(q) / 20, -0.6)) }

    /// The best that fits, by trying every quality.
    static func best(_ limit: Int, top: Int, _ size: (Int) -> Int) -> Int? { (1...top).last { size($0) <= limit } }

    @Test("on the JPEG law (and steeper and shallower ones, S^-0.4 to S^-1), every limit between qualities 10 and 90: the best that fits (or one below) in at most 4 tries (6 while none is within 10 % of the limit), the first at the top quality",
          arguments: [0.4, 0.6, 0.8, 1.0])
    func jpegLaw(_ exponent: Double) throws {
        func size(_ q: Int) -> Int { Int(81_630 * pow(Self.scale(q) / 20, -exponent)) }
        let (low, high) = (size(10), size(90))
        for limit in stride(from: low, to: high, by: max(1, (high - low) / 40)) {
            var seen: [Int] = []
            let found = try QualitySearch.fit(maxBytes: limit, top: 90, axis: .jpeg) { q in
                seen.append(q)
                return size(q)
            }
            let best = try #require(Self.best(limit, top: 90, size))
            let q = try #require(found.quality, "limit \(limit): nothing found, tries \(found.tries)")
            // More than 4 only while none of the first 4 came within 10 % of the limit; 6 at most.
            let closeEnough = found.tries.prefix(4).contains { $0.bytes <= limit && Double($0.bytes) >= 0.9 * Double(limit) }
            #expect(seen.first == 90 && seen.count <= 6 && (seen.count <= 4 || !closeEnough) && seen.count == found.tries.count && Set(seen).count == seen.count)
            #expect(size(q) <= limit && q <= best && q >= best - 1, "S^-\(exponent), limit \(limit): found \(q), best \(best), tries \(found.tries)")
        }
    }

    @Test("a top quality that fits is one try; a limit nothing meets is nil within 6 tries, down to quality 1")
    func edges() throws {
        let fits = try QualitySearch.fit(maxBytes: 1 << 30, top: 85, axis: .linear) { _ in 1000 }
        #expect(fits.quality == 85 && fits.tries.count == 1)
        var seen: [Int] = []
        let none = try QualitySearch.fit(maxBytes: 10, top: 90, axis: .jpeg) { q in
            seen.append(q)
            return Self.jpegLike(q)
        }
        #expect(none.quality == nil && seen.count <= 6 && seen.last == 1, "tries \(none.tries)")
    }

    @Test("on a curve with a jump (libwebp above 75) the result fits and the tries stay within 6")
    func jump() throws {
        func webpLike(_ q: Int) -> Int { Int(7_214 * exp(0.0195 * Double(q - 10))) * (q > 75 ? 2 : 1) }
        for limit in stride(from: 8_000, through: 60_000, by: 4_000) {
            let found = try QualitySearch.fit(maxBytes: limit, top: 85, axis: .linear, size: webpLike)
            let q = try #require(found.quality, "limit \(limit): \(found.tries)")
            #expect(webpLike(q) <= limit && found.tries.count <= 6)
        }
    }
}
