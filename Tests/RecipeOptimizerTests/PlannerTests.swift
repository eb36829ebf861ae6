import RecipeCore
import RecipeKernels
import RecipeLanguage
@testable import RecipeOptimizer
import Testing

/// The optimiser passes: each rewrites the plan and leaves the pixels as they were.
@Suite("optimiser passes")
struct PlannerTests {
    func graph(_ stages: String) throws -> FilterGraph {
        let text = "format: dev.recipe.edit\nversion: 1.1\nstages:\n" + stages
        let checked = RecipeChecker.check(SourceFile(path: "t.recipe.yaml", text: text))
        return try #require(checked.graph, "\(checked.diagnostics)")
    }

    /// Runs steps of a plan in double precision over a few pixels.
    func evaluate(_ steps: [PointStep], _ p: SIMD3<Double>) -> SIMD3<Double> {
        steps.reduce(p) { $1.reference($0) }
    }

    static let pixels: [SIMD3<Double>] = [SIMD3(0.1, 0.5, 0.9), SIMD3(0.02, 0.03, 0.04), SIMD3(0.8, 0.7, 0.95), SIMD3(0.5, 0.5, 0.5)]

    @Test("every pass keeps the result within 1e-5 of the lowered plan")
    func passesPreserveMeaning() throws {
        let g = try graph("  - exposure: 0.25\n  - contrast: 1.15\n  - saturation: 1.3\n  - matrix: [[1.06, 0, 0], [0, 1, 0], [0, 0, 0.94]]\n  - gamma: 0.9\n  - brightness: 0\n")
        let (_, trace) = try Planner.plan(g)
        let lowered = trace[0].plan.steps
        // Lowered steps carry spaces; their meaning needs the conversions, so compare from the
        // conversions pass on, and the lowered plan through InsertSpaceConversions alone.
        let reference = InsertSpaceConversions.run(trace[0].plan, fold: false).steps.map(\.kernel)
        for t in trace.dropFirst(2) where t.pass != "FusePointRuns" {
            // Passes before the conversions are inserted are compared with the conversions added.
            let steps = ["HoistCrops", "FuseGeometry", "FoldMatrices", "EncodedGains"].contains(t.pass) ? InsertSpaceConversions.run(t.plan, fold: false).steps.map(\.kernel) : t.plan.steps.map(\.kernel)
            for p in Self.pixels {
                let a = evaluate(reference, p), b = evaluate(steps, p)
                #expect(max(abs(a.x - b.x), abs(a.y - b.y), abs(a.z - b.z)) < 1e-5, "\(t.pass) changed \(p)")
            }
        }
        #expect(lowered.count == 6)
    }

    @Test("identities are dropped, adjacent matrices of one space folded, conversions only where the space changes")
    func shapes() throws {
        let g = try graph("  - brightness: 0\n  - saturation: 1.2\n  - matrix: [[1.1, 0, 0], [0, 1, 0], [0, 0, 0.9]]\n  - gamma: 0.8\n")
        let (plan, trace) = try Planner.plan(g)
        #expect(trace.map(\.pass) == ["LowerPointOps", "DropIdentities", "HoistCrops", "FuseGeometry", "FoldMatrices", "EncodedGains",
                                      "InsertSpaceConversions", "BranchFromSource", "FusePointRuns"])
        #expect(trace[1].plan.steps.count == 3)  // brightness 0 dropped
        #expect(trace[4].plan.steps.count == 2)  // saturation and matrix folded (after HoistCrops)
        #expect(trace[6].plan.steps.map(\.kernel).first == .toLinear)
        #expect(plan.passes.count == 1)
        let (head, body, tail) = PointProgram.split(plan.passes[0].steps.map(\.kernel))
        #expect(head == [.toLinear])  // folded into the load table
        #expect(body.count == 1)      // the folded matrix, per pixel
        #expect(tail.first == .toEncoded && tail.count == 2)  // → encoded, power: the store table
    }

    @Test("a colour conversion's matrix folds with the exposure after it (same values within 1e-5); not with --no-fuse")
    func colourMatrixFolds() throws {
        let g = try graph("  - exposure: 0.25\n  - contrast: 1.15\n")
        var color = ColorEndpoints()
        // Display P3 → linear sRGB (the sRGB curve, then the primaries' matrix), as PhotoColor makes it.
        let p3 = [Float(1.2249401), -0.2249404, 0, 0, -0.0420569, 1.0420571, 0, 0, -0.0196376, -0.0786361, 1.0982735, 0]
        color.source = [.toLinear, .matrix(p3)]
        color.sourceName = "Display P3"
        let (plan, trace) = try Planner.plan(g, color: color)
        let (unfused, _) = try Planner.plan(g, fuse: false, color: color)
        let steps = plan.passes.flatMap(\.steps).map(\.kernel)
        #expect(steps.filter { if case .matrix = $0 { true } else { false } }.count == 2)  // P3·exposure, contrast
        #expect(unfused.passes.flatMap(\.steps).filter { if case .matrix = $0.kernel { true } else { false } }.count == 3)
        let lowered = try #require(trace.first { $0.pass == "InsertSpaceConversions" })
        let reference = InsertSpaceConversions.run(trace[0].plan, fold: false).steps.map(\.kernel)
        for p in Self.pixels {
            let a = evaluate(reference, p), b = evaluate(lowered.plan.steps.map(\.kernel), p)
            #expect(max(abs(a.x - b.x), abs(a.y - b.y), abs(a.z - b.z)) < 1e-5, "fold changed \(p)")
        }
    }

    @Test("--no-fuse: one pass per step, nothing folded")
    func unfused() throws {
        let g = try graph("  - saturation: 1.2\n  - matrix: [[1.1, 0, 0], [0, 1, 0], [0, 0, 0.9]]\n")
        let (plan, _) = try Planner.plan(g, fuse: false)
        #expect(plan.passes.count == 4)  // → linear, matrix, matrix, → encoded
        #expect(plan.passes.allSatisfy { $0.steps.count == 1 })
    }

    @Test("what the engine cannot render is a PlanError naming the stage")
    func unsupported() throws {
        let unsupported = try graph("  - exposure: 0.1\n  - orient: none\n")
        let result = Result { () throws(PlanError) in try Planner.plan(unsupported) }
        if case .failure(let error) = result { #expect(error.message.hasPrefix("orient (stage 2)")) } else { Issue.record("planned orient: none") }
        #expect(throws: PlanError.self) { try Planner.plan(try graph("  - blur: 2\n    mask: {radial: {center: [0.5, 0.5], radius: 0.3}}\n")) }
    }

    @Test("branches: an image read twice is kept and resumed; a blend names the kept image it lays on top")
    func branches() throws {
        let g = try graph("  - id: base\n    exposure: 0.15\n  - id: glow\n    input: base\n    blur: 4\n  - input: base\n    blend: {with: glow, mode: screen}\n  - saturation: 1.1\n")
        let (plan, _) = try Planner.plan(g)
        let barriers = plan.passes.compactMap { $0.barrier }
        #expect(barriers == [.keep(name: "base", readers: 2), .resume(name: "base"), .blur(sigma: 4, origin: "blur (stage 2)"),
                             .keep(name: "glow", readers: 1), .resume(name: "base"),
                             .blend(with: "glow", mode: "screen", opacity: 1, origin: "blend (stage 3)")])
        // The exposure (per-channel) moved to each reader of `base` (`BranchFromSource`);
        // saturation last.
        #expect(plan.passes.first?.barrier == .keep(name: "base", readers: 2) && plan.passes.last?.barrier == nil)
    }

    @Test("a first branch point keeps the photo's rows when the steps before it are per-channel: they move to each reader, the same values; not otherwise")
    func branchFromSource() throws {
        let (plan, trace) = try Planner.plan(try graph(
            "  - id: base\n    exposure: 0.15\n  - id: glow\n    input: base\n    blur: 4\n  - input: base\n    blend: {with: glow, mode: screen}\n"))
        let before = try #require(trace.first { $0.pass == "InsertSpaceConversions" }?.plan)
        let after = try #require(trace.first { $0.pass == "BranchFromSource" }?.plan)
        #expect(after.segments[0].isEmpty && after.barriers[0] == .keep(name: "base", readers: 2))
        // Each reader's run is the moved steps, then its own: the same function of the photo's values.
        for (j, barrier) in after.barriers.enumerated() where barrier == .resume(name: "base") {
            let moved = before.segments[0].map(\.kernel) + before.segments[j + 1].map(\.kernel)
            #expect(after.segments[j + 1].map(\.kernel) == moved)
            for p in Self.pixels {
                let a = evaluate(moved, p), b = evaluate(after.segments[j + 1].map(\.kernel), p)
                #expect(a == b)
            }
        }
        #expect(plan.passes.filter { $0.barrier == nil }.count == 3)  // each reader's pass and the glow's → encoded
        // A saturation (not per-channel) before the branch point stays where it is.
        let (_, kept) = try Planner.plan(try graph(
            "  - id: base\n    saturation: 1.2\n  - id: glow\n    input: base\n    blur: 4\n  - input: base\n    blend: {with: glow, mode: screen}\n"))
        let unmoved = try #require(kept.first { $0.pass == "BranchFromSource" }?.plan)
        #expect(!unmoved.segments[0].isEmpty)
        // A blend that lays the kept image on top reads it with no run of its own: nothing moves.
        let (_, onTop) = try Planner.plan(try graph(
            "  - id: a\n    exposure: 0.3\n  - input: a\n    blur: 5px\n  - blend: {with: a, mode: multiply, opacity: 0.3}\n"))
        #expect(!(try #require(onTop.first { $0.pass == "BranchFromSource" }?.plan)).segments[0].isEmpty)
        // --no-fuse: not run.
        let (_, unfused) = try Planner.plan(try graph(
            "  - id: base\n    exposure: 0.15\n  - id: glow\n    input: base\n    blur: 4\n  - input: base\n    blend: {with: glow, mode: screen}\n"), fuse: false)
        #expect(!unfused.map(\.pass).contains("BranchFromSource"))
    }

    @Test("geometry: crops, turns and resizes become geometric stages with the canvas sizes they make")
    func geometry() throws {
        let g = try graph("  - crop: {aspect: \"1:1\"}\n  - rotate: 90\n  - resize: {width: 1000px}\n  - exposure: 0.2\n")
        // Unfused: every stage at full size, as written.
        let (plan, _) = try Planner.plan(g, fuse: false)
        let steps = plan.passes.compactMap { if case .geometric(let s, _)? = $0.barrier { s } else { nil } }
        #expect(steps == [.crop(x: 1000, y: 0, width: 4000, height: 4000), .rotate(quarterTurns: 1),
                          .resize(width: 1000, height: 1000, kernel: .lanczos3)])
        #expect(plan.sourceSize == CanvasSize(width: 6000, height: 4000) && plan.outputSize == CanvasSize(width: 1000, height: 1000))
        // Fused, on a photo its decoder halves (a JPEG's DCT scaling): the crop and turn work on
        // the half-size photo and the resize does the rest.
        let (fused, _) = try Planner.plan(g, reduction: { _ in CanvasSize(width: 3000, height: 2000) })
        let moves = fused.passes.compactMap { if case .geometric(let s, _)? = $0.barrier { s } else { nil } }
        #expect(moves == [.crop(x: 500, y: 0, width: 2000, height: 2000), .rotate(quarterTurns: 1),
                          .resize(width: 1000, height: 1000, kernel: .lanczos3)])
        #expect(fused.sourceSize == CanvasSize(width: 3000, height: 2000) && fused.outputSize == CanvasSize(width: 1000, height: 1000))
        // A photo decoded in full (a PNG) keeps the full size before the resize.
        let (png, _) = try Planner.plan(g)
        #expect(png.sourceSize == CanvasSize(width: 6000, height: 4000) && png.sourceKernel == nil)
    }

    @Test("a full render shrinks before a downscaling resize: resampled on decode when the resize comes first, with its kernel")
    func shrinkEarly() throws {
        // A resize first: the photo is resampled to its size as it is decoded, with its kernel;
        // the larger of the two axes' ratios decides, so a squeeze keeps what the width needs.
        let (first, _) = try Planner.plan(try graph("  - resize: {width: 1500px, kernel: mitchell}\n  - exposure: 0.2\n"))
        #expect(first.sourceSize == CanvasSize(width: 1500, height: 1000) && first.sourceKernel == .mitchell)
        #expect(first.passes.allSatisfy { $0.barrier == nil })
        let (squeeze, _) = try Planner.plan(try graph("  - resize: {width: 3000px, height: 500px}\n"))
        #expect(squeeze.sourceSize == CanvasSize(width: 3000, height: 2000))
        // A straighten first: on the reduced decode; the squeeze is left to the resize.
        let g = try graph("  - straighten: 2\n  - resize: {width: 3000px, height: 500px, kernel: mitchell}\n")
        let (plan, _) = try Planner.plan(g, reduction: { wanted in
            #expect(wanted == CanvasSize(width: 3000, height: 2000))
            return CanvasSize(width: 3000, height: 2000)
        })
        #expect(plan.sourceSize == CanvasSize(width: 3000, height: 2000))
        let steps = plan.passes.compactMap { if case .geometric(let s, _)? = $0.barrier { s } else { nil } }
        #expect(steps.count == 2 && steps.last == .resize(width: 3000, height: 500, kernel: .mitchell))
        // Unfused, and for an enlargement: the full size.
        #expect(try Planner.plan(g, fuse: false, reduction: { _ in CanvasSize(width: 3000, height: 2000) }).0.sourceSize == CanvasSize(width: 6000, height: 4000))
        let (up, _) = try Planner.plan(try graph("  - straighten: 2\n  - resize: {scale: 2}\n"), reduction: { _ in CanvasSize(width: 3000, height: 2000) })
        #expect(up.sourceSize == CanvasSize(width: 6000, height: 4000) && up.sourceKernel == nil)
    }

    @Test("a straighten and the crops and left–right flips right after it become one windowed straighten; a top–bottom flip or a point step between stops it")
    func fuseGeometry() throws {
        let g = try graph("  - straighten: 3\n  - crop: {x: 100px, y: 50px, width: 2000px, height: 1000px}\n  - flip: horizontal\n  - crop: {x: 0, y: 0, width: 500px, height: 400px}\n  - flip: vertical\n")
        let (plan, _) = try Planner.plan(g)
        let steps = plan.passes.compactMap { if case .geometric(let s, _)? = $0.barrier { s } else { nil } }
        // Mirrored, the second crop's first 500 columns are the window's last 500: 100 + 2000 − 500.
        #expect(steps == [.straightenWindow(degrees: 3, expand: false, width: 6000, height: 4000,
                                            window: .init(x: 1600, y: 50, width: 500, height: 400), mirrored: true),
                          .flip(horizontal: false)])
        let (unfused, _) = try Planner.plan(g, fuse: false)
        #expect(unfused.passes.compactMap { $0.barrier }.count == 5)
        // A crop moves before an exposure (HoistCrops) and then folds; not before a vignette.
        let (hoisted, _) = try Planner.plan(try graph("  - straighten: 3\n  - exposure: 0.5\n  - crop: {aspect: \"1:1\"}\n"))
        #expect(hoisted.passes.contains { if case .geometric(.straightenWindow, _)? = $0.barrier { true } else { false } })
        let (between, _) = try Planner.plan(try graph("  - straighten: 3\n  - vignette: 0.5\n  - crop: {aspect: \"1:1\"}\n"))
        #expect(between.passes.contains { if case .geometric(.straighten, _)? = $0.barrier { true } else { false } })
    }

    @Test("a crop moves before the point steps in front of it, unless one of them reads positions")
    func hoistCrops() throws {
        let (plan, _) = try Planner.plan(try graph("  - exposure: 0.2\n  - contrast: 1.1\n  - crop: {aspect: \"1:1\"}\n  - saturation: 1.2\n"))
        #expect(plan.passes.count == 2)
        if case .geometric(.crop, _)? = plan.passes.first?.barrier {} else { Issue.record("the crop is not first: \(plan)") }
        #expect(plan.passes[1].steps.contains { $0.origin == "exposure (stage 1)" } && plan.passes[1].steps.contains { $0.origin == "saturation (stage 4)" })
        let (kept, _) = try Planner.plan(try graph("  - vignette: 0.3\n  - crop: {aspect: \"1:1\"}\n"))
        #expect(kept.passes.first?.barrier == nil)  // the vignette is laid out on the uncropped canvas
    }

    @Test("a display render of a recipe that ends in a resize decodes only as large as the resize needs")
    func displayScales() throws {
        // 6000×4000 → 1500×1000: a 750 px output (scale 0.5) needs the photo decoded at 750×500, no larger.
        let g = try graph("  - exposure: 0.2\n  - resize: {long-edge: 1500px}\n  - sharpen: {amount: 1, sigma: 2px}\n")
        let (plan, _) = try Planner.plan(g, scale: 0.5)
        #expect(plan.sourceSize == CanvasSize(width: 750, height: 500))
        #expect(plan.outputSize == CanvasSize(width: 750, height: 500))
        #expect(!plan.passes.contains { if case .geometric? = $0.barrier { true } else { false } })  // the resize became the decode
        #expect(plan.passes.contains { $0.barrier == .unsharp(sigma: 1, kernel: .bandLimited, amount: 1, threshold: 0, luma: false, origin: "sharpen (stage 3)") })
        // An enlarging resize is given up to the full size to enlarge from.
        let up = try graph("  - resize: {scale: 2}\n")
        let (enlarged, _) = try Planner.plan(up, scale: 0.25)
        #expect(enlarged.sourceSize == CanvasSize(width: 3000, height: 2000) && enlarged.outputSize == CanvasSize(width: 3000, height: 2000))
    }

    @Test("a masked stage becomes keep-input … mix-by-mask in the op's space; --no-fuse keeps the group in one pass")
    func masked() throws {
        let g = try graph("  - contrast: 1.2\n  - exposure: -0.5\n    mask: {gradient: {from: [0.5, 0], to: [0.5, 0.5]}}\n")
        let (plan, trace) = try Planner.plan(g)
        let kernels = try #require(trace.first { $0.pass == "InsertSpaceConversions" }).plan.steps.map(\.kernel)
        let save = try #require(kernels.firstIndex(of: .saveInput))
        #expect(kernels[save - 1] == .toLinear)  // converted before the input is kept
        if case .maskMix = kernels[save + 2] {} else { Issue.record("no mix after the masked op: \(kernels)") }
        #expect(plan.passes.count == 1)
        let (unfused, _) = try Planner.plan(g, fuse: false)
        let groups = unfused.passes.filter { $0.steps.first?.kernel == .saveInput }
        #expect(groups.count == 1 && groups[0].steps.count == 3)
    }

    @Test("a blur splits the plan into point passes around a barrier; px scale with the render, % with the canvas")
    func barrier() throws {
        let g = try graph("  - exposure: 0.1\n  - blur: 4\n  - contrast: 1.1\n  - blur: 1%\n")
        let (plan, _) = try Planner.plan(g, scale: 0.5)
        #expect(plan.passes.count == 5)
        #expect(plan.passes[1].barrier == .blur(sigma: 2, kernel: .bandLimited, origin: "blur (stage 2)"))   // 4 px at half size
        #expect(plan.passes[3].barrier == .blur(sigma: 20, kernel: .bandLimited, origin: "blur (stage 4)"))  // 1% of the 2000 px short side at half size
        // Floats cross the barriers in the blur's space: each run ends in linear light before a
        // blur and starts there after it; the last brings the samples back to encoded for the encoder.
        #expect(plan.segments.count == 3)
        #expect(plan.segments[0].map(\.kernel).first == .toLinear && plan.segments[0].last?.kernel != .toEncoded)
        #expect(plan.segments[1].map(\.kernel).first == .toEncoded && plan.segments[1].last?.kernel == .toLinear)
        #expect(plan.segments[2].map(\.kernel) == [.toEncoded])
    }

    @Test("runs end in the space of the barrier after them: linear before a blur, encoded before a sharpen, unchanged before a crop")
    func barrierSpaces() throws {
        let g = try graph("  - exposure: 0.1\n  - sharpen: 0.5\n  - crop: {x: 0, y: 0, width: 10, height: 10}\n  - blur: 2\n")
        let (plan, _) = try Planner.plan(g)
        let segments = plan.segments.map { $0.map(\.kernel) }
        #expect(segments.count == 4)
        #expect(segments[0].first == .toLinear && segments[0].last == .toEncoded)  // exposure in linear, then encoded for the sharpen
        #expect(segments[1].isEmpty)                                                // the crop moves the encoded floats as they are…
        #expect(segments[2] == [.toLinear])                                         // …and the blur wants them linear
        #expect(segments[3] == [.toEncoded])
    }

    @Test("a vignette or shadows/highlights between encoded neighbours runs on encoded values, with no conversion around it; beside linear ones, where → linear joins a table, or with --no-fuse it stays in linear light")
    func encodedGains() throws {
        func shadows(_ plan: ExecutionPlan) -> Bool? {
            for b in plan.barriers { if case .shadowsHighlights(_, _, _, _, let encoded, _) = b { return encoded } }
            return nil
        }
        func vignettes(_ plan: ExecutionPlan) -> [Bool] {
            plan.steps.compactMap { if case .vignette(_, _, _, _, _, _, let encoded) = $0.kernel { encoded } else { nil } }
        }
        // warm-portrait's shape: vibrance (encoded) — shadows/highlights — clarity — vignette — sRGB out.
        let portrait = try graph("  - vibrance: 0.2\n  - shadows-highlights: {shadows: 0.3, radius: 2%}\n  - clarity: 0.2\n  - vignette: 0.3\n")
        let (plan, _) = try Planner.plan(portrait)
        #expect(shadows(plan) == true)
        #expect(vignettes(plan) == [true])
        #expect(!plan.steps.contains { $0.kernel == .toLinear || $0.kernel == .toEncoded })  // not one conversion left
        #expect(plan.barriers[0].space == .encoded)
        let (unfused, _) = try Planner.plan(portrait, fuse: false)
        #expect(shadows(unfused) == false && vignettes(unfused) == [false])
        // Light wanted after it: shadows/highlights and the vignette stay linear.
        let (linear, _) = try Planner.plan(try graph("  - contrast: 1.1\n  - shadows-highlights: {shadows: 0.3, radius: 2%}\n  - vignette: 0.2\n  - exposure: 0.2\n"))
        #expect(shadows(linear) == false && vignettes(linear) == [false])
        // film-look's shape: the → linear before the vignette joins the levels' table; and the
        // first step of a plan, whose → linear is the load table: both stay linear.
        let (film, _) = try Planner.plan(try graph("  - levels: {out-black: 0.04}\n  - vignette: 0.3\n"))
        #expect(vignettes(film) == [false])
        let (first, _) = try Planner.plan(try graph("  - vignette: 0.3\n  - contrast: 1.1\n"))
        #expect(vignettes(first) == [false])
        // The meaning holds: the encoded vignette after clarity against the linear one with its conversions.
        let segment = plan.segments.last!.map(\.kernel), reference = unfused.segments.last!.map(\.kernel)
        for p in Self.pixels {
            let a = evaluate(segment, p), b = evaluate(reference, p)
            #expect(max(abs(a.x - b.x), abs(a.y - b.y), abs(a.z - b.z)) < 1e-9, "\(p)")
        }
    }
}
