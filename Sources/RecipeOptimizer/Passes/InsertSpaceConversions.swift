import RecipeCore
import RecipeKernels

/// Inserts → linear / → encoded steps only where the working space changes. Samples arrive and
/// leave sRGB-encoded; `.any` steps run in whatever space they find.
///
/// ```
/// matrix [lin], matrix [enc], power [enc]   →   → linear, matrix, → encoded, matrix, power
/// ```
enum InsertSpaceConversions {
    /// Each run of point steps starts and ends encoded: that is how 8-bit samples arrive from the
    /// decoder or a barrier stage and leave for the encoder or the next barrier.
    static func run(_ plan: ExecutionPlan) -> ExecutionPlan { plan.mapSegments(convert) }

    static func convert(_ steps: [ExecutionPlan.Step]) -> [ExecutionPlan.Step] {
        var out: [ExecutionPlan.Step] = []
        var current: WorkingSpace = .encoded
        for step in steps {
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
        return out
    }
}
