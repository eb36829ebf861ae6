#if canImport(Glibc)
import Glibc
#endif

/// Separable resampling (ops-reference §6): centre convention, kernel stretched by the scale on
/// downscale, taps normalised to sum 1, clamp-to-edge.
public enum ResampleKernel: String, Sendable, CaseIterable {
    case lanczos3
    case mitchell
    case linear

    /// Half-width of the kernel at scale 1.
    public var support: Double {
        switch self {
        case .lanczos3: 3
        case .mitchell: 2
        case .linear: 1
        }
    }

    /// The kernel's value at distance `x` (in source pixels at scale 1).
    @inlinable
    public func weight(_ x: Double) -> Double {
        let a = abs(x)
        switch self {
        case .lanczos3:
            if a < 1e-12 { return 1 }
            if a >= 3 { return 0 }
            let px = Double.pi * a
            return 3 * sin(px) * sin(px / 3) / (px * px)
        case .mitchell:
            let b = 1.0 / 3, c = 1.0 / 3
            if a < 1 { return ((12 - 9 * b - 6 * c) * a * a * a + (-18 + 12 * b + 6 * c) * a * a + (6 - 2 * b)) / 6 }
            if a < 2 {
                return ((-b - 6 * c) * a * a * a + (6 * b + 30 * c) * a * a + (-12 * b - 48 * c) * a + (8 * b + 24 * c)) / 6
            }
            return 0
        case .linear:
            return a < 1 ? 1 - a : 0
        }
    }
}

/// Filter taps for one axis: output sample `j` is `Σ_k weights[j·taps + k] · in[start[j] + k]`.
///
/// Taps that fall outside the input are folded onto the edge sample (clamp-to-edge), so every
/// window is contiguous and in bounds and the inner loops need no index checks.
///
/// `inputSpan` is the length the input's samples stand for, in input pixels, when it is not their
/// count: a DCT-reduced decode of an image whose size the reduction does not divide has
/// `ceil(size / d)` samples covering `size / d` (the last comes from a block the encoder padded),
/// and output sample `j`'s centre is `(j + ½)·span/outputSize − ½` there, not
/// `(j + ½)·count/outputSize − ½`. Taken as the count, the display render drifts from the full
/// render by up to half an input pixel towards the far edge (37.5 dB against the downscaled full
/// render on a 3051×4529 photo at 2048 px; 42.1 dB with the span).
public struct ResampleWeights: Sendable {
    public let inputSize: Int
    public let outputSize: Int
    /// Taps per output sample (the widest window, shorter ones padded with zero weights).
    public let taps: Int
    public let start: [Int32]
    public let weights: [Float]

    public init(inputSize: Int, outputSize: Int, kernel: ResampleKernel, inputSpan: Double? = nil) {
        precondition(inputSize > 0 && outputSize > 0)
        let span = inputSpan ?? Double(inputSize)
        precondition(span > Double(inputSize - 1) && span <= Double(inputSize), "span \(span) does not fit \(inputSize) samples")
        let scaleFactor = span / Double(outputSize)
        let stretch = max(scaleFactor, 1)
        let support = kernel.support * stretch
        var windows: [(lo: Int, w: [Double])] = []
        windows.reserveCapacity(outputSize)
        var maxTaps = 1
        for j in 0..<outputSize {
            let centre = (Double(j) + 0.5) * scaleFactor - 0.5
            let first = Int((centre - support).rounded(.up))
            let last = Int((centre + support).rounded(.down))
            let lo = min(max(first, 0), inputSize - 1)
            let hi = min(max(last, 0), inputSize - 1)
            var w = [Double](repeating: 0, count: hi - lo + 1)
            var sum = 0.0
            if first <= last {
                for i in first...last {
                    let v = kernel.weight((Double(i) - centre) / stretch)
                    w[min(max(i, 0), inputSize - 1) - lo] += v
                    sum += v
                }
            }
            if sum == 0 {
                // Degenerate (can only happen for tiny supports): nearest neighbour.
                w = [Double](repeating: 0, count: hi - lo + 1)
                w[min(max(Int(centre.rounded()), lo), hi) - lo] = 1
                sum = 1
            }
            windows.append((lo, w.map { $0 / sum }))
            maxTaps = max(maxTaps, w.count)
        }
        self.inputSize = inputSize
        self.outputSize = outputSize
        self.taps = maxTaps
        var start = [Int32](repeating: 0, count: outputSize)
        var weights = [Float](repeating: 0, count: outputSize * maxTaps)
        for (j, win) in windows.enumerated() {
            // Shift windows that would run past the end so all `taps` reads stay in bounds.
            let lo = min(win.lo, max(0, inputSize - maxTaps))
            start[j] = Int32(lo)
            for (k, v) in win.w.enumerated() { weights[j * maxTaps + (win.lo - lo) + k] = Float(v) }
        }
        self.start = start
        self.weights = weights
    }

    /// The taps per output sample `init` arrives at, within one, without building the weights
    /// (for memory estimates): the kernel's support stretched by the scale, both sides.
    public static func tapCount(inputSize: Int, outputSize: Int, kernel: ResampleKernel) -> Int {
        let stretch = max(Double(inputSize) / Double(max(1, outputSize)), 1)
        return min(max(1, inputSize), Int((2 * kernel.support * stretch).rounded(.up)) + 1)
    }

    /// The input range (first, count) that output sample `j` reads.
    @inlinable
    public func window(_ j: Int) -> (first: Int, count: Int) {
        (Int(start[j]), min(taps, inputSize))
    }
}

/// The resampling inner loops.
public enum Resample {
    /// `out[i] = Σ_r weight[r] · rows[r][i]` over `length` floats: the vertical pass, done on
    /// whole rows so it vectorises.
    @inlinable
    public static func verticalPass(rows: UnsafePointer<UnsafePointer<Float>>, weights: UnsafePointer<Float>, count: Int,
                                    out: UnsafeMutablePointer<Float>, length: Int)
    {
        let simdEnd = length & ~7
        var i = 0
        while i < simdEnd {
            var acc = SIMD8<Float>(repeating: 0)
            for r in 0..<count {
                let v = UnsafeRawPointer(rows[r] + i).loadUnaligned(as: SIMD8<Float>.self)
                acc += v * weights[r]
            }
            UnsafeMutableRawPointer(out + i).storeBytes(of: acc, as: SIMD8<Float>.self)
            i += 8
        }
        while i < length {
            var acc: Float = 0
            for r in 0..<count { acc += rows[r][i] * weights[r] }
            out[i] = acc
            i += 1
        }
    }

    /// Horizontal pass over one interleaved row of `channels` floats per pixel. The input row must
    /// have 4 readable floats past its last pixel's first channel (`channels == 3` loads SIMD4).
    @inlinable
    public static func horizontalPass(input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, channels: Int,
                                      weights: ResampleWeights)
    {
        let taps = weights.taps
        weights.weights.withUnsafeBufferPointer { wb in
            weights.start.withUnsafeBufferPointer { sb in
                let w = wb.baseAddress!, s = sb.baseAddress!
                switch channels {
                case 3, 4:
                    for j in 0..<weights.outputSize {
                        var acc = SIMD4<Float>(repeating: 0)
                        var p = input + Int(s[j]) * channels
                        let wj = w + j * taps
                        for k in 0..<taps {
                            acc += UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self) * wj[k]
                            p += channels
                        }
                        let o = output + j * channels
                        o[0] = acc[0]; o[1] = acc[1]; o[2] = acc[2]
                        if channels == 4 { o[3] = acc[3] }
                    }
                default:
                    for j in 0..<weights.outputSize {
                        let base = Int(s[j]) * channels
                        let wj = w + j * taps
                        for c in 0..<channels {
                            var acc: Float = 0
                            for k in 0..<taps { acc += input[base + k * channels + c] * wj[k] }
                            output[j * channels + c] = acc
                        }
                    }
                }
            }
        }
    }
}
