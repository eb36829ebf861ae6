import RecipeCore
import RecipeKernels

extension Operations {
    /// A linear ramp: the stage applies fully at `from` and not at all at `to` (a graduated filter).
    ///
    /// ```yaml
    /// - exposure: -0.7
    ///   mask: {gradient: {from: [0.5, 0], to: [0.5, 0.45]}}
    /// ```
    ///
    /// `from` and `to` must differ.
    public static let gradientMask = MaskSpec(
        name: "gradient",
        summary: "Ramps linearly along the line from `from` (fully applied) to `to` (not applied), constant beyond both ends.",
        params: [
            ParamSpec("from", .point(0...1), default: .point(CanvasPoint(0.5, 0)),
                      "where the stage applies fully, [x, y] as fractions of the canvas"),
            ParamSpec("to", .point(0...1), default: .point(CanvasPoint(0.5, 1)),
                      "where the stage stops applying, [x, y] as fractions of the canvas"),
        ] + maskStrengthParams,
        example: "mask: {gradient: {from: [0.5, 0], to: [0.5, 0.45]}}",
        validate: validateGradientMask)

    private static func validateGradientMask(_ params: ParamSet) -> [ParamProblem] {
        guard let from = params.point("from"), let to = params.point("to"), from == to else { return [] }
        let at = params.isGiven("to") ? "to" : "from"
        return [ParamProblem(
            at, "a gradient needs `from` and `to` at different points",
            notes: ["the ramp runs along the line from `from` to `to`, which has no direction when they coincide"])]
    }
}

extension Operations {
    /// The gradient's ends in pixels of the canvas.
    static func gradientShape(_ p: ParamSet, _ canvas: CanvasSize, linear: Bool) -> MaskShape {
        let from = p.point("from") ?? CanvasPoint(0.5, 0), to = p.point("to") ?? CanvasPoint(0.5, 1)
        let w = Float(canvas.width), h = Float(canvas.height)
        return .gradient(fromX: Float(from.x) * w, fromY: Float(from.y) * h, toX: Float(to.x) * w, toY: Float(to.y) * h)
    }
}
