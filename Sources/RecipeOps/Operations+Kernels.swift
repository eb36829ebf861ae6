import RecipeCore
import RecipeKernels

extension Operations {
    /// The point kernels: op name → the steps a pixel goes through, in the op's working space.
    /// Ops missing here are not point ops, or their kernels are not written yet (`isRenderable`).
    static let pointKernels: [String: @Sendable (ParamSet, CanvasSize) -> [PointStep]] = [
        "exposure": exposureSteps, "brightness": brightnessSteps, "contrast": contrastSteps,
        "gamma": gammaSteps, "levels": levelsSteps, "curve": curveSteps, "sigmoid": sigmoidSteps,
        "invert": invertSteps, "clip": clipSteps, "saturation": saturationSteps,
        "vibrance": vibranceSteps, "hue": hueSteps, "matrix": matrixSteps, "sepia": sepiaSteps,
        "grayscale": grayscaleSteps, "colorize": colorizeSteps, "white-balance": whiteBalanceSteps,
        "vignette": vignetteSteps,
    ]

    /// The point steps of a node's op on a canvas of `canvas` (positional ops need its size),
    /// or nil when the op has no point kernel (yet).
    public static func pointSteps(op: String, params: ParamSet, canvas: CanvasSize) -> [PointStep]? {
        pointKernels[op].map { $0(params, canvas) }
    }
}

extension Operations {
    static let maskShapes: [String: @Sendable (ParamSet, CanvasSize, Bool) -> MaskShape] = [
        "gradient": gradientShape, "radial": radialShape, "luminance": luminanceShape,
    ]

    /// The steps that make `steps` local: keep the input, run them, mix by the mask.
    public static func masked(_ steps: [PointStep], mask kind: String, params: ParamSet, canvas: CanvasSize,
                              linear: Bool) -> [PointStep]? {
        guard let shape = maskShapes[kind]?(params, canvas, linear) else { return nil }
        var invert = false
        if case .boolean(let b)? = params["invert"] { invert = b }
        let amount = Float(params.number("amount") ?? 1)
        return [.saveInput] + steps + [.maskMix(shape, invert: invert, amount: amount)]
    }
}
