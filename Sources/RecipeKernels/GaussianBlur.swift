/// A separable Gaussian, clamp-to-edge, as libvips' `gaussblur --precision float --min-ampl 0.001`
/// builds it: taps out to where exp(−x²/2σ²) falls below 0.001, normalised to sum 1.
///
/// ```swift
/// let taps = GaussianBlur.taps(sigma: 2)   // 15 weights, centre in the middle
/// ```
public enum GaussianBlur {
    public static let minAmplitude = 0.001

    /// Odd number of weights, symmetric, summing to 1; `[1]` for sigma ≤ 0.
    public static func taps(sigma: Double) -> [Float] {
        guard sigma > 0.01 else { return [1] }
        let sig2 = 2 * sigma * sigma
        var radius = 0
        while radius < 100_000, exp(-Double((radius + 1) * (radius + 1)) / sig2) >= minAmplitude { radius += 1 }
        let raw = (-radius...radius).map { exp(-Double($0 * $0) / sig2) }
        let sum = raw.reduce(0, +)
        return raw.map { Float($0 / sum) }
    }

    /// One row convolved horizontally with `taps` (odd count), clamping at the edges; planar
    /// channel of `width` floats from `src` into `dst`.
    public static func horizontal(_ src: UnsafePointer<Float>, _ dst: UnsafeMutablePointer<Float>, width: Int, taps: [Float]) {
        let r = taps.count / 2
        taps.withUnsafeBufferPointer { t in
            for x in 0..<width {
                var acc: Float = 0
                if x >= r && x + r < width {
                    let base = src + (x - r)
                    for k in 0..<t.count { acc += t[k] * base[k] }
                } else {
                    for k in 0..<t.count { acc += t[k] * src[min(max(x + k - r, 0), width - 1)] }
                }
                dst[x] = acc
            }
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
