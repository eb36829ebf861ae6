/// A deterministic generator (SplitMix64) for test inputs, so a failure names values that can be
/// reproduced.
///
/// ```swift
/// var rng = SplitMix64(seed: 7)
/// let noise = (0..<16).map { _ in rng.byte() }
/// ```
public struct SplitMix64: RandomNumberGenerator {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The top byte of the next value.
    public mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next() >> 56) }
}
