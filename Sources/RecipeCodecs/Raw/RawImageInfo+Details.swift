import RecipeCore

extension RawImageInfo {
    /// The camera in words, for messages: "Canon EOS 550D".
    public var camera: String { Self.camera(make: make, model: model) }

    /// The camera in words, for messages: "Canon EOS 550D", or "an unidentified camera".
    static func camera(make: String, model: String) -> String {
        let name = model.hasPrefix(make) ? model : [make, model].filter { !$0.isEmpty }.joined(separator: " ")
        return name.isEmpty ? "raw file of an unidentified camera" : name
    }

    /// `recipe info`'s lines for a raw file.
    static func details(_ r: RawImageInfo) -> [(label: String, value: String)] {
        var lines: [(String, String)] = [("camera", r.camera)]
        if !r.lens.isEmpty { lines.append(("lens", r.lens)) }
        var exposure: [String] = []
        // LibRaw holds these as floats: shown to the precision a camera states them (a tenth of a
        // second, a hundredth of a stop), not the float's binary digits (4.96743106842041 s).
        if let s = r.shutter { exposure.append(s >= 1 ? "\(NumberFormatting.shortest((s * 10).rounded() / 10)) s" : "1/\(Int((1 / s).rounded())) s") }
        if let a = r.aperture { exposure.append("f/\(NumberFormatting.shortest((a * 10).rounded() / 10))") }
        if let iso = r.iso { exposure.append("ISO \(Int(iso))") }
        if let f = r.focalLength { exposure.append("\(NumberFormatting.shortest((f * 10).rounded() / 10)) mm") }
        if !exposure.isEmpty { lines.append(("exposure", exposure.joined(separator: ", "))) }
        lines.append(("raw size", "\(r.rawWidth)×\(r.rawHeight)"))
        lines.append(("mosaic", r.cfa.isEmpty ? "\(r.colors) colours, not a Bayer mosaic" : "\(r.cfa) Bayer"))
        lines.append(("black / white level", "\(r.black) / \(r.white)"))
        func list(_ m: [Double]) -> String { m.map { NumberFormatting.shortest(($0 * 1000).rounded() / 1000) }.joined(separator: " ") }
        lines.append(("as-shot multipliers", r.asShot.map(list) ?? "none recorded"))
        lines.append(("daylight multipliers", list(r.daylight)))
        if let v = r.dngVersion { lines.append(("DNG version", v + (r.baselineExposure != 0 ? ", baseline exposure \(NumberFormatting.shortest((r.baselineExposure * 100).rounded() / 100)) EV" : ""))) }
        if let opcodes = r.opcodes { lines += opcodes.details }
        lines.append(("embedded preview", r.preview.map { ($0.format.isEmpty ? "" : "\($0.format), ") + "\($0.width)×\($0.height), \($0.bytes) bytes" } ?? "none"))
        if !r.decoder.isEmpty { lines.append(("LibRaw decoder", r.decoder)) }
        return lines
    }
}
