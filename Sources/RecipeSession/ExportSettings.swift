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

    /// What the export does after the plan, one line each (`explain`): the stages after the last
    /// resize, the metadata, the format and size limit the recipes ask.
    package static func lines(_ output: CheckedRecipe.Output?) -> [String] {
        guard let output else { return [] }
        let settings = ExportSettings(output)
        var out: [String] = []
        if let s = settings.sharpen, let asked = output.sharpen {
            out.append("after the last resize: output sharpening for \(asked.target) (\(asked.amount)): an unsharp mask of σ \(s.sigma) px, amount \(s.amount), on the output's values")
        }
        if let w = settings.watermark {
            out.append("after the last resize: watermark \(w.image), \(Int((w.scale * 100).rounded())) % of the width, \(w.position), margin \(Int((w.margin * 1000).rounded()) / 10) %, opacity \(w.opacity)")
        }
        if let m = settings.metadata {
            var what = m.keep == "all" ? "all metadata" : m.keep == "copyright" ? "only the copyright and creator" : "no metadata"
            let strips = (m.stripLocation ? ["location"] : []) + (m.stripSerials ? ["serial numbers"] : [])
            if !strips.isEmpty { what += " but " + strips.joined(separator: " and ") }
            if m.copyright != nil || m.creator != nil { what += "; copyright and creator set" }
            out.append("metadata: \(what)")
        }
        if let f = output.format { out.append("format: \(f) (what `apply` writes; --format overrides it)") }
        if let q = output.quality { out.append("quality: \(q) (--quality overrides it)") }
        if let b = output.maxBytes { out.append("max-bytes: \(MemoryBudget.text(b)): the highest quality whose file fits (--max-bytes overrides it)") }
        return out
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
