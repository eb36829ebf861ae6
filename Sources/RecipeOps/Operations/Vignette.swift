import RecipeCore

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
