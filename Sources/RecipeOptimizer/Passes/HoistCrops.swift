import RecipeKernels
import RecipeOps

/// Moves each crop before the run of point steps in front of it, when no step of that run reads
/// pixel positions (vignette, gradient and radial masks): per-pixel work then runs on the kept
/// rectangle only, and the run joins the one after the crop in a single pass. Exact: a point
/// step's result at a pixel does not depend on where the pixel is.
///
/// ```
/// exposure, contrast · crop 1000×1000 · saturation   →   crop 1000×1000 · exposure, contrast, saturation
/// ```
enum HoistCrops {
    static func run(_ plan: ExecutionPlan) -> ExecutionPlan {
        var out = plan
        for i in out.barriers.indices {
            guard case .geometric(.crop, _) = out.barriers[i], !out.segments[i].isEmpty,
                  !out.segments[i].contains(where: { $0.kernel.readsPosition }) else { continue }
            out.segments[i + 1] = out.segments[i] + out.segments[i + 1]
            out.segments[i] = []
        }
        return out
    }
}
