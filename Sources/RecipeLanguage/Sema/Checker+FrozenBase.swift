import RecipeCore

/// The sidecar keys of a recipe: `original:` (which photo it belongs to) and `base:` stages (frozen
/// foreign layers). Their shapes are checked here; whether the photo and the objects match is
/// the lifecycle's business (RecipeHistory), which has the files.
extension Checker {
    static let originalKeys = ["file", "sha256", "size"]
    static let baseKeys = ["format", "version", "tool", "source", "embedded", "pixels", "data", "data-base64", "data-sha256"]
    static let pixelKeys = ["sha256", "size", "type"]

    /// `original: {file: IMG_0001.JPG, sha256: …, size: 123}`.
    mutating func checkOriginal(_ node: YAMLNode) -> OriginalBinding? {
        guard let fields = fieldMap(node, code: .invalidOriginal, what: "`original`", valid: Checker.originalKeys) else { return nil }
        let file = text(fields["file"], code: .invalidOriginal, what: "`original.file`")
        let digest = digest(fields["sha256"], code: .invalidOriginal, what: "`original.sha256`", parent: node)
        let size = count(fields["size"], code: .invalidOriginal, what: "`original.size`", parent: node)
        guard let digest, let size else { return nil }
        return OriginalBinding(file: file, sha256: digest, size: size)
    }

    /// The value of a `base:` stage key.
    mutating func checkBase(_ node: YAMLNode) -> FrozenBase? {
        guard let fields = fieldMap(node, code: .invalidBase, what: "a frozen base layer", valid: Checker.baseKeys) else { return nil }
        var ok = true
        func required(_ key: String, _ value: String?) -> String? {
            if value == nil, fields[key] == nil {
                error(.invalidBase, "the frozen base layer has no `\(key)`", node.range,
                      notes: [.init("a base keeps `format`, `version`, `pixels` and the foreign `data` (`recipe edit` writes them)")])
            }
            if value == nil { ok = false }
            return value
        }
        let format = required("format", text(fields["format"], code: .invalidBase, what: "`format`"))
        let version = required("version", text(fields["version"], code: .invalidBase, what: "`version`"))
        let tool = text(fields["tool"], code: .invalidBase, what: "`tool`")
        let source = text(fields["source"], code: .invalidBase, what: "`source`")
        let embedded = text(fields["embedded"], code: .invalidBase, what: "`embedded`")
        var pixels: ObjectReference?
        if let p = fields["pixels"] {
            if let pf = fieldMap(p.value, code: .invalidBase, what: "`pixels`", valid: Checker.pixelKeys) {
                let d = digest(pf["sha256"], code: .invalidBase, what: "`pixels.sha256`", parent: p.value)
                let n = count(pf["size"], code: .invalidBase, what: "`pixels.size`", parent: p.value)
                let type = text(pf["type"], code: .invalidBase, what: "`pixels.type`")
                if let d, let n { pixels = ObjectReference(sha256: d, size: n, type: type) }
            }
        } else {
            error(.invalidBase, "the frozen base layer has no `pixels`", node.range,
                  notes: [.init("`pixels: {sha256: …, size: …}` names the rendered file in the object store")])
        }
        var data: FrozenBase.Payload?
        switch (fields["data"], fields["data-base64"]) {
        case (let t?, nil):
            if let s = text(t, code: .invalidBase, what: "`data`") { data = .text(s) }
        case (nil, let b?):
            if let s = text(b, code: .invalidBase, what: "`data-base64`") {
                if Checker.isBase64(s) {
                    data = .base64(s)
                } else {
                    error(.invalidBase, "`data-base64` is not base64 text", b.value.range)
                }
            }
        case (let t?, _?):
            error(.invalidBase, "the frozen base layer has both `data` and `data-base64`", t.key.range,
                  notes: [.init("text data is kept as `data`, anything else as `data-base64`: one of them")])
        case (nil, nil):
            error(.invalidBase, "the frozen base layer has no `data`", node.range,
                  notes: [.init("the foreign adjustment data is kept verbatim as `data` (text) or `data-base64`")])
        }
        var dataDigest: String?
        if let f = fields["data-sha256"] { dataDigest = digest(f, code: .invalidBase, what: "`data-sha256`", parent: node) }
        guard ok, let format, let version, let pixels, let data else { return nil }
        return FrozenBase(format: format, version: version, tool: tool, source: source, embedded: embedded,
                          pixels: pixels, data: data, dataSHA256: dataDigest)
    }

    static func isBase64(_ s: String) -> Bool {
        var padding = 0
        var count = 0
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): continue
            case UInt8(ascii: "="): padding += 1
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "+"), UInt8(ascii: "/"):
                if padding > 0 { return false }
            default: return false
            }
            count += 1
        }
        return count % 4 == 0 && padding <= 2
    }

    // MARK: field helpers

    /// The entries of a mapping by key (unknown keys reported), or nil when it is not a mapping.
    mutating func fieldMap(_ node: YAMLNode, code: DiagnosticCode, what: String, valid: [String]) -> [String: YAMLPair]? {
        guard let pairs = node.mapping else {
            error(code, "\(what) must be a mapping, not \(node.kindDescription)", node.range)
            return nil
        }
        var fields: [String: YAMLPair] = [:]
        for pair in pairs {
            guard let key = pair.key.scalar else {
                error(.wrongType, "keys must be words, not \(pair.key.kindDescription)", pair.key.range)
                continue
            }
            if valid.contains(key) {
                if fields[key] == nil { fields[key] = pair }
            } else {
                unknownKey(key, pair.key.range, valid: valid, context: what)
            }
        }
        return fields
    }

    mutating func text(_ pair: YAMLPair?, code: DiagnosticCode, what: String) -> String? {
        guard let pair else { return nil }
        guard let s = pair.value.scalar, !pair.value.isNull else {
            error(code, "\(what) must be text, not \(pair.value.kindDescription)", pair.value.range)
            return nil
        }
        return s
    }

    mutating func digest(_ pair: YAMLPair?, code: DiagnosticCode, what: String, parent: YAMLNode) -> String? {
        guard let pair else {
            error(code, "\(what) is missing", parent.range)
            return nil
        }
        guard let s = pair.value.scalar, ObjectReference.isDigest(s) else {
            error(code, "\(what) must be a SHA-256 digest (64 lower-case hex digits)", pair.value.range)
            return nil
        }
        return s
    }

    mutating func count(_ pair: YAMLPair?, code: DiagnosticCode, what: String, parent: YAMLNode) -> Int? {
        guard let pair else {
            error(code, "\(what) is missing", parent.range)
            return nil
        }
        guard let s = pair.value.plainScalar, let n = Int(s), n >= 0 else {
            error(code, "\(what) must be a byte count (a whole number ≥ 0)", pair.value.range)
            return nil
        }
        return n
    }
}
