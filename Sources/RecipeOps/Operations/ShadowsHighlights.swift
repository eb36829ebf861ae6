import RecipeCore

extension Operations {
    /// Lifts shadows and recovers highlights with a local exposure gain from blurred luma (ours;
    /// CIHighlightShadowAdjust-like).
    ///
    /// ```yaml
    /// - shadows-highlights: {shadows: 0.3, highlights: 0.2, radius: 2%}
    /// ```
    ///
    /// With `radius: 0` it is a pure point op.
    public static let shadowsHighlights = OperationSpec(
        name: "shadows-highlights",
        summary: "Scales linear light by 2^(shadows·(1 − Yb)² − highlights·Yb²), Yb the encoded luma blurred by radius (ours, hue-preserving).",
        opClass: .neighbourhood, space: .linear,
        params: [
            ParamSpec("shadows", .number(-1...1, unit: .stops), default: .number(0),
                      "gain in stops at black; positive lifts the shadows"),
            ParamSpec("highlights", .number(-1...1, unit: .stops), default: .number(0),
                      "loss in stops at white; positive darkens the highlights"),
            ParamSpec("radius", .length(px: 0...1000, percentOf: .shortSide), default: .length(.px(0)),
                      "standard deviation of the luma blur, in px or % of the short side; 0 makes it per pixel"),
        ],
        example: "shadows-highlights: {shadows: 0.3, highlights: 0.2, radius: 2%}")
}
