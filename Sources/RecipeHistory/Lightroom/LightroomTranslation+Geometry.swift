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
    /// differs from its EXIF. Photos are decoded upright by their EXIF orientation, so the turn
    /// from that to the XMP's is added: the XMP's transform after the inverse of the EXIF's.
    mutating func translateOrientation() throws {
        guard let o = try settings.number("tiff:Orientation").map({ Int($0) }) else { return }
        let exif = options.exifOrientation ?? 1
        let turn = Self.matrix(o) * Self.matrix(exif).transposed
        guard let k = (1...8).first(where: { Self.matrix($0) == turn }), k != 1 else {
            mark(["tiff:Orientation"], .neutral)
            return
        }
        mark(["tiff:Orientation"], .translated)
        let steps: [String] = switch k {
        case 2: ["flip: horizontal"]
        case 3: ["rotate: 180"]
        case 4: ["flip: vertical"]
        case 5: ["rotate: 90", "flip: horizontal"]
        case 6: ["rotate: 90"]
        case 7: ["rotate: 270", "flip: horizontal"]
        default: ["rotate: 270"]
        }
        for step in steps {
            add(step.hasPrefix("rotate") ? "turn" : "mirror", step, keys: ["tiff:Orientation"],
                note: "Lightroom: tiff:Orientation \(o) where the photo's EXIF says \(exif)")
        }
    }

    /// A 2×2 integer matrix (row-major) on centred coordinates, y down.
    struct Matrix2: Equatable {
        var a, b, c, d: Int
        static func * (l: Matrix2, r: Matrix2) -> Matrix2 {
            Matrix2(a: l.a * r.a + l.b * r.c, b: l.a * r.b + l.b * r.d, c: l.c * r.a + l.d * r.c, d: l.c * r.b + l.d * r.d)
        }
        var transposed: Matrix2 { Matrix2(a: a, b: c, c: b, d: d) }
    }

    /// Where EXIF orientation `o` takes a stored point (x, y) to be shown.
    static func matrix(_ o: Int) -> Matrix2 {
        switch o {
        case 2: Matrix2(a: -1, b: 0, c: 0, d: 1)
        case 3: Matrix2(a: -1, b: 0, c: 0, d: -1)
        case 4: Matrix2(a: 1, b: 0, c: 0, d: -1)
        case 5: Matrix2(a: 0, b: 1, c: 1, d: 0)
        case 6: Matrix2(a: 0, b: -1, c: 1, d: 0)
        case 7: Matrix2(a: 0, b: -1, c: -1, d: 0)
        case 8: Matrix2(a: 0, b: 1, c: -1, d: 0)
        default: Matrix2(a: 1, b: 0, c: 0, d: 1)
        }
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
