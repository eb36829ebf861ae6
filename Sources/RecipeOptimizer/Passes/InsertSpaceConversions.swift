import RecipeCore
import RecipeKernels

/// Inserts → linear / → encoded steps only where the working space changes. Samples arrive and
/// leave sRGB-encoded; `.any` steps run in whatever space they find.
///
/// ```
/// matrix [lin], matrix [enc], power [enc]   →   → linear, matrix, → encoded, matrix, power
/// ```
enum InsertSpaceConversions {
    static func run(_ plan: ExecutionPlan) -> ExecutionPlan {
        var out: [ExecutionPlan.Step] = []
        var current: WorkingSpace = .encoded
        for step in plan.steps {
            if step.space == .linear, current != .linear {
                out.append(ExecutionPlan.Step(.toLinear, space: .encoded, origin: "→ linear"))
                current = .linear
            } else if step.space == .encoded, current != .encoded {
                out.append(ExecutionPlan.Step(.toEncoded, space: .linear, origin: "→ encoded"))
                current = .encoded
            }
            out.append(step)
        }
        if current == .linear { out.append(ExecutionPlan.Step(.toEncoded, space: .linear, origin: "→ encoded")) }
        var plan = plan
        plan.steps = out
        return plan
    }
}
