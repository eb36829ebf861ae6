import Glibc
import RecipeKernels
import Testing

/// The coarse-grid Gaussian against the direct sampled Gaussian (clamp to edge, in Double), on
/// images that stress it: sharp steps and a one-pixel line (aliasing, edges), noise, and a smooth
/// field; sizes that are and are not multiples of the factor.
@Suite("decimated gaussian")
struct DecimatedGaussianTests {
    /// The direct separable blur with `GaussianBlur.taps`, clamp to edge, in Double.
    static func direct(_ image: [Double], width: Int, height: Int, sigma: Double) -> [Double] {
        let taps = GaussianBlur.taps(sigma: sigma).map(Double.init), r = taps.count / 2
        var rows = [Double](repeating: 0, count: image.count)
        for y in 0..<height {
            for x in 0..<width {
                var s = 0.0
                for k in 0..<taps.count { s += taps[k] * image[y * width + min(max(x + k - r, 0), width - 1)] }
                rows[y * width + x] = s
            }
        }
        var out = [Double](repeating: 0, count: image.count)
        for y in 0..<height {
            for x in 0..<width {
                var s = 0.0
                for k in 0..<taps.count { s += taps[k] * rows[min(max(y + k - r, 0), height - 1) * width + x] }
                out[y * width + x] = s
            }
        }
        return out
    }

    /// Streams `image` (one plane) through a DecimatedGaussian the way BlurStage does: each
    /// output row once the rows it needs are pushed.
    static func decimated(_ image: [Double], width: Int, height: Int, sigma: Double) -> [Double] {
        let g = DecimatedGaussian(width: width, height: height, planes: 1, sigma: sigma)!
        var out = [Double](repeating: 0, count: image.count)
        var row = [Float](repeating: 0, count: width), line = [Float](repeating: 0, count: width)
        var lastNeeded = 0
        for y in 0..<height {
            let needed = g.rowsNeeded(forOutput: y)
            #expect(needed >= lastNeeded && needed <= height && needed > y)
            lastNeeded = needed
            while g.rowsPushed < needed {
                let r = g.rowsPushed
                for x in 0..<width { row[x] = Float(image[r * width + x]) }
                row.withUnsafeBufferPointer { g.push($0.baseAddress!) }
            }
            line.withUnsafeMutableBufferPointer { g.blurredRow(y, into: $0.baseAddress!) }
            for x in 0..<width { out[y * width + x] = Double(line[x]) }
        }
        return out
    }

    enum Picture: String, CaseIterable, CustomTestStringConvertible {
        case steps, line, noise, smooth
        var testDescription: String { rawValue }

        func pixels(width: Int, height: Int) -> [Double] {
            var state: UInt64 = 0x9E37_79B9_7F4A_7C15
            func random() -> Double {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return Double(state >> 11) / Double(1 << 53)
            }
            return (0..<(width * height)).map { i in
                let x = i % width, y = i / width
                switch self {
                // A black square on white whose edges fall at every phase of the blocks, and a
                // white edge column: what the padding has to carry out to the border.
                case .steps: return (x > width / 3 && x < 2 * width / 3 + 1 && y > height / 4 && y < 3 * height / 4) || x == width - 1 ? 0 : 1
                case .line: return x == width / 2 || y == height / 3 ? 1 : 0
                case .noise: return random()
                case .smooth: return 0.5 + 0.4 * sin(Double(x) / 23) * cos(Double(y) / 31)
                }
            }
        }
    }

    // The largest difference from the direct blur, in units of the signal's range (0…1), over
    // σ 20–41 (factors 2–5). Measured (2026-11-22): steps 4.8e-4, line 6.0e-4, noise 8.5e-4 (the
    // box lets some of the finest detail alias, most at the edges), smooth 3.1e-4 (what is left
    // of the interpolation). All are under a quarter of an 8-bit step; the bounds leave room for
    // float rounding, not for a mistake: the padding column holding the edge block's mean
    // instead of the edge pixel gives 0.10 on the noise (and fails the tiny images); taking no
    // variance off for the box and the interpolation gives 6.4e-4 on the smooth field.
    static let bound: [Picture: Double] = [.steps: 1e-3, .line: 1e-3, .noise: 1.5e-3, .smooth: 5e-4]

    @Test("within a few thousandths of the direct Gaussian, edges included",
          arguments: Picture.allCases, [(width: 160, height: 120, sigma: 20.0), (width: 203, height: 97, sigma: 33.0),
                                        (width: 75, height: 181, sigma: 41.0)])
    func againstDirect(_ picture: Picture, _ size: (width: Int, height: Int, sigma: Double)) {
        let image = picture.pixels(width: size.width, height: size.height)
        let want = Self.direct(image, width: size.width, height: size.height, sigma: size.sigma)
        let got = Self.decimated(image, width: size.width, height: size.height, sigma: size.sigma)
        var worst = 0.0, worstAt = 0
        for i in want.indices where abs(got[i] - want[i]) > worst { worst = abs(got[i] - want[i]); worstAt = i }
        #expect(worst < Self.bound[picture]!,
                "\(picture) \(size): \(worst) at (\(worstAt % size.width), \(worstAt / size.width))")
    }

    @Test("the factor is ⌊σ / 8⌋ from 2 on; below σ 16 the direct blur is used")
    func factor() {
        #expect(DecimatedGaussian.factor(sigma: 15.9) == nil)
        #expect(DecimatedGaussian.factor(sigma: 16) == 2)
        #expect(DecimatedGaussian.factor(sigma: 80) == 10)
        #expect(DecimatedGaussian.factor(sigma: .nan) == nil)
        #expect(DecimatedGaussian.factor(sigma: 40, kernel: .bandLimited) == nil)
        #expect(DecimatedGaussian(width: 10, height: 10, planes: 3, sigma: 12) == nil)
    }

    @Test("images smaller than a block: one coarse sample plus the padding")
    func tiny() {
        for (w, h) in [(1, 1), (1, 7), (7, 1), (3, 2)] {
            let image = (0..<(w * h)).map { Double($0 % 3) / 2 }
            let want = Self.direct(image, width: w, height: h, sigma: 40)
            let got = Self.decimated(image, width: w, height: h, sigma: 40)
            let worst = zip(want, got).map { abs($0 - $1) }.max()!
            #expect(worst < 1e-3, "\(w)×\(h): \(worst)")
        }
    }
}
