import RecipeCodecs
import RecipeCore
import RecipeKernels
import RecipeLanguage
import RecipeOptimizer

/// From a recipe file to the point programs a render runs: check (every diagnostic printed,
/// errors stop), then plan for the photo's size.
enum RecipePlanning {
    /// `size` is the render's size: positional kernels (vignette) are laid out on the canvas the
    /// pixels are actually on, so a display render matches the full render downscaled.
    static func programs(recipe: String, photo: String, size: RenderSize, overrides: [String: String], fuse: Bool) throws -> [PointProgram] {
        var options = CheckOptions()
        options.overrides = overrides
        if let decoder = try? ImageDecoders.open(photo) {
            let upright = decoder.info.uprightSize
            let target = size.target(width: upright.width, height: upright.height)
            options.sourceSize = CanvasSize(width: target.width, height: target.height)
        }
        let checked = RecipeChecker.load(path: recipe, options: options)
        for d in checked.diagnostics { Console.printError(DiagnosticPrinter.render(d, source: checked.file)) }
        guard let graph = checked.graph else {
            if checked.isForeign { Console.error("\(recipe): foreign adjustment data; this build cannot render it") }
            throw CommandFailure(exitCode: 1)
        }
        do {
            let (plan, _) = try Planner.plan(graph, fuse: fuse)
            return plan.passes.map(\.program)
        } catch {
            let position = error.range.map { "\($0.file):\($0.start.line):\($0.start.column): " } ?? "\(recipe): "
            Console.printError(position + "error: " + error.message)
            throw CommandFailure(exitCode: 1)
        }
    }
}
