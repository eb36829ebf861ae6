/// The basic panel's tone sliders and the tone curves (docs/lightroom.md, "Tone").
extension LightroomTranslation {
    mutating func translateTone() throws {
        let n = Self.n
        if let ev = try take("Exposure2012") { add("exposure", "exposure: \(n(ev))", keys: ["Exposure2012"]) }
        if developWritten { addRawLook() }
        if let c = try take("Contrast2012") { add("contrast", "contrast: \(n(1 + c / 200))", keys: ["Contrast2012"]) }
        let shadows = try take("Shadows2012"), highlights = try take("Highlights2012")
        if shadows != nil || highlights != nil {
            var params: [String] = []
            if let s = shadows { params.append("shadows: \(n(s / 100))") }
            if let h = highlights { params.append("highlights: \(n(-h / 100))") }
            add("shadows-highlights", "shadows-highlights: {\(params.joined(separator: ", "))}", keys: ["Highlights2012", "Shadows2012"])
        }
        let whites = try take("Whites2012"), blacks = try take("Blacks2012")
        if whites != nil || blacks != nil {
            var params: [String] = []
            if let b = blacks { params.append(b < 0 ? "black: \(n(-0.1 * b / 100))" : "out-black: \(n(0.1 * b / 100))") }
            if let w = whites { params.append(w > 0 ? "white: \(n(1 - 0.2 * w / 100))" : "out-white: \(n(1 + 0.2 * w / 100))") }
            add("whites-blacks", "levels: {\(params.joined(separator: ", "))}", keys: ["Whites2012", "Blacks2012"])
        }
    }

    /// The default look stands for Adobe's default rendering, which Lightroom's sliders are
    /// relative to; a develop stage of ours turns it off, so its stages follow here, after the
    /// exposure (scene-referred, as Lightroom's) and before the other tone stages. (Not its
    /// sharpening when Lightroom's sharpens: that would sharpen twice.)
    mutating func addRawLook() {
        let sharpens = ((try? settings.number("Sharpness")) ?? nil ?? 0) > 0
        for (i, item) in options.rawLookStages.enumerated() where !(sharpens && item.hasPrefix("sharpen")) {
            stages.append(Stage(id: "raw-look-\(i + 1)", operation: item, mask: nil, keys: [],
                                note: "the default look of a raw, which the develop stage turns off"))
        }
    }

    mutating func translateCurves() throws {
        try translateParametricCurve()
        for (key, channel, id) in [("ToneCurvePV2012", "rgb", "tone-curve"), ("ToneCurvePV2012Red", "r", "tone-curve-red"),
                                   ("ToneCurvePV2012Green", "g", "tone-curve-green"), ("ToneCurvePV2012Blue", "b", "tone-curve-blue")] {
            guard let property = settings.document[key] else { continue }
            let points = try curvePoints(property)
            if points.count == 2, points[0] == (0, 0), points[1] == (1, 1) {
                outcomes[key] = .neutral
                continue
            }
            guard points.count <= 16 else {
                outcomes[key] = .untranslated("a curve of \(points.count) points; the curve stage takes 16 at most")
                continue
            }
            outcomes[key] = .translated
            let list = points.map { "[\(Self.n($0.0)), \(Self.n($0.1))]" }.joined(separator: ", ")
            add(id, "curve: {points: [\(list)]\(channel == "rgb" ? "" : ", channel: \(channel)")}", keys: [key],
                note: "Lightroom: \(key) (\(points.count) points, 0–255 scaled to 0–1)")
        }
    }

    /// A point curve's `x, y` items (0–255), scaled to 0…1, checked to rise in x.
    func curvePoints(_ property: CameraRawXMP.Property) throws -> [(Double, Double)] {
        guard let items = property.value.items else {
            throw HistoryError(settings.source, "\(property.key) (line \(property.line)) is not a list of `x, y` points")
        }
        var points: [(Double, Double)] = []
        for item in items {
            let parts = (item.text ?? "").split(separator: ",").map { $0.trimmingPrefix { $0 == " " } }
            guard parts.count == 2, let x = Double(parts[0]), let y = Double(parts[1]), (0...255).contains(x), (0...255).contains(y) else {
                throw HistoryError(settings.source, "\(property.key) (line \(property.line)) has the point `\(item.text ?? "?")`, not `x, y` within 0…255")
            }
            if let last = points.last, x / 255 <= last.0 {
                throw HistoryError(settings.source, "\(property.key) (line \(property.line)): its points do not rise in x (\(Int(last.0 * 255)) then \(Int(x)))")
            }
            points.append((x / 255, y / 255))
        }
        guard points.count >= 2 else {
            throw HistoryError(settings.source, "\(property.key) (line \(property.line)) has \(points.count) point\(points.count == 1 ? "" : "s"); a curve needs 2")
        }
        return points
    }

    /// The parametric curve: four regions split at ParametricShadowSplit, MidtoneSplit and
    /// HighlightSplit, each region's slider lifting (or lowering) the curve at its centre by up to
    /// 0.1 of the range, the splits moved by the mean of their neighbours.
    mutating func translateParametricCurve() throws {
        let amountKeys = ["ParametricShadows", "ParametricDarks", "ParametricLights", "ParametricHighlights"]
        let splitKeys = ["ParametricShadowSplit", "ParametricMidtoneSplit", "ParametricHighlightSplit"]
        var amounts: [Double] = []
        for key in amountKeys { amounts.append(try take(key) ?? 0) }
        var splits: [Double] = []
        for (key, fallback) in zip(splitKeys, [25.0, 50, 75]) { splits.append((try read(key) ?? fallback) / 100) }
        guard amounts.contains(where: { $0 != 0 }) else {
            // The splits only place the sliders: with every slider at 0 they do nothing.
            mark(splitKeys, .neutral)
            return
        }
        guard splits[0] < splits[1], splits[1] < splits[2], splits[0] > 0, splits[2] < 1 else {
            throw HistoryError(settings.source, "ParametricShadowSplit, MidtoneSplit and HighlightSplit must rise within 0…100 (they are \(splits.map { Self.n($0 * 100) }.joined(separator: ", ")))")
        }
        let lift = amounts.map { 0.1 * $0 / 100 }
        let bounds = [0] + splits + [1]
        var points: [(Double, Double)] = [(0, 0)]
        for i in 0..<4 {
            let centre = (bounds[i] + bounds[i + 1]) / 2
            points.append((centre, centre + lift[i]))
            if i < 3 { points.append((bounds[i + 1], bounds[i + 1] + (lift[i] + lift[i + 1]) / 2)) }
        }
        points.append((1, 1))
        let list = points.map { "[\(Self.n($0.0)), \(Self.n(min(1, max(0, $0.1))))]" }.joined(separator: ", ")
        add("parametric-curve", "curve: {points: [\(list)]}", keys: amountKeys + splitKeys)
    }
}
