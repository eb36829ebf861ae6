/// A separable Gaussian, clamp-to-edge, as libvips' `gaussblur --precision float --min-ampl 0.001`
/// builds it: taps out to where exp(−x²/2σ²) falls below 0.001, normalised to sum 1.
///
/// ```swift
/// let taps = GaussianBlur.taps(sigma: 2)   // 15 weights, centre in the middle
/// ```
public enum GaussianBlur {
    public static let minAmplitude = 0.001

    /// How a σ becomes taps.
    public enum Kernel: Sendable, Hashable {
        /// exp(−x²/2σ²) sampled at whole pixels (libvips' `gaussblur`): the op at its own scale.
        case sampled
        /// The blur of a finer grid seen on this one: the continuous Gaussian's frequency response
        /// over this grid's band, exp(−2π²σ²f²) for |f| ≤ ½, as taps (its Fourier series). A
        /// display render uses it for a blur the recipe gives at full size: below σ ≈ 1 px the
        /// sampled kernel hardly blurs (σ ⅓: 0.96 of the Nyquist frequency kept, where the full
        /// render downscaled keeps 0.58), so small-σ sharpening all but vanished from previews.
        /// From σ 1 px on the two agree to 1e-3, and the sampled one is used.
        case bandLimited
    }

    /// Odd number of weights, symmetric, summing to 1; `[1]` for sigma ≤ 0.
    public static func taps(sigma: Double, kernel: Kernel = .sampled) -> [Float] {
        guard sigma > 0.01 else { return [1] }
        if kernel == .bandLimited, sigma < 1 { return bandLimitedTaps(sigma: sigma) }
        let sig2 = 2 * sigma * sigma
        var radius = 0
        while radius < 100_000, exp(-Double((radius + 1) * (radius + 1)) / sig2) >= minAmplitude { radius += 1 }
        let raw = (-radius...radius).map { exp(-Double($0 * $0) / sig2) }
        let sum = raw.reduce(0, +)
        return raw.map { Float($0 / sum) }
    }

    /// Taps out to radius 3 (beyond it the series' terms stay under 0.005 for σ < 1): the first
    /// terms of the Fourier series of exp(−2π²σ²f²) on |f| ≤ ½ (the L2-closest kernel of that
    /// length), by Simpson's rule on 512 intervals, normalised to sum 1.
    static func bandLimitedTaps(sigma: Double) -> [Float] {
        let radius = 3, intervals = 512
        let h = 0.5 / Double(intervals)
        let raw = (0...radius).map { n -> Double in
            var sum = 0.0
            for i in 0...intervals {
                let f = Double(i) * h
                let weight: Double = i == 0 || i == intervals ? 1 : (i % 2 == 1 ? 4 : 2)
                sum += weight * exp(-2 * Double.pi * Double.pi * sigma * sigma * f * f) * cos(2 * Double.pi * f * Double(n))
            }
            return 2 * sum * h / 3
        }
        let total = raw[0] + 2 * raw.dropFirst().reduce(0, +)
        let half = raw.map { Float($0 / total) }
        return half.dropFirst().reversed() + half
    }

    /// One row convolved horizontally with `taps` (odd count), clamping at the edges; planar
    /// channel of `width` floats from `src` into `dst`. `padded` is scratch of at least
    /// `width + taps.count + 8` floats: the row with its clamped edges, so the loop runs
    /// eight outputs at a time without a branch.
    public static func horizontal(_ src: UnsafePointer<Float>, _ dst: UnsafeMutablePointer<Float>, width: Int,
                                  taps: UnsafeBufferPointer<Float>, padded: UnsafeMutablePointer<Float>) {
        let r = taps.count / 2
        for i in 0..<r { padded[i] = src[0] }
        padded.advanced(by: r).update(from: src, count: width)
        for i in 0..<(r + 8) { padded[r + width + i] = src[width - 1] }
        var x = 0
        while x + 8 <= width {
            var acc = SIMD8<Float>()
            for k in 0..<taps.count {
                acc += taps[k] * UnsafeRawPointer(padded + x + k).loadUnaligned(as: SIMD8<Float>.self)
            }
            UnsafeMutableRawPointer(dst + x).storeBytes(of: acc, as: SIMD8<Float>.self)
            x += 8
        }
        while x < width {
            var acc: Float = 0
            for k in 0..<taps.count { acc += taps[k] * padded[x + k] }
            dst[x] = acc
            x += 1
        }
    }

    /// `dst[i] += w · src[i]` for `count` floats (a vertical tap over a row).
    @inline(__always)
    public static func accumulate(_ dst: UnsafeMutablePointer<Float>, _ src: UnsafePointer<Float>, weight w: Float, count: Int) {
        var i = 0
        while i + 8 <= count {
            let d = UnsafeMutableRawPointer(dst + i)
            d.storeBytes(of: d.loadUnaligned(as: SIMD8<Float>.self) + w * UnsafeRawPointer(src + i).loadUnaligned(as: SIMD8<Float>.self),
                         as: SIMD8<Float>.self)
            i += 8
        }
        while i < count { dst[i] += w * src[i]; i += 1 }
    }

    /// Scalar reference of `horizontal` (the tests hold the fast one to it).
    public static func horizontalReference(_ src: [Float], taps: [Float]) -> [Float] {
        let r = taps.count / 2, w = src.count
        return (0..<w).map { x in
            var acc: Float = 0
            for k in 0..<taps.count { acc += taps[k] * src[min(max(x + k - r, 0), w - 1)] }
            return acc
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
