import RecipeKernels

/// Multiplies adjacent colour matrices of the same working space into one (CIColorMatrix chains
/// fold the same way): three ops, one matrix per pixel.
///
/// ```
/// matrix A [lin] ← saturation, matrix B [lin] ← matrix   →   matrix B·A [lin] ← saturation + matrix
/// ```
enum FoldMatrices {
    static func run(_ plan: ExecutionPlan) -> ExecutionPlan { plan.mapSegments { fold($0) } }

    /// `explicit`: the space conversions are already steps of their own (after
    /// `InsertSpaceConversions`), so any two adjacent matrices see the same values and fold, such
    /// as a colour conversion's matrix (`.any`) and an exposure after it.
    static func fold(_ steps: [ExecutionPlan.Step], explicit: Bool = false) -> [ExecutionPlan.Step] {
        var out: [ExecutionPlan.Step] = []
        for step in steps {
            if case .matrix(let b) = step.kernel, let last = out.last, case .matrix(let a) = last.kernel,
               explicit || last.space == step.space {
                let space = step.space == .any ? last.space : step.space
                out[out.count - 1] = ExecutionPlan.Step(.matrix(multiply(b, a)), space: space,
                                                        origin: last.origin + " + " + step.origin)
            } else {
                out.append(step)
            }
        }
        return out
    }

    /// `b·a` for 3×4 affine matrices (apply a, then b), in double precision.
    static func multiply(_ b: [Float], _ a: [Float]) -> [Float] {
        let A = a.map(Double.init), B = b.map(Double.init)
        var m = [Float](repeating: 0, count: 12)
        for r in 0..<3 {
            for c in 0..<4 {
                var v = 0.0
                for k in 0..<3 { v += B[r * 4 + k] * A[k * 4 + c] }
                if c == 3 { v += B[r * 4 + 3] }
                m[r * 4 + c] = Float(v)
            }
        }
        return m
    }
}
