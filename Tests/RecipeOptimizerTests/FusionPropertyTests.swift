import RecipeCore
import RecipeKernels
import RecipeLanguage
import RecipeOptimizer
import Testing

/// Fusion changes no pixel: random chains of random point ops with random parameters, planned
/// fused and unfused, give the same float results within 1e-5.
@Suite("fusion property")
struct FusionPropertyTests {
    /// xorshift64: the same chains on every run.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return state
        }
        mutating func unit() -> Double { Double(next() % 1_000_001) / 1_000_000 }
        mutating func number(_ range: ClosedRange<Double>) -> Double {
            ((range.lowerBound + unit() * (range.upperBound - range.lowerBound)) * 1000).rounded() / 1000
        }
        mutating func pick<T>(_ items: [T]) -> T { items[Int(next() % UInt64(items.count))] }
    }

    /// One random stage of a point op (or a masked one), as recipe text.
    static func stage(_ r: inout Random) -> String {
        switch r.next() % 20 {
        case 0: return "exposure: \(r.number(-2...2))"
        case 1: return "brightness: \(r.number(-0.3...0.3))"
        case 2: return "contrast: {amount: \(r.number(0.5...2)), pivot: \(r.number(0.2...0.8))}"
        case 3: return "saturation: \(r.number(0...2))"
        case 4: return "vibrance: \(r.number(-1...1))"
        case 5: return "gamma: \(r.number(0.4...2.5))"
        case 6: return "levels: {black: \(r.number(0...0.2)), white: \(r.number(0.8...1)), gamma: \(r.number(0.5...2))}"
        case 7: return "curve: [[0, \(r.number(0...0.2))], [0.5, \(r.number(0.3...0.7))], [1, \(r.number(0.8...1))]]"
        case 8: return "sigmoid: {contrast: \(r.number(1...10)), midpoint: \(r.number(0.3...0.7))}"
        case 9: return "white-balance: {temp: \(Int(r.number(3000...9000))), tint: \(Int(r.number(-40...40)))}"
        case 10: return "hue: \(r.number(-180...180))"
        case 11: return "matrix: [[\(r.number(0.8...1.2)), \(r.number(-0.1...0.1)), 0], [0, \(r.number(0.8...1.2)), \(r.number(-0.1...0.1))], [\(r.number(-0.1...0.1)), 0, \(r.number(0.8...1.2))]]"
        case 12: return "sepia: \(r.number(0...1))"
        case 13: return "grayscale: \(r.number(0...1))"
        case 14: return "colorize: {color: \"#\(r.pick(["996633", "3366cc", "ffcc00"]))\", amount: \(r.number(0...1))}"
        case 15: return "invert: {}"
        case 16: return "clip: {min: \(r.number(0...0.1)), max: \(r.number(0.9...1))}"
        case 17: return "vignette: {amount: \(r.number(-1...1)), radius: \(r.number(0.5...1.5)), feather: \(r.number(0.1...1))}"
        case 18: return "exposure: \(r.number(-1...1))\n    mask: {gradient: {from: [0.5, 0], to: [0.5, \(r.number(0.2...1))]}}"
        default: return "saturation: \(r.number(0...2))\n    mask: {luminance: {min: \(r.number(0...0.4)), max: \(r.number(0.6...1))}}"
        }
    }

    /// Runs the point passes of a plan over planes of `width`×`rows` floats.
    static func run(_ plan: ExecutionPlan, _ planes: ([Float], [Float], [Float]), width: Int) -> ([Float], [Float], [Float]) {
        var (r, g, b) = planes
        r.withUnsafeMutableBufferPointer { rp in
            g.withUnsafeMutableBufferPointer { gp in
                b.withUnsafeMutableBufferPointer { bp in
                    for pass in plan.passes where pass.barrier == nil {
                        PointProgram(steps: pass.steps.map(\.kernel), tables: false)
                            .apply(r: rp.baseAddress!, g: gp.baseAddress!, b: bp.baseAddress!, count: rp.count, width: width, firstRow: 0)
                    }
                }
            }
        }
        return (r, g, b)
    }

    @Test("200 random chains of 2–8 point stages: fused equals unfused within 1e-5")
    func randomChains() throws {
        var random = Random(state: 0x5DEECE66D)
        let (width, rows) = (37, 11)
        var values = Random(state: 42)
        let planes = (0..<3).map { _ in (0..<(width * rows)).map { _ in Float(values.unit()) } }
        var worst = 0.0
        for chain in 0..<200 {
            let count = 2 + Int(random.next() % 7)
            let stages = (0..<count).map { _ in "  - " + Self.stage(&random) + "\n" }.joined()
            var options = CheckOptions()
            options.sourceSize = CanvasSize(width: width, height: rows)
            let checked = RecipeChecker.check(SourceFile(path: "chain-\(chain).recipe.yaml", text: "format: dev.recipe.edit\nversion: 1.1\nstages:\n" + stages), options: options)
            let graph = try #require(checked.graph, "\(stages)\n\(checked.diagnostics)")
            let (fused, _) = try Planner.plan(graph, fuse: true)
            let (unfused, _) = try Planner.plan(graph, fuse: false)
            let a = Self.run(fused, (planes[0], planes[1], planes[2]), width: width)
            let b = Self.run(unfused, (planes[0], planes[1], planes[2]), width: width)
            var chainWorst = 0.0
            for (x, y) in [(a.0, b.0), (a.1, b.1), (a.2, b.2)] {
                for i in 0..<x.count { chainWorst = max(chainWorst, Double(abs(x[i] - y[i])) / max(1, Double(abs(y[i])))) }
            }
            #expect(chainWorst <= 1e-5, "chain \(chain):\n\(stages)worst \(chainWorst)")
            worst = max(worst, chainWorst)
        }
        print("fusion property: 200 chains, worst fused vs unfused difference \(worst)")
    }
}
