import RecipeKernels
import Testing

@Suite("Resampling weights")
struct ResampleTests {
    @Test("taps sum to 1 and stay in bounds", arguments: [(6000, 2048), (100, 37), (10, 10), (7, 20), (3, 1)])
    func normalised(sizes: (Int, Int)) {
        for kernel in ResampleKernel.allCases {
            let w = ResampleWeights(inputSize: sizes.0, outputSize: sizes.1, kernel: kernel)
            for j in 0..<w.outputSize {
                let sum = (0..<w.taps).reduce(Float(0)) { $0 + w.weights[j * w.taps + $1] }
                #expect(abs(sum - 1) < 1e-5)
                #expect(Int(w.start[j]) >= 0 && Int(w.start[j]) + w.taps <= w.inputSize)
            }
        }
    }

    @Test("a reduced decode's span: an odd-sized image halved still lines up with the full image")
    func span() {
        // Lanczos3 (the display path's kernel) reproduces a ramp to within 0.008 rows here; the
        // stretched tent and Mitchell do not reproduce ramps exactly, so they would test nothing.
        let kernel = ResampleKernel.lanczos3
        // 4529 rows halved by libjpeg are 2265 samples standing for 2264.5 rows: sample i is the
        // mean of full rows 2i and 2i + 1, centred at 2i + ½. A ramp f(y) = y sampled so must
        // resample to the ramp at each output centre (j + ½)·4529/2048 − ½ of the full image.
        let full = 4529, count = 2265, out = 2048
        let samples = (0..<count).map { Double(2 * $0) + 0.5 }
        let aligned = ResampleWeights(inputSize: count, outputSize: out, kernel: kernel, inputSpan: Double(full) / 2)
        let naive = ResampleWeights(inputSize: count, outputSize: out, kernel: kernel)
        func value(_ w: ResampleWeights, _ j: Int) -> Double {
            (0..<w.taps).reduce(0.0) { $0 + Double(w.weights[j * w.taps + $1]) * samples[Int(w.start[j]) + $1] }
        }
        var worst = 0.0, naiveWorst = 0.0
        for j in 8..<(out - 8) {
            let expected = (Double(j) + 0.5) * Double(full) / Double(out) - 0.5
            worst = max(worst, abs(value(aligned, j) - expected))
            naiveWorst = max(naiveWorst, abs(value(naive, j) - expected))
        }
        #expect(worst < 0.01, "\(kernel): off by \(worst) full-size rows")
        #expect(naiveWorst > 0.9, "the count as the span drifts by a whole row (half a reduced pixel) at the far edge (\(naiveWorst))")
    }

    @Test("Lanczos3 at integer points is 1 at 0 and 0 elsewhere; Mitchell is 8/9 at 0")
    func kernels() {
        #expect(ResampleKernel.lanczos3.weight(0) == 1)
        for x in 1...3 { #expect(abs(ResampleKernel.lanczos3.weight(Double(x))) < 1e-12) }
        #expect(abs(ResampleKernel.mitchell.weight(0) - 8.0 / 9.0) < 1e-12)
    }

    @Test("the vertical pass matches a scalar reference")
    func verticalPass() {
        let rows: [[Float]] = (0..<4).map { r in (0..<37).map { Float($0 * (r + 1)) / 100 } }
        let weights: [Float] = [0.1, 0.2, 0.3, 0.4]
        var out = [Float](repeating: 0, count: 37)
        let flat = rows.flatMap { $0 }
        flat.withUnsafeBufferPointer { f in
            let pointers = (0..<4).map { f.baseAddress! + $0 * 37 }
            pointers.withUnsafeBufferPointer { p in weights.withUnsafeBufferPointer { w in out.withUnsafeMutableBufferPointer { o in
                Resample.verticalPass(rows: p.baseAddress!, weights: w.baseAddress!, count: 4, out: o.baseAddress!, length: 37)
            } } }
        }
        for i in 0..<37 {
            let ref = (0..<4).reduce(Float(0)) { $0 + rows[$1][i] * weights[$1] }
            #expect(abs(out[i] - ref) < 1e-5)
        }
    }
}
