import Glibc
import RecipeKernels
import Testing
import TestSupport

/// .cube parsing and interpolation against an independent numpy implementation:
/// `python3 Tests/Tools/lut_reference.py Recipes/luts/colour-correct.cube tetrahedral|trilinear R G B …`.
@Suite("cube LUT")
struct CubeLUTTests {
    static let file = TestPaths.packageRoot.appendingPathComponent("Recipes/luts/colour-correct.cube").path

    func load(_ path: String) throws -> [UInt8] {
        struct Unreadable: Error {}
        guard let f = fopen(path, "rb") else { throw Unreadable() }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var c = fgetc(f)
        while c != EOF { bytes.append(UInt8(c)); c = fgetc(f) }
        return bytes
    }

    static let pixels: [SIMD3<Double>] = [SIMD3(0.1, 0.5, 0.9), SIMD3(0.8, 0.2, 0.3), SIMD3(0.33, 0.33, 0.33), SIMD3(1.2, -0.1, 0.5)]
    static let tetrahedral: [SIMD3<Double>] = [SIMD3(0.117555100, 0.488906800, 0.878713700), SIMD3(0.904565100, 0.170208300, 0.287395200),
                                               SIMD3(0.412488450, 0.412488450, 0.412488450), SIMD3(1.125795500, -0.040867500, 0.534747500)]
    static let trilinear: [SIMD3<Double>] = [SIMD3(0.127752325, 0.473787175, 0.891297125), SIMD3(0.897634452, 0.170370340, 0.292836520),
                                             SIMD3(0.410664113, 0.409601180, 0.410664123), SIMD3(1.125795500, -0.040867500, 0.534747500)]

    @Test("tetrahedral and trilinear lookups match the numpy reference (double within 1e-6, the kernel within 1e-5)")
    func lookups() throws {
        let lut = try CubeLUT.parse(try load(Self.file))
        #expect(lut.kind == .threeD && lut.size == 4)
        for (tetra, expected) in [(true, Self.tetrahedral), (false, Self.trilinear)] {
            for (p, want) in zip(Self.pixels, expected) {
                let got = lut.lookup(p, tetrahedral: tetra)
                #expect(max(abs(got.x - want.x), abs(got.y - want.y), abs(got.z - want.z)) < 1e-6, "\(p) tetra \(tetra): \(got)")
                var r = [Float(p.x)], g = [Float(p.y)], b = [Float(p.z)]
                PointProgram(steps: [.lut(lut, tetrahedral: tetra, amount: 1)]).apply(r: &r, g: &g, b: &b, count: 1)
                #expect(max(abs(Double(r[0]) - want.x), abs(Double(g[0]) - want.y), abs(Double(b[0]) - want.z)) < 1e-5)
            }
        }
    }

    @Test("the kernel's 3D lookup equals the double reference within 1e-5 on a 17³ table over a shifted domain",
          arguments: [true, false])
    func kernelAgainstReference(_ tetrahedral: Bool) throws {
        // A smooth but non-separable table (so every tetrahedron's corners differ) over
        // [-0.1, 1.2]³, and inputs inside, outside, on the cell edges and at both ends.
        let n = 17
        var text = "LUT_3D_SIZE \(n)\nDOMAIN_MIN -0.1 -0.1 -0.1\nDOMAIN_MAX 1.2 1.2 1.2\n"
        for b in 0..<n { for g in 0..<n { for r in 0..<n {
            let (x, y, z) = (Double(r) / 16, Double(g) / 16, Double(b) / 16)
            text += "\(0.9 * x + 0.1 * y * z) \(y * y * 0.8 + 0.2 * x) \(sin(z * 1.4) * 0.7 + 0.1 * x * y)\n"
        } } }
        let lut = try CubeLUT.parse(Array(text.utf8))
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> Float {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Float(Double(state % 1_000_000) / 1_000_000 * 1.6 - 0.25)
        }
        var r: [Float] = [-0.1, 1.2, 1.2, -0.1 + 1.3 / 16 * 5, 3], g: [Float] = [-0.1, 1.2, 0.5, 0.3, -4], b: [Float] = [-0.1, 1.2, -0.5, 0.7, 0.5]
        for _ in 0..<995 { r.append(next()); g.append(next()); b.append(next()) }
        let (r0, g0, b0) = (r, g, b)
        PointProgram(steps: [.lut(lut, tetrahedral: tetrahedral, amount: 0.8)]).apply(r: &r, g: &g, b: &b, count: r.count)
        var worst = 0.0
        for i in 0..<r.count {
            let p = SIMD3(Double(r0[i]), Double(g0[i]), Double(b0[i]))
            let want = p + (lut.lookup(p, tetrahedral: tetrahedral) - p) * 0.8
            worst = max(worst, abs(Double(r[i]) - want.x), abs(Double(g[i]) - want.y), abs(Double(b[i]) - want.z))
        }
        #expect(worst < 1e-5, "worst \(worst)")
        // A NaN (an op's 0/0 upstream) reads the table's first cell instead of memory outside it.
        // Nine of them: eight lanes of the vector loop and the scalar one after it.
        var nr = [Float](repeating: .nan, count: 9), ng = [Float](repeating: 0.5, count: 9), nb = ng
        PointProgram(steps: [.lut(lut, tetrahedral: tetrahedral, amount: 1)]).apply(r: &nr, g: &ng, b: &nb, count: 9)
        let first = lut.lookup(SIMD3(-0.1, 0.5, 0.5), tetrahedral: tetrahedral)
        for i in 0..<9 {
            #expect(abs(Double(ng[i]) - first.y) < 1e-5 && abs(Double(nb[i]) - first.z) < 1e-5, "\(i): \(ng[i]) \(nb[i]) against \(first)")
        }
    }

    @Test("Resolve's 1D shaper runs before the 3D table, each over its input range")
    func shaper() throws {
        // Shaper over [0, 2] halving every value, then an identity 2³ table over [0, 1].
        var text = "LUT_1D_SIZE 2\nLUT_1D_INPUT_RANGE 0 2\nLUT_3D_SIZE 2\n0 0 0\n1 1 1\n"
        for b in 0..<2 { for g in 0..<2 { for r in 0..<2 { text += "\(r) \(g) \(b)\n" } } }
        let lut = try CubeLUT.parse(Array(text.utf8))
        #expect(lut.shaper?.size == 2)
        let out = lut.lookup(SIMD3(0.5, 1.0, 1.6), tetrahedral: true)
        #expect(abs(out.x - 0.25) < 1e-9 && abs(out.y - 0.5) < 1e-9 && abs(out.z - 0.8) < 1e-9)
    }

    @Test("malformed files are a ParseError with the line, never a crash")
    func malformed() {
        let cases: [(String, String)] = [
            ("LUT_3D_SIZE 2\n0 0 0\n1 0 0\n", "table rows"),
            ("0 0 0\n", "before LUT_3D_SIZE"),
            ("LUT_3D_SIZE 1\n", "outside"),
            ("LUT_3D_SIZE 2\n0 0 x\n", "not a number"),
            ("LUT_3D_SIZE 2\nFOO 1\n", "unknown keyword"),
            ("LUT_3D_SIZE 2\nLUT_3D_SIZE 2\n", "given twice"),
            ("LUT_1D_SIZE 2\nDOMAIN_MIN 1 1 1\nDOMAIN_MAX 0 0 0\n0 0 0\n1 1 1\n", "DOMAIN_MAX"),
            ("", "no LUT_3D_SIZE"),
            ("LUT_3D_SIZE 2\n0 0 0 0\n", "3 numbers, not 4"),
            ("LUT_3D_SIZE 2\n0 0\n", "3 numbers, not 2"),
            ("LUT_3D_SIZE 2\n0 1.5.3 0\n", "`1.5.3` is not a number"),
            ("LUT_3D_SIZE 2\n0 inf 0\n", "`inf` is not a number"),
            ("LUT_3D_SIZE 2\n0 1e99 0\n", "`1e99` is not a number"),
            ("LUT_3D_SIZE 2\n0 0 0\n" + String(repeating: "1 1 1\n", count: 8), "more rows than the sizes say (8)"),
        ]
        for (text, words) in cases {
            do {
                _ = try CubeLUT.parse(Array(text.utf8))
                Issue.record("parsed: \(text)")
            } catch {
                #expect(error.description.contains(words), "\(error)")
            }
        }
    }

    @Test("table rows are read as Float(_:) reads each number, in every spelling and with any blanks")
    func rowSpellings() throws {
        // Each row spelled differently: signs, exponents, no leading digit, many digits, tabs,
        // CR LF, runs of blanks, a trailing comment (the general path), hex.
        let rows = ["0 0 0", "1e-3 +.5 -0.25", "0.123456789012 1E2 2.", "\t0.5\t 0.25  0.125\r", "1 0x1p-2 0.3 # a comment",
                    "-1.5e+1 3.4028234e38 1.17549435e-38", "  7 8 9  ", "0.1 0.2 0.3"]
        let text = "TITLE \"spellings\"\nLUT_3D_SIZE 2\n" + rows.joined(separator: "\n") + "\n"
        let lut = try CubeLUT.parse(Array(text.utf8))
        let expected: [Float] = rows.flatMap { row in
            row.split(separator: "#")[0].split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map { Float($0)! }
        }
        #expect(lut.table.count == 24)
        #expect(lut.table.map(\.bitPattern) == expected.map(\.bitPattern), "\(lut.table) vs \(expected)")
        // 2,016 random decimals of up to 9 digits, plain and with exponents: bit for bit what
        // Float(String) gives.
        var rng = SystemRandomNumberGenerator()
        var words: [String] = []
        for k in 0..<3 * 8 * 84 {
            let m = Int.random(in: -999_999_999...999_999_999, using: &rng)
            let digits = String(m.magnitude)
            let sign = m < 0 ? "-" : ""
            words.append(k % 2 == 0 ? "\(m)e-\(Int.random(in: 6...9, using: &rng))"
                                    : sign + "0." + String(repeating: "0", count: 9 - digits.count) + digits)
        }
        var many = 0
        for k in stride(from: 0, to: words.count, by: 24) {
            let chunk = Array(words[k..<k + 24])
            let file = "LUT_3D_SIZE 2\n" + stride(from: 0, to: 24, by: 3).map { chunk[$0..<$0 + 3].joined(separator: " ") }.joined(separator: "\n")
            if try CubeLUT.parse(Array(file.utf8)).table.map(\.bitPattern) == chunk.map({ Float($0)!.bitPattern }) { many += 1 }
        }
        #expect(many == words.count / 24)
    }

    @Test("every .cube of the corpus parses or fails with a ParseError", Requirement.corpus)
    func corpus() throws {
        let files = TestPaths.corpusFiles("luts", extensions: ["cube", "txt", "3dl", "csp", ""])
        try #require(!files.isEmpty, "no LUTs in ../shared/corpus/luts")
        var parsed = 0, refused = 0
        for path in files {
            do {
                let lut = try CubeLUT.parse(try load(path))
                #expect(lut.table.count == 3 * (lut.kind == .threeD ? lut.size * lut.size * lut.size : lut.size))
                parsed += 1
            } catch is CubeLUT.ParseError {
                refused += 1
            }
        }
        testNote("LUT corpus: \(parsed) parsed, \(refused) refused with a line-numbered error")
        #expect(parsed > 0)
    }
}
