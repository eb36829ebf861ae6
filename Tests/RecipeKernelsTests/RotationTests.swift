import CKernelsSIMD
#if canImport(Glibc)
import Glibc
#endif
@testable import RecipeKernels
import Testing
import TestSupport

@Suite("Rotation arithmetic")
struct RotationTests {
    @Test("crop scale: 1 at 0°, 1.12693 for 5° on 3000×2000 (ops-reference §4), symmetric in the sign")
    func cropScale() {
        #expect(Rotation.cropScale(width: 3000, height: 2000, angleDegrees: 0) == 1)
        #expect(abs(Rotation.cropScale(width: 3000, height: 2000, angleDegrees: 5) - 1.12693) < 5e-6)
        #expect(Rotation.cropScale(width: 3000, height: 2000, angleDegrees: -5) == Rotation.cropScale(width: 3000, height: 2000, angleDegrees: 5))
        // Portrait: the same ratio, so the same scale.
        #expect(abs(Rotation.cropScale(width: 2000, height: 3000, angleDegrees: 5) - 1.12693) < 5e-6)
    }

    @Test("crop scale: the four output corners map inside the source")
    func cropCornersInside() {
        for (w, h, a) in [(3000, 2000, 5.0), (64, 48, -17.0), (48, 64, 30.0), (100, 100, 45.0)] {
            let s = Rotation.cropScale(width: w, height: h, angleDegrees: a)
            let map = Rotation.InverseMap(sourceWidth: w, sourceHeight: h, outputWidth: w, outputHeight: h, angleDegrees: a, scale: s)
            // Output corners (the outer edges of the corner pixels, half a pixel beyond their centres).
            for (cx, cy) in [(-0.5, -0.5), (Double(w) - 0.5, -0.5), (-0.5, Double(h) - 0.5), (Double(w) - 0.5, Double(h) - 0.5)] {
                let x = map.originX + cx * map.stepX + cy * map.rowStepX
                let y = map.originY + cx * map.stepY + cy * map.rowStepY
                #expect(x >= -0.5 - 1e-9 && x <= Double(w) - 0.5 + 1e-9 && y >= -0.5 - 1e-9 && y <= Double(h) - 0.5 + 1e-9)
            }
        }
    }

    @Test("expanded size: unchanged at 0°, the bounding box otherwise")
    func expandedSize() {
        #expect(Rotation.expandedSize(width: 3000, height: 2000, angleDegrees: 0) == (3000, 2000))
        #expect(Rotation.expandedSize(width: 100, height: 100, angleDegrees: 45) == (142, 142))  // 141.42…
        #expect(Rotation.expandedSize(width: 3000, height: 2000, angleDegrees: -5) == (3163, 2254))  // 3162.9…, 2253.8…
    }

    @Test("inverse map: 0° is the identity; a positive angle takes the output's right side from below the centre")
    func inverseMap() {
        let id = Rotation.InverseMap(sourceWidth: 7, sourceHeight: 5, outputWidth: 7, outputHeight: 5, angleDegrees: 0, scale: 1)
        for i in 0..<5 { for j in 0..<7 { #expect(id.position(column: j, row: i) == (Double(j), Double(i))) } }
        // Counter-clockwise on screen: what appears right of the centre came from below it.
        let m = Rotation.InverseMap(sourceWidth: 101, sourceHeight: 101, outputWidth: 101, outputHeight: 101, angleDegrees: 90, scale: 1)
        let p = m.position(column: 60, row: 50)
        #expect(abs(p.x - 50) < 1e-9 && abs(p.y - 60) < 1e-9)
    }

    @Test("Catmull-Rom weights sum to 1, interpolate at 0 and match Keys' kernel with a = −0.5")
    func weights() {
        func keys(_ x: Double) -> Double {
            let a = abs(x)
            if a < 1 { return 1.5 * a * a * a - 2.5 * a * a + 1 }
            if a < 2 { return -0.5 * a * a * a + 2.5 * a * a - 4 * a + 2 }
            return 0
        }
        #expect(Rotation.catmullRomWeights(0) == SIMD4(0, 1, 0, 0))
        for k in 0..<64 {
            let t = Double(k) / 64
            let w = Rotation.catmullRomWeights(Float(t))
            #expect(abs(w.sum() - 1) < 1e-6)
            for tap in 0..<4 { #expect(abs(Double(w[tap]) - keys(Double(tap - 1) - t)) < 1e-6) }
        }
    }

    @Test("a row of a flat image stays flat at any position, clamped or black outside")
    func flatRow() {
        let (w, h) = (9, 6)
        let image = [Float](repeating: 0.6, count: 3 * w * h)
        var out = [Float](repeating: 1, count: 3 * 20)
        image.withUnsafeBytes { img in out.withUnsafeMutableBufferPointer { o in
            Rotation.resampleRow(image: img.baseAddress!, rowStride: 12 * w, width: w, height: h, startX: -3.3, startY: -1.7,
                                 stepX: 0.71, stepY: 0.5, count: 20, edge: .clamp, into: o.baseAddress!)
        } }
        #expect(out.allSatisfy { abs($0 - 0.6) < 1e-6 })
        image.withUnsafeBytes { img in out.withUnsafeMutableBufferPointer { o in
            Rotation.resampleRow(image: img.baseAddress!, rowStride: 12 * w, width: w, height: h, startX: -2, startY: 2,
                                 stepX: 0.75, stepY: 0, count: 20, edge: .black, into: o.baseAddress!)
        } }
        // x = −2 + 0.75·j is inside [−0.5, 8.5] for j = 2…14.
        for j in 0..<20 { #expect(abs(out[3 * j] - ((2...14).contains(j) ? 0.6 : 0)) < 1e-6) }
    }

    /// Rows of every kind a straighten, a rotation or a mirrored crop asks for: steps near 1 and
    /// far from it (the AVX-512 window holds 32 columns), either sign, rows that cross source rows
    /// mid-group, positions outside the picture, a ring of rows, both edges.
    @Test("the AVX-512, AVX2 and plain paths give the same floats, bit for bit")
    func pathsAgree() {
        let (w, h) = (203, 61)
        var rng = SplitMix64(seed: 23)
        // Values of every size and sign, zeros and a few negative zeros among them.
        let image: [Float] = (0..<(3 * w * h)).map { k in
            switch k % 97 { case 0: return 0; case 1: return -0.0; default: return Float.random(in: -0.2...1.6, using: &rng) }
        }
        let count = 173
        var checked = 0
        for trial in 0..<300 {
            let angle = Double.random(in: -0.5...0.5, using: &rng) * [0.06, 0.006, 1][trial % 3]  // radians
            let scale = [1.0, 0.96, 1.04, 0.5, 2, 0.45, 1.7][trial % 7]
            let mirror: Double = trial % 2 == 0 ? 1 : -1
            let (stepX, stepY) = (mirror * cos(angle) / scale, sin(angle) / scale)
            let startX = Double.random(in: -20...Double(w) + 20, using: &rng)
            let startY = Double.random(in: -3...Double(h) + 3, using: &rng)
            let ring: Int32 = trial % 5 == 0 ? 9 : Int32(h)
            let black: Int32 = trial % 4 == 0 ? 1 : 0
            var outs = [[Float]](repeating: [Float](repeating: .nan, count: 3 * count), count: 3)
            var taken = [Int32](repeating: -1, count: 3)
            image.withUnsafeBytes { img in
                for path in 0..<3 {
                    outs[path].withUnsafeMutableBufferPointer { o in
                        taken[path] = rk_rotate_row_path(Int32(path), img.baseAddress!, 12 * w, Int32(w), Int32(h), ring, startX, startY,
                                                         stepX, stepY, Int32(count), black, o.baseAddress!)
                    }
                }
            }
            #expect(taken[0] == 0)
            for path in 1..<3 where taken[path] == Int32(path) {
                let same = zip(outs[0], outs[path]).allSatisfy { $0.bitPattern == $1.bitPattern }
                #expect(same, "trial \(trial): path \(path) differs (start \(startX), \(startY), step \(stepX), \(stepY))")
                checked += 1
            }
        }
        // On an x86-64 CPU with AVX2 the other paths ran; elsewhere only the plain one did.
        if rk_rotate_row_path(1, nil, 12, 1, 1, 1, 0, 0, 1, 0, 0, 0, nil) == 1 { #expect(checked >= 300) }
    }
}
