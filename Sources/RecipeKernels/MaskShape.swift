/// Where a masked stage applies, per pixel: a weight in 0…1 with which the stage's result is
/// mixed into its input. Positions are pixel centres on the canvas the stage runs on.
public enum MaskShape: Sendable, Hashable {
    /// 1 at `from`, falling linearly to 0 at `to` (both in pixels), constant beyond.
    case gradient(fromX: Float, fromY: Float, toX: Float, toY: Float)
    /// 1 inside radius·(1 − feather), smoothly 0 at radius; distances over `scale` pixels.
    case radial(cx: Float, cy: Float, inner: Float, outer: Float, scale: Float)
    /// On the input's encoded Rec.709 luma: 1 between min and max, smooth over `feather` outside.
    case luminance(min: Float, max: Float, feather: Float, inputIsLinear: Bool)
    /// On the input's OKLCh hue, chroma and lightness (`ColorRange`).
    case color(ColorRange)
    /// A grey image's values, stretched over the canvas (`RasterMask`).
    indirect case raster(RasterMask)
    /// The product of the parts' weights: where every part selects (an intersection).
    indirect case all([MaskPart])
    /// The largest of the parts' weights: where any part selects (a union).
    indirect case any([MaskPart])

    /// A band's weight in double precision: 1 in [low, high], smoothstep(low − feather, low, v)
    /// below and 1 − smoothstep(high, high + feather, v) above, hard edges with no feather (the
    /// luminance mask's, and each of the colour range's chroma and lightness).
    static func band(_ v: Double, _ low: Float, _ high: Float, _ feather: Float) -> Double {
        let rise = feather > 0 ? PointProgram.smoothstep(Double(low - feather), Double(low), v) : (v >= Double(low) ? 1 : 0)
        let fall = feather > 0 ? 1 - PointProgram.smoothstep(Double(high), Double(high + feather), v) : (v <= Double(high) ? 1 : 0)
        return rise * fall
    }

    /// The kind's name, as plans print it (`all(color, gradient inverted)`).
    public var name: String {
        switch self {
        case .gradient: "gradient"
        case .radial: "radial"
        case .luminance: "luminance"
        case .color: "color"
        case .raster: "image"
        case .all(let parts), .any(let parts):
            (readsAll ? "all(" : "any(") + parts.map { $0.shape.name + ($0.invert ? " inverted" : "") }.joined(separator: ", ") + ")"
        }
    }

    private var readsAll: Bool { if case .all = self { true } else { false } }

    /// Whether the weight depends on the pixel's position (a gradient, a radial, a combination
    /// holding one).
    public var readsPosition: Bool {
        switch self {
        case .gradient, .radial, .raster: true
        case .luminance, .color: false
        case .all(let parts), .any(let parts): parts.contains { $0.shape.readsPosition }
        }
    }

    /// The shape on a canvas `fx`×`fy` as large (`PointStep.laidOut`): positions scale by the
    /// factors, distances by `f` (their geometric mean).
    public func laidOut(_ fx: Float, _ fy: Float, _ f: Float) -> MaskShape {
        switch self {
        case .gradient(let fromX, let fromY, let toX, let toY):
            .gradient(fromX: fromX * fx, fromY: fromY * fy, toX: toX * fx, toY: toY * fy)
        case .radial(let cx, let cy, let inner, let outer, let scale):
            .radial(cx: cx * fx, cy: cy * fy, inner: inner, outer: outer, scale: scale / f)
        case .raster(let m): .raster(m.laidOut(fx, fy))
        case .luminance, .color: self
        case .all(let parts): .all(parts.map { $0.with($0.shape.laidOut(fx, fy, f)) })
        case .any(let parts): .any(parts.map { $0.with($0.shape.laidOut(fx, fy, f)) })
        }
    }

    /// The shape on a window whose top-left pixel is the canvas's (`dx`, `dy`).
    public func translated(_ dx: Float, _ dy: Float) -> MaskShape {
        switch self {
        case .gradient(let fromX, let fromY, let toX, let toY):
            .gradient(fromX: fromX - dx, fromY: fromY - dy, toX: toX - dx, toY: toY - dy)
        case .radial(let cx, let cy, let inner, let outer, let scale):
            .radial(cx: cx - dx, cy: cy - dy, inner: inner, outer: outer, scale: scale)
        case .raster(let m): .raster(m.translated(dx, dy))
        case .luminance, .color: self
        case .all(let parts): .all(parts.map { $0.with($0.shape.translated(dx, dy)) })
        case .any(let parts): .any(parts.map { $0.with($0.shape.translated(dx, dy)) })
        }
    }

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
            return Float(Self.band(Double(luma), lo, hi, feather))
        case .color(let range):
            return Float(range.weight(SIMD3<Double>(rgb)))
        case .raster(let m):
            return m.weight(x: Int(x.rounded(.down)), y: Int(y.rounded(.down)))
        case .all(let parts):
            return parts.reduce(1) { $0 * $1.weight(x: x, y: y, rgb: rgb) }
        case .any(let parts):
            return parts.reduce(0) { Swift.max($0, $1.weight(x: x, y: y, rgb: rgb)) }
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
        switch self {
        case .raster(let m):
            m.weights(x0: x0, y: Int(y.rounded(.down)), count: count, into: w)
            return
        case .color(let range):
            if range.inputIsLinear {
                range.weights(linear: r, g, b, count: count, into: w)
                return
            }
            // The mask reads linear light: the encoded values decoded first, eight at a time.
            let padded = (count + 7) & ~7
            withUnsafeTemporaryAllocation(of: Float.self, capacity: 3 * padded) { buffer in
                let lin = buffer.baseAddress!
                for (c, plane) in [r, g, b].enumerated() {
                    var k = 0
                    while k < count {
                        UnsafeMutableRawPointer(lin + c * padded + k).storeBytes(
                            of: FastMath.srgbToLinear(UnsafeRawPointer(plane + k).loadUnaligned(as: V.self)), as: V.self)
                        k += 8
                    }
                }
                range.weights(linear: lin, lin + padded, lin + 2 * padded, count: count, into: w)
            }
            return
        case .all(let parts), .any(let parts):
            let all: Bool
            if case .all = self { all = true } else { all = false }
            let padded = (count + 7) & ~7
            withUnsafeTemporaryAllocation(of: Float.self, capacity: padded) { buffer in
                let part = buffer.baseAddress!
                for (i, p) in parts.enumerated() {
                    p.weights(x0: x0, y: y, r: r, g: g, b: b, count: count, into: i == 0 ? w : part)
                    guard i > 0 else { continue }
                    for k in 0..<count { w[k] = all ? w[k] * part[k] : Swift.max(w[k], part[k]) }
                }
            }
            return
        default: break
        }
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
            case .color, .raster, .all, .any:
                return  // done above
            }
            UnsafeMutableRawPointer(w + k).storeBytes(of: out, as: V.self)
            k += 8
        }
    }
}

/// One mask of a combination (`MaskShape.all`, `.any`) with its own `invert` and `amount`.
public struct MaskPart: Sendable, Hashable {
    public var shape: MaskShape
    public var invert: Bool
    public var amount: Float

    public init(shape: MaskShape, invert: Bool, amount: Float) {
        self.shape = shape
        self.invert = invert
        self.amount = amount
    }

    func with(_ shape: MaskShape) -> MaskPart { MaskPart(shape: shape, invert: invert, amount: amount) }

    /// The part's weight: the shape's, inverted when asked, times its amount.
    public func weight(x: Float, y: Float, rgb: SIMD3<Float>) -> Float {
        let w = shape.weight(x: x, y: y, rgb: rgb)
        return (invert ? 1 - w : w) * amount
    }

    /// `MaskShape.weights` with the part's invert and amount.
    func weights(x0: Int, y: Float, r: UnsafePointer<Float>, g: UnsafePointer<Float>, b: UnsafePointer<Float>,
                 count: Int, into w: UnsafeMutablePointer<Float>) {
        shape.weights(x0: x0, y: y, r: r, g: g, b: b, count: count, into: w)
        for k in 0..<count { w[k] = (invert ? 1 - w[k] : w[k]) * amount }
    }
}
