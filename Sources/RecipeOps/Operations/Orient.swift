import RecipeCore

extension Operations {
    /// Applies the photo's EXIF orientation, so that what follows sees the image upright
    /// (`vips autorot`).
    ///
    /// ```yaml
    /// - orient: auto
    /// ```
    ///
    /// The orientation comes from the file, not from the recipe; the size the graph sees for the
    /// source is already upright, so this op keeps it.
    public static let orient = OperationSpec(
        name: "orient",
        summary: "Applies the EXIF Orientation tag 1–8 as an exact rotate/flip (auto), or ignores it (none) (vips autorot).",
        opClass: .geometric, space: .none, primary: "mode",
        params: [
            ParamSpec("mode", .choice(["auto", "none"]), default: .choice("auto"),
                      "auto turns the image upright from its EXIF orientation; none leaves the pixels as stored"),
        ],
        example: "orient: auto")
}
