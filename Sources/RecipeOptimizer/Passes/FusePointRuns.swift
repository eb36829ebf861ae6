import RecipeKernels

/// Makes the whole run of point steps one pass over the strip (one `PointProgram`): no
/// intermediate image. The kernel then folds the per-channel steps at either end into its load
/// and store tables, so only the steps between run per pixel.
///
/// ```
/// → linear, matrix, → encoded, matrix, power   →   pass 1: load table [→ linear], matrix, store table [→ encoded, power]
/// ```
enum FusePointRuns {
    static func run(_ plan: ExecutionPlan) -> ExecutionPlan {
        var out = plan
        out.passes = []
        for (i, segment) in plan.segments.enumerated() {
            if !segment.isEmpty { out.passes.append(ExecutionPlan.Pass(steps: segment)) }
            if i < plan.barriers.count { out.passes.append(ExecutionPlan.Pass(steps: [], barrier: plan.barriers[i])) }
        }
        return out
    }
}

/// The unfused plan (`--no-fuse`): every step a pass of its own over the strip, so each op
/// reads and writes a whole intermediate strip, as an interpreter without fusion would.
///
/// ```
/// → linear, matrix, → encoded   →   pass 1: → linear; pass 2: matrix; pass 3: → encoded
/// ```
enum SplitPerStep {
    static func run(_ plan: ExecutionPlan) -> ExecutionPlan {
        var out = plan
        // A masked stage (keep input … mix) stays in one pass: the kept input lives in the pass.
        var passes: [ExecutionPlan.Pass] = []
        for (i, segment) in plan.segments.enumerated() {
            passes += split(segment)
            if i < plan.barriers.count { passes.append(ExecutionPlan.Pass(steps: [], barrier: plan.barriers[i])) }
        }
        out.passes = passes
        return out
    }

    static func split(_ steps: [ExecutionPlan.Step]) -> [ExecutionPlan.Pass] {
        var passes: [ExecutionPlan.Pass] = []
        var group: [ExecutionPlan.Step]?
        for step in steps {
            if step.kernel == .saveInput { group = [step]; continue }
            if group != nil {
                group!.append(step)
                if case .maskMix = step.kernel { passes.append(ExecutionPlan.Pass(steps: group!)); group = nil }
                continue
            }
            passes.append(ExecutionPlan.Pass(steps: [step]))
        }
        return passes
    }
}
