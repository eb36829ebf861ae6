import RecipeCore

/// YAML text for the sidecar parts the lifecycle tools write (`recipe edit` and friends): the
/// `original:` line and `base:` stage items, in the canonical form `recipe fmt` gives them.
///
/// ```yaml
/// original: {file: IMG_0001.JPG, sha256: 6f1e…, size: 2318841}
/// ```
public enum SidecarText {
    /// `original: {file: …, sha256: …, size: …}` (one line, no newline).
    public static func original(_ o: OriginalBinding) -> String {
        var parts: [String] = []
        if let file = o.file { parts.append("file: " + YAMLText.string(file)) }
        parts.append("sha256: " + YAMLText.string(o.sha256))
        parts.append("size: \(o.size)")
        return "original: {" + parts.joined(separator: ", ") + "}"
    }

    /// A `base:` stage item at list indent 2, ending with a newline.
    public static func baseStage(_ base: FrozenBase, id: String?) -> String {
        var out = ""
        var first = true
        func line(_ text: String) {
            out += (first ? "  - " : "    ") + text + "\n"
            first = false
        }
        if let id { line("id: " + id) }
        line("base:")
        func field(_ key: String, _ value: String) { out += "      \(key): \(value)\n" }
        field("format", YAMLText.string(base.format, inFlow: false))
        field("version", YAMLText.quoted(base.version))
        if let tool = base.tool { field("tool", YAMLText.string(tool, inFlow: false)) }
        if let source = base.source { field("source", YAMLText.string(source, inFlow: false)) }
        if let embedded = base.embedded { field("embedded", YAMLText.quoted(embedded)) }
        var pixels = "{sha256: \(YAMLText.string(base.pixels.sha256)), size: \(base.pixels.size)"
        if let type = base.pixels.type { pixels += ", type: \(YAMLText.string(type))" }
        field("pixels", pixels + "}")
        if let d = base.dataSHA256 { field("data-sha256", YAMLText.string(d)) }
        switch base.data {
        case .text(let s): field("data", YAMLText.literalBlock(s, indent: 8, parentIndent: 6) ?? YAMLText.quoted(s))
        case .base64(let s): field("data-base64", YAMLText.literalBlock(s, indent: 8, parentIndent: 6) ?? YAMLText.quoted(s))
        }
        return out
    }

    /// A scalar in block context: plain when that reads back the same, else quoted.
    public static func scalar(_ s: String) -> String { YAMLText.string(s, inFlow: false) }
}
