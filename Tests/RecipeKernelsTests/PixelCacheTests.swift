import CKernelsSIMD
import Glibc
import RecipeCore
@testable import RecipeKernels
import Testing

/// The fused 8-bit pass's colour cache: the lookup kernels agree, and a pass run through a cache
/// gives the bytes of the pass run without one, whatever the cache holds or decides.
@Suite("colour cache")
struct PixelCacheTests {
    /// Rows of `width` pixels in which colours repeat as in a photo: a smooth field with small
    /// steps, quantised, so neighbours often share a colour and the same colours come back row
    /// after row; `noise` mixes in random pixels.
    static func rows(width: Int, height: Int, noise: Double = 0, seed: UInt64 = 7) -> [UInt8] {
        var s = seed
        func random() -> UInt64 {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17
            return s
        }
        var px = [UInt8](repeating: 0, count: 3 * width * height)
        for y in 0..<height {
            for x in 0..<width {
                let i = 3 * (y * width + x)
                if noise > 0, Double(random() % 1000) < noise * 1000 {
                    px[i] = UInt8(truncatingIfNeeded: random()); px[i + 1] = UInt8(truncatingIfNeeded: random()); px[i + 2] = UInt8(truncatingIfNeeded: random())
                    continue
                }
                px[i] = UInt8((x / 7 + y / 5) % 256)
                px[i + 1] = UInt8((x / 11 * 3 + y / 9) % 256)
                px[i + 2] = UInt8((120 + x / 13 - y / 17 + 256) % 256)
            }
        }
        return px
    }

    /// A pass that takes the cache: a colour conversion's matrix, then a contrast between the
    /// transfer curves (a run of curves in the body, as a Display P3 photo's does), then a matrix.
    static let steps: [PointStep] = [
        .toLinear, .matrix([1.2249, -0.2247, 0, 0, -0.0421, 1.0419, 0, 0, -0.0196, -0.0786, 1.0982, 0]),
        .toEncoded, .matrix([1.15, 0, 0, -0.075, 0, 1.15, 0, -0.075, 0, 0, 1.15, -0.075]), .toLinear,
        .matrix([1.31, -0.227, -0.023, 0, -0.064, 1.085, -0.022, 0, -0.06, -0.2, 1.2, 0]), .toEncoded, .power(0.9),
    ]

    /// `program` over `px` row by row, with `cache` when given; the bytes.
    static func render(_ program: PointProgram, _ px: [UInt8], width: Int, cache: PixelCache?) -> [UInt8] {
        var out = px
        out.withUnsafeMutableBufferPointer { p in
            for y in 0..<(px.count / (3 * width)) {
                program.run(p.baseAddress! + 3 * y * width, pixels: width, y: y, cache: cache)
            }
        }
        return out
    }

    @Test("the lookup with AVX-512 finds and misses what the scalar lookup does, at every count, in place or not")
    func lookupKernels() {
        let cacheWords = 1 << Int(RK_CACHE_BITS)
        let px = Self.rows(width: 1000, height: 4, noise: 0.3)
        // A cache holding every other colour of the first row, each filed with codes made from its
        // own (so a wrong entry's bytes show).
        let table = UnsafeMutablePointer<UInt32>.allocate(capacity: cacheWords)
        table.initialize(repeating: 0, count: cacheWords)
        defer { table.deallocate() }
        var filed: [UInt8] = [], filedOut: [UInt8] = [], filedAt: [UInt16] = []
        for i in stride(from: 0, to: 1000, by: 2) {
            filed += px[(3 * i)..<(3 * i + 3)]
            filedOut += [px[3 * i + 1] &+ 1, px[3 * i + 2] &+ 2, px[3 * i] &+ 3]
            filedAt.append(UInt16(filedAt.count))
        }
        var sink = [UInt8](repeating: 0, count: filed.count)
        rk_u8_cache_fill(filed, filedOut, filedAt, Int32(filedAt.count), table, &sink)
        let filledRight = sink == filedOut
        #expect(filledRight, "the fill writes the misses' codes at their indices")
        for count in [1, 15, 16, 17, 63, 64, 65, 100, 255, 256, 1000, 2001, 4000] {
            for inPlace in [false, true] {
                var results: [([UInt8], [UInt8], [UInt16], Int32)] = []
                for scalar in [false, true] {
                    var out = inPlace ? Array(px[0..<(3 * count)]) : [UInt8](repeating: 0xAA, count: 3 * count)
                    var missPx = [UInt8](repeating: 0, count: 3 * count), missAt = [UInt16](repeating: 0, count: count)
                    let input = Array(px[0..<(3 * count)])
                    let misses = input.withUnsafeBufferPointer { inp in
                        out.withUnsafeMutableBufferPointer { o in
                            let source = inPlace ? UnsafePointer(o.baseAddress!) : inp.baseAddress!
                            return scalar ? rk_u8_cache_lookup_without_avx512(source, Int32(count), table, o.baseAddress!, &missPx, &missAt)
                                : rk_u8_cache_lookup(source, Int32(count), table, o.baseAddress!, &missPx, &missAt)
                        }
                    }
                    // The misses' bytes of `out` are the fill's to write: compare the hits'.
                    for k in 0..<Int(misses) { for c in 0..<3 { out[3 * Int(missAt[k]) + c] = 0 } }
                    results.append((out, Array(missPx[0..<(3 * Int(misses))]), Array(missAt[0..<Int(misses)]), misses))
                }
                #expect(results[0].3 == results[1].3, "count \(count): \(results[0].3) misses against \(results[1].3)")
                let agree = results[0].0 == results[1].0 && results[0].1 == results[1].1 && results[0].2 == results[1].2
                #expect(agree, "count \(count), in place \(inPlace): the hits' codes or the misses differ")
                // Every even pixel of the first row was filed: hits unless a later colour took its entry.
                if count >= 256 { #expect(Int(results[0].3) < count, "count \(count): no hit at all") }
            }
        }
    }

    @Test("a pass through a colour cache gives the bytes of the pass without one, and hits", .enabled(if: PixelCache.supported, "the CPU lacks AVX-512 VBMI: passes run without a colour cache"), arguments: [false, true])
    func sameBytes(_ lut: Bool) throws {
        var steps = Self.steps
        if lut {
            // A 3D LUT of 5³ bending the colours (the film-look kind of pass).
            let n = 5
            var table = [Float]()
            for b in 0..<n { for g in 0..<n { for r in 0..<n {
                let (x, y, z) = (Float(r) / 4, Float(g) / 4, Float(b) / 4)
                table += [x * x * 0.9 + 0.05, (y + x) / 2, z.squareRoot()]
            } } }
            steps = [.lut(CubeLUT(kind: .threeD, size: n, table: table, domainMin: [0, 0, 0], domainMax: [1, 1, 1]), tetrahedral: true, amount: 0.8)]
        }
        let program = PointProgram(steps: steps)
        #expect(program.cachesColours)
        let width = 1500, px = Self.rows(width: width, height: 60, noise: 0.02)
        let plain = Self.render(program, px, width: width, cache: nil)
        let cache = PixelCache()
        let cached = Self.render(program, px, width: width, cache: cache)
        let differing = zip(cached, plain).filter { $0 != $1 }.count
        #expect(differing == 0, "\(differing) bytes differ with the cache")
        #expect(cache.lookups == px.count / 3 && cache.misses < cache.lookups / 2,
                "\(cache.lookups) looked up, \(cache.misses) missed: the cache should hold most of these colours")
        // Again through the now full cache: the same bytes, mostly hits.
        let againSame = Self.render(program, px, width: width, cache: cache) == plain
        #expect(againSame, "bytes differ through the full cache")
        // The colours a new cache starts with, each filed by rendering it: their bytes through a
        // fresh cache (every one a hit on the prefilled entries) are the uncached pass's.
        var colours = [UInt8](repeating: 0, count: 3 << Int(RK_CACHE_BITS))
        rk_u8_cache_prefill_colours(&colours)
        let prefillSame = Self.render(program, colours, width: 4096, cache: PixelCache()) == Self.render(program, colours, width: 4096, cache: nil)
        #expect(prefillSame, "the prefilled entries' codes differ from the pass's")
        // And the programs that may not take one: a position-dependent step, a body of matrices.
        #expect(!PointProgram(steps: steps + [.vignette(amount: 0.3, inner: 0.2, outer: 1, cx: 0.5, cy: 0.5, scale: 100)]).cachesColours)
        #expect(!PointProgram(steps: [.toLinear, .matrix([1, 0.1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0]), .toEncoded]).cachesColours)
    }

    @Test("on noise the cache rests (it looks up a fraction of the pixels), with the same bytes; rows over 65,536 pixels go without it", .enabled(if: PixelCache.supported, "the CPU lacks AVX-512 VBMI: passes run without a colour cache"))
    func rests() throws {
        let program = PointProgram(steps: Self.steps)
        let width = 2000, px = Self.rows(width: width, height: 400, noise: 1)
        let cache = PixelCache()
        let same = Self.render(program, px, width: width, cache: cache) == Self.render(program, px, width: width, cache: nil)
        #expect(same, "bytes differ with the cache on noise")
        #expect(cache.lookups < px.count / 3 / 4, "\(cache.lookups) of \(px.count / 3) pixels looked up on noise")
        let wide = Self.rows(width: 70_000, height: 2)
        let wideCache = PixelCache()
        let wideSame = Self.render(program, wide, width: 70_000, cache: wideCache) == Self.render(program, wide, width: 70_000, cache: nil)
        #expect(wideSame, "bytes differ on rows of 70,000 pixels")
        #expect(wideCache.lookups == 0)
    }
}
