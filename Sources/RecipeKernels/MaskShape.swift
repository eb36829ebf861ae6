/// Where a masked stage applies, per pixel: a weight in 0…1 with which the stage's result is
/// mixed into its input. Positions are pixel centres on the canvas the stage runs on.
public enum MaskShape: Sendable, Hashable {
    /// 1 at `from`, falling linearly to 0 at `to` (both in pixels), constant beyond.
    case gradient(fromX: Float, fromY: Float, toX: Float, toY: Float)
    /// 1 inside radius·(1 − feather), smoothly 0 at radius; distances over `scale` pixels.
    case radial(cx: Float, cy: Float, inner: Float, outer: Float, scale: Float)
    /// On the input's encoded Rec.709 luma: 1 between min and max, smooth over `feather` outside.
    case luminance(min: Float, max: Float, feather: Float, inputIsLinear: Bool)

    /// The weight for the pixel at (x, y) whose input is `rgb`, before invert and amount.
    @inline(__always)
    public func weight(x: Float, y: Float, rgb: SIMD3<Float>) -> Float {
        switch self {
        case .gradient(let fx, let fy, let tx, let ty):
            let dx = tx - fx, dy = ty - fy
            let length2 = max(dx * dx + dy * dy, 1e-12)
            let t = ((x - fx) * dx + (y - fy) * dy) / length2
            return 1 - min(max(t, 0), 1)
        case .radial(let cx, let cy, let inner, let outer, let scale):
            let d = ((x - cx) * (x - cx) + (y - cy) * (y - cy)).squareRoot() * scale
            return 1 - Float(PointProgram.smoothstep(Double(inner), Double(outer), Double(d)))
        case .luminance(let lo, let hi, let feather, let linear):
            var luma = 0.2126 * rgb.x + 0.7152 * rgb.y + 0.0722 * rgb.z
            if linear { luma = Float(SRGB.encode(Double(luma))) }
            let rise = feather > 0 ? Float(PointProgram.smoothstep(Double(lo - feather), Double(lo), Double(luma))) : (luma >= lo ? 1 : 0)
            let fall = feather > 0 ? 1 - Float(PointProgram.smoothstep(Double(hi), Double(hi + feather), Double(luma))) : (luma <= hi ? 1 : 0)
            return rise * fall
        }
    }
}
