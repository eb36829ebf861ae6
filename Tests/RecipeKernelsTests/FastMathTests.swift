import CKernelsSIMD
import Glibc
import RecipeKernels
import Testing

/// The vectorised transcendental functions against Double, over the ranges the point kernels
/// feed them: the error bound `FastMath` states (1e-6 of the value) with the worst case printed.
@Suite("fast math")
struct FastMathTests {
    /// `count` evenly spaced floats over `range`, with both ends.
    static func sweep(_ range: ClosedRange<Double>, count: Int = 200_001) -> [Float] {
        (0..<count).map { Float(range.lowerBound + (range.upperBound - range.lowerBound) * Double($0) / Double(count - 1)) }
    }

    /// The largest error of `f` against `reference` over `inputs`, relative to the reference
    /// where it exceeds 1 in size and absolute below (what a kernel's 1e-5 tests measure).
    static func worst(_ inputs: [Float], _ f: (FastMath.V) -> FastMath.V, _ reference: (Double) -> Double,
                      relativeBelowOne: Bool = false) -> (error: Double, at: Float) {
        var worst = (error: 0.0, at: Float(0))
        var i = 0
        while i < inputs.count {
            var v = FastMath.V(repeating: inputs[i])
            for j in 0..<8 where i + j < inputs.count { v[j] = inputs[i + j] }
            let out = f(v)
            for j in 0..<8 where i + j < inputs.count {
                let want = reference(Double(inputs[i + j]))
                let scale = relativeBelowOne ? Swift.abs(want) : max(1, Swift.abs(want))
                let error = scale == 0 ? Swift.abs(Double(out[j])) : Swift.abs(Double(out[j]) - want) / scale
                if error > worst.error { worst = (error, inputs[i + j]) }
            }
            i += 8
        }
        return worst
    }

    @Test("log2 and exp2 within 1e-6 relative")
    func logExp() {
        let log = Self.worst(Self.sweep(1e-6...64), FastMath.log2, Glibc.log2)
        #expect(log.error <= 1e-6, "log2: worst \(log.error) at \(log.at)")
        let exp = Self.worst(Self.sweep(-40...20), FastMath.exp2, Glibc.exp2, relativeBelowOne: true)
        #expect(exp.error <= 1e-6, "exp2: worst relative \(exp.error) at \(exp.at)")
    }

    @Test("pow within 1e-6, sign-symmetric, 0 stays 0", arguments: [0.3, 1 / 2.4, 0.90909, 2.2, 3.0] as [Float])
    func power(_ e: Float) {
        let p = Self.worst(Self.sweep(-1.5...1.5), { FastMath.pow($0, e) },
                           { $0 < 0 ? -Glibc.pow(-$0, Double(e)) : Glibc.pow($0, Double(e)) })
        #expect(p.error <= 1e-6, "pow(_, \(e)): worst \(p.error) at \(p.at)")
        #expect(FastMath.pow(FastMath.V(repeating: 0), e) == FastMath.V(repeating: 0))
    }

    @Test("sRGB transfer both ways within 1e-6 (IEC 61966-2-1)")
    func srgb() {
        let decode = { (v: Double) -> Double in
            let a = Swift.abs(v), l = a <= 0.04045 ? a / 12.92 : Glibc.pow((a + 0.055) / 1.055, 2.4)
            return v < 0 ? -l : l
        }
        let encode = { (l: Double) -> Double in
            let a = Swift.abs(l), v = a <= 0.0031308 ? a * 12.92 : 1.055 * Glibc.pow(a, 1 / 2.4) - 0.055
            return l < 0 ? -v : v
        }
        let d = Self.worst(Self.sweep(-0.5...1.5), FastMath.srgbToLinear, decode)
        #expect(d.error <= 1e-6, "sRGB → linear: worst \(d.error) at \(d.at)")
        let e = Self.worst(Self.sweep(-0.5...1.5), FastMath.linearToSRGB, encode)
        #expect(e.error <= 1e-6, "linear → sRGB: worst \(e.error) at \(e.at)")
    }

    @Test("tanh within 1e-6 absolute and relative, odd, saturating to exactly ±1")
    func hyperbolicTangent() {
        let wide = Self.worst(Self.sweep(-12...12), FastMath.tanh, Glibc.tanh)
        #expect(wide.error <= 1e-6, "tanh: worst \(wide.error) at \(wide.at)")
        // Near 0 (a sigmoid of low contrast divides by a small S(1) − S(0)): relative error.
        let near = Self.worst(Self.sweep(-0.6...0.6), FastMath.tanh, Glibc.tanh, relativeBelowOne: true)
        #expect(near.error <= 1e-6, "tanh near 0: worst relative \(near.error) at \(near.at)")
        let x = FastMath.V(0.1, -0.1, 0.3, -0.3, 2, -2, 30, -30)
        let t = FastMath.tanh(x)
        #expect(t[0] == -t[1] && t[2] == -t[3] && t[4] == -t[5])
        #expect(t[6] == 1 && t[7] == -1)
    }
}

@Suite("shadows-highlights gain")
struct ShadowsHighlightsGainTests {
    @Test("eight lanes against the Double formula: within 1e-6 relative over Yb in and out of [0, 1], NaN as 0")
    func gain() {
        var worst = 0.0
        for (s, h) in [(0.3, 0.2), (1.0, 1.0), (-1.0, -0.5), (0.0, 0.0)] {
            var i = -80
            while i <= 1104 {
                let ys = (0..<8).map { Float(i + $0) / 1024 }
                let g = ShadowsHighlights.gain(SIMD8(ys), shadows: Float(s), highlights: Float(h))
                for k in 0..<8 {
                    let want = ShadowsHighlights.gainReference(Double(ys[k]), shadows: s, highlights: h)
                    worst = max(worst, abs(Double(g[k]) - want) / want)
                }
                i += 8
            }
            let nan = ShadowsHighlights.gain(SIMD8(repeating: .nan), shadows: Float(s), highlights: Float(h))
            #expect(abs(Double(nan[0]) - ShadowsHighlights.gainReference(0, shadows: s, highlights: h)) < 1e-5)
        }
        #expect(worst < 1e-6, "worst relative error \(worst)")
    }

    @Test("the row kernel in C (AVX2, and without) gives the eight lanes' floats bit for bit, NaN, negatives and past 1 too")
    func rowKernel() {
        var yb: [Float] = (0..<2001).map { Float($0 - 300) / 1200 } + [.nan, -.infinity, .infinity, -0.0, 0, 1, 1.0000001, 0.99999994]
        yb += (0..<77).map { Float($0) * 0.013 }  // a count that is not a multiple of eight
        for (s, h) in [(Float(0.3), Float(0.2)), (1, 1), (-1, -0.5), (0, 0), (2.5, 0)] {
            var simd = [Float](repeating: 0, count: yb.count)
            for i in stride(from: 0, to: yb.count, by: 8) {
                var v = SIMD8<Float>(repeating: 0)
                for k in 0..<min(8, yb.count - i) { v[k] = yb[i + k] }
                let g = ShadowsHighlights.gain(v, shadows: s, highlights: h)
                for k in 0..<min(8, yb.count - i) { simd[i + k] = g[k] }
            }
            var fast = [Float](repeating: -1, count: yb.count), plain = fast
            ShadowsHighlights.gains(yb, into: &fast, count: yb.count, shadows: s, highlights: h)
            rk_sh_gains_without_avx2(yb, &plain, Int32(yb.count), s, h)
            #expect(fast.map(\.bitPattern) == simd.map(\.bitPattern), "shadows \(s), highlights \(h)")
            #expect(plain.map(\.bitPattern) == simd.map(\.bitPattern), "shadows \(s), highlights \(h), without AVX2")
        }
    }
}
