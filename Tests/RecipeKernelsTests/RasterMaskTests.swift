import Foundation
import RecipeKernels
import Testing
import TestSupport

/// `RasterMask`: a grey image stretched over a canvas, against the formulas it documents (area
/// means where the canvas is coarser, linear interpolation where finer), and laid out on other
/// canvases and windows as a positional step is.
@Suite("raster masks")
struct RasterMaskKernelTests {
    static func image(_ w: Int, _ h: Int, seed: UInt64) -> RasterMaskImage {
        var rng = SplitMix64(seed: seed)
        return RasterMaskImage(width: w, height: h, values: (0..<(w * h)).map { _ in Float(rng.unit()) }, sha256: "test-\(seed)")
    }

    static func row(_ m: RasterMask, y: Int, width: Int) -> [Float] {
        var w = [Float](repeating: -1, count: width)
        w.withUnsafeMutableBufferPointer { m.weights(x0: 0, y: y, count: width, into: $0.baseAddress!) }
        return w
    }

    @Test("a coarser canvas takes the mean of each pixel's footprint: 5×5 texels, and 1.25×1.25 counted by area")
    func areaMeans() {
        let img = Self.image(150, 100, seed: 3)
        let m = RasterMask(image: img, width: 30, height: 20)
        for y in 0..<20 {
            let got = Self.row(m, y: y, width: 30)
            for x in 0..<30 {
                var sum: Float = 0
                for j in 0..<5 { for i in 0..<5 { sum += img.values[(5 * y + j) * 150 + 5 * x + i] } }
                #expect(abs(got[x] - sum / 25) < 1e-5, "(\(x), \(y)): \(got[x]) against \(sum / 25)")
            }
        }
        // 150 texels over 120 pixels: pixel 1 covers [1.25, 2.5): texel 1 by 0.75, texel 2 by 0.5.
        let n = RasterMask(image: img, width: 120, height: 80)
        let got = Self.row(n, y: 0, width: 120)
        let v = img.values
        func texel(_ x: Int, _ y: Int) -> Float { v[y * 150 + x] }
        let want = ((texel(1, 0) * 0.75 + texel(2, 0) * 0.5) * 1 + (texel(1, 1) * 0.75 + texel(2, 1) * 0.5) * 0.25) / (1.25 * 1.25)
        #expect(abs(got[1] - want) < 1e-5, "\(got[1]) against \(want)")
    }

    @Test("a finer canvas interpolates linearly between texel centres, edges clamped")
    func interpolates() {
        let img = Self.image(4, 3, seed: 5)
        let m = RasterMask(image: img, width: 16, height: 12)
        // Pixel 6's centre (6.5) is at texel position 6.5/4 − 0.5 = 1.125: between texels 1 and 2.
        let got = Self.row(m, y: 5, width: 16)   // row 5: 5.5/4 − 0.5 = 0.875
        func v(_ x: Int, _ y: Int) -> Float { img.values[y * 4 + x] }
        let top = v(1, 0) * 0.875 + v(2, 0) * 0.125, bottom = v(1, 1) * 0.875 + v(2, 1) * 0.125
        #expect(abs(got[6] - (top * 0.125 + bottom * 0.875)) < 1e-5)
        #expect(abs(got[0] - (v(0, 0) * 0.125 + v(0, 1) * 0.875)) < 1e-5, "left edge clamped")
    }

    @Test("laid out on a canvas a quarter the size, and translated to a window, it gives what a mask made for those does")
    func layout() {
        let img = Self.image(150, 100, seed: 8)
        let full = PointStep.maskMix(.raster(RasterMask(image: img, width: 120, height: 80)), invert: false, amount: 1)
        guard case .maskMix(.raster(let small), _, _) = full.laidOut(scaledBy: 0.25, 0.25),
              case .maskMix(.raster(let window), _, _) = full.translated(by: 10, 7) else {
            Issue.record("not a raster mask after layout")
            return
        }
        let direct = RasterMask(image: img, width: 30, height: 20)
        for y in 0..<20 { #expect(Self.row(small, y: y, width: 30) == Self.row(direct, y: y, width: 30)) }
        let whole = RasterMask(image: img, width: 120, height: 80)
        var w = [Float](repeating: 0, count: 20)
        w.withUnsafeMutableBufferPointer { window.weights(x0: 0, y: 3, count: 20, into: $0.baseAddress!) }
        var v = [Float](repeating: 0, count: 20)
        v.withUnsafeMutableBufferPointer { whole.weights(x0: 10, y: 10, count: 20, into: $0.baseAddress!) }
        #expect(w == v)
    }
}
