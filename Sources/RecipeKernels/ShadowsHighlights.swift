import CKernelsSIMD
/// Shadows/highlights' gain (ops-reference §4.24): linear light is scaled by
/// 2^(shadows·(1 − Yb)² − highlights·Yb²), Yb the blurred encoded luma clamped to [0, 1].
///
/// ```swift
/// ShadowsHighlights.gains(yb, into: gains, count: width, shadows: 0.3, highlights: 0.2)   // a row
/// ```
public enum ShadowsHighlights {
    /// Eight gains at once with `FastMath.exp2` (within 1e-6 of the Double formula, which
    /// `gainReference` is; a table of 1,024 steps read lane by lane cost more than this): the
    /// arithmetic `gains` runs in C, which the tests hold to it bit for bit.
    @inlinable @inline(__always)
    public static func gain(_ yb: SIMD8<Float>, shadows: Float, highlights: Float) -> SIMD8<Float> {
        let y = FastMath.clamp(yb, upTo: 1), rest = 1 - y
        return FastMath.exp2(shadows * rest * rest - highlights * y * y)
    }

    /// `gain` over `count` lumas into `out`, in C (`rk_sh_gains`: AVX2 where the CPU has it; this
    /// build's Swift lanes are SSE), the same floats.
    @inlinable
    public static func gains(_ yb: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>, count: Int,
                             shadows: Float, highlights: Float) {
        rk_sh_gains(yb, out, Int32(count), shadows, highlights)
    }

    /// The formula in Double.
    public static func gainReference(_ yb: Double, shadows: Double, highlights: Double) -> Double {
        let y = Swift.min(Swift.max(yb, 0), 1)
        return exp2(shadows * (1 - y) * (1 - y) - highlights * y * y)
    }
}

#if canImport(Glibc)
import Glibc
#endif
