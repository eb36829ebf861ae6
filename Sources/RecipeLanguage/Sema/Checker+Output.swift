import RecipeCore

extension Checker {
    typealias Choices = CheckedRecipe.Output.Choices

    /// `output:`: the colour the recipe's renders are written in and how they are exported,
    /// unless the command line says otherwise.
    ///
    /// ```yaml
    /// output: {profile: srgb, format: jpeg, max-bytes: 300K, sharpen: screen,
    ///          watermark: {image: logo.png}, metadata: {strip: [location]}}
    /// ```
    mutating func checkOutput(_ node: YAMLNode) {
        guard let fields = node.mapping else {
            error(.wrongType, "`output` is a mapping such as `{profile: srgb}`, not \(node.kindDescription)", node.range)
            return
        }
        var settings = CheckedRecipe.Output()
        for field in fields {
            let key = field.key.scalar ?? "?"
            let value = field.value
            switch key {
            case "profile":
                settings.profile = choice(value, Choices.profiles, what: "`profile` of `output`",
                                          note: "; an ICC file is given on the command line (`--profile FILE.icc`)")
            case "intent": settings.intent = choice(value, Choices.intents, what: "`intent` of `output`")
            case "format": settings.format = choice(value, Choices.formats, what: "`format` of `output`")
            case "quality":
                settings.quality = number(value, what: "`quality` of `output`", range: 1...100, integer: true).map { Int($0) }
            case "max-bytes": settings.maxBytes = byteSize(value)
            case "sharpen": settings.sharpen = sharpening(value)
            case "watermark": settings.watermark = watermark(value)
            case "metadata": settings.metadata = metadata(value)
            default:
                unknownKey(key, field.key.range, valid: Choices.keys, context: "`output`")
            }
        }
        result.output = settings
    }

    /// A word among `choices` (nil, with an error, otherwise).
    mutating func choice(_ node: YAMLNode, _ choices: [String], what: String, note: String = "") -> String? {
        guard let word = node.scalar, node.sequence == nil, !node.isNull else {
            error(.wrongType, "\(what) is one of \(Suggestions.list(choices, conjunction: "or", limit: 9)), not \(node.kindDescription)", node.range)
            return nil
        }
        guard choices.contains(word) else {
            var notes: [Diagnostic.Note] = []
            if let guess = Suggestions.closest(to: word, in: choices) { notes.append(.init("did you mean `\(guess)`?")) }
            notes.append(.init("choices: \(Suggestions.list(choices, conjunction: "or", limit: 9))" + note))
            error(.invalidChoice, "`\(word)` is not a choice for \(what)", node.range, notes: notes)
            return nil
        }
        return word
    }

    /// A number in `range`; with `percent`, `20%` is 0.2 (and a bare number is a share too).
    mutating func number(_ node: YAMLNode, what: String, range: ClosedRange<Double>, integer: Bool = false, percent: Bool = false) -> Double? {
        var text = node.scalar ?? ""
        var scale = 1.0
        if percent, text.hasSuffix("%") {
            text.removeLast()
            scale = 0.01
        }
        guard node.mapping == nil, node.sequence == nil, let raw = Double(text), raw.isFinite, !integer || raw == raw.rounded() else {
            let kind = integer ? "a whole number" : percent ? "a share such as `20%` or `0.2`" : "a number"
            error(.wrongType, "\(what) is \(kind), not \(node.isNull || node.scalar == nil ? node.kindDescription : "`\(node.scalar!)`")", node.range)
            return nil
        }
        let v = raw * scale
        guard range.contains(v) else {
            let shown = percent ? "\(Self.trimmed(range.lowerBound * 100))%…\(Self.trimmed(range.upperBound * 100))%" : "\(Self.trimmed(range.lowerBound))…\(Self.trimmed(range.upperBound))"
            error(.outOfRange, "\(what) is \(text)\(scale == 0.01 ? "%" : ""), outside \(shown)", node.range)
            return nil
        }
        return v
    }

    static func trimmed(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(v) }

    /// `max-bytes: 300K` (`ByteSize`: K, M = 1024, 1024²; a bare number is bytes), 1K…1G.
    mutating func byteSize(_ node: YAMLNode) -> Int? {
        let what = "`max-bytes` of `output`"
        guard let text = node.scalar, node.mapping == nil, node.sequence == nil, !node.isNull else {
            error(.wrongType, "\(what) is a size such as `300K` or `2M`, not \(node.kindDescription)", node.range)
            return nil
        }
        guard let bytes = ByteSize.parse(text) else {
            error(.badUnit, "\(what) is `\(text)`: a size is a number with K or M, such as `300K` or `2M`", node.range)
            return nil
        }
        guard bytes >= 1024, bytes <= 1 << 30 else {
            error(.outOfRange, "\(what) is `\(text)`, outside 1K…1G", node.range)
            return nil
        }
        return bytes
    }

    /// `sharpen: screen` or `sharpen: {for: glossy, amount: high}`.
    mutating func sharpening(_ node: YAMLNode) -> CheckedRecipe.Sharpening? {
        guard let fields = node.mapping else {
            return choice(node, Choices.sharpenTargets, what: "`sharpen` of `output`").map { CheckedRecipe.Sharpening(target: $0) }
        }
        var target: String?, amount = "standard", ok = true
        for field in fields {
            switch field.key.scalar ?? "?" {
            case "for": target = choice(field.value, Choices.sharpenTargets, what: "`for` of `sharpen`")
            case "amount":
                if let a = choice(field.value, Choices.sharpenAmounts, what: "`amount` of `sharpen`") { amount = a } else { ok = false }
            case let key: unknownKey(key, field.key.range, valid: ["for", "amount"], context: "`sharpen` of `output`"); ok = false
            }
        }
        guard fields.contains(where: { $0.key.scalar == "for" }) else {
            error(.missingParameter, "`sharpen` of `output` needs `for`: screen, matte or glossy", node.range)
            return nil
        }
        guard ok, let target else { return nil }
        return CheckedRecipe.Sharpening(target: target, amount: amount)
    }

    /// `watermark: {image: logo.png, position: bottom-right, scale: 20%, margin: 2%, opacity: 0.7}`:
    /// the PNG is read from the recipe's folder, as LUTs are, and kept inside it the same way.
    mutating func watermark(_ node: YAMLNode) -> CheckedRecipe.Watermark? {
        guard let fields = node.mapping else {
            error(.wrongType, "`watermark` of `output` is a mapping such as `{image: logo.png}`, not \(node.kindDescription)", node.range)
            return nil
        }
        var mark: CheckedRecipe.Watermark?
        var position: String?, scale: Double?, margin: Double?, opacity: Double?, ok = true
        for field in fields {
            let value = field.value
            switch field.key.scalar ?? "?" {
            case "image":
                guard let path = value.scalar, value.mapping == nil, value.sequence == nil, !value.isNull, !path.isEmpty else {
                    error(.wrongType, "`image` of `watermark` is the path of a PNG, not \(value.kindDescription)", value.range)
                    ok = false
                    continue
                }
                guard path.lowercased().hasSuffix(".png") else {
                    error(.wrongType, "`image` of `watermark` must name a .png file (its alpha is the mark's shape), not `\(path)`", value.range)
                    ok = false
                    continue
                }
                guard checkFileReference(path, value.range, what: "`image` of `watermark`") else {
                    ok = false
                    continue
                }
                let folder = file.path.contains("/") ? String(file.path[..<file.path.lastIndex(of: "/")!]) : "."
                mark = CheckedRecipe.Watermark(image: path, path: path.hasPrefix("/") ? path : folder + "/" + path)
            case "position": position = choice(value, Choices.positions, what: "`position` of `watermark`"); ok = ok && position != nil
            case "scale": scale = number(value, what: "`scale` of `watermark`", range: 0.01...1, percent: true); ok = ok && scale != nil
            case "margin": margin = number(value, what: "`margin` of `watermark`", range: 0...0.25, percent: true); ok = ok && margin != nil
            case "opacity": opacity = number(value, what: "`opacity` of `watermark`", range: 0...1); ok = ok && opacity != nil
            case let key:
                unknownKey(key, field.key.range, valid: ["image", "position", "scale", "margin", "opacity"], context: "`watermark`")
                ok = false
            }
        }
        if mark == nil, !fields.contains(where: { $0.key.scalar == "image" }) {
            error(.missingParameter, "`watermark` of `output` needs `image`: the PNG to lay over the photo", node.range)
        }
        guard ok, var mark else { return nil }
        mark.position = position ?? mark.position
        mark.scale = scale ?? mark.scale
        mark.margin = margin ?? mark.margin
        mark.opacity = opacity ?? mark.opacity
        return mark
    }

    /// `metadata: copyright` (what to keep) or `{keep: all, strip: [location, serials],
    /// copyright: "© 2026 A. Person", creator: "A. Person"}`.
    mutating func metadata(_ node: YAMLNode) -> CheckedRecipe.Metadata? {
        var policy = CheckedRecipe.Metadata()
        guard let fields = node.mapping else {
            guard let keep = choice(node, Choices.keep, what: "`metadata` of `output`") else { return nil }
            policy.keep = keep
            return policy
        }
        var ok = true
        for field in fields {
            let value = field.value
            switch field.key.scalar ?? "?" {
            case "keep":
                if let keep = choice(value, Choices.keep, what: "`keep` of `metadata`") { policy.keep = keep } else { ok = false }
            case "strip":
                for item in value.sequence ?? [value] {
                    switch choice(item, Choices.strip, what: "`strip` of `metadata`") {
                    case "location"?: policy.stripLocation = true
                    case "serials"?: policy.stripSerials = true
                    default: ok = false
                    }
                }
            case let key where key == "copyright" || key == "creator":
                guard let text = value.scalar, value.mapping == nil, value.sequence == nil, !value.isNull,
                      text.utf8.count <= 2000, !text.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" }) else {
                    error(.wrongType, "`\(key)` of `metadata` is one line of text (at most 2000 bytes), not \(value.isNull || value.scalar == nil ? value.kindDescription : "several lines")", value.range)
                    ok = false
                    continue
                }
                if key == "copyright" { policy.copyright = text } else { policy.creator = text }
            case let key:
                unknownKey(key, field.key.range, valid: ["keep", "strip", "copyright", "creator"], context: "`metadata`")
                ok = false
            }
        }
        return ok ? policy : nil
    }
}
