import RecipeCore
import RecipeKernels

extension Operations {
    /// A soft-edged disc: the stage applies fully inside `radius·(1 − feather)` and not at all beyond
    /// `radius` (a radial filter).
    ///
    /// ```yaml
    /// - exposure: 0.4
    ///   mask: {radial: {center: [0.4, 0.45], radius: 0.5, feather: 0.6}}
    /// ```
    public static let radialMask = MaskSpec(
        name: "radial",
        summary: "Applies the stage fully near the centre and fades it out with a smoothstep between radius·(1 − feather) and radius, distances over the half-diagonal.",
        params: [
            ParamSpec("center", .point(0...1), default: .point(CanvasPoint(0.5, 0.5)),
                      "centre of the disc, [x, y] as fractions of the canvas"),
            ParamSpec("radius", .number(0...2, unit: .fraction), default: .number(0.5),
                      "distance where the stage stops applying, as a fraction of the half-diagonal"),
            ParamSpec("feather", .number(0...1, unit: .fraction), default: .number(0.5),
                      "width of the fade, as a fraction of the radius"),
        ] + maskStrengthParams,
        example: "mask: {radial: {center: [0.4, 0.45], radius: 0.5, feather: 0.6}}")
}

extension Operations {
    /// The circle in pixels; radius and feather relative to the canvas's half-diagonal.
    static func radialShape(_ p: ParamSet, _ canvas: CanvasSize, linear: Bool) -> MaskShape {
        let c = p.point("center") ?? CanvasPoint(0.5, 0.5)
        let radius = p.number("radius") ?? 0.5, feather = p.number("feather") ?? 0.5
        let w = Double(canvas.width), h = Double(canvas.height)
        let halfDiagonal = ((w / 2) * (w / 2) + (h / 2) * (h / 2)).squareRoot()
        return .radial(cx: Float(c.x * w), cy: Float(c.y * h), inner: Float(radius * (1 - feather)), outer: Float(radius),
                       scale: Float(1 / halfDiagonal))
    }
}
