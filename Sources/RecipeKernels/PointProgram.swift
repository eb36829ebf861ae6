#if canImport(Glibc)
import Glibc
#endif

/// One step of a fused per-pixel program, its constants prepared once per render.
///
/// Ops say what a pixel becomes as a list of these (STYLE.md rule 2); the planner folds and
/// fuses them; `PointProgram` runs a whole run of them in one pass over a strip.
public enum PointStep: Sendable, Hashable {
    /// sRGB-encoded → linear light (sign-symmetric, unclamped).
    case toLinear
    /// Linear light → sRGB-encoded (sign-symmetric, unclamped).
    case toEncoded
    /// out = M·rgb + bias; `m` is row-major 3×4 (the 4th column the bias).
    case matrix([Float])
    /// out = sign(v)·|v|^power on every channel.
    case power(Float)
    /// out = outBlack + (outWhite − outBlack)·max(0, (v − black)/(white − black))^inverseGamma.
    case levels(black: Float, white: Float, inverseGamma: Float, outBlack: Float, outWhite: Float)
    /// out = (tanh(a/2·(v − b)) − s0)/(s1 − s0), s0 and s1 the values at 0 and 1.
    case sigmoid(a: Float, b: Float, s0: Float, s1: Float)
    /// glfx.js vibrance: t = (max − mean)·(−3·amount); rgb = rgb + (max − rgb)·t.
    case vibrance(Float)
    /// out = min(max(v, low), high).
    case clip(low: Float, high: Float)
    /// Per-channel tables on [0, 1] (`size` samples each, channels r, g, b one after the other),
    /// interpolated linearly, extended linearly outside [0, 1] with the end slopes.
    case curves(table: [Float], size: Int)

    /// The 3×4 identity.
    public static let identityMatrix: [Float] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0]

    /// The step in double precision, one pixel at a time: the reference the fused kernel is
    /// tested against.
    public func reference(_ p: SIMD3<Double>) -> SIMD3<Double> {
        func each(_ f: (Double) -> Double) -> SIMD3<Double> { SIMD3(f(p.x), f(p.y), f(p.z)) }
        switch self {
        case .toLinear: return each(SRGB.decode)
        case .toEncoded: return each(SRGB.encode)
        case .matrix(let m):
            let d = m.map(Double.init)
            return SIMD3(d[0] * p.x + d[1] * p.y + d[2] * p.z + d[3],
                         d[4] * p.x + d[5] * p.y + d[6] * p.z + d[7],
                         d[8] * p.x + d[9] * p.y + d[10] * p.z + d[11])
        case .power(let e): return each { $0 < 0 ? -pow(-$0, Double(e)) : pow($0, Double(e)) }
        case .levels(let b, let w, let g, let ob, let ow):
            return each { Double(ob) + Double(ow - ob) * pow(max(0, ($0 - Double(b)) / Double(w - b)), Double(g)) }
        case .sigmoid(let a, let b, let s0, let s1):
            return each { (tanh(Double(a) / 2 * ($0 - Double(b))) - Double(s0)) / Double(s1 - s0) }
        case .vibrance(let amount):
            let mx = max(p.x, p.y, p.z), mean = (p.x + p.y + p.z) / 3
            let t = (mx - mean) * (-3 * Double(amount))
            return each { $0 + (mx - $0) * t }
        case .clip(let lo, let hi): return each { min(max($0, Double(lo)), Double(hi)) }
        case .curves(let table, let size):
            return SIMD3(PointProgram.curve(p.x, table, 0, size), PointProgram.curve(p.y, table, size, size),
                         PointProgram.curve(p.z, table, 2 * size, size))
        }
    }
}

/// A run of point steps executed in one pass over a strip: pixels are taken 64 at a time into
/// three planar float arrays that stay in L1, every step runs over them (a tight loop the
/// compiler vectorises), and they are written back. No intermediate image, no per-pixel dispatch:
/// the `switch` on the step happens once per 64 pixels.
///
/// ```swift
/// let program = PointProgram(steps: [.matrix(m), .toEncoded, .power(0.9)], input: .linear, output: .encoded)
/// program.run(row, pixels: width)          // interleaved RGB UInt8, in place
/// ```
public struct PointProgram: Sendable {
    /// How samples are read and written: as stored (sRGB-encoded) or converted to linear light
    /// on load / from linear light on store (through exact tables, fused into the load and store).
    public enum Space: Sendable, Hashable { case encoded, linear }

    public static let tile = 64

    public let steps: [PointStep]
    public let input: Space
    public let output: Space

    public init(steps: [PointStep], input: Space, output: Space) {
        self.steps = steps
        self.input = input
        self.output = output
    }

    /// Runs the program on `pixels` interleaved RGB 8-bit pixels, in place.
    public func run(_ row: UnsafeMutablePointer<UInt8>, pixels: Int) {
        let planes = UnsafeMutablePointer<Float>.allocate(capacity: 3 * Self.tile)
        defer { planes.deallocate() }
        SRGB.decodeTable8.withUnsafeBufferPointer { decode8 in
            SRGB.decodeTable.withUnsafeBufferPointer { decode in
                SRGB.encodeTable.withUnsafeBufferPointer { encode in
                    let tables = Tables(decode8: decode8.baseAddress!, decode: decode.baseAddress!, encode: encode.baseAddress!)
                    var start = 0
                    while start < pixels {
                        let n = min(Self.tile, pixels - start)
                        let px = row + 3 * start
                        load(px, n, planes, tables)
                        for step in steps { Self.apply(step, planes, n, tables) }
                        store(planes, n, px, tables)
                        start += n
                    }
                }
            }
        }
    }

    /// Runs the steps (not the load/store conversions) on planar float channels, in place.
    public func apply(r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>, count: Int) {
        let planes = UnsafeMutablePointer<Float>.allocate(capacity: 3 * Self.tile)
        defer { planes.deallocate() }
        SRGB.decodeTable8.withUnsafeBufferPointer { decode8 in
            SRGB.decodeTable.withUnsafeBufferPointer { decode in
                SRGB.encodeTable.withUnsafeBufferPointer { encode in
                    let tables = Tables(decode8: decode8.baseAddress!, decode: decode.baseAddress!, encode: encode.baseAddress!)
                    var start = 0
                    while start < count {
                        let n = min(Self.tile, count - start)
                        for (c, src) in [r, g, b].enumerated() { (planes + c * Self.tile).update(from: src + start, count: n) }
                        for step in steps { Self.apply(step, planes, n, tables) }
                        for (c, dst) in [r, g, b].enumerated() { (dst + start).update(from: planes + c * Self.tile, count: n) }
                        start += n
                    }
                }
            }
        }
    }

    /// The tables the steps read, borrowed once per call.
    @usableFromInline
    struct Tables {
        let decode8: UnsafePointer<Float>
        let decode: UnsafePointer<Float>
        let encode: UnsafePointer<Float>
    }

    @inline(__always)
    func load(_ px: UnsafeMutablePointer<UInt8>, _ n: Int, _ planes: UnsafeMutablePointer<Float>, _ t: Tables) {
        let r = planes, g = planes + Self.tile, b = planes + 2 * Self.tile
        if input == .linear {
            for i in 0..<n {
                r[i] = t.decode8[Int(px[3 * i])]
                g[i] = t.decode8[Int(px[3 * i + 1])]
                b[i] = t.decode8[Int(px[3 * i + 2])]
            }
        } else {
            let k: Float = 1 / 255
            for i in 0..<n {
                r[i] = Float(px[3 * i]) * k
                g[i] = Float(px[3 * i + 1]) * k
                b[i] = Float(px[3 * i + 2]) * k
            }
        }
    }

    @inline(__always)
    func store(_ planes: UnsafeMutablePointer<Float>, _ n: Int, _ px: UnsafeMutablePointer<UInt8>, _ t: Tables) {
        for c in 0..<3 {
            let plane = planes + c * Self.tile
            if output == .linear {
                for i in 0..<n { plane[i] = SRGB.encodeClamped(plane[i], table: t.encode) }
            }
            for i in 0..<n {
                let v = min(max(plane[i], 0), 1) * 255 + 0.5
                px[3 * i + c] = UInt8(truncatingIfNeeded: Int32(v))
            }
        }
    }

    @inline(__always)
    static func apply(_ step: PointStep, _ planes: UnsafeMutablePointer<Float>, _ n: Int, _ t: Tables) {
        let r = planes, g = planes + tile, b = planes + 2 * tile
        switch step {
        case .toLinear:
            for c in 0..<3 { let p = planes + c * tile; for i in 0..<n { p[i] = SRGB.decode(p[i], table: t.decode) } }
        case .toEncoded:
            for c in 0..<3 { let p = planes + c * tile; for i in 0..<n { p[i] = SRGB.encode(p[i], table: t.encode) } }
        case .matrix(let m):
            let (m0, m1, m2, m3, m4, m5) = (m[0], m[1], m[2], m[3], m[4], m[5])
            let (m6, m7, m8, m9, m10, m11) = (m[6], m[7], m[8], m[9], m[10], m[11])
            for i in 0..<n {
                let x = r[i], y = g[i], z = b[i]
                r[i] = m0 * x + m1 * y + m2 * z + m3
                g[i] = m4 * x + m5 * y + m6 * z + m7
                b[i] = m8 * x + m9 * y + m10 * z + m11
            }
        case .power(let e):
            for c in 0..<3 { let p = planes + c * tile; for i in 0..<n { let v = p[i]; p[i] = v < 0 ? -powf(-v, e) : powf(v, e) } }
        case .levels(let black, let white, let gamma, let outBlack, let outWhite):
            let scale = 1 / (white - black), range = outWhite - outBlack
            for c in 0..<3 { let p = planes + c * tile;
                for i in 0..<n {
                    let x = max(0, (p[i] - black) * scale)
                    p[i] = outBlack + range * (gamma == 1 ? x : powf(x, gamma))
                }
            }
        case .sigmoid(let a, let mid, let s0, let s1):
            let k = 1 / (s1 - s0)
            for c in 0..<3 { let p = planes + c * tile; for i in 0..<n { p[i] = (tanhf(a / 2 * (p[i] - mid)) - s0) * k } }
        case .vibrance(let amount):
            let k = -3 * amount
            for i in 0..<n {
                let x = r[i], y = g[i], z = b[i]
                let mx = max(x, y, z)
                let tt = (mx - (x + y + z) * (1 / 3)) * k
                r[i] = x + (mx - x) * tt
                g[i] = y + (mx - y) * tt
                b[i] = z + (mx - z) * tt
            }
        case .clip(let lo, let hi):
            for c in 0..<3 { let p = planes + c * tile; for i in 0..<n { p[i] = min(max(p[i], lo), hi) } }
        case .curves(let table, let size):
            table.withUnsafeBufferPointer { tb in
                for c in 0..<3 {
                    let p = planes + c * tile
                    let base = tb.baseAddress! + c * size
                    for i in 0..<n { p[i] = curve(p[i], base, size) }
                }
            }
        }
    }

    /// One channel's curve: table on [0, 1], linear extension with the end slopes.
    @inline(__always)
    static func curve(_ v: Float, _ t: UnsafePointer<Float>, _ size: Int) -> Float {
        let last = size - 1
        let x = v * Float(last)
        if x <= 0 { return t[0] + x * (t[1] - t[0]) }
        if x >= Float(last) { return t[last] + (x - Float(last)) * (t[last] - t[last - 1]) }
        let i = Int(x)
        return t[i] + (x - Float(i)) * (t[i + 1] - t[i])
    }

    /// The double-precision reference of `curve` (same table, same interpolation).
    static func curve(_ v: Double, _ table: [Float], _ offset: Int, _ size: Int) -> Double {
        let t = table[offset..<offset + size].map(Double.init)
        let last = size - 1
        let x = v * Double(last)
        if x <= 0 { return t[0] + x * (t[1] - t[0]) }
        if x >= Double(last) { return t[last] + (x - Double(last)) * (t[last] - t[last - 1]) }
        let i = Int(x)
        return t[i] + (x - Double(i)) * (t[i + 1] - t[i])
    }
}
