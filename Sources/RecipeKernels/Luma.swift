/// Luma weights and the matrices built from them.
public enum Luma {
    /// Rec.709 / sRGB luminance of linear RGB (the Y row of sRGB→XYZ, rounded as BT.709 gives it).
    public static let rec709: [Float] = [0.2126, 0.7152, 0.0722]

    /// The 3×4 matrix of mix(rgb, Y, amount): amount 0 is the identity, 1 grey, negative
    /// extrapolates (more saturation).
    public static func mix(toward weights: [Float], amount a: Float) -> [Float] {
        var m = PointStep.identityMatrix
        for row in 0..<3 {
            for col in 0..<3 { m[row * 4 + col] = (row == col ? 1 - a : 0) + a * weights[col] }
        }
        return m
    }
}
