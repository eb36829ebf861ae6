import CKernelsSIMD
import Glibc
import RecipeKernels
import Testing

/// A gain on linear light applied to encoded values (`EncodedGain`) against decode · gain · encode
/// in Double.
@Suite("gain on encoded values")
struct EncodedGainTests {
    /// The kernel over planes of `values` (r as given, g and b the same values in other orders, so
    /// a vector mixes pixels that take the affine map with ones that do not), every pixel given
    /// `gain`; the largest error against the reference, relative above 1.
    static func worstError(_ values: [Float], gain: Float) -> Double {
        let n = values.count
        var r = values, g = Array(values.reversed()), b = (0..<n).map { values[($0 * 7) % n] }
        let (r0, g0, b0) = (r, g, b)
        let gains = [Float](repeating: gain, count: n)
        r.withUnsafeMutableBufferPointer { rp in g.withUnsafeMutableBufferPointer { gp in b.withUnsafeMutableBufferPointer { bp in
            EncodedGain.apply(rp.baseAddress!, gp.baseAddress!, bp.baseAddress!, gains: gains, count: n)
        } } }
        var worst = 0.0
        for (got, was) in zip(r + g + b, r0 + g0 + b0) {
            let want = EncodedGain.reference(Double(was), gain: Double(gain))
            worst = max(worst, abs(Double(got) - want) / max(1, abs(want)))
        }
        return worst
    }

    @Test("within 1e-6 of the reference, on both sides of the toe, negative, beyond 16, for gains from 0 to 150",
          arguments: [Float(0), 1e-4, 0.001953125, 0.3, 0.8, 1, 1.25, 2, 150])
    func againstReference(_ gain: Float) {
        // 203 values: whole vectors and a tail; the toe's neighbourhood sampled densely.
        let toe: [Float] = (0..<40).map { 0.03 + Float($0) * 0.0006 }
        let values = PointProgramTests.values(143, range: -0.3...1.4) + toe + [0, -0, 0.04045, 1, 15.9, 16, 17, -18, 0.2, 0.5, 0.0001, 0.9, 0.7, 0.6,
                                                                             0.95, 0.99, 0.45, 0.3, 0.25, 0.35]
        #expect(values.count == 203)
        let worst = Self.worstError(values, gain: gain)
        #expect(worst < 1e-6, "gain \(gain): worst \(worst)")
    }

    /// Three planes of light and dark values (around the toe too), and gains that vary by pixel,
    /// with runs of 1 (a vignette's centre: a block of sixteen, half of one, lone ones), a 0 and
    /// one past 128.
    static func hardCases() -> (planes: [Float], gains: [Float], count: Int) {
        let toe: [Float] = (0..<40).map { 0.03 + Float($0) * 0.0006 }
        let values = PointProgramTests.values(163, range: -0.3...1.4) + toe
        let n = values.count
        var gains: [Float] = (0..<n).map { 0.4 + 1.4 * Float(($0 * 37) % 100) / 100 }
        for i in 64..<80 { gains[i] = 1 }
        gains[130] = 1  // lone gains of 1 in both halves of a block of sixteen (AVX-512)
        gains[140] = 1
        for i in 152..<160 { gains[i] = 1 }  // one half of a block all 1, the other not
        gains[5] = 0
        gains[100] = 200
        return (values + Array(values.reversed()) + (0..<n).map { values[($0 * 7) % n] }, gains, n)
    }

    /// `planes` (three of `n` values) through the kernel this CPU runs and through the plain one.
    static func fastAndPlain(_ planes: [Float], gains: [Float], n: Int) -> (fast: [Float], plain: [Float]) {
        func run(_ kernel: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafePointer<Float>, Int32) -> Void)
            -> [Float] {
            var out = planes
            out.withUnsafeMutableBufferPointer { p in kernel(p.baseAddress!, p.baseAddress! + n, p.baseAddress! + 2 * n, gains, Int32(n)) }
            return out
        }
        return (run(rk_encoded_gain), run(rk_encoded_gain_without_avx2))
    }

    @Test("a CPU without AVX2 gets the same floats, bit for bit: light and dark pixels, gains of 1, 0 and out of range")
    func withoutAVX2() {
        let (planes, gains, n) = Self.hardCases()
        let (fast, plain) = Self.fastAndPlain(planes, gains: gains, n: n)
        #expect(fast.elementsEqual(plain) { $0.bitPattern == $1.bitPattern })
        #expect(fast != planes)
    }

    @Test("bright pixels (every value and result above the toe: the affine map for whole groups) give the plain path's floats, with a dark pixel and gains of 1 between")
    func brightRuns() {
        let n = 133
        var values = PointProgramTests.values(3 * n, range: 0.1...1.0)
        values[40] = 0.01  // one dark pixel: its group of eight takes the exact path
        var gains: [Float] = (0..<n).map { 0.6 + Float(($0 * 29) % 100) / 100 }
        for i in 96..<104 { gains[i] = 1 }  // a group of eight untouched beside one that is not
        let (fast, plain) = Self.fastAndPlain(values, gains: gains, n: n)
        #expect(fast.elementsEqual(plain) { $0.bitPattern == $1.bitPattern })
        #expect(fast[0] != values[0] && fast[100] == values[100])
    }

    @Test("from one row into another: the same floats as in place, the source untouched, nothing written past the count")
    func fromAnotherRow() {
        let (source, gains, n) = Self.hardCases()
        var inPlace = source
        inPlace.withUnsafeMutableBufferPointer { p in
            EncodedGain.apply(p.baseAddress!, p.baseAddress! + n, p.baseAddress! + 2 * n, gains: gains, count: n)
        }
        let sentinel: Float = -7.25
        var out = [Float](repeating: sentinel, count: 3 * n + 4)
        source.withUnsafeBufferPointer { s in out.withUnsafeMutableBufferPointer { o in
            EncodedGain.apply(from: s.baseAddress!, s.baseAddress! + n, s.baseAddress! + 2 * n,
                              to: o.baseAddress!, o.baseAddress! + n, o.baseAddress! + 2 * n, gains: gains, count: n)
        } }
        #expect(out[..<(3 * n)].elementsEqual(inPlace) { $0.bitPattern == $1.bitPattern })
        #expect(out[(3 * n)...].allSatisfy { $0 == sentinel })
        #expect(inPlace != source, "the gains changed the values")
    }

    @Test("values above the toe take the affine map: v' = g^(1/2.4)·(v + 0.055) − 0.055")
    func affine() {
        var (r, g, b): ([Float], [Float], [Float]) = ([0.5, 0.6, 0.7, 0.8, 0.9, 1, 0.3, 0.2], Array(repeating: 0.5, count: 8), Array(repeating: 0.9, count: 8))
        let gains = [Float](repeating: 0.5, count: 8)
        r.withUnsafeMutableBufferPointer { rp in g.withUnsafeMutableBufferPointer { gp in b.withUnsafeMutableBufferPointer { bp in
            EncodedGain.apply(rp.baseAddress!, gp.baseAddress!, bp.baseAddress!, gains: gains, count: 8)
        } } }
        let root = pow(0.5, 1 / 2.4)
        #expect(abs(Double(r[0]) - (root * (0.5 + 0.055) - 0.055)) < 1e-6)
        #expect(abs(Double(b[3]) - (root * (0.9 + 0.055) - 0.055)) < 1e-6)
        // Halving the light darkens 0.5 encoded to about 0.361 (not 0.25: the curve).
        #expect(abs(r[0] - 0.3608) < 1e-3, "\(r[0])")
    }

    @Test("the vignette on encoded values against its reference over a 150×7 image, the centre untouched")
    func vignette() {
        let w = 150
        let step = PointStep.vignette(amount: 0.6, inner: 0.3, outer: 0.9, cx: 60, cy: 3, scale: Float(1 / 40.0), encoded: true)
        let (r, fr, worst) = PointProgramTests.positional(step, w: w, h: 7)
        #expect(worst < 2e-6, "worst \(worst)")
        #expect(abs(fr[3 * w + 60] - r[3 * w + 60]) < 1e-6)  // the centre is untouched
        // The corner's light is scaled by 1 − amount: encoded, by 0.4^(1/2.4) about −0.055.
        let corner = EncodedGain.reference(Double(r[0]), gain: 0.4)
        #expect(abs(Double(fr[0]) - corner) < 2e-6 && fr[0] < r[0])
    }
}
