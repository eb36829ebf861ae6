import RecipeCore
import RecipeKernels

/// Runs a gain on linear light (a vignette, shadows/highlights) on encoded values where that
/// saves converting every value there and back (`EncodedGain`: above the sRGB curve's toe, light
/// scaled by g is the encoded value scaled by g^(1/2.4) about −0.055, exactly).
///
/// - a vignette between encoded steps (warm-portrait's and black-and-white's after clarity): no
///   → linear before it, no → encoded after it. Not where the → linear would join a per-channel
///   table that is looked up anyway (film-look's after levels, or the load table of the plan's
///   first step): there it costs nothing, and the gain on encoded values costs about one curve;
/// - shadows/highlights whose output goes on encoded (warm-portrait's clarity after it,
///   basic-corrections' vibrance): its mask is the encoded luma anyway, so it then reads encoded
///   rows, applies the gain to them and writes them encoded, with no conversion on either side.
///
/// "What goes on" is the space the next step, barrier or the output needs, looking past other
/// gains that may move; a gain whose neighbours want linear light stays there.
///
/// ```
/// — unsharp — vignette [lin], (sRGB out)   →   — unsharp — vignette on encoded values [enc]
/// vibrance [enc] — shadows/highlights — unsharp   →   — shadows/highlights on encoded values —
/// ```
enum EncodedGains {
    static func run(_ plan: ExecutionPlan) -> ExecutionPlan {
        var out = plan
        var current: WorkingSpace = plan.color.source.isEmpty ? .encoded : .linear
        func track(_ space: WorkingSpace) {
            if space == .linear || space == .encoded { current = space }
        }
        for i in out.segments.indices {
            for j in out.segments[i].indices {
                let step = out.segments[i][j]
                let inTable = j > 0 ? PointProgram.isPerChannel(out.segments[i][j - 1].kernel) : i == 0
                if case .vignette(let amount, let inner, let outer, let cx, let cy, let scale, false) = step.kernel,
                   current == .encoded, !inTable, need(plan, after: (i, j)) == .encoded {
                    out.segments[i][j] = ExecutionPlan.Step(.vignette(amount: amount, inner: inner, outer: outer, cx: cx, cy: cy, scale: scale,
                                                                      encoded: true),
                                                            space: .encoded, origin: step.origin)
                }
                track(out.segments[i][j].space)
            }
            guard i < out.barriers.count else { continue }
            if case .shadowsHighlights(let shadows, let highlights, let sigma, let kernel, false, let origin) = out.barriers[i],
               need(plan, after: (i + 1, -1)) == .encoded {
                out.barriers[i] = .shadowsHighlights(shadows: shadows, highlights: highlights, sigma: sigma, kernel: kernel, encoded: true,
                                                     origin: origin)
            }
            track(out.barriers[i].space)
        }
        return out
    }

    /// Whether a step or barrier is a gain this pass may move to encoded values.
    private static func movable(_ step: ExecutionPlan.Step) -> Bool {
        if case .vignette = step.kernel { return true }
        return false
    }

    /// The space needed first after step `position.1` of segment `position.0` (−1: before its
    /// first step), past the gains that may move, steps that run anywhere and barriers that only
    /// move pixels: at the end, the output's (encoded unless the output converts from linear light).
    private static func need(_ plan: ExecutionPlan, after position: (Int, Int)) -> WorkingSpace {
        var (i, j) = position
        while i < plan.segments.count {
            for step in plan.segments[i][(j + 1)...] where !movable(step) {
                if step.space == .linear || step.space == .encoded { return step.space }
            }
            if i < plan.barriers.count {
                let barrier = plan.barriers[i]
                if case .shadowsHighlights = barrier {} else if barrier.space == .linear || barrier.space == .encoded { return barrier.space }
            }
            (i, j) = (i + 1, -1)
        }
        return plan.color.output.isEmpty ? .encoded : .linear
    }
}
