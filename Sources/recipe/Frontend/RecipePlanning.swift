import RecipeCodecs
import RecipeCore
import RecipeKernels
import RecipeLanguage
import RecipeOptimizer
import RecipeRender

/// One streaming stage of a render.
enum RenderStage {
    /// Point programs over 8-bit RGB strips (one when fused).
    case point([PointProgram])
    /// A Gaussian window over rows (blur or unsharp mask), sigma in pixels of the rendered canvas.
    case blur(sigma: Double, mode: BlurStage.Mode)
}

/// From a recipe file to the stages a render runs: check (every diagnostic printed,
/// errors stop), then plan for the photo's size.
enum RecipePlanning {
    /// `size` is the render's size: positional kernels (vignette) are laid out on the canvas the
    /// pixels are actually on, so a display render matches the full render downscaled.
    static func stages(recipe: String, photo: String, size: RenderSize, overrides: [String: String], fuse: Bool) throws -> [RenderStage] {
        var options = CheckOptions()
        options.overrides = overrides
        var scale = 1.0
        if let decoder = try? ImageDecoders.open(photo) {
            let upright = decoder.info.uprightSize
            let target = size.target(width: upright.width, height: upright.height)
            options.sourceSize = CanvasSize(width: target.width, height: target.height)
            scale = Double(target.width) / Double(max(1, upright.width))
        }
        let checked = RecipeChecker.load(path: recipe, options: options)
        for d in checked.diagnostics { Console.printError(DiagnosticPrinter.render(d, source: checked.file)) }
        guard let graph = checked.graph else {
            if checked.isForeign { Console.error("\(recipe): foreign adjustment data; this build cannot render it") }
            throw CommandFailure(exitCode: 1)
        }
        do {
            let (plan, _) = try Planner.plan(graph, fuse: fuse, scale: scale, readFile: fileReader(for: recipe))
            // Consecutive point passes share one stage (the unfused plan has many); barriers stand alone.
            // (Programs are built once the grouping is known: only a lone program runs on 8-bit
            // rows and needs its tables.)
            var groups: [[ExecutionPlan.Pass]] = []
            var stages: [RenderStage] = []
            func flush() {
                guard let group = groups.popLast() else { return }
                stages.append(.point(group.map { PointProgram(steps: $0.steps.map(\.kernel), tables: group.count == 1) }))
            }
            for pass in plan.passes {
                if pass.barrier == nil {
                    if groups.isEmpty { groups.append([]) }
                    groups[0].append(pass)
                    continue
                }
                flush()
                if case .blur(let sigma, _)? = pass.barrier {
                    stages.append(.blur(sigma: sigma, mode: .blur))
                } else if case .unsharp(let sigma, let amount, let threshold, let luma, _)? = pass.barrier {
                    stages.append(.blur(sigma: sigma, mode: .unsharp(amount: Float(amount), threshold: Float(threshold), luma: luma)))
                }
            }
            flush()
            return stages
        } catch {
            let position = error.range.map { "\($0.file):\($0.start.line):\($0.start.column): " } ?? "\(recipe): "
            Console.printError(position + "error: " + error.message)
            throw CommandFailure(exitCode: 1)
        }
    }

    /// Reads files a recipe names (LUTs), relative to the recipe's folder. The checker has
    /// already kept them inside it unless `--allow-outside-files` was given.
    static func fileReader(for recipe: String) -> Planner.FileReader {
        let folder = recipe.contains("/") ? String(recipe[..<recipe.lastIndex(of: "/")!]) : "."
        return { path in
            try InputFile.readAll(path.hasPrefix("/") ? path : folder + "/" + path, limit: maxFileBytes)
        }
    }

    /// A 256³ .cube is about 400 MiB of text; 128 MiB covers every size tools export (65³ and below).
    static let maxFileBytes = 128 << 20
}
