import RecipeCore

extension Operations {
    /// Reduces noise in a rendered photo (a JPEG, HEIC, PNG or TIFF, or a raw after its develop):
    /// the luma and the two chroma planes of the encoded values, each through a shrinkage of 8×8
    /// DCTs of overlapping patches (`rcp_dct_denoise`), at a threshold of the noise's standard
    /// deviation times the strength. For a camera raw, the develop's own `denoise` works before
    /// the demosaic, where the sensor's noise is known, and does better.
    ///
    /// ```yaml
    /// - denoise: 1                                  # luma and chroma, the noise measured
    /// - denoise: {luma: 0.6, chroma: 1.5, noise: 4}  # noise: standard deviation in 8-bit codes
    /// ```
    public static let denoise = OperationSpec(
        name: "denoise",
        summary: "Reduces noise: the luma and chroma of the encoded values, each a shrinkage of 8×8 DCTs of overlapping patches at a threshold of the noise's standard deviation (measured, or given) times the strength.",
        opClass: .neighbourhood, space: .encoded, primary: "luma",
        params: [
            ParamSpec("luma", .number(0...4, unit: .factor), default: .number(1),
                      "strength for the luma (grain and detail): 1 the setting tuned on photos with a known answer, 0 leaves it"),
            ParamSpec("chroma", .number(0...4, unit: .factor),
                      "strength for the chroma (colour blotches); default: luma's"),
            ParamSpec("detail", .number(0...1, unit: .fraction), default: .number(0),
                      "the share of what the luma's denoise removed that is put back (fine detail and grain kept)"),
            ParamSpec("noise", .orAuto(.number(0.05...64, unit: .none)), default: .auto,
                      "the noise's standard deviation in 8-bit codes; auto: measured on the first rows the stage reads (the median of the finest diagonal detail, Donoho's estimate)"),
        ],
        example: "denoise: {luma: 1, chroma: 1.5}",
        sinceFormat: FormatVersion(1, 5))
}
