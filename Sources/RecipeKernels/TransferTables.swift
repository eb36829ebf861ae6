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

    /// Eight `SampleConversion.quantize(encodeClamped(l), max:)` at once, with the same float
    /// operations in the same order, so the same codes (the tests hold it to the scalar pair).
    /// Swift's Float → Int conversions check every value for range and NaN, which made the scalar
    /// pair a fifth of a display render's CPU time; here the values are known to lie in [0, 2²²),
    /// so `floor22` does it unchecked, and only the two table reads stay scalar.
    @inlinable @inline(__always)
    public static func encodeCodes(_ l: SIMD8<Float>, max: Float, table: UnsafePointer<Float>) -> SIMD8<UInt32> {
        let (index, f) = encodeCells(l)
        var t0 = SIMD8<Float>(), t1 = SIMD8<Float>()
        for k in 0..<8 {
            let j = Int(index[k])
            t0[k] = table[j]
            t1[k] = table[j &+ 1]
        }
        return floor22((t0 + f * (t1 - t0)) * max + SIMD8<Float>(repeating: 0.5)).1
    }

    /// `encodeCodes(l, max: 255, table:)` written as bytes to `out[0]`, `out[stride]`, … `out[7·stride]`:
    /// the clamp, the table index and the fraction eight at a time, then per lane the lerp and the
    /// rounding as scalars, which are the same float operations (so the same codes, as the tests
    /// check) without rebuilding vectors from the table reads and taking them apart again (the
    /// blur's emit spent 64% of a `blur: 3px` render there).
    @inlinable @inline(__always)
    public static func storeCodes8(_ l: SIMD8<Float>, table: UnsafePointer<Float>, into out: UnsafeMutablePointer<UInt8>, stride: Int) {
        let (index, f) = encodeCells(l)
        for k in 0..<8 {
            let j = Int(index[k])
            let t0 = table[j], t1 = table[j &+ 1]
            let v = t0 + f[k] * (t1 - t0)
            out[k &* stride] = UInt8(truncatingIfNeeded: Int32(v * 255 + 0.5))
        }
    }

    /// Eight RGB pixels from linear planes `r`, `g`, `b`, each code as `storeCodes8` makes it (the
    /// same bytes), written to `out` at `3·k` as one 4-byte little-endian store a pixel whose
    /// spare byte the next pixel overwrites: 8 stores instead of 24. The caller leaves one byte
    /// after the eighth pixel writable (not the last pixel of a row).
    @inlinable @inline(__always)
    public static func storePixels8(_ r: SIMD8<Float>, _ g: SIMD8<Float>, _ b: SIMD8<Float>, table: UnsafePointer<Float>,
                                    into out: UnsafeMutableRawPointer) {
        let (ir, fr) = encodeCells(r), (ig, fg) = encodeCells(g), (ib, fb) = encodeCells(b)
        @inline(__always) func code(_ j: UInt32, _ f: Float) -> UInt32 {
            let j = Int(j)
            let t0 = table[j], t1 = table[j &+ 1]
            return UInt32(truncatingIfNeeded: Int32((t0 + f * (t1 - t0)) * 255 + 0.5))
        }
        for k in 0..<8 {
            let word = code(ir[k], fr[k]) | code(ig[k], fg[k]) &<< 8 | code(ib[k], fb[k]) &<< 16
            out.storeBytes(of: word.littleEndian, toByteOffset: 3 &* k, as: UInt32.self)
        }
    }

    /// `encodeClamped`'s table cell and fraction for eight values: l clamped to [0, 1] (NaN to 0),
    /// times the table size, split into its floor (as an index) and the rest.
    @inlinable @inline(__always)
    static func encodeCells(_ l: SIMD8<Float>) -> (index: SIMD8<UInt32>, fraction: SIMD8<Float>) {
        let x = FastMath.clamp(l, upTo: 1) * Float(encodeTableSize)
        let (xFloor, index) = floor22(x)
        return (index, x - xFloor)
    }

    /// ⌊v⌋ of each lane, as a float and as an integer, for 0 ≤ v < 2²²: v + 2²³ rounds to an
    /// integer in the mantissa (to nearest), which is one too many when it rounded up.
    @inlinable @inline(__always)
    static func floor22(_ v: SIMD8<Float>) -> (SIMD8<Float>, SIMD8<UInt32>) {
        let magic = SIMD8<Float>(repeating: 8_388_608)
        let rounded = (v + magic) - magic
        let floor = rounded.replacing(with: rounded - 1, where: rounded .> v)
        let bits = unsafeBitCast(floor + magic, to: SIMD8<UInt32>.self) & SIMD8<UInt32>(repeating: 0x7F_FFFF)
        return (floor, bits)
    }
}
