import CKernelsSIMD
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
    /// `width + taps.count + 8` floats, for the columns whose window reaches past an edge: those
    /// read the row's ends from it with their clamped neighbours, the others read the row itself
    /// (copying whole rows there was 1.5–1.9% of basic-corrections' CPU, in its sharpen).
    ///
    /// Each output is summed tap by tap in order (acc + w·x, no fused multiply-add), as the scalar
    /// reference does, so the bytes do not depend on the vector width or on where the row is
    /// split. Thirty-two outputs are worked on at once: one running sum would wait on its own
    /// additions, four run side by side.
    public static func horizontal(_ src: UnsafePointer<Float>, _ dst: UnsafeMutablePointer<Float>, width: Int,
                                  taps: UnsafeBufferPointer<Float>, padded: UnsafeMutablePointer<Float>) {
        let r = taps.count / 2, n = Int32(taps.count)
        // The sums in C (`rk_blur_horizontal`: AVX2 eight lanes; Swift's SIMD8 is SSE on this
        // baseline build), each Σₖ taps[k]·in[x + k] from 0 in tap order, `in` the row shifted
        // left by r.
        guard width > 2 * r else {
            for i in 0..<r { padded[i] = src[0] }
            padded.advanced(by: r).update(from: src, count: width)
            for i in 0..<(r + 8) { padded[r + width + i] = src[width - 1] }
            rk_blur_horizontal(padded, dst, Int32(width), taps.baseAddress!, n)
            return
        }
        // Columns 0..<r: src[0] repeated r times, then the row's first 2r values.
        for i in 0..<r { padded[i] = src[0] }
        padded.advanced(by: r).update(from: src, count: 2 * r)
        rk_blur_horizontal(padded, dst, Int32(r), taps.baseAddress!, n)
        // Columns r..<width − r: every tap inside the row.
        rk_blur_horizontal(src, dst + r, Int32(width - 2 * r), taps.baseAddress!, n)
        // Columns width − r..<width: the row's last 2r values, then src[width − 1] r times.
        padded.update(from: src + (width - 2 * r), count: 2 * r)
        for i in 0..<r { padded[2 * r + i] = src[width - 1] }
        rk_blur_horizontal(padded, dst + (width - r), Int32(r), taps.baseAddress!, n)
    }

    /// Rows that `vertical` works on at once.
    public static let verticalRowsPerPass = 6

    /// The vertical pass for `rowCount` (at most `verticalRowsPerPass`) consecutive output rows:
    /// `lines + j·lineStride` gets Σₖ taps[k]·rows[j + k] at the float offsets `columns`, for j < rowCount,
    /// where `rows` holds the `rowCount + taps.count − 1` input rows in order (edge rows repeated
    /// by the caller).
    ///
    /// Each input value is loaded once for all the output rows it falls under, rather than once
    /// per output row: a wide blur's window is tens of MB (561 rows of a 6000-px RGB image for
    /// σ 80), far beyond the caches, and reading it once per output row made the blur wait on
    /// memory. Sums run tap by tap in order, as `accumulate` does row by row, so the result is
    /// the same to the bit.
    public static func vertical(rows: UnsafePointer<UnsafePointer<Float>>, taps: UnsafeBufferPointer<Float>,
                                into lines: UnsafeMutablePointer<Float>, lineStride: Int, rowCount m: Int, columns: Range<Int>) {
        precondition(m >= 1 && m <= verticalRowsPerPass)
        let n = taps.count
        let count = columns.upperBound
        guard m == verticalRowsPerPass, n >= m else {
            for j in 0..<m {
                let line = lines + j * lineStride + columns.lowerBound
                line.update(repeating: 0, count: columns.count)
                for k in 0..<n { accumulate(line, rows[j + k] + columns.lowerBound, weight: taps[k], count: columns.count) }
            }
            return
        }
        // In C (`rk_blur_vertical6`): the same sums in the same order, eight lanes with AVX2.
        rk_blur_vertical6(UnsafeRawPointer(rows).assumingMemoryBound(to: UnsafePointer<Float>?.self), taps.baseAddress!, Int32(n), lines,
                          lineStride, Int32(columns.lowerBound), Int32(count))
    }

    /// `dst[i] += w · src[i]` for `count` floats (a vertical tap over a row): `rk_axpy`, the same
    /// operations eight lanes at a time with AVX2 (`dst` and `src` must not overlap).
    @inline(__always)
    public static func accumulate(_ dst: UnsafeMutablePointer<Float>, _ src: UnsafePointer<Float>, weight w: Float, count: Int) {
        rk_axpy(dst, src, w, Int32(count))
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
