/// A 3×3 matrix, row-major, for the colorant matrices of matrix-shaper profiles. lcms2 keeps its
/// own matrix type private, so the few operations needed here are written out.
struct Matrix3: Equatable, Sendable {
    var m: [Double]

    init(_ m: [Double]) {
        precondition(m.count == 9, "a 3×3 matrix has 9 entries")
        self.m = m
    }

    /// Rows from three column vectors (the red, green and blue colorants).
    init(columns a: [Double], _ b: [Double], _ c: [Double]) {
        self.init([a[0], b[0], c[0], a[1], b[1], c[1], a[2], b[2], c[2]])
    }

    var determinant: Double {
        m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6])
    }

    /// The inverse, or nil when the determinant is below lcms2's own tolerance (MATRIX_DET_TOLERANCE,
    /// 1e-4): what lcms2 cannot invert for an output matrix-shaper, this refuses too.
    var inverse: Matrix3? {
        let d = determinant
        guard d.isFinite, abs(d) >= 1e-4 else { return nil }
        return Matrix3([
            (m[4] * m[8] - m[5] * m[7]) / d, (m[2] * m[7] - m[1] * m[8]) / d, (m[1] * m[5] - m[2] * m[4]) / d,
            (m[5] * m[6] - m[3] * m[8]) / d, (m[0] * m[8] - m[2] * m[6]) / d, (m[2] * m[3] - m[0] * m[5]) / d,
            (m[3] * m[7] - m[4] * m[6]) / d, (m[1] * m[6] - m[0] * m[7]) / d, (m[0] * m[4] - m[1] * m[3]) / d,
        ])
    }

    static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        var r = [Double](repeating: 0, count: 9)
        for i in 0..<3 {
            for j in 0..<3 {
                r[3 * i + j] = a.m[3 * i] * b.m[j] + a.m[3 * i + 1] * b.m[3 + j] + a.m[3 * i + 2] * b.m[6 + j]
            }
        }
        return Matrix3(r)
    }

    func apply(_ v: [Double]) -> [Double] {
        (0..<3).map { m[3 * $0] * v[0] + m[3 * $0 + 1] * v[1] + m[3 * $0 + 2] * v[2] }
    }
}
