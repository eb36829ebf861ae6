/// Sharpening, noise reduction, the post-crop vignette and grain (docs/lightroom.md, "Detail and
/// effects").
extension LightroomTranslation {
    /// Sharpening as an unsharp mask on luma: Sharpness/100 (scaled by the detail slider),
    /// SharpenRadius as sigma in pixels, SharpenEdgeMasking as the threshold.
    mutating func translateDetail() throws {
        let n = Self.n
        let sharpKeys = ["SharpenRadius", "SharpenDetail", "SharpenEdgeMasking"]
        if let amount = try take("Sharpness") {
            let radius = try read("SharpenRadius") ?? 1, detail = try read("SharpenDetail") ?? 25, masking = try read("SharpenEdgeMasking") ?? 0
            let scaled = amount / 100 * (0.6 + 0.016 * detail)
            var params = ["amount: \(n(min(5, scaled)))", "sigma: \(n(radius))px"]
            if masking > 0 { params.append("threshold: \(n(masking / 1000))") }
            params.append("luma: true")
            add("sharpen", "sharpen: {\(params.joined(separator: ", "))}", keys: ["Sharpness"] + sharpKeys)
        } else {
            mark(sharpKeys, .neutral)
        }
        // Noise reduction onto `denoise`: LuminanceSmoothing 50 is luma strength 1 and
        // ColorNoiseReduction 25 (Camera Raw's default for raws) chroma strength 1, the luma's
        // Detail (default 50) the share of it put back (/200: 0.25). Approximate: Adobe's
        // algorithm and scales are not published. Its contrast and the colour's detail and
        // smoothness have no counterpart; at no luma or colour smoothing they do nothing.
        let luma = try take("LuminanceSmoothing") ?? 0, chroma = try take("ColorNoiseReduction") ?? 0
        if luma > 0 || chroma > 0 {
            let keys = ["LuminanceSmoothing", "ColorNoiseReduction"] + (luma > 0 ? ["LuminanceNoiseReductionDetail"] : [])
            let detail = luma > 0 ? try read("LuminanceNoiseReductionDetail") ?? 50 : 0
            add("denoise", "denoise: {luma: \(n(min(4, luma / 50))), chroma: \(n(min(4, chroma / 25))), detail: \(n(min(1, detail / 200)))}",
                keys: keys)
        }
        if luma == 0 {
            mark(["LuminanceNoiseReductionDetail", "LuminanceNoiseReductionContrast"], .neutral)
        }
        if chroma == 0 {
            mark(["ColorNoiseReductionDetail", "ColorNoiseReductionSmoothness"], .neutral)
        }
    }

    /// The post-crop vignette: amount −A/100 (Lightroom darkens with negative amounts), the
    /// midpoint as the radius where the fall-off ends, the feather as is.
    mutating func translateEffects() throws {
        let n = Self.n
        let shapeKeys = ["PostCropVignetteMidpoint", "PostCropVignetteFeather"]
        let styleKeys = ["PostCropVignetteRoundness", "PostCropVignetteStyle", "PostCropVignetteHighlightContrast"]
        if let amount = try take("PostCropVignetteAmount") {
            let midpoint = try read("PostCropVignetteMidpoint") ?? 50, feather = try read("PostCropVignetteFeather") ?? 50
            add("vignette", "vignette: {amount: \(n(-amount / 100)), radius: \(n(0.6 + 0.8 * midpoint / 100)), feather: \(n(feather / 100))}",
                keys: ["PostCropVignetteAmount"] + shapeKeys)
        } else {
            mark(shapeKeys + styleKeys, .neutral)
        }
        if try settings.number("GrainAmount") ?? 0 == 0 {
            mark(["GrainSize", "GrainFrequency", "GrainSeed"], .neutral)
        }
    }
}
