import CKernelsSIMD
import Foundation
@testable import RecipeKernels
import Testing
import TestSupport

/// The polynomials that stand for a channel's table where the CPU has AVX-512 VBMI, against the
/// steps in double precision and against the table.
@Suite("channel fit")
struct ChannelFitTests {
    /// The P3 chain's contrast between the curves (a kink where each curve's toe is crossed, and
    /// a zero crossing), a plain power, levels (kinks at its black and white points) and a tone
    /// curve (its nodes).
    static let contrast: [PointStep] = [.toEncoded, .matrix([1.15, 0, 0, -0.075, 0, 1.15, 0, -0.075, 0, 0, 1.15, -0.075]), .toLinear]
    /// With the cells each must fit at least: a tone curve's seven inner nodes each take a split
    /// (two polynomials), so its darkest octaves are left to the table once the 32 are used.
    static let runs: [(String, [PointStep], fitted: Int)] = [
        ("→ encoded, contrast 1.15, → linear", contrast, 128),
        ("power 1/2.2", [.power(1 / 2.2)], 128),
        ("→ encoded, power 0.9", [.toEncoded, .power(0.9)], 128),
        ("levels", [.levels(black: 0.05, white: 0.9, inverseGamma: 1 / 1.3, outBlack: 0.02, outWhite: 0.97)], 120),
        ("→ encoded, curve", [.toEncoded, .curves(table: (0..<3).flatMap { c in (0..<9).map { pow(Float($0) / 8, 0.8 + 0.1 * Float(c)) } }, size: 9)], 56),
    ]

    /// Every float's error bound, 1e-6 of the value plus 1e-9, at inputs spread over each cell's
    /// range (200 a cell, the cells' ends among them), as the kernel computes them: the fit's own
    /// check is 49 inputs a polynomial, so this looks between its inputs.
    @Test("each polynomial is within 1e-6 (plus 1e-9) of the steps between the inputs it was checked at; most cells are fitted",
          arguments: 0..<5)
    func polynomialsHold(_ index: Int) throws {
        let (name, steps, least) = Self.runs[index]
        let f = { (x: Double) in steps.reduce(SIMD3(x, x, x)) { $1.reference($0) }[0] }
        let fit = try #require(ChannelFit.make(ChannelFit.channel(0, of: steps)), "\(name): no cell fitted")
        let cells = fit.withUnsafeBytes { Array($0[(4 * Int(RK_FIT_CELLS))..<(4 * Int(RK_FIT_CELLS) + ChannelFit.cellCount)]) }
        var worst = 0.0, fitted = 0
        for (cell, first) in cells.enumerated() where first != 255 {
            fitted += 1
            let exponent = ChannelFit.lowestExponent + cell / 8
            for q in 0...200 {
                let m = min(Float(1 + (Double(cell % 8) + Double(q) / 200) / 8), Float(1 + Double(cell % 8 + 1) / 8).nextDown)
                var p = Int(first)
                if m >= fit[Int(RK_FIT_SPLIT) + p] { p += 1 }
                let poly = ChannelFit.Polynomial(c: (0...ChannelFit.degree).map { fit[ChannelFit.polys * $0 + p] },
                                                 scale: fit[Int(RK_FIT_SCALE) + p], offset: fit[Int(RK_FIT_OFFSET) + p])
                let want = f(Double(sign: .plus, exponent: exponent, significand: Double(m)))
                let error = abs(Double(ChannelFit.evaluate(poly, m)) - want) / (ChannelFit.relative * abs(want) + ChannelFit.absolute)
                worst = max(worst, error)
            }
        }
        testNote("channel fit \(name): \(fitted) of 128 cells, worst error \(worst) of the bound")
        #expect(worst <= 1.5, "\(name): \(worst) of the bound between the checked inputs")
        #expect(fitted >= least, "\(name): only \(fitted) cells fitted")
    }

    /// Whole planes through `rk_channel_fit_apply` against `rk_channel_table_apply`: the same
    /// flags, the table's value for every value the polynomials leave (negative, zero, tiny, 4
    /// and up, NaN), within the table's own error (2e-6 of the value, plus 1e-9) elsewhere, at
    /// counts that are no multiple of 16.
    @Test("the kernel: the table's bits outside the polynomials' cells, the checked polynomials' bits inside (within 2e-6 of the table), the same flags; the table where the CPU lacks AVX-512 VBMI")
    func kernel() throws {
        let tables = ChannelTables(steps: Self.contrast)
        let fit = try #require(ChannelFit.make(ChannelFit.channel(0, of: Self.contrast)))
        var values: [Float] = [0, -0.0, 1e-9, 6.1e-5, 0x1p-14, Float(0x1p-14).nextDown, 3.99, 4, 4.01, 17, -0.02, -3, .nan, .infinity]
        var state: UInt32 = 11
        for _ in 0..<5000 {
            state = state &* 1_664_525 &+ 1_013_904_223
            let u = Float(state >> 8) / Float(1 << 24)
            values.append(state & 3 == 0 ? pow(2, u * 20 - 16) : u * 1.3 - 0.05)
        }
        for count in [values.count, 17, 15, 1] {
            var table = Array(values[0..<count]), poly = table
            var tableOut = [UInt8](repeating: 9, count: count), polyOut = tableOut
            tables.table.withUnsafeBufferPointer { t in
                _ = rk_channel_table_apply(t.baseAddress!, Int32(ChannelTables.entries), &table, Int32(count), &tableOut)
                _ = fit.withUnsafeBufferPointer { rk_channel_fit_apply(t.baseAddress!, Int32(ChannelTables.entries), $0.baseAddress, &poly, Int32(count), &polyOut) }
            }
            #expect(tableOut == polyOut, "count \(count): the flags")
            var worst = 0.0, fromPolynomials = 0
            for i in 0..<count {
                let x = values[i]
                if table[i].isNaN { #expect(poly[i].isNaN); continue }
                if table[i].bitPattern == poly[i].bitPattern { continue }
                fromPolynomials += 1
                #expect(x >= 0x1p-14 && x < 4, "count \(count): \(x) gave \(poly[i]), the table \(table[i])")
                worst = max(worst, abs(Double(poly[i]) - Double(table[i])) / (2e-6 * abs(Double(table[i])) + 1e-9))
            }
            #expect(worst <= 1, "count \(count): \(worst) of 2e-6")
            // Where the polynomials ran, the kernel's floats are the checked polynomial's
            // (ChannelFit.evaluate: the same fused multiply-adds), bit for bit, the last lanes
            // under 16 too (counts 17, 15 and 1: a masked last step, not the table).
            if ChannelFit.supported {
                for i in 0..<count where values[i] >= 0x1p-14 && values[i] < 4 {
                    guard let p = Self.polynomial(fit, for: values[i]) else { continue }
                    let m = Float(sign: .plus, exponent: 0, significand: values[i].significand)
                    #expect(poly[i].bitPattern == ChannelFit.evaluate(p, m).bitPattern, "\(values[i]): \(poly[i])")
                }
            }
            if count == values.count, ChannelFit.supported { #expect(fromPolynomials > count / 2, "the polynomials ran: \(fromPolynomials)") }
            if !ChannelFit.supported { #expect(table.map(\.bitPattern) == poly.map(\.bitPattern), "no AVX-512 VBMI: the table") }
        }
    }

    /// A tone curve of 256 nodes with a ripple (a kink at every node, so few pieces hold): the
    /// fit stops at its limit of tries instead of bisecting every cell, and what it kept holds.
    @Test("a curve that fails almost everywhere costs the fit at most its limit of tries; the cells it kept hold")
    func attemptsBounded() throws {
        let table = (0..<3).flatMap { _ in (0..<256).map { i -> Float in let x = Float(i) / 255; return x + 0.004 * sin(90 * x) * x * (1 - x) } }
        let steps: [PointStep] = [.toEncoded, .curves(table: table, size: 256)]
        var tried = 0
        let fit = ChannelFit.make(ChannelFit.channel(0, of: steps), tried: &tried)
        testNote("channel fit, 256-node ripple curve: \(tried) tries, \(fit == nil ? "no" : "some") cells kept")
        #expect(tried <= ChannelFit.attempts, "\(tried) tries")
        #expect(tried >= 100, "it did try: \(tried)")
        let tables = ChannelTables(steps: steps)
        var planes = (0..<(3 * 999)).map { Float($0 % 999) / 900 }
        planes.withUnsafeMutableBufferPointer { tables.apply($0.baseAddress!, count: 999, tile: 999) }
        for i in 0..<999 {
            let x = Double(i) / 900
            let want = steps.reduce(SIMD3(x, x, x)) { $1.reference($0) }[0]
            #expect(abs(Double(planes[i]) - want) <= 5e-5, "\(x): \(planes[i]), want \(want)")
        }
    }

    /// The polynomial the kernel picks for `x` (cell, then split), or nil for a cell the table keeps.
    static func polynomial(_ fit: [Float], for x: Float) -> ChannelFit.Polynomial? {
        let cell = Int(x.bitPattern >> 20) - ((127 + ChannelFit.lowestExponent) << 3)
        let first = fit.withUnsafeBytes { $0[4 * Int(RK_FIT_CELLS) + cell] }
        guard first != 255 else { return nil }
        let m = Float(sign: .plus, exponent: 0, significand: x.significand)
        var p = Int(first)
        if m >= fit[Int(RK_FIT_SPLIT) + p] { p += 1 }
        return ChannelFit.Polynomial(c: (0...ChannelFit.degree).map { fit[ChannelFit.polys * $0 + p] },
                                     scale: fit[Int(RK_FIT_SCALE) + p], offset: fit[Int(RK_FIT_OFFSET) + p])
    }

    /// ChannelTables makes one fit when the channels are alike and three when not, and none where
    /// the CPU has no use for them.
    @Test("ChannelTables fits each channel once (one fit for channels alike), only where the kernel runs them")
    func tablesFit() {
        let alike = ChannelTables(steps: [.toEncoded, .power(0.9)])
        let apart = ChannelTables(steps: [.toEncoded, .curves(table: (0..<3).flatMap { c in (0..<9).map { pow(Float($0) / 8, 0.8 + 0.1 * Float(c)) } }, size: 9)])
        #expect(alike.fits.count == (ChannelFit.supported ? 1 : 0))
        #expect(apart.fits.count == (ChannelFit.supported ? 3 : 0))
        #expect(alike.fits.allSatisfy { $0?.count == ChannelFit.floats })
    }
}
