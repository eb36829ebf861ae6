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

    /// `weight` for `count` pixels of one row, eight at a time: pixel i's centre is
    /// (x0 + i + ½, y), its input (r[i], g[i], b[i]); the weights go to `w`. The inputs and `w`
    /// hold whole vectors of eight (a tile's planes do), so the last one may read past `count`.
    /// Float smoothsteps and `FastMath.linearToSRGB` in place of `weight`'s Double ones: within
    /// 1e-6 of it, except at a hard (feather 0) luminance edge that a luma within that of the
    /// bound can cross. A luminance mask on linear input was 4× the cost of its stage with
    /// `weight`'s per-pixel `pow`.
    @inline(__always)
    public func weights(x0: Int, y: Float, r: UnsafePointer<Float>, g: UnsafePointer<Float>, b: UnsafePointer<Float>,
                        count: Int, into w: UnsafeMutablePointer<Float>) {
        typealias V = SIMD8<Float>
        @inline(__always) func load(_ p: UnsafePointer<Float>, _ k: Int) -> V { UnsafeRawPointer(p + k).loadUnaligned(as: V.self) }
        let smoothstep = FastMath.smoothstep
        var k = 0
        while k < count {
            let x = FastMath.pixelCentres(from: x0 + k)
            let out: V
            switch self {
            case .gradient(let fx, let fy, let tx, let ty):
                let dx = tx - fx, dy = ty - fy
                let length2 = Swift.max(dx * dx + dy * dy, 1e-12)
                out = 1 - FastMath.clamp(((x - fx) * dx + (y - fy) * dy) / length2, upTo: 1)
            case .radial(let cx, let cy, let inner, let outer, let scale):
                let ex = x - cx, ey = y - cy
                out = 1 - smoothstep(inner, outer, (ex * ex + ey * ey).squareRoot() * scale)
            case .luminance(let lo, let hi, let feather, let linear):
                var luma = 0.2126 * load(r, k) + 0.7152 * load(g, k) + 0.0722 * load(b, k)
                if linear { luma = FastMath.linearToSRGB(luma) }
                let rise = feather > 0 ? smoothstep(lo - feather, lo, luma) : V(repeating: 0).replacing(with: 1, where: luma .>= lo)
                let fall = feather > 0 ? 1 - smoothstep(hi, hi + feather, luma) : V(repeating: 0).replacing(with: 1, where: luma .<= hi)
                out = rise * fall
            }
            UnsafeMutableRawPointer(w + k).storeBytes(of: out, as: V.self)
            k += 8
        }
    }
}
