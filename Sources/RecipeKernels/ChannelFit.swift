#if canImport(Glibc)
import Glibc
#endif
import CKernelsSIMD

/// A channel's run of steps as up to 32 polynomials of degree 5 over the values in [2⁻¹⁴, 4), for
/// `rk_channel_fit_apply`: where the CPU has AVX-512 VBMI, permutes pick a value's coefficients
/// from registers, with no memory access a value, where `ChannelTables`' lookups gather two
/// floats from a table (a gathered element costs about as much as a whole curve on these Zen 4
/// machines). The layout is the C header's (`RK_FIT_*`).
///
/// Each octave is tried as one polynomial, then halves, quarters and eighths (the cells the
/// kernel indexes by the exponent and three mantissa bits). A polynomial interpolates the steps
/// at six Chebyshev nodes in double precision and is kept only if, run as the kernel runs it
/// (float fused multiply-adds), it is within 1e-6 of the steps' value (plus 1e-9) at 49 inputs
/// across its interval, the interval's ends among them: the table's own accuracy is 2e-6. An
/// eighth that fails holds a kink (the sRGB toe, a levels point, a tone curve's node): it is
/// split where the longest fitting start ends (bisection on the input), and the rest gets a
/// second polynomial. A cell that still fails, and any beyond the 32 polynomials (the brightest
/// octaves are fitted first: the darkest are the rarest in photos), keeps the table.
///
/// Written by hand: no library fits piecewise polynomials to a function under a budget of
/// registers, and the fit is the kernel's contract (the cells, the split, the t mapping).
enum ChannelFit {
    static let polys = Int(RK_FIT_POLYS)
    static let degree = Int(RK_FIT_DEGREE)
    static let lowestExponent = Int(RK_FIT_LOWEST_EXPONENT)
    static let cellCount = Int(RK_FIT_CELL_COUNT)
    static let octaves = cellCount / 8
    /// Floats a channel's fit takes.
    static let floats = Int(RK_FIT_FLOATS)
    /// The error a polynomial may have: `relative` of the value plus `absolute`.
    static let relative = 1e-6, absolute = 1e-9
    /// Inputs a polynomial is checked at.
    static let checks = 48
    /// Polynomials tried a channel at most (each evaluates the steps at 55 inputs): a smooth run
    /// takes about 30, one with a few kinks about 150 (a split's bisection tries 26); a curve of
    /// many nodes, which fails everywhere, would otherwise try 3,000 and cost tens of
    /// milliseconds before the first pixel. Past the limit the cells left keep the table.
    static let attempts = 400

    /// Whether the kernel runs polynomials on this CPU (else no fit is made).
    static let supported = rk_channel_fit_supported() != 0

    /// One channel of the steps in double precision, at many inputs at once (`PointStep.sample`
    /// runs steps that treat the channels alike a chunk at a time).
    typealias Steps = ([Double]) -> [Double]

    /// The steps' channel `channel` as a `Steps`.
    static func channel(_ channel: Int, of steps: [PointStep]) -> Steps {
        { inputs in
            var out = [Double](repeating: 0, count: inputs.count)
            PointStep.sample(steps, count: inputs.count, input: { inputs[$0] }) { i, v in out[i] = v[channel] }
            return out
        }
    }

    /// The fit of `f` (one channel of the steps), or nil when no cell fits.
    static func make(_ steps: @escaping Steps) -> [Float]? {
        make(steps, tried: nil)
    }

    /// `make`, counting the polynomials it tried into `tried`.
    static func make(_ steps: @escaping Steps, tried: UnsafeMutablePointer<Int>?) -> [Float]? {
        var tries = 0
        defer { tried?.pointee = tries }
        let f: Steps = { inputs in
            tries += 1
            return steps(inputs)
        }
        var fit = [Float](repeating: 0, count: floats)
        var cells = [UInt8](repeating: 255, count: cellCount)
        var count = 0
        func store(_ c: [Float], _ scale: Float, _ offset: Float, split: Float) {
            for i in 0...degree { fit[polys * i + count] = c[i] }
            fit[Int(RK_FIT_SCALE) + count] = scale
            fit[Int(RK_FIT_OFFSET) + count] = offset
            fit[Int(RK_FIT_SPLIT) + count] = split
            count += 1
        }
        for octave in (0..<octaves).reversed() {
            let exponent = lowestExponent + octave
            var cell = 0
            while cell < 8, tries < attempts {
                var width = 8
                while width > 1, !(cell % width == 0 && cell + width <= 8) { width /= 2 }
                var placed = false
                while width >= 1, count < polys, tries < attempts {
                    let m0 = 1 + Double(cell) / 8, m1 = 1 + Double(cell + width) / 8
                    if let p = polynomial(f, exponent, m0, m1) {
                        for j in 0..<width { cells[8 * octave + cell + j] = UInt8(count) }
                        store(p.c, p.scale, p.offset, split: .infinity)
                        cell += width
                        placed = true
                        break
                    }
                    width /= 2
                }
                if !placed, count + 2 <= polys, tries + 26 <= attempts, let (left, right, at) = split(f, exponent, cell) {
                    cells[8 * octave + cell] = UInt8(count)
                    store(left.c, left.scale, left.offset, split: at)
                    store(right.c, right.scale, right.offset, split: .infinity)
                    placed = true
                    cell += 1
                }
                if !placed { cell += 1 }
            }
        }
        guard count > 0 else { return nil }
        for i in count..<polys { fit[Int(RK_FIT_SPLIT) + i] = .infinity }
        cells.withUnsafeBytes { bytes in
            fit.withUnsafeMutableBytes { out in
                out.baseAddress!.advanced(by: 4 * Int(RK_FIT_CELLS)).copyMemory(from: bytes.baseAddress!, byteCount: cellCount)
            }
        }
        return fit
    }

    struct Polynomial {
        var c: [Float]
        var scale: Float
        var offset: Float
    }

    /// The polynomial through `f` at six Chebyshev nodes of mantissas [m0, m1) in octave
    /// 2^`exponent`, if it holds to the tolerance.
    static func polynomial(_ f: Steps, _ exponent: Int, _ m0: Double, _ m1: Double) -> Polynomial? {
        let n = degree + 1
        let centre = (m0 + m1) / 2, half = (m1 - m0) / 2
        // The six nodes and the inputs checked (float mantissas from m0 to the last float below
        // m1), evaluated in one batch.
        let last = Float(m1).nextDown
        let checked = (0...checks).map { q in q == checks ? last : Float(m0 + (m1 - m0) * Double(q) / Double(checks)) }
            .filter { $0 >= Float(m0) && $0 <= last }
        let nodes = (0..<n).map { k in centre + half * cos(Double.pi * (Double(k) + 0.5) / Double(n)) }
        let all = f((nodes + checked.map(Double.init)).map { Double(sign: .plus, exponent: exponent, significand: $0) })
        let values = all[0..<n]
        // Chebyshev coefficients, then the monomials in t (degree 5: T5 = 16t⁵ − 20t³ + 5t …).
        var a = [Double](repeating: 0, count: n)
        for j in 0..<n {
            var sum = 0.0
            for k in 0..<n { sum += values[k] * cos(Double.pi * Double(j) * (Double(k) + 0.5) / Double(n)) }
            a[j] = 2 * sum / Double(n)
        }
        a[0] /= 2
        var chebyshev = [[Double]](repeating: [Double](repeating: 0, count: n), count: n)
        chebyshev[0][0] = 1
        chebyshev[1][1] = 1
        for j in 2..<n {
            for i in 0..<n { chebyshev[j][i] = (i > 0 ? 2 * chebyshev[j - 1][i - 1] : 0) - chebyshev[j - 2][i] }
        }
        var c = [Float](repeating: 0, count: n)
        for i in 0..<n {
            var sum = 0.0
            for j in 0..<n { sum += a[j] * chebyshev[j][i] }
            c[i] = Float(sum)
        }
        let p = Polynomial(c: c, scale: Float(1 / half), offset: Float(-centre / half))
        // Checked as the kernel computes it.
        for (m, want) in zip(checked, all[n...]) {
            let got = Double(evaluate(p, m))
            guard abs(got - want) <= relative * abs(want) + absolute else { return nil }
        }
        return p
    }

    /// The kernel's arithmetic: t = m·scale + offset, then Horner's rule, each a fused multiply-add.
    static func evaluate(_ p: Polynomial, _ m: Float) -> Float {
        let t = p.offset.addingProduct(m, p.scale)
        var r = p.c[degree]
        for i in stride(from: degree - 1, through: 0, by: -1) { r = p.c[i].addingProduct(r, t) }
        return r
    }

    /// Two polynomials for eighth `cell` of octave 2^`exponent`, split where the longest start
    /// that fits ends, and the mantissa they split at; nil when the rest does not fit either.
    static func split(_ f: Steps, _ exponent: Int, _ cell: Int) -> (Polynomial, Polynomial, Float)? {
        let m0 = 1 + Double(cell) / 8, m1 = 1 + Double(cell + 1) / 8
        var lo = m0, hi = m1
        for _ in 0..<24 {
            let mid = (lo + hi) / 2
            if polynomial(f, exponent, m0, mid) != nil { lo = mid } else { hi = mid }
        }
        var at = Float(lo)
        if Double(at) > lo { at = at.nextDown }
        guard Double(at) > m0, let left = polynomial(f, exponent, m0, Double(at)),
              let right = polynomial(f, exponent, Double(at), m1) else { return nil }
        return (left, right, at)
    }
}
