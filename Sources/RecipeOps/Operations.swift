import RecipeCore

/// The registry of the language: every operation and mask kind, each declared in its own file under
/// Operations/ and Masks/ as a static property of this namespace. The checker, `recipe ops`, the
/// generated Grammar/operations.md and the JSON Schema read their vocabulary from here.
///
/// ```swift
/// let spec = Operations.named("white-balance")   // Operations.whiteBalance
/// spec?.primary                                  // "temp"
/// Operations.mask(named: "radial")?.param("radius")
/// ```
public enum Operations {
    /// Every operation, in reading order: tone, colour, LUT, local/positional, neighbourhood,
    /// geometric, composite. `recipe ops` lists them in this order.
    public static let all: [OperationSpec] = [
        // the raw develop (the first stage, run by the decoder), then the lens correction
        develop, lens,
        // tone
        exposure, brightness, contrast, gamma, levels, curve, sigmoid, invert, clip,
        // colour
        whiteBalance, saturation, vibrance, hue, colorMixer, colorGrade, matrix, sepia, grayscale, colorize,
        // LUT
        lut,
        // local / positional
        vignette,
        // neighbourhood
        blur, sharpen, clarity, shadowsHighlights, denoise,
        // geometric
        orient, crop, straighten, rotate, flip, resize,
        // composite
        blend,
    ]

    /// Every mask kind a stage's `mask:` may hold (besides `all` and `any`, which combine them:
    /// `FilterGraph.Mask.combinations`).
    public static let masks: [MaskSpec] = [gradientMask, radialMask, luminanceMask, colorMask, imageMask]

    /// The operation whose recipe key is `name` (`white-balance`), or nil.
    public static func named(_ name: String) -> OperationSpec? { operationsByName[name] }

    /// The mask kind whose key is `name` (`radial`), or nil.
    public static func mask(named name: String) -> MaskSpec? { masksByName[name] }

    // Built once. On a duplicate name the first declaration wins; the registry test reports duplicates.
    private static let operationsByName: [String: OperationSpec] =
        Dictionary(all.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    private static let masksByName: [String: MaskSpec] =
        Dictionary(masks.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
}
