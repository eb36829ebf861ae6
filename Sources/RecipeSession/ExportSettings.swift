import RecipeCodecs
import RecipeLanguage

/// What a render does to its result after the last resize, before it is encoded: output
/// sharpening, then a watermark; and what metadata goes out. From the recipes' `output:`
/// (`RenderPlan.job` sets it), so every front end exports alike.
package struct ExportSettings: Sendable, Equatable {
    /// An unsharp mask on the output's encoded values (ImageMagick's `-unsharp 0xσ+amount+threshold`),
    /// σ in output pixels.
    package struct Sharpening: Sendable, Equatable {
        package var sigma: Double
        package var amount: Double
        package var threshold: Double
    }

    package var sharpen: Sharpening?
    package var watermark: CheckedRecipe.Watermark?
    package var metadata: CheckedRecipe.Metadata?

    package init() {}

    package init(_ output: CheckedRecipe.Output?) {
        sharpen = output?.sharpen.map(Self.sharpening)
        watermark = output?.watermark
        metadata = output?.metadata
    }

    /// What of the photo's metadata goes out (everything when the recipes do not say).
    package var metadataPolicy: MetadataPolicy {
        guard let m = metadata else { return MetadataPolicy() }
        return MetadataPolicy(keep: MetadataPolicy.Keep(rawValue: m.keep) ?? .all, stripLocation: m.stripLocation,
                              stripSerials: m.stripSerials, copyright: m.copyright, creator: m.creator)
    }

    /// Whether the render's result is written as it comes from the stages.
    package var isEmpty: Bool { sharpen == nil && watermark == nil && metadata == nil }

    /// The unsharp mask for a medium, in output pixels. A downscale softens what the eye reads
    /// as detail at the viewing distance; the mask restores edge contrast at about the size of
    /// an output pixel. Screens show pixels as they are: a small radius (σ 0.6 px). Paper
    /// spreads ink (dot gain), matte paper more than glossy, and a print at 240–300 ppi is seen
    /// from farther: larger radii and amounts (σ 1.0 px matte, 0.8 px glossy), as the print
    /// sharpening of Lightroom's export and of darktable's output sharpening do. No threshold:
    /// after a downscale the noise is averaged away, and a hard threshold turns small differences
    /// of the blur into jumps at its edge (2.5 codes at amount 1).
    package static func sharpening(_ s: CheckedRecipe.Sharpening) -> Sharpening {
        let (sigma, amounts): (Double, [Double]) = switch s.target {
        case "matte": (1.0, [0.6, 1.0, 1.5])
        case "glossy": (0.8, [0.45, 0.8, 1.2])
        default: (0.6, [0.35, 0.6, 1.0])
        }
        let level = CheckedRecipe.Output.Choices.sharpenAmounts.firstIndex(of: s.amount) ?? 1
        return Sharpening(sigma: sigma, amount: amounts[level], threshold: 0)
    }
}
