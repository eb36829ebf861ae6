/// The graduated and radial filters (GradientBasedCorrections, CircularGradientBasedCorrections):
/// each local setting of a correction becomes a stage under a gradient or radial mask
/// (docs/lightroom.md, "Local corrections").
extension LightroomTranslation {
    /// Fields of a correction that describe it rather than set something.
    static let correctionFields: Set<String> = [
        "What", "CorrectionAmount", "CorrectionActive", "CorrectionMasks", "CorrectionName", "CorrectionSyncID",
        "CorrectionReferenceX", "CorrectionReferenceY", "CorrectionID",
    ]

    /// The local settings a stage renders, with Camera Raw's ranges (±1 for ±100 on the slider;
    /// exposure in ±1 for ±4 stops, up to ±4 accepted).
    static let localRanges: [String: ClosedRange<Double>] = {
        var r: [String: ClosedRange<Double>] = [:]
        for key in ["LocalContrast2012", "LocalHighlights2012", "LocalShadows2012", "LocalWhites2012", "LocalBlacks2012",
                    "LocalClarity2012", "LocalTexture", "LocalSaturation", "LocalTemperature", "LocalTint", "LocalSharpness"] {
            r[key] = -1...1
        }
        r["LocalExposure2012"] = -4...4
        return r
    }()

    /// Local settings whose no-effect value is not 0.
    static let localNeutral: [String: Double] = ["LocalCurveRefineSaturation": 100]

    mutating func translateLocal() throws {
        for (key, kind) in [("GradientBasedCorrections", "gradient"), ("CircularGradientBasedCorrections", "radial")] {
            guard let property = settings.document[key] else { continue }
            guard let corrections = property.value.items else {
                throw HistoryError(settings.source, "\(key) (line \(property.line)) is not a list of corrections")
            }
            var missed: [String] = []
            var written = 0
            for (i, correction) in corrections.enumerated() {
                let label = "\(kind == "gradient" ? "graduated" : "radial")-\(i + 1)"
                guard let fields = correction.fields else {
                    throw HistoryError(settings.source, "\(key) (line \(property.line)): correction \(i + 1) is not a structure")
                }
                if correction["CorrectionActive"]?.text?.lowercased() == "false" { continue }
                let amount = try localNumber(correction["CorrectionAmount"], "CorrectionAmount", key, range: 0...1) ?? 1
                guard let masks = correction["CorrectionMasks"]?.items, masks.count == 1, let m = masks.first else {
                    missed.append("\(label): \(correction["CorrectionMasks"]?.items?.count ?? 0) masks (one gradient or ellipse is translated)")
                    continue
                }
                guard let mask = try maskYAML(m, kind: kind, amount: amount, key: key) else {
                    missed.append("\(label): a mask of kind `\(m["What"]?.text ?? "?")`")
                    continue
                }
                var values: [String: Double] = [:]
                for field in fields where !Self.correctionFields.contains(field.key) {
                    if let range = Self.localRanges[field.key] {
                        guard let v = try localNumber(field.value, field.key, key, range: range), v != 0 else { continue }
                        values[field.key] = v
                    } else if let text = field.value.text, let v = Double(text.hasPrefix("+") ? String(text.dropFirst()) : text),
                              v != (Self.localNeutral[field.key] ?? 0) {
                        // A setting no stage renders (LocalDehaze, LocalToningHue …): listed below.
                        values[field.key] = v
                    }
                }
                let stagesBefore = stages.count
                let used = localStages(values, label: label, mask: mask, key: key)
                written += stages.count - stagesBefore
                for field in values.keys.sorted() where !used.contains(field) { missed.append("\(label): \(field)") }
            }
            if !missed.isEmpty {
                outcomes[key] = .untranslated("partly (\(written) stage\(written == 1 ? "" : "s") written); not translated: " + missed.joined(separator: "; "))
            } else {
                outcomes[key] = written > 0 ? .translated : .neutral
            }
        }
    }

    func localNumber(_ value: CameraRawXMP.Value?, _ field: String, _ key: String, range: ClosedRange<Double>) throws -> Double? {
        guard let value else { return nil }
        guard let text = value.text, let v = Double(text.hasPrefix("+") ? String(text.dropFirst()) : text), v.isFinite else {
            if value.text == nil { return nil }   // a structure (a range mask): not a number to read
            throw HistoryError(settings.source, "\(key): \(field) is `\(value.text ?? "")`, not a number")
        }
        guard range.contains(v) else {
            throw HistoryError(settings.source, "\(key): \(field) is \(text), outside Camera Raw's range \(CameraRawRanges.describe(range))")
        }
        return v
    }

    /// The mask of one correction, nil for a kind without counterpart (a brush).
    func maskYAML(_ m: CameraRawXMP.Value, kind: String, amount: Double, key: String) throws -> String? {
        let n = Self.n
        let strength = amount * (try localNumber(m["MaskValue"], "MaskValue", key, range: 0...1) ?? 1)
        func coordinate(_ field: String) throws -> Double {
            guard let v = try localNumber(m[field], field, key, range: -100...100) else {
                throw HistoryError(settings.source, "\(key): a mask without \(field)")
            }
            return v
        }
        func point(_ p: (Double, Double)) -> String {
            let u = Self.upright(p.0, p.1, orientation: orientation)
            return "[\(n(min(1, max(0, u.0)))), \(n(min(1, max(0, u.1))))]"
        }
        let amountText = strength < 1 ? ", amount: \(n(strength))" : ""
        switch (kind, m["What"]?.text) {
        case ("gradient", "Mask/Gradient"?):
            let full = (try coordinate("FullX"), try coordinate("FullY")), zero = (try coordinate("ZeroX"), try coordinate("ZeroY"))
            return "{gradient: {from: \(point(full)), to: \(point(zero))\(amountText)}}"
        case ("radial", "Mask/CircularGradient"?):
            let top = try coordinate("Top"), left = try coordinate("Left"), bottom = try coordinate("Bottom"), right = try coordinate("Right")
            let feather = try localNumber(m["Feather"], "Feather", key, range: 0...100) ?? 50
            // Lightroom's radial filter works outside its ellipse unless it is flipped (inverted).
            let inside = m["Flipped"]?.text?.lowercased() == "true"
            let aspect = options.storedAspect ?? 1.5
            // The ellipse's geometric-mean radius over the half-diagonal, both in heights.
            let rx = abs(right - left) / 2, ry = abs(bottom - top) / 2
            let radius = (rx * ry * aspect).squareRoot() / ((aspect * aspect + 1).squareRoot() / 2)
            let centre = point(((left + right) / 2, (top + bottom) / 2))
            return "{radial: {center: \(centre), radius: \(n(min(2, radius))), feather: \(n(feather / 100))\(inside ? "" : ", invert: true")\(amountText)}}"
        default:
            return nil
        }
    }

    /// Stages for a correction's settings under `mask`; returns the fields it used.
    mutating func localStages(_ v: [String: Double], label: String, mask: String, key: String) -> Set<String> {
        let n = Self.n
        var used: Set<String> = []
        func stage(_ suffix: String, _ op: String, _ fields: [String]) {
            let from = fields.compactMap { f in v[f].map { "\(f) \(n($0))" } }.joined(separator: ", ")
            stages.append(Stage(id: "\(label)-\(suffix)", operation: op, mask: mask, keys: [key], note: "Lightroom \(label): \(from)"))
            used.formUnion(fields)
        }
        if let e = v["LocalExposure2012"] { stage("exposure", "exposure: \(n(4 * e))", ["LocalExposure2012"]) }
        if let c = v["LocalContrast2012"] { stage("contrast", "contrast: \(n(1 + c / 2))", ["LocalContrast2012"]) }
        if v["LocalShadows2012"] != nil || v["LocalHighlights2012"] != nil {
            var p: [String] = []
            if let s = v["LocalShadows2012"] { p.append("shadows: \(n(max(-1, min(1, s))))") }
            if let h = v["LocalHighlights2012"] { p.append("highlights: \(n(max(-1, min(1, -h))))") }
            stage("shadows-highlights", "shadows-highlights: {\(p.joined(separator: ", "))}", ["LocalShadows2012", "LocalHighlights2012"])
        }
        if v["LocalWhites2012"] != nil || v["LocalBlacks2012"] != nil {
            var p: [String] = []
            if let b = v["LocalBlacks2012"] { p.append(b < 0 ? "black: \(n(-0.1 * b))" : "out-black: \(n(0.1 * b))") }
            if let w = v["LocalWhites2012"] { p.append(w > 0 ? "white: \(n(1 - 0.2 * w))" : "out-white: \(n(1 + 0.2 * w))") }
            stage("whites-blacks", "levels: {\(p.joined(separator: ", "))}", ["LocalWhites2012", "LocalBlacks2012"])
        }
        if let c = v["LocalClarity2012"] { stage("clarity", "clarity: \(n(max(-1, min(1, c))))", ["LocalClarity2012"]) }
        if let t = v["LocalTexture"] { stage("texture", "clarity: {amount: \(n(max(-1, min(1, t / 2)))), sigma: 0.4%}", ["LocalTexture"]) }
        if let s = v["LocalSaturation"] { stage("saturation", "saturation: \(n(max(0, min(2, 1 + s))))", ["LocalSaturation"]) }
        if v["LocalTemperature"] != nil || v["LocalTint"] != nil {
            let temp = Self.offsetTemperature(100 * max(-1, min(1, v["LocalTemperature"] ?? 0)))
            stage("white-balance", "white-balance: {temp: \(Int(temp.rounded())), tint: \(n(100 * max(-1, min(1, v["LocalTint"] ?? 0))))}",
                  ["LocalTemperature", "LocalTint"])
        }
        if let s = v["LocalSharpness"], s > 0 { stage("sharpen", "sharpen: {amount: \(n(s)), sigma: 1px, luma: true}", ["LocalSharpness"]) }
        return used
    }
}
