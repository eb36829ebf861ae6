/// A small, fast, seedable generator (xoshiro256**, seeded through SplitMix64), so a run is
/// reproducible from `--seed` alone on every platform; Swift's `SystemRandomNumberGenerator`
/// cannot be seeded.
///
/// ```swift
/// var random = Xoshiro(seed: 1)
/// random.below(10)        // 0..<10
/// random.chance(0.25)     // true one time in four
/// ```
struct Xoshiro: RandomNumberGenerator {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64

    init(seed: UInt64) {
        var x = seed
        func splitMix() -> UInt64 {
            x &+= 0x9E37_79B9_7F4A_7C15
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        s0 = splitMix(); s1 = splitMix(); s2 = splitMix(); s3 = splitMix()
    }

    mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3
        s2 ^= t
        s3 = s3 << 45 | s3 >> 19
        return result
    }

    /// A uniform integer in `0..<n` (0 when `n` ≤ 0).
    mutating func below(_ n: Int) -> Int {
        guard n > 1 else { return 0 }
        return Int(next() % UInt64(n))
    }

    /// A uniform integer in `range`.
    mutating func inRange(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.upperBound - range.lowerBound + 1)
    }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool {
        Double(next() >> 11) * (1.0 / 9_007_199_254_740_992.0) < p
    }

    /// A random element of a non-empty array.
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

    /// Small numbers much more often than large ones: `1 + below(below(limit) + 1)`.
    mutating func small(_ limit: Int) -> Int { 1 + below(below(max(1, limit)) + 1) }
}
