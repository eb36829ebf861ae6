import CKernelsSIMD

/// The separable blend modes of W3C Compositing and Blending Level 1, on sRGB-encoded values in
/// 0…1: `cb` is the backdrop (the blend stage's input), `cs` the source laid on top.
///
/// ```swift
/// BlendMode.multiply.blend(0.5, 0.5)                  // 0.25
/// ```
///
public enum BlendMode: String, Sendable, CaseIterable {
    /// B = Cs.
    case normal
    /// B = Cb·Cs.
    case multiply
    /// B = Cb + Cs − Cb·Cs.
    case screen
    /// B = HardLight(Cs, Cb): multiply or screen as the backdrop is dark or light.
    case overlay
    /// The W3C soft light (darkens or lightens as the source is below or above 0.5).
    case softLight = "soft-light"

    /// The blend function B(Cb, Cs).
    @inlinable
    public func blend(_ cb: Float, _ cs: Float) -> Float { value(cb, cs) }

    /// The blend function B(Cb, Cs) in double precision (what the 8-bit table is built from).
    @inlinable
    public func blend(_ cb: Double, _ cs: Double) -> Double { value(cb, cs) }

    /// B(Cb, Cs) in either precision: one statement of the formulas for both.
    @inlinable
    func value<T: BinaryFloatingPoint>(_ cb: T, _ cs: T) -> T {
        switch self {
        case .normal:
            return cs
        case .multiply:
            return cb * cs
        case .screen:
            return cb + cs - cb * cs
        case .overlay:
            // HardLight(Cs, Cb): the backdrop plays HardLight's source.
            return cb <= 0.5 ? cs * (2 * cb) : Self.screen.value(cs, 2 * cb - 1)
        case .softLight:
            if cs <= 0.5 { return cb - (1 - 2 * cs) * cb * (1 - cb) }
            let d = cb <= 0.25 ? ((16 * cb - 12) * cb + 4) * cb : cb.squareRoot()
            return cb + (2 * cs - 1) * (d - cb)
        }
    }

    /// Blends `count` samples: `out[i] = base[i] + opacity·(B(base[i], top[i]) − base[i])`, in
    /// float, unclamped. `out` may be `base`.
    ///
    /// In C (`rk_blend_row`): eight samples at a time with AVX2, the mode chosen once per row (a
    /// switch per sample kept the loop scalar: soft-light was a fifth of soft-glow's CPU on
    /// photo24; Swift's eight-lane vectors were two SSE halves). The lanes run the scalar
    /// formulas' operations in the same order (NaN takes the same side of each test), so the
    /// results are the same floats; soft-light's two branches are both computed and selected (a
    /// square root of a negative backdrop lands only in the lane not taken).
    public static func blendRow(base: UnsafePointer<Float>, top: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>,
                                count: Int, mode: BlendMode, opacity: Float)
    {
        let code: Int32 = switch mode {
        case .normal: 0
        case .multiply: 1
        case .screen: 2
        case .overlay: 3
        case .softLight: 4
        }
        rk_blend_row(base, top, out, Int32(count), code, opacity)
    }
}
