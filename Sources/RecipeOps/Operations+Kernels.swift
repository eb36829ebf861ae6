import RecipeCore
import RecipeKernels

extension Operations {
    /// The point kernels: op name → the steps a pixel goes through, in the op's working space.
    /// Ops missing here are not point ops, or their kernels are not written yet (`isRenderable`).
    static let pointKernels: [String: @Sendable (ParamSet) -> [PointStep]] = [
        "exposure": exposureSteps, "brightness": brightnessSteps, "contrast": contrastSteps,
        "gamma": gammaSteps, "levels": levelsSteps, "curve": curveSteps, "sigmoid": sigmoidSteps,
        "invert": invertSteps, "clip": clipSteps, "saturation": saturationSteps,
        "vibrance": vibranceSteps, "hue": hueSteps, "matrix": matrixSteps, "sepia": sepiaSteps,
        "grayscale": grayscaleSteps, "colorize": colorizeSteps,
    ]

    /// The point steps of a node's op, or nil when the op has no point kernel (yet).
    public static func pointSteps(op: String, params: ParamSet) -> [PointStep]? {
        pointKernels[op].map { $0(params) }
    }
}
