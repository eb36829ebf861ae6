#if canImport(Glibc)
import Glibc
#endif

/// The sRGB transfer function (IEC 61966-2-1) and the tables built from it.
///
/// Decode tables are exact per code value; the encode table samples the curve at 16384 points
/// and interpolates linearly (max error 1.1e-6, far below half a 16-bit step).
public enum SRGB {
    /// Encoded → linear, exact IEC constants; sign-symmetric for out-of-range values.
    @inlinable
    public static func decode(_ v: Double) -> Double {
        let a = abs(v)
        let l = a <= 0.04045 ? a / 12.92 : pow((a + 0.055) / 1.055, 2.4)
        return v < 0 ? -l : l
    }

    /// Linear → encoded, exact IEC constants; sign-symmetric for out-of-range values.
    @inlinable
    public static func encode(_ l: Double) -> Double {
        let a = abs(l)
        let v = a <= 0.0031308 ? a * 12.92 : 1.055 * pow(a, 1 / 2.4) - 0.055
        return l < 0 ? -v : v
    }

    /// Linear value of each 8-bit code.
    public static let decodeTable8: [Float] = (0..<256).map { Float(decode(Double($0) / 255)) }
    /// Linear value of each 16-bit code.
    public static let decodeTable16: [Float] = (0..<65536).map { Float(decode(Double($0) / 65535)) }

    /// Samples of `encode` on [0, 1] at `encodeTableSize` intervals, plus one guard entry.
    public static let encodeTableSize = 16384
    public static let encodeTable: [Float] = (0...encodeTableSize + 1).map {
        Float(encode(min(1, Double($0) / Double(encodeTableSize))))
    }

    /// Linear → encoded through the table, clamped to [0, 1] (for integer outputs).
    @inlinable
    public static func encodeClamped(_ l: Float, table: UnsafePointer<Float>) -> Float {
        let x = min(max(l, 0), 1) * Float(encodeTableSize)
        let i = Int(x)
        let f = x - Float(i)
        return table[i] + f * (table[i + 1] - table[i])
    }
}
