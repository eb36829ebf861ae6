import CKernelsSIMD
import Glibc
import RecipeCore
@testable import RecipeKernels
import Testing

/// The fused point kernel against its double-precision reference, step by step and in chains.
@Suite("point program")
struct PointProgramTests {
    /// Deterministic pseudo-random values (xorshift), some outside [0, 1] as mid-chain values are.
    static func values(_ n: Int, seed: UInt64 = 0x9E3779B97F4A7C15, range: ClosedRange<Double> = -0.2...1.3) -> [Float] {
        var s = seed
        return (0..<n).map { _ in
            s ^= s << 13; s ^= s >> 7; s ^= s << 17
            return Float(range.lowerBound + Double(s % 1_000_000) / 1_000_000 * (range.upperBound - range.lowerBound))
        }
    }

    static let steps: [PointStep] = [
        .toLinear, .toEncoded,
        .matrix([1.1, 0.05, -0.02, 0.01, 0.0, 0.9, 0.1, 0, -0.03, 0.02, 1.2, -0.01]),
        .power(0.8), .power(2.2),
        .levels(black: 0.1, white: 0.9, inverseGamma: 1 / 1.4, outBlack: 0.05, outWhite: 0.95),
        .sigmoid(a: 5, b: 0.4, s0: Float(tanh(2.5 * -0.4)), s1: Float(tanh(2.5 * 0.6))),
        .vibrance(0.4), .vibrance(-0.6), .clip(low: 0.1, high: 0.8),
        .curves(table: MonotoneCubic([(0, 0.05), (0.5, 0.6), (1, 0.95)]).table(size: 4096)
            + (0..<4096).map { Float($0) / 4095 } + MonotoneCubic([(0, 0), (1, 1)]).table(size: 4096), size: 4096),
    ]

    func run(_ program: PointProgram, _ r: [Float], _ g: [Float], _ b: [Float]) -> ([Float], [Float], [Float]) {
        var (r, g, b) = (r, g, b)
        r.withUnsafeMutableBufferPointer { rp in
            g.withUnsafeMutableBufferPointer { gp in
                b.withUnsafeMutableBufferPointer { bp in
                    program.apply(r: rp.baseAddress!, g: gp.baseAddress!, b: bp.baseAddress!, count: rp.count)
                }
            }
        }
        return (r, g, b)
    }

    @Test("each step matches its double-precision reference within 1e-5", arguments: 0..<steps.count)
    func step(_ index: Int) {
        let step = Self.steps[index]
        // power and levels take values where they are defined without a sign flip in the reference
        let r = Self.values(1000, seed: 1), g = Self.values(1000, seed: 2), b = Self.values(1000, seed: 3)
        let (fr, fg, fb) = run(PointProgram(steps: [step]), r, g, b)
        var worst = 0.0
        for i in 0..<r.count {
            let want = step.reference(SIMD3(Double(r[i]), Double(g[i]), Double(b[i])))
            for (got, exp) in [(fr[i], want.x), (fg[i], want.y), (fb[i], want.z)] {
                worst = max(worst, abs(Double(got) - exp) / max(1, abs(exp)))
            }
        }
        #expect(worst <= 1e-5, "step \(step): worst relative error \(worst)")
    }

    @Test("a chain in one pass equals the steps run one after another over the whole image, and the reference")
    func chain() {
        let chain: [PointStep] = [.toLinear, .matrix([1.19, 0, 0, 0, 0, 1.19, 0, 0, 0, 0, 1.19, 0]), .toEncoded,
                                  .matrix([1.15, 0, 0, -0.075, 0, 1.15, 0, -0.075, 0, 0, 1.15, -0.075]), .power(1 / 1.1)]
        let r = Self.values(5000, seed: 4, range: 0...1), g = Self.values(5000, seed: 5, range: 0...1), b = Self.values(5000, seed: 6, range: 0...1)
        let fused = run(PointProgram(steps: chain), r, g, b)
        var unfused = (r, g, b)
        for step in chain { unfused = run(PointProgram(steps: [step]), unfused.0, unfused.1, unfused.2) }
        #expect(fused.0 == unfused.0 && fused.1 == unfused.1 && fused.2 == unfused.2)
        for i in stride(from: 0, to: r.count, by: 7) {
            var p = SIMD3(Double(r[i]), Double(g[i]), Double(b[i]))
            for step in chain { p = step.reference(p) }
            #expect(abs(Double(fused.0[i]) - p.x) < 1e-5 && abs(Double(fused.2[i]) - p.z) < 1e-5)
        }
    }

    @Test("8-bit rows: the load and store tables round-trip every code exactly through linear light")
    func bytes() {
        var row = (0..<(3 * 300)).map { UInt8($0 % 256) }
        let original = row
        row.withUnsafeMutableBufferPointer { PointProgram(steps: [.toLinear, .toEncoded]).run($0.baseAddress!, pixels: 300) }
        #expect(row == original)
        row.withUnsafeMutableBufferPointer {
            PointProgram(steps: [.matrix([-1, 0, 0, 1, 0, -1, 0, 1, 0, 0, -1, 1])]).run($0.baseAddress!, pixels: 300)
        }
        #expect(row == original.map { 255 - $0 })
    }

    @Test("monotone cubic: through the points, no overshoot, monotone, linear outside")
    func spline() {
        let points = [(0.0, 0.0), (0.2, 0.1), (0.25, 0.6), (0.8, 0.62), (1.0, 1.0)]
        let s = MonotoneCubic(points)
        for (x, y) in points { #expect(abs(s.value(x) - y) < 1e-12) }
        var previous = -1.0
        for i in 0...1000 {
            let v = s.value(Double(i) / 1000)
            #expect(v >= previous - 1e-12)
            #expect(v >= -1e-12 && v <= 1 + 1e-12)
            previous = v
        }
        #expect(abs(s.value(1.1) - (1 + 0.1 * (1 - 0.62) / 0.2)) < 1e-9)
    }

    /// A positional step over a `w`×`h` image of values in [0, 1]: the input's and the output's
    /// red planes, and the largest difference from the step's reference at each pixel.
    static func positional(_ step: PointStep, w: Int, h: Int) -> (r: [Float], out: [Float], worst: Double) {
        let r = Self.values(w * h, seed: 7, range: 0...1), g = Self.values(w * h, seed: 8, range: 0...1), b = Self.values(w * h, seed: 9, range: 0...1)
        var (fr, fg, fb) = (r, g, b)
        fr.withUnsafeMutableBufferPointer { rp in fg.withUnsafeMutableBufferPointer { gp in fb.withUnsafeMutableBufferPointer { bp in
            PointProgram(steps: [step]).apply(r: rp.baseAddress!, g: gp.baseAddress!, b: bp.baseAddress!, count: w * h, width: w, firstRow: 0)
        } } }
        var worst = 0.0
        for y in 0..<h {
            for x in 0..<w {
                let i = y * w + x
                let want = step.reference(SIMD3(Double(r[i]), Double(g[i]), Double(b[i])), x: x, y: y)
                worst = max(worst, abs(Double(fr[i]) - want.x), abs(Double(fg[i]) - want.y), abs(Double(fb[i]) - want.z))
            }
        }
        return (r, fr, worst)
    }

    @Test("positional steps see each pixel's (x, y): the vignette against its reference over a 150×7 image")
    func positional() {
        let w = 150
        let (r, fr, worst) = Self.positional(.vignette(amount: 0.6, inner: 0.3, outer: 0.9, cx: 60, cy: 3, scale: Float(1 / 40.0)), w: w, h: 7)
        #expect(worst < 1e-5, "worst \(worst)")
        #expect(fr[3 * w + 60] == r[3 * w + 60] || abs(fr[3 * w + 60] - r[3 * w + 60]) < 1e-6)  // the centre is untouched
        #expect(abs(fr[0] - r[0] * 0.4) < 1e-5)  // the corner (d > outer) is scaled by 1 − amount
    }

    @Test("masked steps: the kernel mixes by gradient, radial and luminance weights like the reference", arguments: [
        MaskShape.gradient(fromX: 10, fromY: 0, toX: 10, toY: 5),
        MaskShape.radial(cx: 40, cy: 3, inner: 0.2, outer: 0.7, scale: 1 / 30),
        MaskShape.luminance(min: 0.3, max: 0.6, feather: 0.1, inputIsLinear: false),
        MaskShape.luminance(min: 0.3, max: 0.6, feather: 0, inputIsLinear: true),
    ])
    func masks(_ shape: MaskShape) {
        let (w, h) = (90, 6)
        let steps: [PointStep] = [.saveInput, .matrix([2, 0, 0, 0, 0, 0.5, 0, 0.1, 0, 0, 1.5, 0]), .power(0.8),
                                  .maskMix(shape, invert: false, amount: 0.9)]
        let r = Self.values(w * h, seed: 11, range: 0...1), g = Self.values(w * h, seed: 12, range: 0...1), b = Self.values(w * h, seed: 13, range: 0...1)
        var (fr, fg, fb) = (r, g, b)
        fr.withUnsafeMutableBufferPointer { rp in fg.withUnsafeMutableBufferPointer { gp in fb.withUnsafeMutableBufferPointer { bp in
            PointProgram(steps: steps).apply(r: rp.baseAddress!, g: gp.baseAddress!, b: bp.baseAddress!, count: w * h, width: w, firstRow: 0)
        } } }
        var worst = 0.0
        var changed = 0, kept = 0
        for y in 0..<h {
            for x in 0..<w {
                let i = y * w + x
                let want = PointStep.reference(SIMD3(Double(r[i]), Double(g[i]), Double(b[i])), steps: steps, x: x, y: y)
                worst = max(worst, abs(Double(fr[i]) - want.x), abs(Double(fg[i]) - want.y), abs(Double(fb[i]) - want.z))
                if fr[i] == r[i] && fb[i] == b[i] { kept += 1 } else { changed += 1 }
            }
        }
        #expect(worst < 1e-5, "worst \(worst)")
        #expect(changed > 0 && kept > 0, "the mask should leave some pixels and change others: \(changed) changed, \(kept) kept")
    }

    @Test("mask weights eight at a time are within 4e-6 (a quarter of a 16-bit step) of the per-pixel ones", arguments: [
        MaskShape.gradient(fromX: 10, fromY: 0, toX: 50, toY: 5),
        MaskShape.radial(cx: 40, cy: 3, inner: 0.2, outer: 0.7, scale: 1 / 30),
        MaskShape.radial(cx: 40, cy: 3, inner: 0.5, outer: 0.5, scale: 1 / 30),
        MaskShape.luminance(min: 0.3, max: 0.6, feather: 0.1, inputIsLinear: false),
        MaskShape.luminance(min: 0.3, max: 0.6, feather: 0.15, inputIsLinear: true),
        MaskShape.luminance(min: 0.3, max: 0.6, feather: 0, inputIsLinear: true),
    ])
    func maskWeights(_ shape: MaskShape) {
        let tile = PointProgram.tile
        let r = Self.values(tile, seed: 21, range: -0.1...1.2), g = Self.values(tile, seed: 22, range: -0.1...1.2)
        let b = Self.values(tile, seed: 23, range: -0.1...1.2)
        for (x0, count) in [(0, tile), (130, 37), (7, 1)] {
            var w = [Float](repeating: .nan, count: tile)
            r.withUnsafeBufferPointer { rp in g.withUnsafeBufferPointer { gp in b.withUnsafeBufferPointer { bp in
                w.withUnsafeMutableBufferPointer {
                    shape.weights(x0: x0, y: 4.5, r: rp.baseAddress!, g: gp.baseAddress!, b: bp.baseAddress!, count: count, into: $0.baseAddress!)
                }
            } } }
            var worst: Float = 0
            for i in 0..<count {
                let want = shape.weight(x: Float(x0 + i) + 0.5, y: 4.5, rgb: SIMD3(r[i], g[i], b[i]))
                worst = max(worst, abs(w[i] - want))
            }
            #expect(worst <= 4e-6, "\(shape) from column \(x0): worst \(worst)")
        }
    }

    @Test("a step laid out on a canvas three times as large gives each point of the picture the same value", arguments: [
        [PointStep.vignette(amount: 0.6, inner: 0.3, outer: 0.9, cx: 60, cy: 3, scale: Float(1 / 40.0))],
        [PointStep.saveInput, .matrix([0.5, 0, 0, 0.2, 0, 0.5, 0, 0.2, 0, 0, 0.5, 0.2]),
         .maskMix(.gradient(fromX: 10, fromY: 0, toX: 30, toY: 5), invert: false, amount: 1)],
        [PointStep.saveInput, .matrix([0.5, 0, 0, 0.2, 0, 0.5, 0, 0.2, 0, 0, 0.5, 0.2]),
         .maskMix(.radial(cx: 40, cy: 3, inner: 0.2, outer: 0.7, scale: 1 / 30), invert: true, amount: 0.8)],
    ])
    func laidOut(steps: [PointStep]) {
        // Pixel (x, y) here has its centre at (x + ½, y + ½); three times as large, that point is
        // the centre of pixel (3x + 1, 3y + 1).
        let larger = steps.map { $0.laidOut(scaledBy: 3, 3) }
        #expect(larger != steps)
        var worst = 0.0, spread = 0.0
        let p = SIMD3(0.7, 0.5, 0.3)
        for y in 0..<7 {
            for x in 0..<150 {
                let here = PointStep.reference(p, steps: steps, x: x, y: y)
                let there = PointStep.reference(p, steps: larger, x: 3 * x + 1, y: 3 * y + 1)
                worst = max(worst, abs(here.x - there.x), abs(here.z - there.z))
                spread = max(spread, abs(here.x - p.x))
            }
        }
        #expect(worst < 1e-5, "worst \(worst)")
        #expect(spread > 0.1, "the step should change some pixels (\(spread))")
    }

    @Test("a program laid out on another canvas keeps its tables and gives the bytes of one built from the laid-out steps")
    func programLaidOut() {
        let steps: [PointStep] = [.toLinear, .matrix([1.2, 0, 0, 0, 0, 1.1, 0, 0, 0, 0, 0.9, 0]),
                                  .vignette(amount: 0.6, inner: 0.3, outer: 0.9, cx: 60, cy: 3, scale: Float(1 / 40.0)), .toEncoded]
        let laidOut = PointProgram(steps: steps).laidOut(scaledBy: 3, 2)
        let rebuilt = PointProgram(steps: steps.map { $0.laidOut(scaledBy: 3, 2) })
        #expect(laidOut.steps == rebuilt.steps && laidOut.head == rebuilt.head && laidOut.tail == rebuilt.tail)
        let width = 450
        let source = (0..<(3 * width)).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        for y in [0, 5, 13] {
            var a = source, b = source
            a.withUnsafeMutableBufferPointer { laidOut.run($0.baseAddress!, pixels: width, y: y) }
            b.withUnsafeMutableBufferPointer { rebuilt.run($0.baseAddress!, pixels: width, y: y) }
            #expect(a == b, "row \(y)")
            #expect(a != source)
        }
        // No positional step: the program comes back as it was.
        let plain = PointProgram(steps: [.toLinear, .toEncoded])
        #expect(plain.laidOut(scaledBy: 3, 2).steps == plain.steps)
    }

    /// Bodies for the in-row test: per-pixel steps, tables between them, a positional step, and one
    /// that needs the tile buffer's spare planes (it takes the tiles whatever the row).
    static let rowBodies: [[PointStep]] = [
        [.toLinear, .matrix([1.1, 0.05, -0.02, 0.01, 0.0, 0.9, 0.1, 0, -0.03, 0.02, 1.2, -0.01]), .toEncoded, .vibrance(0.3)],
        [.vibrance(-0.4), .power(0.8), .vibrance(0.2),
         .levels(black: 0.1, white: 0.9, inverseGamma: 1 / 1.4, outBlack: 0.05, outWhite: 0.95), .vibrance(0.1)],
        [.matrix([1.2, 0, 0, 0, 0, 1.1, 0, 0, 0, 0, 0.9, 0]),
         .vignette(amount: 0.6, inner: 0.3, outer: 0.9, cx: 300, cy: 3, scale: Float(1 / 400.0), encoded: true),
         .sigmoid(a: 5, b: 0.4, s0: Float(tanh(2.5 * -0.4)), s1: Float(tanh(2.5 * 0.6))), .vibrance(0.2)],
        [.saveInput, .matrix([0.5, 0, 0, 0.2, 0, 0.5, 0, 0.2, 0, 0, 0.5, 0.2]),
         .maskMix(.gradient(fromX: 10, fromY: 0, toX: 300, toY: 5), invert: false, amount: 1)],
    ]

    @Test("a pass run in its rows' own planes (no tile buffer) gives the bits of the tile buffer's run, and writes nothing past the row",
          arguments: 0..<rowBodies.count)
    func inRow(_ index: Int) {
        let program = PointProgram(steps: Self.rowBodies[index])
        for width in [1, 7, 255, 256, 257, 1037] {
            let count = 3 * width, guardCount = 9
            let row = Self.values(count, seed: UInt64(31 + width), range: -0.1...1.2)
            // In place (input and output the same planes: the row's own tiles where the body allows).
            var inPlace = row + [Float](repeating: 7, count: guardCount)
            inPlace.withUnsafeMutableBytes { program.run(UnsafeRawPointer($0.baseAddress!), from: .float32, into: $0.baseAddress!, to: .float32, pixels: width, y: 3) }
            // Another output (the tile buffer, copied in and out).
            var copied = [Float](repeating: 0, count: count)
            row.withUnsafeBytes { input in
                copied.withUnsafeMutableBytes { program.run(input.baseAddress!, from: .float32, into: $0.baseAddress!, to: .float32, pixels: width, y: 3) }
            }
            #expect(Array(inPlace[..<count]).map(\.bitPattern) == copied.map(\.bitPattern), "width \(width)")
            #expect(inPlace[count...].allSatisfy { $0 == 7 }, "width \(width): written past the row")
            #expect(copied != row, "width \(width): the body should change the row")
            // To 8- and 16-bit codes, run in an input the caller lets it overwrite, or through the tile buffer.
            for type in [SampleType.uint8, .uint16] {
                let bytes = count * (type == .uint8 ? 1 : 2)
                var scratch = row, viaTiles = [UInt8](repeating: 0, count: bytes), inInput = [UInt8](repeating: 0, count: bytes)
                row.withUnsafeBytes { input in
                    viaTiles.withUnsafeMutableBytes { program.run(input.baseAddress!, from: .float32, into: $0.baseAddress!, to: type, pixels: width, y: 3) }
                }
                scratch.withUnsafeMutableBytes { input in
                    inInput.withUnsafeMutableBytes {
                        program.run(UnsafeRawPointer(input.baseAddress!), from: .float32, into: $0.baseAddress!, to: type, pixels: width, y: 3,
                                    scratchInput: true)
                    }
                }
                #expect(inInput == viaTiles, "width \(width), \(type): the codes of a run in the input")
            }
            // From 8-bit codes straight into the output's planes: the float path's values from code/255.
            let codes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            var planar = [Float](repeating: 0, count: count)
            for x in 0..<width { for c in 0..<3 { planar[c * width + x] = Float(codes[3 * x + c]) / 255 } }
            var fromCodes = [Float](repeating: 7, count: count + guardCount)
            codes.withUnsafeBytes { input in
                fromCodes.withUnsafeMutableBytes { program.run(input.baseAddress!, from: .uint8, into: $0.baseAddress!, to: .float32, pixels: width, y: 3) }
            }
            var fromFloats = [Float](repeating: 0, count: count)
            planar.withUnsafeBytes { input in
                fromFloats.withUnsafeMutableBytes { program.run(input.baseAddress!, from: .float32, into: $0.baseAddress!, to: .float32, pixels: width, y: 3) }
            }
            let worst = zip(fromCodes[..<count], fromFloats).map { abs($0 - $1) }.max() ?? 0
            #expect(worst <= 2e-5, "width \(width): 8-bit in, worst \(worst)")
            #expect(fromCodes[count...].allSatisfy { $0 == 7 }, "width \(width): 8-bit in, written past the row")
        }
    }
}

extension PointProgramTests {
    @Test("a pass with nothing after its body stores codes without a table: quantize8 of every value, NaN and out of range too, the AVX2 and plain kernels the same bytes, the table's codes but at exact ties")
    func directStore() {
        // Every code's centre and both of its rounding edges, a step either side, and values past
        // both ends, NaN, infinities.
        var values: [Float] = [.nan, -.infinity, .infinity, -0.0, -1e-30, 1.0000001, 3, -2]
        for k in 0...255 {
            let centre = Float(k) / 255, edge = (Float(k) + 0.5) / 255
            values += [centre, edge, edge.nextDown, edge.nextUp, centre.nextUp, centre.nextDown]
        }
        values += Self.values(4001, range: -0.2...1.2)
        let width = values.count
        let planes = values + values.reversed() + values.map { 1 - $0 }
        func kernel(_ f: (UnsafePointer<Float>, Int32, Int32, UnsafeMutablePointer<UInt8>) -> Void) -> [UInt8] {
            var out = [UInt8](repeating: 0, count: 3 * width + 5)
            planes.withUnsafeBufferPointer { p in out.withUnsafeMutableBufferPointer { f(p.baseAddress!, Int32(width), Int32(width), $0.baseAddress!) } }
            #expect(out[(3 * width)...].allSatisfy { $0 == 0 }, "nothing written past the pixels")
            return Array(out[..<(3 * width)])
        }
        let fast = kernel(rk_u8_store_direct), plain = kernel(rk_u8_store_direct_without_avx2)
        #expect(fast == plain)
        let expected = (0..<width).flatMap { x in (0..<3).map { c in SampleConversion.quantize8(planes[c * width + x].isNaN ? 0 : planes[c * width + x]) } }
        #expect(fast == expected)
        // Through a program: its store is the direct one (no steps after the body), and the
        // table's (the body followed by a step that changes nothing, so the store keeps a table)
        // gives the same codes but where a value sits within a float's rounding of an edge.
        let body: [PointStep] = [.vibrance(0.2)]
        let direct = PointProgram(steps: body), tabled = PointProgram(steps: body + [.clip(low: -10, high: 10)])
        var a = [UInt8](repeating: 0, count: 3 * width), b = a
        planes.withUnsafeBytes { input in
            a.withUnsafeMutableBytes { direct.run(input.baseAddress!, from: .float32, into: $0.baseAddress!, to: .uint8, pixels: width) }
            b.withUnsafeMutableBytes { tabled.run(input.baseAddress!, from: .float32, into: $0.baseAddress!, to: .uint8, pixels: width) }
        }
        let moved = zip(a, b).filter { $0 != $1 }
        #expect(moved.allSatisfy { abs(Int($0) - Int($1)) <= 1 })
        #expect(moved.count <= 3 * 256 * 2, "only values at a code's rounding edge: \(moved.count)")
    }
}

extension PointProgramTests {
    @Test("the 8-bit load from byte planes (AVX-512 byte permutes where the CPU has them) gives the float table's bits, at every count and offset")
    func byteLoad() {
        // A table with every kind of float: tiny, negative, above 1, NaN, infinity.
        var table = [Float](repeating: 0, count: 768)
        for i in 0..<768 { table[i] = Float(i % 256) / 255 * Float(1 + i / 256) - 0.1 }
        table[7] = Float.nan; table[300] = Float.infinity; table[511] = -0.0; table[600] = 1e-38
        let bytes = PointProgram.bytePlanes(table)
        var state: UInt32 = 5
        let codes: [UInt8] = (0..<(3 * 600)).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        let tile = 300
        for (offset, count) in [(0, 0), (0, 1), (3, 63), (0, 64), (5, 65), (1, 128), (0, 255), (7, 256), (0, 300)] {
            var want = [Float](repeating: 9, count: 3 * tile), got = want
            codes.withUnsafeBufferPointer { c in
                let px = c.baseAddress! + 3 * offset
                rk_u8_load(px, table, &want, Int32(tile), Int32(count))
                rk_u8_load_bytes(px, bytes, table, &got, Int32(tile), Int32(count))
            }
            #expect(got.map(\.bitPattern) == want.map(\.bitPattern), "offset \(offset), count \(count)")
        }
    }

    /// rk_matrix_planes (AVX-512 where the CPU has it, AVX2, plain) against the formula in Swift's
    /// order, unfused: the same bits, at counts around the vectors' 16 and 8 lanes, with values
    /// below 0, above 1, tiny and NaN.
    @Test("the matrix kernel gives the formula's floats bit for bit (((m0·x + m1·y) + m2·z) + m3, unfused) at counts around 16")
    func matrixKernel() {
        let m: [Float] = [1.3103931, -0.2274336, -0.0229596, 0.01, -0.06378, 1.0854399, -0.02166, 0, -0.0599532, -0.20168641, 1.2016395, -0.003]
        for count in [1, 7, 8, 15, 16, 17, 33, 100] {
            let tile = count + 3
            var planes = (0..<(3 * tile)).map { i -> Float in
                switch i % 11 {
                case 0: return .nan
                case 1: return -0.25
                case 2: return 1e-30
                default: return Float(i % 97) / 61 - 0.1
                }
            }
            let before = planes
            planes.withUnsafeMutableBufferPointer { buffer in m.withUnsafeBufferPointer { rk_matrix_planes(buffer.baseAddress!, Int32(tile), Int32(count), $0.baseAddress!) } }
            for i in 0..<count {
                let x = before[i], y = before[tile + i], z = before[2 * tile + i]
                for row in 0..<3 {
                    let a = m[4 * row] * x, b = m[4 * row + 1] * y, c = m[4 * row + 2] * z
                    let want = ((a + b) + c) + m[4 * row + 3]
                    let got = planes[row * tile + i]
                    #expect(got.bitPattern == want.bitPattern || (got.isNaN && want.isNaN), "count \(count), pixel \(i), row \(row)")
                }
            }
            #expect(planes[count..<tile].map(\.bitPattern) == before[count..<tile].map(\.bitPattern), "count \(count): nothing past the count")
        }
    }
}

extension PointProgramTests {
    @Test("the 8-bit store's binary search (AVX-512 BW where the CPU has it) gives the table's codes: every kind of clamp-safe table, every index edge, NaN and out of range, at every count",
          .enabled(if: rk_u8_store_search_supported() != 0, "this CPU has no AVX-512 BW and VBMI: the table serves alone, and the search is not run"))
    func searchStore() throws {
        let levels = 65536
        // Clamp-safe tables (never decreasing, 0 first and 255 last): the sRGB curve, a steep
        // power that skips codes, a step that jumps from 0 to 255 at the very last index, and a
        // staircase whose codes each hold for one index only near the top.
        func table(_ code: (Int) -> Int) -> [UInt8] { (0..<levels).map { UInt8(code($0)) } }
        let srgb = table { Int(SampleConversion.quantize8(Float(SRGB.encode(Double($0) / 65535)))) }
        let steep = table { Int((pow(Double($0) / 65535, 0.2) * 255).rounded()) }
        let last = table { $0 == levels - 1 ? 255 : 0 }
        let stairs = table { $0 >= levels - 255 ? $0 - (levels - 256) : 0 }
        let tables = [srgb + steep + last, last + stairs + srgb, stairs + srgb + steep]
        // Values at and beside every index's rounding edge, past both ends, NaN, infinities.
        var values: [Float] = [.nan, -.infinity, .infinity, -0.0, -1e-30, 1.0000001, 3, -2, 1, 0]
        var state: UInt32 = 11
        for _ in 0..<6000 {
            state = state &* 1_664_525 &+ 1_013_904_223
            let edge = (Float(state >> 16) + 0.5) / 65535
            values += [edge, edge.nextDown, edge.nextUp]
        }
        values += Self.values(4001, range: -0.2...1.2)
        let width = values.count
        let planes = values + values.reversed() + values.map { 1 - $0 }
        for store in tables {
            var search = [UInt16](repeating: 0, count: 3 * Int(RK_STORE_SEARCH_WORDS))
            rk_u8_store_search_table(store, Int32(levels), &search)
            for count in [width, 64, 63, 65, 200, 1] {
                var looked = [UInt8](repeating: 9, count: 3 * count + 5), searched = looked
                planes.withUnsafeBufferPointer { p in
                    looked.withUnsafeMutableBufferPointer {
                        rk_u8_store(p.baseAddress!, Int32(width), Int32(count), store, Int32(levels), nil, $0.baseAddress!)
                    }
                    searched.withUnsafeMutableBufferPointer {
                        rk_u8_store(p.baseAddress!, Int32(width), Int32(count), store, Int32(levels), search, $0.baseAddress!)
                    }
                }
                #expect(searched == looked, "count \(count): \(zip(searched, looked).filter { $0 != $1 }.count) codes differ")
                #expect(searched[(3 * count)...].allSatisfy { $0 == 9 }, "count \(count): written past the pixels")
            }
        }
        // The table's codes are the formula's (an independent check of the table path itself).
        let index = { (v: Float) -> Int in Int((min(max(v.isNaN ? 0 : v, 0), 1) * 65535).rounded(.toNearestOrEven)) }
        var out = [UInt8](repeating: 0, count: 3 * width)
        planes.withUnsafeBufferPointer { p in
            out.withUnsafeMutableBufferPointer { rk_u8_store(p.baseAddress!, Int32(width), Int32(width), tables[0], Int32(levels), nil, $0.baseAddress!) }
        }
        #expect((0..<width).allSatisfy { x in (0..<3).allSatisfy { c in out[3 * x + c] == tables[0][c * levels + index(planes[c * width + x])] } })
    }

    /// A tail of steps that never decrease a value has its store table built from where the
    /// codes step up (a binary search); every index must get the code a full evaluation gives.
    @Test("a store table built by searching where its codes step up is the table of every index, byte for byte")
    func searchedStoreTable() {
        let tails: [[PointStep]] = [
            [.toEncoded],
            [.toEncoded, .power(0.90909)],
            [.power(1 / 2.2)],
            [.power(2.4)],
            [.power(0.05)],  // steep at black: codes skip
            [.toLinear],  // flat through the shadows
            [.matrix([1.3, 0, 0, -0.02, 0, 0.5, 0, 0.01, 0, 0, 0, 0.4]), .toEncoded],  // a zero gain: one code
            [.clip(low: 0.1, high: 0.7), .toEncoded, .matrix([1.2, 0, 0, -0.1, 0, 1.2, 0, -0.1, 0, 0, 1.2, -0.1])],
            [.matrix([40, 0, 0, -3, 0, 40, 0, -3, 0, 0, 40, -3])],  // every code within 1/40 of the range
        ]
        for tail in tails {
            #expect(tail.allSatisfy(PointProgram.isNonDecreasing), "\(tail)")
            let searched = PointProgram.storeTable(tail), full = PointProgram.storeTable(tail, exhaustive: true)
            let differing = zip(searched, full).filter { $0 != $1 }.count
            #expect(searched.count == full.count && differing == 0, "\(tail): \(differing) codes differ")
        }
        // Steps that may decrease a value keep the full evaluation.
        #expect(!PointProgram.isNonDecreasing(.power(-1)))
        #expect(!PointProgram.isNonDecreasing(.matrix([-1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0])))
        #expect(!PointProgram.isNonDecreasing(.curves(table: [Float](repeating: 0.5, count: 9), size: 3)))
    }
}
