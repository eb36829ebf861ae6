import RecipeCore

extension Operations {
    /// Rotates colours around the grey axis, keeping luminance (SVG/CSS `hue-rotate`).
    ///
    /// ```yaml
    /// - hue: 15
    /// ```
    public static let hue = OperationSpec(
        name: "hue",
        summary: "Rotates linear RGB around the grey axis by degrees with the luma-preserving matrix of SVG feColorMatrix hueRotate.",
        opClass: .point, space: .linear, primary: "degrees",
        params: [
            ParamSpec("degrees", .angle(-180...180, allowed: nil), default: .angle(0),
                      "rotation of the hue circle, in degrees"),
        ],
        example: "hue: 15")
}
