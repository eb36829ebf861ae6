import RecipeCore
import RecipeKernels

/// Inserts → linear / → encoded steps only where the working space changes. Samples arrive
/// sRGB-encoded from the decoder and leave sRGB-encoded for the encoder; between runs, each
/// barrier stage reads and writes floats in its own space (`Barrier.space`: linear light for a
/// blur, encoded for an unsharp mask), so a run ends in the space of the barrier after it and the
/// next run starts there. `.any` steps run in whatever space they find; a barrier that only moves
/// pixels (crop, rotate, flip: `.none`) passes the space through.
///
/// ```
/// matrix [lin], matrix [enc], power [enc]   →   → linear, matrix, → encoded, matrix, power
/// exposure [lin] — blur — contrast [enc]     →   → linear, matrix — blur — → encoded, matrix
/// ```
enum InsertSpaceConversions {
    ///
    /// A photo in another colour space than sRGB starts with the plan's `color.source` steps
    /// (its curves and matrix into linear working space), and an output in another ends with
    /// `color.output` (from linear light): "→ linear" and "→ encoded" always mean the sRGB curve
    /// on working-space values, and only those end steps know other encodings.
    ///
    /// ```
    /// Display P3 photo, contrast [enc], sRGB out   →   → linear, matrix (P3 → working) [colour],
    ///                                                  → encoded, matrix (contrast)
    /// Display P3 photo, exposure [lin]             →   → linear, matrix (P3 → working + exposure)
    /// ```
    /// `fold`: the colour conversion's matrices fold with their neighbours (not with `--no-fuse`).
    static func run(_ plan: ExecutionPlan, fold: Bool) -> ExecutionPlan {
        var out = plan
        let source = plan.color.source.map { ExecutionPlan.Step($0, space: .any, origin: "colour: \(plan.color.sourceName) → working space") }
        let output = plan.color.output.map { ExecutionPlan.Step($0, space: .any, origin: "colour: working space → \(plan.color.outputName)") }
        var current: WorkingSpace = source.isEmpty ? .encoded : .linear
        let last = plan.segments.count - 1
        for i in plan.segments.indices {
            let end: WorkingSpace = i < plan.barriers.count ? plan.barriers[i].space : output.isEmpty ? .encoded : .linear
            (out.segments[i], current) = convert(plan.segments[i], from: current, to: end)
        }
        out.segments[0] = source + out.segments[0]
        out.segments[last] += output
        // A colour conversion's matrix folds with a matrix beside it (P3 → working, then exposure:
        // one matrix a pixel). Only the end segments gain steps here; the rest were folded.
        guard fold, !source.isEmpty || !output.isEmpty else { return out }
        out.segments[0] = FoldMatrices.fold(out.segments[0], explicit: true)
        out.segments[last] = FoldMatrices.fold(out.segments[last], explicit: true)
        return out
    }

    /// The steps with the conversions they need, starting in `start` and ending in `end` (`.none`
    /// or `.any`: wherever they are), and the space they end in.
    static func convert(_ steps: [ExecutionPlan.Step], from start: WorkingSpace, to end: WorkingSpace)
        -> ([ExecutionPlan.Step], WorkingSpace) {
        var out: [ExecutionPlan.Step] = []
        var current = start
        func move(to space: WorkingSpace) {
            if space == .linear, current != .linear {
                out.append(ExecutionPlan.Step(.toLinear, space: .encoded, origin: "→ linear"))
                current = .linear
            } else if space == .encoded, current != .encoded {
                out.append(ExecutionPlan.Step(.toEncoded, space: .linear, origin: "→ encoded"))
                current = .encoded
            }
        }
        for step in steps {
            move(to: step.space)
            out.append(step)
        }
        move(to: end)
        return (out, current)
    }
}
