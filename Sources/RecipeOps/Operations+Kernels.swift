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
        "vignette": vignetteSteps, "color-mixer": colorMixerSteps, "color-grade": colorGradeSteps,
    ]

    /// The point steps of a node's op on a canvas of `canvas` (positional ops need its size),
    /// or nil when the op has no point kernel (yet).
    public static func pointSteps(op: String, params: ParamSet, canvas: CanvasSize) -> [PointStep]? {
        pointKernels[op].map { $0(params, canvas) }
    }
}

extension Operations {
    static let maskShapes: [String: @Sendable (ParamSet, CanvasSize, Bool) -> MaskShape] = [
        "gradient": gradientShape, "radial": radialShape, "luminance": luminanceShape, "color": colorShape,
    ]

    /// The weights a checked mask gives, on a canvas of `canvas`, the stage's input linear light
    /// or not; nil for a kind without a kernel.
    public static func maskShape(_ mask: FilterGraph.Mask, canvas: CanvasSize, linear: Bool,
                                 rasters: [String: RasterMaskImage] = [:]) -> MaskShape? {
        if FilterGraph.Mask.combinations.contains(mask.kind) {
            var parts: [MaskPart] = []
            for part in mask.parts {
                guard let shape = maskShape(part, canvas: canvas, linear: linear, rasters: rasters) else { return nil }
                let (invert, amount) = strength(part.params)
                parts.append(MaskPart(shape: shape, invert: invert, amount: amount))
            }
            return mask.kind == "all" ? .all(parts) : .any(parts)
        }
        if mask.kind == imageMask.name { return imageShape(mask.params, canvas, rasters: rasters) }
        return maskShapes[mask.kind]?(mask.params, canvas, linear)
    }

    /// A mask's own `invert` and `amount` (a combination has neither: false and 1).
    static func strength(_ params: ParamSet) -> (Bool, Float) {
        var invert = false
        if case .boolean(let b)? = params["invert"] { invert = b }
        return (invert, Float(params.number("amount") ?? 1))
    }

    /// The steps that make `steps` local: keep the input, run them, mix by the mask.
    public static func masked(_ steps: [PointStep], mask: FilterGraph.Mask, canvas: CanvasSize, linear: Bool,
                              rasters: [String: RasterMaskImage] = [:]) -> [PointStep]? {
        guard let shape = maskShape(mask, canvas: canvas, linear: linear, rasters: rasters) else { return nil }
        let (invert, amount) = strength(mask.params)
        return [.saveInput] + steps + [.maskMix(shape, invert: invert, amount: amount)]
    }
}
