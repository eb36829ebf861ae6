import RecipeCore

extension Operations {
    /// Multiplies linear light by 2^ev, like a change of exposure time (CIExposureAdjust).
    ///
    /// ```yaml
    /// - exposure: 0.3
    /// ```
    public static let exposure = OperationSpec(
        name: "exposure",
        summary: "Multiplies linear light by 2^ev, like a change of exposure time (CIExposureAdjust).",
        opClass: .point, space: .linear, primary: "ev",
        params: [
            ParamSpec("ev", .number(-10...10, unit: .stops), default: .number(0),
                      "exposure change in stops; +1 doubles the light"),
        ],
        example: "exposure: 0.3")
}
