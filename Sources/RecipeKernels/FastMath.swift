/// Vectorised log2, exp2, pow and tanh on eight floats at a time, for the point kernels' transfer
/// curves, powers and sigmoid (libm's powf and tanhf are scalar and cost ~20 ns a value; these
/// are branch-free polynomials the compiler keeps in SIMD registers). Error within 1e-6 of the
/// value (relative, absolute below 1) over the range the kernels use; `FastMathTests` measures
/// it against Double.
public enum FastMath {
    public typealias V = SIMD8<Float>

    /// |x|, by clearing the sign bits.
    @inlinable @inline(__always)
    public static func abs(_ x: V) -> V {
        unsafeBitCast(unsafeBitCast(x, to: SIMD8<UInt32>.self) & 0x7FFF_FFFF, to: V.self)
    }

    /// log2 of positive normal floats: x = m·2^e with m in [√½, √2), log2(m) from the atanh series.
    @inlinable @inline(__always)
    public static func log2(_ x: V) -> V {
        let bits = unsafeBitCast(x, to: SIMD8<UInt32>.self)
        // The biased exponent as a float, without a generic int→float conversion (which the
        // compiler does not vectorise): put it in the mantissa of 2^23 and subtract 2^23.
        var e = unsafeBitCast(((bits &>> 23) & 0xFF) | 0x4B00_0000, to: V.self) - (8_388_608 + 127)
        var m = unsafeBitCast((bits & 0x007F_FFFF) | 0x3F80_0000, to: V.self)
        let big = m .> 1.41421356
        m = m.replacing(with: m * 0.5, where: big)
        e = e.replacing(with: e + 1, where: big)
        let t = (m - 1) / (m + 1)
        let t2 = t * t
        // 2/ln2 · (t + t³/3 + t⁵/5 + t⁷/7 + t⁹/9); |t| ≤ 0.1716, truncation error < 1e-9
        var p = t2 * (1.0 / 9) + (1.0 / 7)
        p = p * t2 + (1.0 / 5)
        p = p * t2 + (1.0 / 3)
        p = p * t2 + 1
        return e + t * p * 2.885390081777927
    }

    /// 2^y: y = n + f with f in [-½, ½], 2^f = e^(f·ln2) by its Taylor polynomial (degree 7),
    /// 2^n put into the exponent bits. y is clamped to the float range.
    @inlinable @inline(__always)
    public static func exp2(_ y: V) -> V {
        var c = y.replacing(with: -126, where: y .< -126)
        c = c.replacing(with: 127, where: c .> 127)
        // Round to nearest with the 1.5·2^23 trick: the sum's low mantissa bits hold n.
        let shifted = c + 12_582_912
        let n = shifted - 12_582_912
        let z = (c - n) * 0.6931471805599453
        var p = z * (1.0 / 5040) + (1.0 / 720)
        p = p * z + (1.0 / 120)
        p = p * z + (1.0 / 24)
        p = p * z + (1.0 / 6)
        p = p * z + 0.5
        p = p * z + 1
        p = p * z + 1
        let integer = unsafeBitCast(shifted, to: SIMD8<Int32>.self) &- 0x4B40_0000
        let scale = unsafeBitCast((integer &+ 127) &<< 23, to: V.self)
        return p * scale
    }

    /// sign(x)·|x|^e; 0 stays 0.
    @inlinable @inline(__always)
    public static func pow(_ x: V, _ e: Float) -> V {
        let a = abs(x)
        let r = exp2(log2(a.replacing(with: 1, where: a .< 1e-30)) * e)
        let signed = r.replacing(with: -r, where: x .< 0)
        return signed.replacing(with: 0, where: a .< 1e-30)
    }

    /// sRGB-encoded → linear (IEC 61966-2-1), sign-symmetric, unclamped.
    @inlinable @inline(__always)
    public static func srgbToLinear(_ v: V) -> V {
        let a = abs(v)
        let curve = exp2(log2((a + 0.055) * (1 / 1.055)) * 2.4)
        let l = curve.replacing(with: a * (1 / 12.92), where: a .<= 0.04045)
        return l.replacing(with: -l, where: v .< 0)
    }

    /// Linear → sRGB-encoded (IEC 61966-2-1), sign-symmetric, unclamped.
    @inlinable @inline(__always)
    public static func linearToSRGB(_ l: V) -> V {
        let a = abs(l)
        let safe = a.replacing(with: 1, where: a .<= 0.0031308)
        let curve = exp2(log2(safe) * (1 / 2.4)) * 1.055 - 0.055
        let v = curve.replacing(with: a * 12.92, where: a .<= 0.0031308)
        return v.replacing(with: -v, where: l .< 0)
    }

    /// tanh(x): an odd Taylor polynomial (to x⁹) for |x| < 0.25, where 1 − e^(−2|x|) would lose
    /// digits to cancellation; (1 − e)/(1 + e) with e = e^(−2|x|) from `exp2` above it (e ≤ 0.61
    /// there, so the quotient keeps exp2's relative error). Exactly ±1 from |x| ≈ 9 on.
    @inlinable @inline(__always)
    public static func tanh(_ x: V) -> V {
        let a = abs(x)
        let e = exp2(a * -2.885390081777927)  // e^(−2a) = 2^(−2a·log2 e)
        let large = (1 - e) / (1 + e)
        let a2 = a * a
        // x − x³/3 + 2x⁵/15 − 17x⁷/315 + 62x⁹/2835; the next term is < 3e-9 of the value at 0.25
        var p = a2 * (62.0 / 2835) - (17.0 / 315)
        p = p * a2 + (2.0 / 15)
        p = p * a2 - (1.0 / 3)
        let small = a + a * a2 * p
        let t = large.replacing(with: small, where: a .< 0.25)
        return t.replacing(with: -t, where: x .< 0)
    }

    /// Each lane clamped to [0, `top`], NaN to 0 (a table index must never come from a NaN).
    @inlinable @inline(__always)
    public static func clamp(_ v: V, upTo top: Float) -> V {
        v.replacing(with: 0, where: .!(v .> 0)).replacing(with: top, where: v .> top)
    }

    /// smoothstep(e0, e1, v): 0 below e0, 1 above e1, 3t² − 2t³ between (t = (v − e0)/(e1 − e0));
    /// a step at e1 when e1 ≤ e0. The lanes' twin of `PointProgram.smoothstep`.
    @inlinable @inline(__always)
    public static func smoothstep(_ e0: Float, _ e1: Float, _ v: V) -> V {
        guard e1 > e0 else { return V(repeating: 0).replacing(with: 1, where: v .>= e1) }
        let t = clamp((v - e0) / (e1 - e0), upTo: 1)
        return t * t * (3 - 2 * t)
    }

    /// The centres of eight pixels from column `x`: x + ½, x + 1½, … x + 7½.
    @inlinable @inline(__always)
    public static func pixelCentres(from x: Int) -> V {
        V(0, 1, 2, 3, 4, 5, 6, 7) + (Float(x) + 0.5)
    }
}
