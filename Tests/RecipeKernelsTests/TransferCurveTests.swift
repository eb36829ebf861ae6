import Foundation
import RecipeKernels
import Testing

/// The sRGB transfer function of the kernels at its breakpoints, against IEC 61966-2-1 written
/// out here: the points between 0.04045 and 0.05 (codes 11 and 12 of 255) and between 0.0031308
/// and 0.004 are where a breakpoint moved by a little changes the value, so every path (the
/// double formula, the 8- and 16-bit decode tables, the encode table and the SIMD fast path) is
/// checked there, tightly enough that such a move fails.
@Suite("sRGB transfer at its breakpoints")
struct TransferCurveTests {
    /// IEC 61966-2-1: encoded → linear.
    static func iecDecode(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
    /// IEC 61966-2-1: linear → encoded.
    static func iecEncode(_ l: Double) -> Double { l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1 / 2.4) - 0.055 }

    /// Encoded values on both sides of 0.04045 and through (0.04045, 0.05], where the two pieces
    /// differ by up to 1.6e-5 (0.4 %).
    static let decodePoints: [Double] = [0, 0.01, 0.04, 0.0404, 0.04045, 0.0405, 0.042, 0.045, 0.0475, 0.0499, 0.05, 0.055, 0.2, 0.5, 1]
    /// Linear values on both sides of 0.0031308 and through (0.0031308, 0.004].
    static let encodePoints: [Double] = [0, 0.001, 0.0031, 0.0031308, 0.00314, 0.0033, 0.0035, 0.0038, 0.004, 0.0045, 0.05, 0.5, 1]

    @Test("SRGB.decode and SRGB.encode equal the IEC formula within 1e-12 around 0.04045 and 0.0031308")
    func doubleFormula() {
        for v in Self.decodePoints { #expect(abs(SRGB.decode(v) - Self.iecDecode(v)) <= 1e-12, "decode(\(v))") }
        for l in Self.encodePoints { #expect(abs(SRGB.encode(l) - Self.iecEncode(l)) <= 1e-12, "encode(\(l))") }
        // The pieces really differ there (the premise of the points): 1.4e-5 at 0.045.
        #expect(abs(Self.iecDecode(0.045) - 0.045 / 12.92) > 1e-5)
    }

    @Test("the 8-bit decode table is the formula at every code (codes 11 and 12 lie between 0.04045 and 0.05) within 1e-7 relative")
    func table8() {
        for code in 0..<256 {
            let expected = Self.iecDecode(Double(code) / 255)
            #expect(abs(Double(SRGB.decodeTable8[code]) - expected) <= 1e-7 * max(expected, 1e-3), "code \(code)")
        }
    }

    @Test("the 16-bit decode table is the formula from code 2600 to 3400 (0.0397 to 0.0519) and at a few others within 1e-7 relative")
    func table16() {
        for code in Array(2600...3400) + [0, 1, 100, 32768, 65535] {
            let expected = Self.iecDecode(Double(code) / 65535)
            #expect(abs(Double(SRGB.decodeTable16[code]) - expected) <= 1e-7 * max(expected, 1e-3), "code \(code)")
        }
    }

    /// Linear interpolation across the kink at 0.0031308 is 3.4e-6 off there (1.1e-6 elsewhere),
    /// still under half a 16-bit step; a breakpoint moved to 0.004 is 2.5e-4 off at 0.0035.
    @Test("the interpolated encode table is the formula around 0.0031308 within 5e-6")
    func encodeTable() {
        SRGB.encodeTable.withUnsafeBufferPointer { table in
            for l in Self.encodePoints {
                let got = Double(SRGB.encodeClamped(Float(l), table: table.baseAddress!))
                #expect(abs(got - Self.iecEncode(l)) <= 5e-6, "encodeClamped(\(l)): \(got) vs \(Self.iecEncode(l))")
            }
        }
    }

    @Test("the SIMD fast path is the formula within 2e-5 relative at the breakpoints (a moved breakpoint is off by 4e-3)")
    func fastPath() {
        Self.expectFast(Self.decodePoints, FastMath.srgbToLinear, Self.iecDecode, "srgbToLinear")
        Self.expectFast(Self.encodePoints, FastMath.linearToSRGB, Self.iecEncode, "linearToSRGB")
    }

    /// `fast` over `points`, eight at a time, against `formula` within 2e-5 relative.
    static func expectFast(_ points: [Double], _ fast: (FastMath.V) -> FastMath.V, _ formula: (Double) -> Double, _ name: String) {
        for chunk in stride(from: 0, to: points.count, by: 8) {
            let values = Array(points[chunk..<min(chunk + 8, points.count)])
            var v = FastMath.V(repeating: 0)
            for (k, x) in values.enumerated() { v[k] = Float(x) }
            let out = fast(v)
            for (k, x) in values.enumerated() {
                let expected = formula(Double(Float(x)))
                #expect(abs(Double(out[k]) - expected) <= 2e-5 * max(expected, 1e-3), "\(name)(\(x))")
            }
        }
    }
}
