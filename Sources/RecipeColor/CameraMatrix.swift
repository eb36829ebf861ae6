/// A camera's colour: from its raw RGB, white balanced, to the working space (linear light, sRGB
/// primaries, D65), through XYZ.
///
/// The camera matrix maps XYZ under D65 to camera RGB (Adobe's table, or a DNG's ColorMatrix for
/// the D65 calibration, as LibRaw hands them over). Working RGB → camera RGB is that matrix times
/// the working space's RGB → XYZ; its rows are scaled to sum to 1, so that the white the white
/// balance made (1, 1, 1) in camera RGB is (1, 1, 1) in the working space; the inverse goes back
/// (dcraw's and LibRaw's `cam_xyz_coeff`, which the tests compare with).
///
/// ```swift
/// let m = CameraMatrix.cameraToWorking(xyzToCamera: raw.xyzToCamera)   // row-major 3×3
/// ```
public enum CameraMatrix {
    /// The working space's RGB → XYZ (D65, unadapted), from its primaries' and white's xy.
    public static let workingToXYZ: [Double] = {
        func xyz(_ p: (Double, Double)) -> [Double] { [p.0 / p.1, 1, (1 - p.0 - p.1) / p.1] }
        let primaries = Matrix3(columns: xyz((0.64, 0.33)), xyz((0.30, 0.60)), xyz((0.15, 0.06)))
        let white = xyz((0.3127, 0.3290))
        let scale = primaries.inverse!.apply(white)
        return Matrix3((0..<9).map { primaries.m[$0] * scale[$0 % 3] }).m
    }()

    /// Camera RGB (white balanced) → working RGB, row-major; nil when the matrix is singular.
    public static func cameraToWorking(xyzToCamera: [Double]) -> [Double]? {
        guard xyzToCamera.count == 9 else { return nil }
        var camera = (Matrix3(xyzToCamera) * Matrix3(workingToXYZ)).m
        for row in 0..<3 {
            let sum = camera[3 * row] + camera[3 * row + 1] + camera[3 * row + 2]
            guard sum.isFinite, abs(sum) > 1e-9 else { return nil }
            for c in 0..<3 { camera[3 * row + c] /= sum }
        }
        return Matrix3(camera).inverse?.m
    }
}
