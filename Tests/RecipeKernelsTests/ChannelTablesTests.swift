import CKernelsSIMD
import Foundation
import RecipeKernels
import Testing
import TestSupport

/// The log-spaced per-channel tables against the steps themselves in double precision.
@Suite("channel tables")
struct ChannelTablesTests {
    /// Each run with whether it is smooth: a kink (a curve's table nodes, levels' black point)
    /// inside a cell is cut by the interpolation, by up to its change of slope times a quarter cell.
    static let runs: [(String, [PointStep], smooth: Bool)] = [
        ("→ encoded", [.toEncoded], true),
        ("→ linear", [.toLinear], true),
        ("power 1/2.2", [.power(1 / 2.2)], true),
        ("→ encoded, curve", [.toEncoded, .curves(table: (0..<3).flatMap { c in (0..<9).map { pow(Float($0) / 8, 0.8 + 0.1 * Float(c)) } }, size: 9)], false),
        ("levels", [.levels(black: 0.05, white: 0.9, inverseGamma: 1 / 1.3, outBlack: 0.02, outWhite: 0.97)], false),
        // One curve among steps of a multiply, computed between them (`ChannelTables.computed`);
        // gains that differ by channel, so a grey tile must not be taken as one plane.
        ("gains, → encoded, contrast", [.matrix([1.2, 0, 0, 0, 0, 0.95, 0, 0, 0, 0, 1.1, 0.001]), .toEncoded,
                                        .matrix([1.1, 0, 0, -0.05, 0, 1.1, 0, -0.05, 0, 0, 1.1, -0.05])], true),
    ]

    /// Values over the whole range the tables cover and past it: 0, tiny, shadows to highlights,
    /// above white, negative (a contrast pushes dark pixels below 0), beyond 16, and NaN.
    static let inputs: [Float] = {
        var values: [Float] = [0, -0.0, 1e-9, -1e-9, 2.3e-7, 1, 15.99, 16, 40, -20, .nan]
        var state: UInt32 = 3
        for _ in 0..<4000 {
            state = state &* 1_664_525 &+ 1_013_904_223
            let u = Float(state >> 8) / Float(1 << 24)
            values.append(pow(2, u * 26 - 22) * (state & 1 == 0 ? 1 : -1))
            values.append(u * 1.2 - 0.1)
        }
        return values
    }()

    /// 2e-6 of the value, plus 5e-8 for the cell that holds a curve's kink (the sRGB curves join
    /// their straight and power parts at 0.04045 and 0.0031308: 2.6e-8 there, 1/580 of a 16-bit step).
    /// Kinked runs: within 5e-5 (3 steps of 16 bits, 1/80 of an 8-bit step), at the kink only.
    @Test("within 2e-6 of the steps (relative, plus 5e-8) on smooth runs, 5e-5 on kinked ones, the vector and scalar paths alike, NaN kept",
          arguments: 0..<6)
    func accuracy(_ index: Int) {
        let (name, steps, smooth) = Self.runs[index]
        let tables = ChannelTables(steps: steps)
        let tile = Self.inputs.count
        var planes = Self.inputs + Self.inputs.reversed() + Self.inputs
        planes.withUnsafeMutableBufferPointer { tables.apply($0.baseAddress!, count: tile, tile: tile) }
        var worst = 0.0
        for c in 0..<3 {
            for i in 0..<tile {
                let x = c == 1 ? Self.inputs[tile - 1 - i] : Self.inputs[i]
                let d = Double(x)
                let expected = steps.reduce(SIMD3(d, d, d)) { $1.reference($0) }[c]
                let got = Double(planes[c * tile + i])
                if expected.isNaN { #expect(got.isNaN, "\(name): NaN in, \(got) out"); continue }
                let error = smooth ? max(0, abs(got - expected) - 5e-8) / max(abs(expected), 1e-12) : abs(got - expected)
                worst = max(worst, error)
            }
        }
        testNote("channel tables \(name): worst error \(worst)")
        #expect(worst <= (smooth ? 2e-6 : 5e-5), "\(name): \(worst)")
        // The sRGB curves, alone or among steps of a multiply, are computed (rk_srgb_curve), not
        // looked up: 5e-7 here.
        if ChannelTables.computed(steps) != nil { #expect(worst <= 1e-6, "\(name), computed: \(worst)") }
        #expect((ChannelTables.computed(steps) != nil) == (index == 0 || index == 1 || index == 5), "\(name): computed or not")
    }
    @Test("a grey tile is looked up once and copied: the same values as a colour tile's, on every plane")
    func greyTile() {
        let tables = ChannelTables(steps: [.toEncoded, .power(0.9)])
        let tile = 64, count = 61
        var grey = [Float](repeating: 0, count: 3 * tile), colour = grey
        for i in 0..<count {
            let v = Float(i) / 40 - 0.2  // below 0, across [0, 1] and above
            grey[i] = v; grey[tile + i] = v; grey[2 * tile + i] = v
            colour[i] = v; colour[tile + i] = v + 0.01; colour[2 * tile + i] = -v
        }
        grey.withUnsafeMutableBufferPointer { tables.apply($0.baseAddress!, count: count, tile: tile) }
        colour.withUnsafeMutableBufferPointer { tables.apply($0.baseAddress!, count: count, tile: tile) }
        #expect(Array(grey[0..<count]) == Array(colour[0..<count]), "plane 0 as the colour tile's")
        #expect(Array(grey[tile..<(tile + count)]) == Array(grey[0..<count]) && Array(grey[(2 * tile)..<(2 * tile + count)]) == Array(grey[0..<count]))
        #expect(grey[1] != 1 / 40 - 0.2, "the steps ran")
    }

    @Test("the sRGB curves give the same floats on every path (AVX-512 where the CPU has it, AVX2, plain): every value, NaN and ±16 and beyond flagged and left")
    func curvePaths() {
        var values = Self.inputs + [16, -16, 15.999999, .infinity, -.infinity, 0.0031308, 0.04045, -0.04045, Float.leastNormalMagnitude]
        values += (0..<37).map { Float($0) / 36 }  // a count that is no multiple of 8 or 16
        for toLinear: Int32 in [0, 1] {
            var fast = values, avx2 = values
            var outFast = [UInt8](repeating: 9, count: values.count), outAVX2 = outFast
            let leftFast = rk_srgb_curve(&fast, Int32(values.count), toLinear, &outFast)
            let leftAVX2 = rk_srgb_curve_avx2(&avx2, Int32(values.count), toLinear, &outAVX2)
            #expect(fast.map(\.bitPattern) == avx2.map(\.bitPattern), "to linear \(toLinear)")
            #expect(outFast == outAVX2 && leftFast == leftAVX2)
            #expect(leftFast >= 6, "±16, ±infinity, 40, −20 and NaN are left to the caller")
            #expect(fast != values)
        }
    }
}
