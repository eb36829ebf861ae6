import RecipeKernels

/// A branch point right after the plan's first run of point steps keeps the photo's own rows
/// instead, when that run treats each channel on its own (soft-glow's exposure before its
/// `base`): the run moves to the start of each reader's run, where it joins that reader's own
/// per-channel steps in one table (from 8-bit codes, the load table). The branch point then keeps
/// the decoder's integers, a quarter of the floats' memory, and a reader that wants linear light
/// (the glow's blur) reads it from the codes through its table instead of decoding encoded floats
/// value by value.
///
/// ```
/// → linear, exposure, → encoded — keep base — resume base — → linear — blur …   →
/// keep base — resume base — → linear, exposure, → encoded, → linear — blur …
/// ```
///
/// The readers' values are the same functions of the codes, evaluated in one table (in double
/// precision) instead of two steps in float: they move by a float rounding at most.
enum BranchFromSource {
    static func run(_ plan: ExecutionPlan) -> ExecutionPlan {
        guard plan.segments.count == plan.barriers.count + 1, case .keep(let name, let readers)? = plan.barriers.first,
              let moved = plan.segments.first, !moved.isEmpty, moved.allSatisfy({ PointProgram.isPerChannel($0.kernel) })
        else { return plan }
        // Every reader must resume the image (a blend that lays it on top reads it as kept, with
        // no run of its own to take the steps).
        let resumes = plan.barriers.filter { if case .resume(let kept) = $0 { kept == name } else { false } }.count
        guard resumes == readers else { return plan }
        var out = plan
        out.segments[0] = []
        for (j, barrier) in plan.barriers.enumerated() {
            if case .resume(let kept) = barrier, kept == name { out.segments[j + 1] = moved + out.segments[j + 1] }
        }
        return out
    }
}
