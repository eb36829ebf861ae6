import RecipeCore

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
