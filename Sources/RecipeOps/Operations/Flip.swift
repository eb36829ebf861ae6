import RecipeCore

extension Operations {
    /// Mirrors the image left–right or top–bottom, losslessly (`vips flip`).
    ///
    /// ```yaml
    /// - flip: horizontal
    /// ```
    public static let flip = OperationSpec(
        name: "flip",
        summary: "Mirrors the canvas left–right (horizontal) or top–bottom (vertical) as an exact permutation of pixels (vips flip).",
        opClass: .geometric, space: .none, primary: "axis",
        params: [
            ParamSpec("axis", .choice(["horizontal", "vertical"]), required: true,
                      "horizontal swaps left and right, vertical swaps top and bottom"),
        ],
        example: "flip: horizontal")
}
