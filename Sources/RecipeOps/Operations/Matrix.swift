import RecipeCore
import RecipeKernels
#if canImport(Glibc)
import Glibc
#endif

extension Operations {
    /// Multiplies linear RGB by a 3×3 matrix, with an optional bias column (CIColorMatrix).
    ///
    /// ```yaml
    /// - matrix: [[0.9, 0.1, 0, 0], [0, 1, 0, 0], [0, 0.05, 0.95, 0.01]]
    /// ```
    public static let matrix = OperationSpec(
        name: "matrix",
        summary: "Maps linear RGB through out = M·rgb + bias, M given as 3 rows of 3 numbers or of 4 with the bias last (CIColorMatrix).",
        opClass: .point, space: .linear, primary: "m",
        params: [
            ParamSpec("m", .matrix, default: .matrix([[1, 0, 0], [0, 1, 0], [0, 0, 1]]),
                      "3 rows (output r, g, b) of 3 weights of input r, g, b, plus an optional 4th bias number"),
        ],
        example: "matrix: [[0.9, 0.1, 0, 0], [0, 1, 0, 0], [0, 0.05, 0.95, 0.01]]")
}

extension Operations {
    /// What a pixel becomes: the point steps of `matrix` for checked parameters `p`, in the
    /// op's working space (the planner adds the conversions around them).
    static func matrixSteps(_ p: ParamSet, _ canvas: CanvasSize) -> [PointStep] {
        guard case .matrix(let rows)? = p["m"] else { return [] }
        return [.matrix(rows.flatMap { row in row.count == 4 ? row.map(Float.init) : row.map(Float.init) + [0] })]
    }
}
