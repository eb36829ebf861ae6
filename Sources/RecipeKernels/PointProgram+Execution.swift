// The executor of a fused point pass: `PointProgram.run` over 8-bit, 16-bit and float rows
// (tile buffers, the load and store tables' ends, the colour cache), `apply` over planar floats,
// and the per-step kernels a tile runs (`apply(_ step:…)`, `runBody`, `vectors`, the 1D and 3D
// LUT lookups, `smoothstep`, `curve`). `runsInRows` says which steps may run in a row's own
// planes. The program is built in `PointProgram.swift`, from the steps of `PointStep.swift`.
import RecipeCore
import CKernelsSIMD
#if canImport(Glibc)
import Glibc
#endif

extension PointProgram {
    /// Runs the program on the `pixels` RGB pixels of image row `y` (a whole row: float rows are
    /// planar, their planes `pixels` apart), read from `input` as `from` samples and written to
    /// `output` as `to` samples (8-bit, 16-bit or float; the two may be the same row when the
    /// sample types agree). 8-bit ends go through the load and store tables; 16-bit and float ends
    /// run the head and tail steps per pixel, and float outputs keep every value as it is
    /// (extended range, no clamping: only encoders quantise). A float or 16-bit end runs its
    /// per-channel steps through `ChannelTables`.
    ///
    /// `scratchInput`: a float input row is the caller's to overwrite (a stage's own scratch row
    /// or strip), so the pass may run in its planes on the way to integer output. `cache`: the
    /// calling thread's colour cache, for 8-bit rows to 8-bit rows.
    public func run(_ input: UnsafeRawPointer, from: SampleType, into output: UnsafeMutableRawPointer, to: SampleType,
                    pixels: Int, y: Int = 0, scratchInput: Bool = false, cache: PixelCache? = nil) {
        if from == .uint8 && to == .uint8 {
            run(output.assumingMemoryBound(to: UInt8.self), pixels: pixels, y: y, input: input.assumingMemoryBound(to: UInt8.self),
                cache: cache)
            return
        }
        precondition(from != .uint8 || !loadTable.isEmpty, "PointProgram built without tables cannot read 8-bit rows")
        precondition(to != .uint8 || storeDirect || !storeTable.isEmpty, "PointProgram built without tables cannot write 8-bit rows")
        // Tiles that are slices of a row's own planes (`runsInRows`): of a float output row, which
        // the input is loaded straight into (or is already: a pass inside a neighbourhood stage's
        // emit, run in place), nothing copied out; or of a float input row the caller lets the
        // pass overwrite, nothing copied in.
        let floats = output.assumingMemoryBound(to: Float.self)
        let inOutput = to == .float32 && runsInRows && (from != .float32 || input == UnsafeRawPointer(output))
        let inInput = !inOutput && from == .float32 && scratchInput && runsInRows
        let inRow = inOutput || inInput
        let rowPlanes = inOutput ? floats : UnsafeMutablePointer(mutating: input.assumingMemoryBound(to: Float.self))
        withTileBuffer { buffer in
            let stride = inRow ? pixels : Self.tile
            let headReady = from != .uint8 ? headTables?.tables : nil
            let tailReady = to != .uint8 ? tailTables?.tables : nil
            let body = readyBody()
            var start = 0
            while start < pixels {
                let n = min(Self.tile, pixels - start)
                let planes = inRow ? rowPlanes + start : buffer
                let r = planes, g = planes + stride, b = planes + 2 * stride
                switch from {
                case .uint8:
                    let px = input.assumingMemoryBound(to: UInt8.self) + 3 * start
                    loadTable.withUnsafeBufferPointer { table in
                        loadBytes.withUnsafeBufferPointer { rk_u8_load_bytes(px, $0.baseAddress!, table.baseAddress!, planes, Int32(stride), Int32(n)) }
                    }
                case .uint16:
                    let px = input.assumingMemoryBound(to: UInt16.self) + 3 * start
                    let k: Float = 1 / 65535
                    for i in 0..<n {
                        r[i] = Float(px[3 * i]) * k
                        g[i] = Float(px[3 * i + 1]) * k
                        b[i] = Float(px[3 * i + 2]) * k
                    }
                case .float32:
                    if !inRow { rk_copy_planes(input.assumingMemoryBound(to: Float.self) + start, pixels, planes, Self.tile, Int32(n)) }
                }
                headReady?.apply(planes, count: n, tile: stride)
                Self.runBody(body, planes, n, x: start, y: y, stride: stride)
                tailReady?.apply(planes, count: n, tile: stride)
                switch to {
                case .uint8:
                    withStoreTables { store($0, $1, planes, n, output.assumingMemoryBound(to: UInt8.self) + 3 * start, stride: stride) }
                case .uint16:
                    let px = output.assumingMemoryBound(to: UInt16.self) + 3 * start
                    for i in 0..<n {
                        px[3 * i] = SampleConversion.quantize16(r[i])
                        px[3 * i + 1] = SampleConversion.quantize16(g[i])
                        px[3 * i + 2] = SampleConversion.quantize16(b[i])
                    }
                case .float32:
                    if !inOutput { rk_copy_planes(planes, stride, floats + start, pixels, Int32(n)) }
                }
                start += n
            }
        }
    }

    /// Runs the program on `pixels` interleaved RGB 8-bit pixels of image row `y`, in place
    /// (or from `input` when given). With a `cache` (the calling thread's, used where
    /// `cachesColours`), the row's colours found there take their codes from it and the steps
    /// run on the others alone: the same bytes.
    public func run(_ row: UnsafeMutablePointer<UInt8>, pixels: Int, y: Int = 0, input: UnsafePointer<UInt8>? = nil,
                    cache: PixelCache? = nil) {
        precondition(!loadTable.isEmpty, "PointProgram built without tables cannot run on 8-bit rows")
        let body = readyBody()
        let cache = cachesColours ? cache : nil
        withTileBuffer { planes in
            loadTable.withUnsafeBufferPointer { load in
                loadBytes.withUnsafeBufferPointer { bytes in
                    withStoreTables { store, search in
                        // `count` pixels from `source` through load, body and store into `output`,
                        // a tile at a time; pixel k at column x + k.
                        func pass(_ source: UnsafePointer<UInt8>, _ output: UnsafeMutablePointer<UInt8>, _ count: Int, x: Int) {
                            var start = 0
                            while start < count {
                                let n = min(Self.tile, count - start)
                                rk_u8_load_bytes(source + 3 * start, bytes.baseAddress!, load.baseAddress!, planes, Int32(Self.tile), Int32(n))
                                Self.runBody(body, planes, n, x: x + start, y: y)
                                self.store(store, search, planes, n, output + 3 * start)
                                start += n
                            }
                        }
                        let source = UnsafePointer(input ?? UnsafePointer(row))
                        guard let cache, pixels <= PixelCache.widest, cache.looksUp(pixels) else {
                            pass(source, row, pixels, x: 0)
                            return
                        }
                        if !cache.prefilled {
                            // Every entry starts valid: the codes of the colours the entries are
                            // for, rendered here (65,536 pixels; no step reads the position).
                            let count = 1 << Int(RK_CACHE_BITS)
                            let colours = UnsafeMutablePointer<UInt8>.allocate(capacity: 6 * count), codes = colours + 3 * count
                            defer { colours.deallocate() }
                            rk_u8_cache_prefill_colours(colours)
                            pass(colours, codes, count, x: 0)
                            rk_u8_cache_prefill(cache.entries, codes)
                            cache.prefilled = true
                        }
                        // The row looked up, then its misses run through the steps packed into
                        // full tiles (the kernels' fast paths), then filed.
                        cache.reserve(pixels)
                        let misses = Int(rk_u8_cache_lookup(source, Int32(pixels), cache.entries, row, cache.missPixels, cache.missIndices))
                        cache.record(pixels, missed: misses)
                        pass(cache.missPixels, cache.missOutput, misses, x: 0)
                        rk_u8_cache_fill(cache.missPixels, cache.missOutput, cache.missIndices, Int32(misses), cache.entries, row)
                    }
                }
            }
        }
    }

    /// A tile buffer of six planes (the three a pass works in, the three a saved input takes)
    /// for `body`, on the stack. Zeroed only for a program whose steps read past a tile's `n`
    /// (the trilinear 3D lookup's whole vectors, a saved input's whole planes: the programs that
    /// do not run in rows); every other step reads and writes the tile's values alone, so a row
    /// no longer pays 6 KiB of zeroes and a heap allocation.
    @inline(__always)
    func withTileBuffer<R>(_ body: (UnsafeMutablePointer<Float>) -> R) -> R {
        withUnsafeTemporaryAllocation(of: Float.self, capacity: 6 * Self.tile) { buffer in
            if !runsInRows { buffer.initialize(repeating: 0) }
            return body(buffer.baseAddress!)
        }
    }

    /// The store table and its search thresholds (nil when empty) for `store`.
    @inline(__always)
    func withStoreTables<R>(_ body: (UnsafePointer<UInt8>?, UnsafePointer<UInt16>?) -> R) -> R {
        storeTable.withUnsafeBufferPointer { table in
            storeSearch.withUnsafeBufferPointer { search in
                body(table.isEmpty ? nil : table.baseAddress, search.isEmpty ? nil : search.baseAddress)
            }
        }
    }

    @inline(__always)
    func store(_ table: UnsafePointer<UInt8>?, _ search: UnsafePointer<UInt16>?, _ planes: UnsafeMutablePointer<Float>, _ n: Int,
               _ px: UnsafeMutablePointer<UInt8>, stride: Int = tile) {
        if storeDirect {
            rk_u8_store_direct(planes, Int32(stride), Int32(n), px)
            return
        }
        let table = table!
        if storeClampSafe {
            // Clamp, scale, round to the nearest index, look up (or search), interleave: in C
            // (see rk_u8_store).
            rk_u8_store(planes, Int32(stride), Int32(n), table, Int32(Self.storeLevels), search, px)
            return
        }
        let top = Float(Self.storeLevels - 1)
        for c in 0..<3 {
            let plane = planes + c * stride
            let t = table + c * Self.storeLevels
            for i in 0..<n {
                let v = plane[i]
                if v >= 0 && v <= 1 {
                    px[3 * i + c] = t[Int(v * top + 0.5)]
                } else {
                    // Outside [0, 1] with a tail that does not clamp cleanly: the steps themselves.
                    var p = SIMD3<Double>(repeating: Double(v))
                    for step in tail { p = step.reference(p) }
                    px[3 * i + c] = SampleConversion.quantize8(Float(p.x))
                }
            }
        }
    }

    /// Runs every step on planar float channels, in place (no tables: the float path the tests
    /// and the unfused plan use).
    public func apply(r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>, count: Int,
                      width: Int = .max, firstRow: Int = 0) {
        let planes = UnsafeMutablePointer<Float>.allocate(capacity: 6 * Self.tile)
        planes.initialize(repeating: 0, count: 6 * Self.tile)
        defer { planes.deallocate() }
        var start = 0
        while start < count {
            // Tiles never cross a row, so positional steps see one y per tile.
            let column = width == .max ? start : start % width
            let n = min(Self.tile, count - start, width == .max ? .max : width - column)
            (planes).update(from: r + start, count: n)
            (planes + Self.tile).update(from: g + start, count: n)
            (planes + 2 * Self.tile).update(from: b + start, count: n)
            for step in steps { Self.apply(step, planes, n, x: column, y: width == .max ? firstRow : firstRow + start / width) }
            (r + start).update(from: planes, count: n)
            (g + start).update(from: planes + Self.tile, count: n)
            (b + start).update(from: planes + 2 * Self.tile, count: n)
            start += n
        }
    }

    /// Runs the body on a tile whose planes are `stride` floats apart.
    @inline(__always)
    static func runBody(_ body: [ReadyRun], _ planes: UnsafeMutablePointer<Float>, _ n: Int, x: Int, y: Int, stride: Int = tile) {
        for piece in body {
            switch piece {
            case .step(let step): apply(step, planes, n, x: x, y: y, stride: stride)
            case .matrix(let m): rk_matrix_planes(planes, Int32(stride), Int32(n), m)
            case .tables(let tables): tables._withUnsafeGuaranteedRef { $0.apply(planes, count: n, tile: stride) }
            }
        }
    }

    /// Whether `step` runs on a tile that is part of a row's planes (`stride` apart, no spare
    /// floats after the tile's `n`): it touches only the tile's values and needs no planes
    /// beyond the three (a saved input and a mask's mix do, as does the trilinear 3D lookup,
    /// which reads whole vectors past `n`).
    static func runsInRows(_ step: PointStep) -> Bool {
        switch step {
        case .saveInput, .maskMix: false
        case .lut(let lut, let tetrahedral, _): !(lut.kind == .threeD && lut.shaper == nil && !tetrahedral)
        default: true
        }
    }

    /// `step` on a tile of `n` pixels whose planes are `stride` floats apart (a tile buffer's
    /// `tile`, or a row's width when the tile is part of the row: `runsInRows`).
    @inline(__always)
    static func apply(_ step: PointStep, _ planes: UnsafeMutablePointer<Float>, _ n: Int, x: Int, y: Int, stride: Int = tile) {
        let r = planes, g = planes + stride, b = planes + 2 * stride
        switch step {
        case .toLinear:
            vectors(planes, n, stride) { FastMath.srgbToLinear($0) }
        case .toEncoded:
            vectors(planes, n, stride) { FastMath.linearToSRGB($0) }
        case .matrix(let m):
            m.withUnsafeBufferPointer { rk_matrix_planes(planes, Int32(stride), Int32(n), $0.baseAddress!) }
        case .power(let e):
            vectors(planes, n, stride) { FastMath.pow($0, e) }
        case .levels(let black, let white, let gamma, let outBlack, let outWhite):
            let scale = 1 / (white - black), range = outWhite - outBlack
            if gamma == 1 {
                for c in 0..<3 { let p = planes + c * stride; for i in 0..<n { p[i] = outBlack + range * max(0, (p[i] - black) * scale) } }
            } else {
                vectors(planes, n, stride) { v in
                    var x = (v - black) * scale
                    x = x.replacing(with: 0, where: x .< 0)
                    return range * FastMath.pow(x, gamma) + outBlack
                }
            }
        case .sigmoid(let a, let mid, let s0, let s1):
            let k = 1 / (s1 - s0), half = a / 2
            vectors(planes, n, stride) { (FastMath.tanh(half * ($0 - mid)) - s0) * k }
        case .vibrance(let amount):
            // In C (`rk_vibrance`, the Swift loop's operations eight lanes at a time: the compiler
            // left the Swift loop scalar).
            rk_vibrance(r, g, b, Int32(n), amount)
        case .colorMixer(let mixer):
            mixer.apply(r, g, b, count: n)
        case .colorGrade(let grade):
            grade.apply(r, g, b, count: n)
        case .clip(let lo, let hi):
            for c in 0..<3 { let p = planes + c * stride; for i in 0..<n { p[i] = min(max(p[i], lo), hi) } }
        case .vignette(let amount, let inner, let outer, let cx, let cy, let scale, let encoded):
            // The gains of the tile's pixels (`rk_vignette_gains`), then on linear light a product,
            // on encoded values `EncodedGain`.
            let dy = (Float(y) + 0.5 - cy)
            withUnsafeTemporaryAllocation(of: Float.self, capacity: tile) { buffer in
                let gains = buffer.baseAddress!
                rk_vignette_gains(gains, Int32(n), Int32(x), dy * dy, cx, scale, inner, outer, amount)
                if encoded {
                    EncodedGain.apply(r, g, b, gains: gains, count: n)
                } else {
                    rk_scale_planes(r, g, b, gains, Int32(n))
                }
            }
        case .radialGain(let terms, let divide, let cx, let cy, let scale):
            // The polynomial in r² per pixel (Horner), its inverse for lensfun's model.
            let dy = (Float(y) + 0.5 - cy) * scale, dy2 = dy * dy
            withUnsafeTemporaryAllocation(of: Float.self, capacity: tile) { buffer in
                let gains = buffer.baseAddress!
                for i in 0..<n {
                    let dx = (Float(x + i) + 0.5 - cx) * scale, r2 = dx * dx + dy2
                    var poly: Float = 0
                    for t in terms.reversed() { poly = (poly + t) * r2 }
                    gains[i] = divide ? 1 / (1 + poly) : 1 + poly
                }
                rk_scale_planes(r, g, b, gains, Int32(n))
            }
        case .saveInput:
            (planes + 3 * tile).update(from: planes, count: 3 * tile)
        case .maskMix(let shape, let invert, let amount):
            let sr = planes + 3 * tile, sg = planes + 4 * tile, sb = planes + 5 * tile
            withUnsafeTemporaryAllocation(of: Float.self, capacity: tile) { weights in
                let wp = weights.baseAddress!
                shape.weights(x0: x, y: Float(y) + 0.5, r: sr, g: sg, b: sb, count: n, into: wp)
                for i in 0..<n {
                    var w = wp[i]
                    if invert { w = 1 - w }
                    w *= amount
                    r[i] = sr[i] + (r[i] - sr[i]) * w
                    g[i] = sg[i] + (g[i] - sg[i]) * w
                    b[i] = sb[i] + (b[i] - sb[i]) * w
                }
            }
        case .lut(let lut, let tetrahedral, let amount):
            lut.table.withUnsafeBufferPointer { t in
                if lut.kind == .threeD && lut.shaper == nil {
                    lookup3D(lut, t.baseAddress!, planes, n, tetrahedral, amount, stride: stride)
                    return
                }
                for i in 0..<n {
                    let p = SIMD3<Float>(r[i], g[i], b[i])
                    let out = lookup(lut, t.baseAddress!, p, tetrahedral)
                    let mixed = p + (out - p) * amount
                    r[i] = mixed.x
                    g[i] = mixed.y
                    b[i] = mixed.z
                }
            }
        case .colorTransform(let transform):
            transform.apply(r, g, b, n)
        case .curves(let table, let size):
            table.withUnsafeBufferPointer { tb in
                for c in 0..<3 {
                    let p = planes + c * stride
                    let base = tb.baseAddress! + c * size
                    for i in 0..<n { p[i] = curve(p[i], base, size) }
                }
            }
        }
    }

    /// Applies `f` to the three planes (`stride` floats apart) eight values at a time; the last
    /// few values through a padded vector, so nothing past `n` is read or written (a tile may
    /// be part of a row). `f` works lane by lane: the padding changes no value.
    @inline(__always)
    static func vectors(_ planes: UnsafeMutablePointer<Float>, _ n: Int, _ stride: Int, _ f: (FastMath.V) -> FastMath.V) {
        let raw = UnsafeMutableRawPointer(planes)
        let whole = n / 8, rest = n % 8
        for c in 0..<3 {
            for k in 0..<whole {
                let offset = (c * stride + 8 * k) * MemoryLayout<Float>.stride
                raw.storeBytes(of: f(raw.loadUnaligned(fromByteOffset: offset, as: FastMath.V.self)), toByteOffset: offset, as: FastMath.V.self)
            }
            if rest > 0 {
                let p = planes + c * stride + 8 * whole
                var v = FastMath.V(repeating: 0)
                for i in 0..<rest { v[i] = p[i] }
                v = f(v)
                for i in 0..<rest { p[i] = v[i] }
            }
        }
    }

    /// The float twin of `CubeLUT.lookup` for the kernel (same cell choice and weights).
    @inline(__always)
    static func lookup(_ lut: CubeLUT, _ t: UnsafePointer<Float>, _ p: SIMD3<Float>, _ tetrahedral: Bool) -> SIMD3<Float> {
        var p = p
        if let s = lut.shaper {
            let sTop = Float(s.size - 1)
            for c in 0..<3 {
                let v = (p[c] - s.domainMin) / (s.domainMax - s.domainMin) * sTop
                let x = v > 0 ? min(v, sTop) : 0  // NaN to 0 too: Int(NaN) would trap
                let i = min(Int(x), s.size - 2), f = x - Float(i)
                p[c] = s.table[3 * i + c] * (1 - f) + s.table[3 * (i + 1) + c] * f
            }
        }
        let n = lut.size, top = Float(n - 1)
        var q = (p - lut.domainMin) / (lut.domainMax - lut.domainMin) * top
        q = q.replacing(with: 0, where: .!(q .> 0))
        q = q.replacing(with: top, where: q .> top)
        if lut.kind == .oneD {
            var out = SIMD3<Float>()
            for c in 0..<3 {
                let i = min(Int(q[c]), n - 2), f = q[c] - Float(i)
                out[c] = t[3 * i + c] * (1 - f) + t[3 * (i + 1) + c] * f
            }
            return out
        }
        let i = min(Int(q.x), n - 2), j = min(Int(q.y), n - 2), k = min(Int(q.z), n - 2)
        return interpolate(t, base: i + n * j + n * n * k, q.x - Float(i), q.y - Float(j), q.z - Float(k), size: n, tetrahedral)
    }

    /// The 3D table's value in the cell whose low corner is entry `base`, at fractions (fr, fg, fb)
    /// along r, g, b: tetrahedral (the tetrahedron the fractions' order picks, FilmLight TN-0057)
    /// or trilinear.
    @inline(__always)
    static func interpolate(_ t: UnsafePointer<Float>, base: Int, _ fr: Float, _ fg: Float, _ fb: Float, size n: Int,
                            _ tetrahedral: Bool) -> SIMD3<Float> {
        @inline(__always) func entry(_ i: Int) -> SIMD3<Float> { SIMD3(t[3 * i], t[3 * i + 1], t[3 * i + 2]) }
        let dr = 1, dg = n, db = n * n
        if !tetrahedral {
            let c00 = entry(base) * (1 - fr) + entry(base + dr) * fr, c10 = entry(base + dg) * (1 - fr) + entry(base + dr + dg) * fr
            let c01 = entry(base + db) * (1 - fr) + entry(base + dr + db) * fr, c11 = entry(base + dg + db) * (1 - fr) + entry(base + dr + dg + db) * fr
            return (c00 * (1 - fg) + c10 * fg) * (1 - fb) + (c01 * (1 - fg) + c11 * fg) * fb
        }
        let c000 = entry(base), c111 = entry(base + dr + dg + db)
        if fr > fg {
            if fg > fb { return c000 * (1 - fr) + entry(base + dr) * (fr - fg) + entry(base + dr + dg) * (fg - fb) + c111 * fb }
            if fr > fb { return c000 * (1 - fr) + entry(base + dr) * (fr - fb) + entry(base + dr + db) * (fb - fg) + c111 * fg }
            return c000 * (1 - fb) + entry(base + db) * (fb - fr) + entry(base + dr + db) * (fr - fg) + c111 * fg
        }
        if fb > fg { return c000 * (1 - fb) + entry(base + db) * (fb - fg) + entry(base + dg + db) * (fg - fr) + c111 * fr }
        if fb > fr { return c000 * (1 - fg) + entry(base + dg) * (fg - fb) + entry(base + dg + db) * (fb - fr) + c111 * fr }
        return c000 * (1 - fg) + entry(base + dg) * (fg - fr) + entry(base + dr + dg) * (fr - fb) + c111 * fb
    }

    /// `lookup` for a 3D table without a shaper over a tile, eight pixels at a time for the cell
    /// coordinates (scale, clamp, integer part, fraction), then pixel by pixel for the corners
    /// (same cell choice and weights, so the same values to within a float rounding).
    @inline(__always)
    static func lookup3D(_ lut: CubeLUT, _ t: UnsafePointer<Float>, _ planes: UnsafeMutablePointer<Float>, _ n: Int,
                         _ tetrahedral: Bool, _ amount: Float, stride: Int = tile) {
        typealias V = SIMD8<Float>
        let size = lut.size, top = Float(size - 1)
        let scale = top / (lut.domainMax - lut.domainMin)
        if tetrahedral {
            // In C: the corners as vectors (see rk_lut3d_tetrahedral), the same values.
            var ends = (lut.domainMin.x, lut.domainMin.y, lut.domainMin.z, scale.x, scale.y, scale.z)
            withUnsafeBytes(of: &ends) { e in
                let f = e.bindMemory(to: Float.self).baseAddress!
                rk_lut3d_tetrahedral(t, Int32(size), planes, Int32(stride), Int32(n), f, f + 3, amount)
            }
            return
        }
        let (s0, s1, s2) = (V(repeating: scale.x), V(repeating: scale.y), V(repeating: scale.z))
        let (m0, m1, m2) = (V(repeating: lut.domainMin.x), V(repeating: lut.domainMin.y), V(repeating: lut.domainMin.z))
        let last = V(repeating: Float(size - 2))
        @inline(__always) func cell(_ v: V, _ min: V, _ scale: V) -> (SIMD8<UInt32>, V) {
            // Clamped to [0, top] with NaN to 0, as `lookup`'s comparisons do; the cell's low
            // corner is at most size − 2, so the top end has fraction 1 in the last cell.
            let q = FastMath.clamp((v - min) * scale, upTo: top)
            let (low, index) = SRGB.floor22(q.replacing(with: last, where: q .> last))
            return (index, q - low)
        }
        assert(stride == tile, "the trilinear lookup reads whole vectors past n: tile buffers only (runsInRows)")
        let r = planes, g = planes + tile, b = planes + 2 * tile
        let raw = UnsafeMutableRawPointer(planes)
        let dg = size, db = size * size
        var k = 0
        while k < n {
            let x = raw.loadUnaligned(fromByteOffset: 4 * k, as: V.self)
            let y = raw.loadUnaligned(fromByteOffset: 4 * (tile + k), as: V.self)
            let z = raw.loadUnaligned(fromByteOffset: 4 * (2 * tile + k), as: V.self)
            let (ir, fr8) = cell(x, m0, s0), (ig, fg8) = cell(y, m1, s1), (ib, fb8) = cell(z, m2, s2)
            let base8 = ir &+ ig &* UInt32(dg) &+ ib &* UInt32(db)
            for j in 0..<Swift.min(8, n - k) {
                let out = interpolate(t, base: Int(base8[j]), fr8[j], fg8[j], fb8[j], size: size, tetrahedral)
                let i = k + j
                r[i] += (out.x - r[i]) * amount
                g[i] += (out.y - g[i]) * amount
                b[i] += (out.z - b[i]) * amount
            }
            k += 8
        }
    }

    /// smoothstep(e0, e1, x): 0 below e0, 1 above e1, 3t² − 2t³ between; a step when e0 = e1.
    static func smoothstep(_ e0: Double, _ e1: Double, _ x: Double) -> Double {
        guard e1 > e0 else { return x >= e1 ? 1 : 0 }
        let t = min(max((x - e0) / (e1 - e0), 0), 1)
        return t * t * (3 - 2 * t)
    }

    /// One channel's curve: table on [0, 1], linear extension with the end slopes.
    @inline(__always)
    static func curve(_ v: Float, _ t: UnsafePointer<Float>, _ size: Int) -> Float {
        let last = size - 1
        let x = v * Float(last)
        if x.isNaN { return x }  // Int(NaN) would trap
        if x <= 0 { return t[0] + x * (t[1] - t[0]) }
        if x >= Float(last) { return t[last] + (x - Float(last)) * (t[last] - t[last - 1]) }
        let i = Int(x)
        return t[i] + (x - Float(i)) * (t[i + 1] - t[i])
    }

    /// The double-precision reference of `curve` (same table, same interpolation).
    static func curve(_ v: Double, _ table: [Float], _ offset: Int, _ size: Int) -> Double {
        // Indexed in place: the load and store tables call this 65,536 times per channel.
        func t(_ i: Int) -> Double { Double(table[offset + i]) }
        let last = size - 1
        let x = v * Double(last)
        if x.isNaN { return x }  // Int(NaN) would trap
        if x <= 0 { return t(0) + x * (t(1) - t(0)) }
        if x >= Double(last) { return t(last) + (x - Double(last)) * (t(last) - t(last - 1)) }
        let i = Int(x)
        return t(i) + (x - Double(i)) * (t(i + 1) - t(i))
    }
}
