import Glibc
import RecipeKernels
import Testing

/// The vectorised Gaussian loops against their scalar reference and the definition.
@Suite("gaussian blur")
struct GaussianBlurTests {
    @Test("taps: odd, symmetric, sum 1, cut where exp(−x²/2σ²) falls below 0.001 (vips min-ampl)", arguments: [0.5, 1.0, 2.5, 12.0])
    func taps(_ sigma: Double) {
        let t = GaussianBlur.taps(sigma: sigma)
        let r = t.count / 2
        #expect(t.count % 2 == 1)
        #expect(abs(t.reduce(0, +) - 1) < 1e-5)
        #expect((0..<r).allSatisfy { t[$0] == t[t.count - 1 - $0] })
        #expect(exp(-Double(r * r) / (2 * sigma * sigma)) >= GaussianBlur.minAmplitude)
        #expect(exp(-Double((r + 1) * (r + 1)) / (2 * sigma * sigma)) < GaussianBlur.minAmplitude)
    }

    @Test("band-limited taps (a full-size blur on a reduced grid) follow the continuous Gaussian's response exp(−2π²σ²f²) across the band; the sampled ones do not below 1 px",
          arguments: [0.2, 1.0 / 3, 0.5, 0.8])
    func bandLimited(_ sigma: Double) {
        let t = GaussianBlur.taps(sigma: sigma, kernel: .bandLimited)
        let r = t.count / 2
        #expect(t.count == 7)
        #expect(abs(t.reduce(0, +) - 1) < 1e-5)
        // The taps' response at frequency f (cycles per pixel) of a symmetric kernel.
        func response(_ taps: [Float], _ f: Double) -> Double {
            let c = taps.count / 2
            return taps.indices.reduce(0.0) { $0 + Double(taps[$1]) * cos(2 * Double.pi * f * Double($1 - c)) }
        }
        var worst = 0.0, worstSampled = 0.0
        for i in 0...10 {
            let f = 0.05 * Double(i)
            let target = exp(-2 * Double.pi * Double.pi * sigma * sigma * f * f)
            worst = max(worst, abs(response(t, f) - target))
            worstSampled = max(worstSampled, abs(response(GaussianBlur.taps(sigma: sigma), f) - target))
        }
        // Seven taps of a series with a jump at the band edge: within 0.05 of the response over
        // the band (0.03 at σ ⅓ is the ripple near f = ½); the sampled kernel is off by up to 0.4.
        #expect(worst < 0.05, "σ \(sigma): worst \(worst)")
        #expect(worstSampled > 2 * worst, "σ \(sigma): sampled \(worstSampled) vs \(worst)")
        #expect(r == 3)
        // From 1 px on, the sampled taps are used: the two agree there.
        #expect(GaussianBlur.taps(sigma: 1.2, kernel: .bandLimited) == GaussianBlur.taps(sigma: 1.2))
    }

    @Test("the vector horizontal pass equals the scalar reference to the bit, edges clamped, at widths around the vector sizes",
          arguments: [1, 3, 7, 8, 9, 31, 32, 33, 100])
    func horizontal(_ width: Int) {
        var state: UInt32 = 12345
        let src: [Float] = (0..<width).map { _ in state = state &* 1_664_525 &+ 1_013_904_223; return Float(state >> 8) / Float(1 << 24) }
        for sigma in [0.7, 3.0] {
            let taps = GaussianBlur.taps(sigma: sigma)
            var out = [Float](repeating: 0, count: width)
            let padded = UnsafeMutablePointer<Float>.allocate(capacity: width + taps.count + 8)
            defer { padded.deallocate() }
            src.withUnsafeBufferPointer { s in
                taps.withUnsafeBufferPointer { t in
                    out.withUnsafeMutableBufferPointer { o in
                        GaussianBlur.horizontal(s.baseAddress!, o.baseAddress!, width: width, taps: t, padded: padded)
                    }
                }
            }
            // Same sums in the same order (no fused multiply-add): the bytes of a blur must not
            // depend on which loop produced an output.
            let reference = GaussianBlur.horizontalReference(src, taps: taps)
            #expect(out == reference, "width \(width) sigma \(sigma): worst \(zip(out, reference).map { abs($0 - $1) }.max() ?? 0)")
        }
    }

    @Test("the vertical pass of up to six rows at once equals row-by-row sums to the bit",
          arguments: [1, 2, 5, 6], [0.4, 1.2, 5.5])
    func vertical(rowCount m: Int, sigma: Double) {
        let taps = GaussianBlur.taps(sigma: sigma)  // 3, 9 and 39 taps: fewer and more than six
        let n = taps.count
        let count = 8 * 5 + 3  // vector tiles and a scalar tail
        var state: UInt32 = 99
        let inputs: [[Float]] = (0..<(m + n - 1)).map { _ in
            (0..<count).map { _ in state = state &* 1_664_525 &+ 1_013_904_223; return Float(state >> 8) / Float(1 << 24) }
        }
        var lines = [Float](repeating: -1, count: GaussianBlur.verticalRowsPerPass * count)
        let rows = UnsafeMutablePointer<UnsafePointer<Float>>.allocate(capacity: inputs.count)
        let storage = inputs.map { row -> UnsafeMutablePointer<Float> in
            let p = UnsafeMutablePointer<Float>.allocate(capacity: count)
            p.initialize(from: row, count: count)
            return p
        }
        defer { rows.deallocate(); storage.forEach { $0.deallocate() } }
        for (t, p) in storage.enumerated() { rows[t] = UnsafePointer(p) }
        taps.withUnsafeBufferPointer { t in
            lines.withUnsafeMutableBufferPointer { l in
                // In two parts, as threads split it: the split changes no sum.
                GaussianBlur.vertical(rows: rows, taps: t, into: l.baseAddress!, lineStride: count, rowCount: m, columns: 0..<19)
                GaussianBlur.vertical(rows: rows, taps: t, into: l.baseAddress!, lineStride: count, rowCount: m, columns: 19..<count)
            }
        }
        for j in 0..<m {
            let expected: [Float] = (0..<count).map { i in
                var acc: Float = 0
                for k in 0..<n { acc += taps[k] * inputs[j + k][i] }
                return acc
            }
            #expect(Array(lines[(j * count)..<((j + 1) * count)]) == expected, "row \(j) of \(m), \(n) taps")
        }
        // Rows past rowCount are not written.
        #expect(lines[(m * count)...].allSatisfy { $0 == -1 })
    }

    @Test("accumulate adds w·src to every float, at lengths around the vector size", arguments: [0, 5, 8, 13, 64])
    func accumulate(_ count: Int) {
        var dst = (0..<count).map { Float($0) }
        let src = (0..<count).map { Float($0) * 0.5 + 1 }
        src.withUnsafeBufferPointer { s in
            dst.withUnsafeMutableBufferPointer { d in
                if count > 0 { GaussianBlur.accumulate(d.baseAddress!, s.baseAddress!, weight: 0.25, count: count) }
            }
        }
        var expected: [Float] = []
        for i in 0..<count {
            let v = Float(i)
            expected.append(v + 0.25 * (v * 0.5 + 1))
        }
        #expect(dst == expected)
    }
}
