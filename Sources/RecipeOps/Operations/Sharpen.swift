import RecipeCore

extension Operations {
    /// Sharpens with an unsharp mask on encoded values (ImageMagick `-unsharp`; CISharpenLuminance
    /// when `luma` is set).
    ///
    /// ```yaml
    /// - sharpen: {amount: 0.8, sigma: 1px}
    /// ```
    ///
    /// Version 2 (format 1.1) renamed `radius` to `sigma`: the value always was a standard deviation.
    public static let sharpen = OperationSpec(
        name: "sharpen",
        summary: "Adds amount times the difference from a Gaussian blur, v + amount·(v − G_σ*v), where it exceeds the threshold (unsharp mask as ImageMagick UnsharpMaskImage).",
        opClass: .neighbourhood, space: .encoded, version: 2, primary: "amount",
        params: [
            ParamSpec("amount", .number(0...5, unit: .factor), default: .number(0),
                      "gain of the detail added back; 0 leaves the image unchanged"),
            ParamSpec("sigma", .length(px: 0...1000, percentOf: .shortSide), default: .length(.px(1)),
                      "standard deviation of the blur that defines detail, in px or % of the short side"),
            ParamSpec("threshold", .number(0...1, unit: .none), default: .number(0),
                      "smallest encoded difference that is sharpened; smaller ones are left alone"),
            ParamSpec("luma", .boolean, default: .boolean(false),
                      "sharpen luma only, leaving colours unchanged"),
        ],
        example: "sharpen: {amount: 0.8, sigma: 1px}",
        migrations: [
            ParamMigration(
                toVersion: 2, sinceFormat: FormatVersion(1, 1),
                oldKeys: ["amount", "radius", "threshold", "luma"],
                steps: [.rename("radius", to: "sigma")],
                reason: "`radius` is now `sigma`: it always was the Gaussian's standard deviation, as in `blur`"),
        ])
}
