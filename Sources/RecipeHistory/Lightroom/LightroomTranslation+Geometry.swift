/// Lens corrections, orientation, straighten and crop (docs/lightroom.md, "Geometry"). The lens
/// and the orientation come first, after the develop (the lens stage must see the camera's
/// frame); straighten and crop come after the tone, colour and local stages, whose masks
/// Lightroom places on the uncropped frame, and before the post-crop vignette.
extension LightroomTranslation {
    mutating func translateGeometry() throws {
        try translateLens()
        try translateOrientation()
    }

    mutating func translateLens() throws {
        let profile = try settings.flag("LensProfileEnable") ?? false
        let tca = try settings.flag("AutoLateralCA") ?? false
        let distortion = try settings.number("LensProfileDistortionScale") ?? 100
        let vignetting = try settings.number("LensProfileVignettingScale") ?? 100
        let scales = ["LensProfileDistortionScale", "LensProfileVignettingScale"]
        guard profile || tca else {
            mark(["LensProfileEnable", "AutoLateralCA"] + scales, .neutral)
            return
        }
        var params: [String] = []
        if profile {
            mark(["LensProfileEnable"], .translated)
            // 0 turns a correction off and 100 is the profile's; other amounts have no counterpart.
            for (key, param, value) in [(scales[0], "distortion", distortion), (scales[1], "vignetting", vignetting)] {
                if value == 0 { params.append("\(param): false") }
                mark([key], value == 0 || value == 100 ? .translated : .untranslated("the lens stage corrects fully or not at all (\(param) on)"))
            }
        } else {
            params += ["distortion: false", "vignetting: false"]
            mark(["LensProfileEnable"] + scales, .neutral)
        }
        if !tca { params.append("tca: false") }
        mark(["AutoLateralCA"], tca ? .translated : .neutral)
        add("lens", params.isEmpty ? "lens: auto" : "lens: {\(params.joined(separator: ", "))}", keys: ["LensProfileEnable", "AutoLateralCA"])
    }

    /// The orientation in effect: the XMP's own (tiff:Orientation), else the photo's EXIF.
    var orientation: Int { Int((try? settings.number("tiff:Orientation")) ?? nil ?? Double(options.exifOrientation ?? 1)) }

    /// Lightroom writes the orientation it shows (tiff:Orientation); a photo turned in Lightroom
    /// differs from its EXIF. Then the EXIF orientation is ignored and the XMP's applied.
    mutating func translateOrientation() throws {
        guard let o = try settings.number("tiff:Orientation").map({ Int($0) }) else { return }
        if o == (options.exifOrientation ?? 1) {
            mark(["tiff:Orientation"], .neutral)
            return
        }
        mark(["tiff:Orientation"], .translated)
        add("orient", "orient: none", keys: ["tiff:Orientation"], note: "Lightroom: tiff:Orientation \(o) replaces the photo's EXIF orientation")
        let steps: [String] = switch o {
        case 2: ["flip: horizontal"]
        case 3: ["rotate: 180"]
        case 4: ["flip: vertical"]
        case 5: ["rotate: 90", "flip: horizontal"]
        case 6: ["rotate: 90"]
        case 7: ["rotate: 270", "flip: horizontal"]
        case 8: ["rotate: 270"]
        default: []
        }
        for step in steps { add(step.hasPrefix("rotate") ? "turn" : "mirror", step, keys: ["tiff:Orientation"]) }
    }

    /// The crop rectangle (fractions of the stored frame, turned to the upright frame) after
    /// straightening by CropAngle (its sign as darktable's importer reads it).
    mutating func translateCrop() throws {
        let keys = ["CropTop", "CropLeft", "CropBottom", "CropRight", "CropAngle"]
        guard try settings.flag("HasCrop") == true else {
            mark(["HasCrop"] + keys, .neutral)
            return
        }
        mark(["HasCrop"], .translated)
        let top = try read("CropTop") ?? 0, left = try read("CropLeft") ?? 0
        let bottom = try read("CropBottom") ?? 1, right = try read("CropRight") ?? 1
        guard left < right, top < bottom else {
            throw HistoryError(settings.source, "HasCrop with an empty rectangle: CropLeft \(Self.n(left)) … CropRight \(Self.n(right)), CropTop \(Self.n(top)) … CropBottom \(Self.n(bottom))")
        }
        if let angle = try take("CropAngle") {
            add("straighten", "straighten: \(Self.n(-angle))", keys: ["CropAngle"])
        }
        let corners = [(left, top), (right, bottom)].map { Self.upright($0.0, $0.1, orientation: orientation) }
        let x0 = min(corners[0].0, corners[1].0), x1 = max(corners[0].0, corners[1].0)
        let y0 = min(corners[0].1, corners[1].1), y1 = max(corners[0].1, corners[1].1)
        if x0 <= 0, y0 <= 0, x1 >= 1, y1 >= 1 { return }
        func pc(_ v: Double) -> String { Self.n(v * 100) + "%" }
        add("crop", "crop: {x: \(pc(x0)), y: \(pc(y0)), width: \(pc(x1 - x0)), height: \(pc(y1 - y0))}", keys: ["HasCrop", "CropTop", "CropLeft", "CropBottom", "CropRight"])
    }

    /// Where a point of the stored frame (fractions) lands in the frame shown upright by EXIF
    /// orientation `o`.
    static func upright(_ x: Double, _ y: Double, orientation o: Int) -> (Double, Double) {
        switch o {
        case 2: (1 - x, y)
        case 3: (1 - x, 1 - y)
        case 4: (x, 1 - y)
        case 5: (y, x)
        case 6: (1 - y, x)
        case 7: (1 - y, 1 - x)
        case 8: (y, 1 - x)
        default: (x, y)
        }
    }
}
