import RecipeKernels

/// Removes steps that leave every value as it is: the identity matrix, power 1.
///
/// ```
/// matrix[1 0 0 0 0 1 0 0 0 0 1 0] [lin], power 0.9 [enc]   →   power 0.9 [enc]
/// ```
enum DropIdentities {
    static func run(_ plan: ExecutionPlan) -> ExecutionPlan {
        plan.mapSegments { $0.filter { step in
            switch step.kernel {
            case .matrix(let m): return m != PointStep.identityMatrix
            case .power(let p): return p != 1
            case .curves(let table, let size):
                // An identity table: every sample on the diagonal.
                return !(0..<3 * size).allSatisfy { table[$0] == Float($0 % size) / Float(size - 1) }
            default: return true
            }
        } }
    }
}
