import RecipeCore
import RecipeKernels

extension Operations {
    /// Darkens (or, with a negative amount, brightens) the corners with a smooth radial fall-off of
    /// linear light; our closed form, positional so it fuses with point ops.
    ///
    /// ```yaml
    /// - vignette: {amount: 0.4, radius: 1, feather: 0.6}
    /// ```
    ///
    /// Version 2 (format 1.1) renamed `intensity` to `amount`.
    public static let vignette = OperationSpec(
        name: "vignette",
        summary: "Scales linear light by 1 − amount·smoothstep(radius·(1 − feather), radius, d), d the distance from the centre over the half-diagonal (ours, closed form).",
        opClass: .positional, space: .linear, version: 2, primary: "amount",
        params: [
            ParamSpec("amount", .number(-1...1, unit: .none), default: .number(0),
                      "darkening at the corners; negative brightens, 0 leaves the image unchanged"),
            ParamSpec("radius", .number(0...2, unit: .fraction), default: .number(1),
                      "distance where the fall-off is complete, as a fraction of the half-diagonal"),
            ParamSpec("feather", .number(0...1, unit: .fraction), default: .number(0.5),
                      "width of the fall-off, as a fraction of the radius"),
            ParamSpec("center", .point(0...1), default: .point(CanvasPoint(0.5, 0.5)),
                      "centre of the vignette, [x, y] as fractions of the canvas"),
        ],
        example: "vignette: {amount: 0.4, radius: 1, feather: 0.6}",
        migrations: [
            ParamMigration(
                toVersion: 2, sinceFormat: FormatVersion(1, 1),
                oldKeys: ["intensity", "radius", "feather", "center"],
                steps: [.rename("intensity", to: "amount")],
                reason: "`intensity` is now `amount`, the strength knob's name in every op"),
        ])
}

extension Operations {
    /// What a pixel becomes: its linear light scaled by 1 − amount·smoothstep(r(1−f), r, d), d the
    /// distance of the pixel centre from the vignette centre over the canvas's half-diagonal.
    static func vignetteSteps(_ p: ParamSet, _ canvas: CanvasSize) -> [PointStep] {
        let amount = p.number("amount") ?? 0, radius = p.number("radius") ?? 1, feather = p.number("feather") ?? 0.5
        let center = p.point("center") ?? CanvasPoint(0.5, 0.5)
        let w = Double(canvas.width), h = Double(canvas.height)
        let halfDiagonal = ((w / 2) * (w / 2) + (h / 2) * (h / 2)).squareRoot()
        return [.vignette(amount: Float(amount), inner: Float(radius * (1 - feather)), outer: Float(radius),
                          cx: Float(center.x * w), cy: Float(center.y * h), scale: Float(1 / halfDiagonal))]
    }
}
