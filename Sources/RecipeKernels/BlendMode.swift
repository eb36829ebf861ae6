/// The separable blend modes of W3C Compositing and Blending Level 1, on sRGB-encoded values in
/// 0…1: `cb` is the backdrop (the blend stage's input), `cs` the source laid on top.
///
/// ```swift
/// BlendMode.multiply.blend(0.5, 0.5)                  // 0.25
/// let table = BlendMode.softLight.table(opacity: 0.5)  // 65536 bytes, index cb << 8 | cs
/// ```
///
/// With 8-bit inputs the result depends only on the two input bytes, so the row loop is one
/// lookup in a 256×256 table built from `blend` once per mode and opacity: the formula's bytes
/// with none of its cost per pixel.
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

    /// Every 8-bit result: entry `cb << 8 | cs` is `cb + opacity·(B(cb, cs) − cb)` for the bytes
    /// over 255, clamped and rounded half up (`SampleConversion.quantize8`'s rule), computed in
    /// double precision: the nearest byte to the exact result wherever it is not within about
    /// 1e-15 of a half. (`Float` is not enough: soft-light of (180, 215) is 203.4999971, 203.5 in `Float`.)
    public func table(opacity: Float) -> [UInt8] {
        let o = Double(opacity)
        var t = [UInt8](repeating: 0, count: 65536)
        for b in 0..<256 {
            let cb = Double(b) / 255
            for s in 0..<256 {
                let v = cb + o * (blend(cb, Double(s) / 255) - cb)
                t[b << 8 | s] = UInt8(min(max(v, 0), 1) * 255 + 0.5)
            }
        }
        return t
    }

    /// Blends `count` samples: `out[i] = table[base[i] << 8 | top[i]]`. `out` may be `base`.
    @inlinable
    public static func blendRow(base: UnsafePointer<UInt8>, top: UnsafePointer<UInt8>, into out: UnsafeMutablePointer<UInt8>,
                                count: Int, table: UnsafePointer<UInt8>)
    {
        for i in 0..<count { out[i] = table[Int(base[i]) << 8 | Int(top[i])] }
    }
}
