/// Row conversions between sample types and colour models, and to/from linear light.
public enum SampleConversion {
    /// 16-bit → 8-bit with rounding: `(v·255 + 32767) / 65535`.
    @inlinable
    public static func narrow(_ src: UnsafePointer<UInt16>, _ dst: UnsafeMutablePointer<UInt8>, count: Int) {
        for i in 0..<count { dst[i] = UInt8((UInt32(src[i]) * 255 + 32767) / 65535) }
    }

    /// 8-bit → 16-bit exactly: `v·257`.
    @inlinable
    public static func widen(_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt16>, count: Int) {
        for i in 0..<count { dst[i] = UInt16(src[i]) &* 257 }
    }

    /// Drops the alpha channel by compositing onto white (in the encoded space, as most tools do):
    /// `c' = (c·a + max·(max − a)) / max`. Works in place when `src == dst`.
    @inlinable
    public static func flattenOnWhite<T: FixedWidthInteger & UnsignedInteger>(_ src: UnsafePointer<T>, _ dst: UnsafeMutablePointer<T>,
                                                                                pixels: Int, colorChannels: Int)
    {
        let maxV = UInt64(T.max)
        let inStride = colorChannels + 1
        for p in 0..<pixels {
            let a = UInt64(src[p * inStride + colorChannels])
            for c in 0..<colorChannels {
                let v = UInt64(src[p * inStride + c])
                dst[p * colorChannels + c] = T((v * a + maxV * (maxV - a) + maxV / 2) / maxV)
            }
        }
    }

    /// Gray → RGB by replication.
    @inlinable
    public static func grayToRGB<T>(_ src: UnsafePointer<T>, _ dst: UnsafeMutablePointer<T>, pixels: Int) {
        for p in 0..<pixels {
            let v = src[p]
            dst[3 * p] = v; dst[3 * p + 1] = v; dst[3 * p + 2] = v
        }
    }

    /// Encoded integer samples → linear floats through a decode table; alpha (last channel when
    /// `hasAlpha`) is scaled to 0…1 and multiplied into the colour channels (premultiplied).
    @inlinable
    public static func toLinearPremultiplied<T: FixedWidthInteger>(_ src: UnsafePointer<T>, _ dst: UnsafeMutablePointer<Float>, pixels: Int,
                                                                   channels: Int, hasAlpha: Bool, table: UnsafePointer<Float>)
    {
        if !hasAlpha {
            for i in 0..<(pixels * channels) { dst[i] = table[Int(src[i])] }
            return
        }
        let scale = 1 / Float(T.max)
        let colour = channels - 1
        for p in 0..<pixels {
            let a = Float(src[p * channels + colour]) * scale
            for c in 0..<colour { dst[p * channels + c] = table[Int(src[p * channels + c])] * a }
            dst[p * channels + colour] = a
        }
    }

    /// Linear (premultiplied when `hasAlpha`) floats → encoded integer samples, clamped and rounded.
    @inlinable
    public static func fromLinearPremultiplied<T: FixedWidthInteger>(_ src: UnsafePointer<Float>, _ dst: UnsafeMutablePointer<T>, pixels: Int,
                                                                     channels: Int, hasAlpha: Bool, encodeTable: UnsafePointer<Float>)
    {
        let maxV = Float(T.max)
        if !hasAlpha {
            // Eight at a time (`SRGB.encodeCodes`: the same bytes as the scalar pair).
            let n = pixels * channels
            var i = 0
            while i + 8 <= n {
                let q = SRGB.encodeCodes(UnsafeRawPointer(src + i).loadUnaligned(as: SIMD8<Float>.self), max: maxV, table: encodeTable)
                for k in 0..<8 { dst[i + k] = T(truncatingIfNeeded: q[k]) }
                i += 8
            }
            while i < n {
                dst[i] = quantize(SRGB.encodeClamped(src[i], table: encodeTable), max: maxV)
                i += 1
            }
            return
        }
        let colour = channels - 1
        for p in 0..<pixels {
            let a = min(max(src[p * channels + colour], 0), 1)
            dst[p * channels + colour] = quantize(a, max: maxV)
            let inv: Float = a > 0 ? 1 / a : 0
            for c in 0..<colour {
                dst[p * channels + c] = quantize(SRGB.encodeClamped(src[p * channels + c] * inv, table: encodeTable), max: maxV)
            }
        }
    }

    /// Scalar reference of `fromLinearPremultiplied` without alpha (the tests hold the fast one to it).
    public static func fromLinearReference<T: FixedWidthInteger>(_ src: [Float], as: T.Type, encodeTable: UnsafePointer<Float>) -> [T] {
        src.map { quantize(SRGB.encodeClamped($0, table: encodeTable), max: Float(T.max)) }
    }

    /// Rounds a value in [0, 1] to an integer sample. `Int32(x + 0.5)` truncates a non-negative
    /// value, which is round-half-up and compiles to one instruction (the generic
    /// `T(x.rounded())` goes through libm and a checked conversion).
    @inlinable @inline(__always)
    public static func quantize<T: FixedWidthInteger>(_ v: Float, max: Float) -> T {
        T(truncatingIfNeeded: Int32(v * max + 0.5))
    }

    /// A value clamped to [0, 1], as a 16-bit sample (NaN to 0).
    @inlinable @inline(__always)
    public static func quantize16(_ v: Float) -> UInt16 {
        UInt16(truncatingIfNeeded: Int32((v > 0 ? min(v, 1) : 0) * 65535 + 0.5))
    }

    /// A value clamped to [0, 1], as an 8-bit sample (the point and row-window stages' store).
    @inlinable @inline(__always)
    public static func quantize8(_ v: Float) -> UInt8 {
        UInt8(truncatingIfNeeded: Int32(min(max(v, 0), 1) * 255 + 0.5))
    }
}
