import RecipeCore
import RecipeOps

/// Builds a `RecipeDocument` from a checked recipe and its (migrated) YAML tree: header keys,
/// knobs and stages as canonical values, and the source text of each piece.
///
/// ```yaml
/// stages:
///   - exposure: {ev: 0.30}     # → Stage(kind: exposure, params: [ev 0.3], meta: [enabled true (default)])
/// ```
struct DocumentBuilder {
    let file: SourceFile
    let checked: CheckedRecipe
    let root: YAMLNode
    var document: RecipeDocument

    init(file: SourceFile, checked: CheckedRecipe, root: YAMLNode) {
        self.file = file
        self.checked = checked
        self.root = root
        self.document = RecipeDocument(path: file.path)
    }

    /// Key ranges of top-level keys and stage keys this build does not know: the checker's
    /// R203/R204 there do not stop a diff or a merge (another build's additions are compared as
    /// plain YAML). A near miss of a known name (`exposur`) is a typo, not an addition.
    static func unknownKeys(_ root: YAMLNode) -> Set<SourceRange> {
        let stageKeys = Operations.all.map(\.name) + RecipeChecker.metaKeys
        func foreign(_ key: String, _ known: [String]) -> Bool { !known.contains(key) && Suggestions.closest(to: key, in: known) == nil }
        var ranges = Set<SourceRange>()
        for pair in root.mapping ?? [] {
            guard let key = pair.key.scalar else { continue }
            if foreign(key, RecipeChecker.topLevelKeys) { ranges.insert(pair.key.range) }
            guard key == "stages" else { continue }
            for stage in pair.value.sequence ?? [] {
                for p in stage.mapping ?? [] {
                    if let k = p.key.scalar, foreign(k, stageKeys) { ranges.insert(p.key.range) }
                }
            }
        }
        return ranges
    }

    mutating func build() -> RecipeDocument {
        let pairs = root.mapping ?? []
        let chunks = SourceChunks.split(file, items: pairs.map { ($0.key.range.start.line, $0.value.lastLine) }, after: 0, indent: 0)
        var previousLast = 0
        for (pair, chunk) in zip(pairs, chunks) {
            let key = pair.key.scalar ?? YAMLText.canonical(pair.key)
            document.order.append(key)
            let above = SourceChunks.comments(file, lines: (previousLast + 1)...max(previousLast + 1, pair.key.range.start.line - 1), blanks: true)
            previousLast = pair.value.lastLine
            switch key {
            case "params":
                document.paramsComments = above
                buildKnobs(pair)
            case "stages":
                document.stagesComments = above
                buildStages(pair)
            case "version":
                let text = checked.declaredVersion?.description ?? YAMLText.canonical(pair.value)
                document.header.append(.init(name: key, value: .init(text), chunk: chunk))
            default:
                if !RecipeChecker.topLevelKeys.contains(key) {
                    document.notes.append("`\(key)` is not a key this build knows; compared as plain YAML")
                }
                document.header.append(.init(name: key, value: .init(YAMLText.canonical(pair.value)), chunk: chunk))
            }
        }
        if previousLast < file.lineCount {
            document.trailer = SourceChunks.comments(file, lines: (previousLast + 1)...file.lineCount)
        }
        return document
    }

    mutating func buildKnobs(_ pair: YAMLPair) {
        let entries = pair.value.mapping ?? []
        let chunks = pair.value.flow ? entries.map { _ in nil }
            : SourceChunks.split(file, items: entries.map { ($0.key.range.start.line, $0.value.lastLine) }, after: pair.key.range.start.line, indent: 2)
        for (entry, chunk) in zip(entries, chunks) {
            let name = entry.key.scalar ?? YAMLText.canonical(entry.key)
            document.knobs.append(.init(name: name, value: Self.knobValue(entry.value), chunk: chunk))
        }
    }

    /// `5600`, or `{default: 5600, doc: …}` when it has a doc; `{default: 5600}` means `5600`.
    static func knobValue(_ node: YAMLNode) -> RecipeDocument.Value {
        guard let fields = node.mapping, let value = fields.first(where: { $0.key.scalar == "default" })?.value else {
            return .init(YAMLText.canonical(node))
        }
        let defaultText = YAMLText.canonical(value)
        guard let doc = fields.first(where: { $0.key.scalar == "doc" })?.value else { return .init(defaultText) }
        let docText = YAMLText.canonical(doc)
        return .init("{default: \(defaultText), doc: \(docText)}", key: defaultText + "\u{1}" + docText)
    }

    /// A knob's default and doc keys, as `knobValue` joins them (doc nil for `5600`).
    static func knobParts(_ v: RecipeDocument.Value?) -> (String?, String?) {
        guard let v else { return (nil, nil) }
        let parts = v.key.split(separator: "\u{1}", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        return parts.count == 2 ? (parts[0], parts[1]) : (v.key, nil)
    }

    mutating func buildStages(_ pair: YAMLPair) {
        let nodes = pair.value.sequence ?? []
        let items = nodes.map { ($0.range.start.line, $0.lastLine) }
        let chunks = pair.value.flow ? nodes.map { _ in nil } : SourceChunks.split(file, items: items, after: pair.key.range.start.line, indent: 2)
        let ranges = pair.value.flow ? nodes.map { _ in nil } : SourceChunks.lineRanges(items, after: pair.key.range.start.line)
        let comments = CommentScanner.comments(in: file, root: root)
        for (i, (node, chunk)) in zip(nodes, chunks).enumerated() {
            let checkedStage = i < checked.stages.count ? checked.stages[i] : nil
            var built = stage(node, checkedStage, number: i + 1, chunk: chunk)
            if let lines = ranges[i] { built.comments = comments.filter { lines.contains($0.line) }.map(\.text) }
            document.stages.append(built)
        }
    }

    mutating func stage(_ node: YAMLNode, _ checkedStage: CheckedRecipe.Stage?, number: Int, chunk: String?) -> RecipeDocument.Stage {
        let pairs = node.mapping ?? []
        func entry(_ key: String) -> YAMLNode? { pairs.first { $0.key.scalar == key }?.value }
        let spec = checkedStage?.op.flatMap(Operations.named)
        let kindPair = spec.flatMap { s in pairs.first { $0.key.scalar == s.name } }
            ?? pairs.first { $0.key.scalar.map { !RecipeChecker.metaKeys.contains($0) } ?? false }
        let kind = kindPair?.key.scalar ?? ""
        var stage = RecipeDocument.Stage(id: checkedStage?.id ?? entry("id")?.scalar, kind: kind, isKnownOp: spec != nil,
                                         meta: [], params: [], chunk: chunk, comments: [])
        if let input = entry("input") { stage.meta.append(.init(name: "input", value: .init(YAMLText.canonical(input)))) }
        stage.meta.append(.init(name: "enabled", value: .init(checkedStage?.enabled == false ? "false" : "true", isDefault: entry("enabled") == nil)))
        if let mask = checkedStage?.mask {
            stage.meta.append(.init(name: "mask", value: Self.maskValue(mask)))
        } else if let mask = entry("mask") {
            stage.meta.append(.init(name: "mask", value: .init(YAMLText.canonical(mask))))
        }
        if let note = entry("note") { stage.meta.append(.init(name: "note", value: .init(YAMLText.canonical(note)))) }
        for p in pairs {
            guard let key = p.key.scalar, key != kind, !RecipeChecker.metaKeys.contains(key) else { continue }
            stage.meta.append(.init(name: key, value: .init(YAMLText.canonical(p.value))))
            document.notes.append("stage \(number): `\(key)` is not a key this build knows; compared as plain YAML")
        }
        if let spec, let checkedStage {
            for p in spec.params {
                guard let v = checkedStage.params[p.name] else { continue }
                let isDefault = !checkedStage.params.isGiven(p.name)
                if let knob = checkedStage.bindings[p.name] {
                    stage.params.append(.init(name: p.name, value: .init("$" + knob, isDefault: isDefault)))
                } else {
                    stage.params.append(.init(name: p.name, value: .init(Self.text(v), isDefault: isDefault)))
                }
            }
        } else if let value = kindPair?.value {
            // A frozen base layer (`base:`) is compared field by field too: its fields are its data.
            if checkedStage?.base == nil {
                document.notes.append("stage \(number): `\(kind)` is not an operation this build knows; compared as plain YAML")
            }
            if let fields = value.mapping {
                for f in fields {
                    stage.params.append(.init(name: f.key.scalar ?? YAMLText.canonical(f.key), value: .init(YAMLText.canonical(f.value))))
                }
            } else {
                stage.params.append(.init(name: "", value: .init(YAMLText.canonical(value))))
            }
        }
        return stage
    }

    /// The canonical text of a checked value (words and paths quoted when YAML needs it).
    static func text(_ v: ParamValue) -> String {
        switch v {
        case .file(let s), .choice(let s), .stageRef(let s), .text(let s): YAMLText.string(s)
        default: v.description
        }
    }

    /// `{gradient: {from: [0.5, 0], to: [0.5, 0.45]}}`: the parameters given; compared with the
    /// defaults filled in.
    static func maskValue(_ mask: FilterGraph.Mask) -> RecipeDocument.Value {
        if !mask.parts.isEmpty {
            // A combination: its parts in order, each as above.
            let parts = mask.parts.map(maskValue)
            return .init("{\(mask.kind): [" + parts.map(\.text).joined(separator: ", ") + "]}",
                         key: mask.kind + ":[" + parts.map(\.key).joined(separator: ";") + "]")
        }
        let names = Operations.mask(named: mask.kind)?.params.map(\.name) ?? mask.params.names
        let given = names.filter { mask.params.isGiven($0) && mask.params[$0] != nil }
        let written = "{\(mask.kind): {" + given.map { "\($0): \(text(mask.params[$0]!))" }.joined(separator: ", ") + "}}"
        let key = mask.kind + ":" + names.compactMap { n in mask.params[n].map { "\(n)=\(text($0))" } }.joined(separator: ",")
        return .init(written, key: key)
    }
}
