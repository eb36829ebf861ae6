import RecipeCore
import RecipeOps

/// Writes a checked recipe in its canonical form (`recipe fmt`): keys in a fixed order, one stage
/// per list item, a stage's op in shorthand when it sets only its primary parameter, parameters
/// in declaration order, numbers in their shortest round-tripping form, lengths with their unit,
/// and every comment kept with the key or stage it precedes (or follows on the same line).
///
/// ```yaml
/// format: dev.recipe.edit          # input:  stages: [{exposure: {ev: 0.30}}, …]
/// version: 1.1
/// stages:
///   - exposure: 0.3
/// ```
public enum RecipePrinter {
    /// Keys of a stage in print order; the op goes where `op` stands.
    static let stageKeyOrder = ["id", "input", "enabled", "op", "mask", "note"]
    static let topLevelOrder = ["format", "version", "note", "original", "params", "output", "stages"]
    static let maxFlowWidth = 100

    /// The canonical text, or nil when the recipe has errors (fmt never guesses at a broken file;
    /// a file it names that cannot be read is `check`'s business, not a reason to refuse).
    public static func format(_ checked: CheckedRecipe) -> String? {
        guard checked.formatBlockers.isEmpty, let root = checked.root else { return nil }
        var printer = Printer(file: checked.file, root: root)
        return printer.run()
    }

    /// The file as `recipe migrate` writes it: migrated, at the current format version (also when
    /// only the version moves, for a stage newer than the version the file declares).
    public static func migrated(_ checked: CheckedRecipe) -> String? {
        var c = checked
        if let v = c.declaredVersion, v < RecipeFormat.current, c.migrations.isEmpty, let root = c.root {
            c.root = Migrator.migrate(root, from: v).0
        }
        return format(c)
    }

    /// One printed line that comments can attach to.
    struct Element {
        var depth: Int
        var indent: Int
        var head: String
        /// Source lines the element covers (its key to the end of its value).
        var sourceStart: Int
        var sourceEnd: Int
        var leading: [String] = []
        var trailing: [String] = []
        var blankBefore = false
        /// Top-level keys and stage items keep a blank line the author left before them.
        var keepsBlank = false
    }

    struct Printer {
        let file: SourceFile
        let root: YAMLNode
        var elements: [Element] = []

        init(file: SourceFile, root: YAMLNode) {
            self.file = file
            self.root = root
        }

        mutating func run() -> String {
            build()
            let comments = CommentScanner.comments(in: file, root: root)
            attach(comments)
            return serialise(orphans: comments.isEmpty ? [] : trailingOrphans)
        }

        var trailingOrphans: [String] = []

        // MARK: building

        mutating func build() {
            let pairs = root.mapping ?? []
            for key in RecipePrinter.topLevelOrder {
                guard let pair = pairs.first(where: { $0.key.scalar == key }) else { continue }
                let start = pair.key.range.start.line, end = lastLine(pair.value)
                switch key {
                case "params":
                    let knobs = pair.value.mapping ?? []
                    add(Element(depth: 0, indent: 0, head: knobs.isEmpty ? "params: {}" : "params:", sourceStart: start, sourceEnd: knobs.isEmpty ? end : start, keepsBlank: true))
                    for knob in knobs {
                        add(Element(depth: 1, indent: 2, head: "\(knob.key.scalar ?? ""): \(knobText(knob.value))",
                                    sourceStart: knob.key.range.start.line, sourceEnd: lastLine(knob.value)))
                    }
                case "stages":
                    let stages = pair.value.sequence ?? []
                    add(Element(depth: 0, indent: 0, head: stages.isEmpty ? "stages: []" : "stages:", sourceStart: start,
                                sourceEnd: stages.isEmpty ? end : start, keepsBlank: true))
                    for stage in stages { buildStage(stage) }
                case "version":
                    add(Element(depth: 0, indent: 0, head: "version: \(pair.value.scalar ?? "")", sourceStart: start, sourceEnd: end, keepsBlank: true))
                case "original":
                    add(Element(depth: 0, indent: 0, head: "original: " + orderedFlow(pair.value, ["file", "sha256", "size"]),
                                sourceStart: start, sourceEnd: end, keepsBlank: true))
                case "output":
                    add(Element(depth: 0, indent: 0, head: "output: " + orderedFlow(pair.value, ["profile", "intent"]),
                                sourceStart: start, sourceEnd: end, keepsBlank: true))
                default:
                    let text = key == "note" ? noteText(pair.value, column: 0) : genericText(pair.value)
                    add(Element(depth: 0, indent: 0, head: "\(key): \(text)", sourceStart: start, sourceEnd: end, keepsBlank: true))
                }
            }
        }

        mutating func add(_ e: Element) { elements.append(e) }

        mutating func buildStage(_ stage: YAMLNode) {
            let pairs = stage.mapping ?? []
            var ordered: [YAMLPair] = []
            for key in RecipePrinter.stageKeyOrder {
                if key == "op" {
                    ordered += pairs.filter { $0.key.scalar.map { Operations.named($0) != nil || $0 == "base" } ?? false }
                } else {
                    ordered += pairs.filter { $0.key.scalar == key }
                }
            }
            for (i, pair) in ordered.enumerated() {
                let key = pair.key.scalar ?? ""
                let start = i == 0 ? stage.range.start.line : pair.key.range.start.line
                let end = lastLine(pair.value)
                let prefix = i == 0 ? "- " : ""
                var element = Element(depth: i == 0 ? 1 : 2, indent: i == 0 ? 2 : 4, head: "", sourceStart: start, sourceEnd: end, keepsBlank: i == 0)
                if let spec = Operations.named(key) {
                    let (inline, block) = opText(spec, pair.value)
                    // Block form when the flow form is too wide or a comment sits inside the params.
                    let commentInside = hasCommentInside(from: pair.key.range.start.line + 1, to: end)
                    if let inline, !commentInside, 4 + key.count + 2 + inline.count <= RecipePrinter.maxFlowWidth {
                        element.head = prefix + key + ": " + inline
                        add(element)
                    } else {
                        element.head = prefix + key + ":"
                        element.sourceEnd = pair.key.range.start.line
                        add(element)
                        for (name, text, node) in block {
                            add(Element(depth: 3, indent: 6, head: "\(name): \(text)", sourceStart: node.start, sourceEnd: node.end))
                        }
                    }
                } else if key == "base" {
                    element.head = prefix + "base:"
                    element.sourceEnd = pair.key.range.start.line
                    add(element)
                    buildBase(pair.value)
                } else if key == "mask" {
                    element.head = prefix + "mask: " + maskText(pair.value)
                    add(element)
                } else {
                    element.head = prefix + key + ": " + (key == "note" ? noteText(pair.value, column: element.indent + prefix.count) : genericText(pair.value))
                    add(element)
                }
            }
        }

        /// A frozen base's fields, one per line in a fixed order; the foreign data as a literal
        /// block when that carries it exactly, else one quoted line.
        mutating func buildBase(_ value: YAMLNode) {
            let fields = value.mapping ?? []
            for key in Checker.baseKeys {
                guard let f = fields.first(where: { $0.key.scalar == key }) else { continue }
                let s = f.value.scalar ?? ""
                let text: String
                switch key {
                case "pixels": text = orderedFlow(f.value, Checker.pixelKeys)
                // Quoted: YAML 1.1 readers take an unquoted time for a timestamp, a version for a float.
                case "version", "embedded": text = YAMLText.quoted(s)
                case "data", "data-base64":
                    text = YAMLText.literalBlock(s, indent: 8, parentIndent: 6) ?? YAMLText.quoted(s)
                default: text = YAMLText.string(s, inFlow: false)
                }
                add(Element(depth: 3, indent: 6, head: "\(key): \(text)", sourceStart: f.key.range.start.line, sourceEnd: lastLine(f.value)))
            }
        }

        /// A mapping in flow form with its keys in the given order (any others after them).
        func orderedFlow(_ node: YAMLNode, _ order: [String]) -> String {
            guard let pairs = node.mapping else { return genericText(node) }
            let known = order.compactMap { k in pairs.first { $0.key.scalar == k } }
            let rest = pairs.filter { !order.contains($0.key.scalar ?? "") }
            return "{" + (known + rest).map { "\(genericText($0.key)): \(genericText($0.value))" }.joined(separator: ", ") + "}"
        }

        /// Lines that hold comments, filled lazily.
        lazy var commentLines: Set<Int> = Set(CommentScanner.comments(in: file, root: root).map(\.line))

        mutating func hasCommentInside(from a: Int, to b: Int) -> Bool {
            guard a <= b else { return false }
            return (a...b).contains { commentLines.contains($0) }
        }

        /// The op's value as flow text (nil when it must be block) and as block lines.
        func opText(_ spec: OperationSpec, _ value: YAMLNode) -> (String?, [(String, String, (start: Int, end: Int))]) {
            guard let params = value.mapping else {
                if value.isNull { return ("{}", []) }
                // Shorthand: the primary parameter's value (in block form under its key when too wide).
                guard let primary = spec.primary.flatMap({ spec.param($0) }) else { return (genericText(value), []) }
                let text = paramText(value, primary.kind)
                return (text, [(primary.name, text, (value.range.start.line, lastLine(value)))])
            }
            var given: [(String, String, (start: Int, end: Int))] = []
            for p in spec.params {
                guard let pair = params.first(where: { $0.key.scalar == p.name }) else { continue }
                given.append((p.name, paramText(pair.value, p.kind), (pair.key.range.start.line, lastLine(pair.value))))
            }
            if given.isEmpty { return ("{}", []) }
            if given.count == 1, given[0].0 == spec.primary { return (given[0].1, given) }
            return ("{" + given.map { "\($0.0): \($0.1)" }.joined(separator: ", ") + "}", given)
        }

        func maskText(_ value: YAMLNode) -> String {
            if let pair = value.mapping?.first, value.mapping?.count == 1, let kind = pair.key.scalar,
               FilterGraph.Mask.combinations.contains(kind), let items = pair.value.sequence {
                return "{\(kind): [" + items.map(maskText).joined(separator: ", ") + "]}"
            }
            guard let pair = value.mapping?.first, let kind = pair.key.scalar, let spec = Operations.mask(named: kind) else {
                return genericText(value)
            }
            let fields = pair.value.mapping ?? []
            let parts = spec.params.compactMap { p -> String? in
                fields.first { $0.key.scalar == p.name }.map { "\(p.name): \(paramText($0.value, p.kind))" }
            }
            return "{\(kind): {\(parts.joined(separator: ", "))}}"
        }

        func knobText(_ value: YAMLNode) -> String {
            guard let fields = value.mapping else { return genericText(value) }
            var parts: [String] = []
            for key in ["default", "doc"] {
                if let f = fields.first(where: { $0.key.scalar == key }) { parts.append("\(key): \(genericText(f.value))") }
            }
            return "{" + parts.joined(separator: ", ") + "}"
        }

        // MARK: values

        /// Canonical text of a parameter value of `kind`.
        func paramText(_ node: YAMLNode, _ kind: ParamKind) -> String {
            if let s = node.plainScalar, s.hasPrefix("$") { return s }
            let s = node.scalar ?? ""
            switch kind {
            case .number, .integer:
                return Double(s).map(NumberFormatting.shortest) ?? genericText(node)
            case .angle:
                let text = s.hasSuffix("deg") ? String(s.dropLast(3)) : s
                return Double(text).map(NumberFormatting.shortest) ?? genericText(node)
            case .length:
                if s.hasSuffix("%"), let v = Double(s.dropLast()) { return NumberFormatting.shortest(v) + "%" }
                if s.hasSuffix("px"), let v = Double(s.dropLast(2)) { return NumberFormatting.shortest(v) + "px" }
                if let v = Double(s) { return NumberFormatting.shortest(v) + "px" }
                return genericText(node)
            case .color:
                if node.sequence != nil { return genericText(node) }
                let hex = (s.hasPrefix("#") ? String(s.dropFirst()) : s).lowercased()
                return "\"#\(hex)\""
            case .aspect:
                return YAMLText.quoted(String(s.filter { $0 != " " }))
            case .point, .points, .matrix:
                return genericText(node)
            case .orAuto(let inner):
                guard let plain = node.plainScalar, plain.hasPrefix("auto") else { return paramText(node, inner) }
                // `auto - 0.30` → `auto-0.3`
                let rest = plain.dropFirst(4).filter { $0 != " " }
                guard let sign = rest.first, sign == "+" || sign == "-", let v = Double(rest.dropFirst()) else { return genericText(node) }
                return "auto" + String(sign) + NumberFormatting.shortest(v)
            case .boolean, .choice, .stageRef, .file, .text:
                return genericText(node)
            }
        }

        /// A note: free text in block context, so commas and brackets need no quotes; lines as a
        /// literal block (`|`) indented two past its key at `column`.
        func noteText(_ node: YAMLNode, column: Int) -> String {
            guard let s = node.scalar else { return genericText(node) }
            if s.contains("\n"), let block = YAMLText.literalBlock(s, indent: column + 2, parentIndent: column) { return block }
            return YAMLText.string(s, inFlow: false)
        }

        /// Canonical text of any value: numbers shortest, strings plain when safe, flow collections.
        func genericText(_ node: YAMLNode) -> String { YAMLText.canonical(node) }

        func lastLine(_ node: YAMLNode) -> Int { node.lastLine }

        // MARK: comments

        mutating func attach(_ comments: [SourceComment]) {
            // Elements in source order, for finding the one a comment precedes or follows.
            let bySource = elements.indices.sorted {
                (elements[$0].sourceStart, elements[$0].depth) < (elements[$1].sourceStart, elements[$1].depth)
            }
            let firstSourceLine = elements.map(\.sourceStart).min() ?? .max
            for c in comments {
                if c.fullLine, c.line < firstSourceLine, !elements.isEmpty {
                    // The file's opening comments stay at the top, whatever key comes first.
                    elements[0].leading.append(c.text)
                    continue
                }
                if !c.fullLine {
                    // Trailing: the deepest element covering the line; on its first line it stays
                    // trailing, further down it moves above the element.
                    if let i = bySource.last(where: { elements[$0].sourceStart <= c.line && c.line <= elements[$0].sourceEnd }) {
                        if elements[i].sourceStart == c.line && elements[i].trailing.isEmpty {
                            elements[i].trailing.append(c.text)
                        } else {
                            elements[i].leading.append(c.text)
                        }
                        continue
                    }
                    // After the last token of an element (`}  # c` on a closing line): the nearest
                    // element before it.
                    if let i = bySource.last(where: { elements[$0].sourceStart <= c.line }) {
                        if elements[i].trailing.isEmpty { elements[i].trailing.append(c.text) } else { elements[i].leading.append(c.text) }
                        continue
                    }
                }
                // Inside an element printed on one line (a block `mask:` folded to flow, say): above it.
                if let i = bySource.last(where: { elements[$0].sourceStart < c.line && c.line <= elements[$0].sourceEnd }),
                   !bySource.contains(where: { elements[$0].sourceStart > c.line && elements[$0].sourceStart <= elements[i].sourceEnd }) {
                    elements[i].leading.append(c.text)
                    continue
                }
                // Leading: the first element starting after it (the outermost of those on that line).
                if let i = bySource.first(where: { elements[$0].sourceStart > c.line }) {
                    elements[i].leading.append(c.text)
                } else if let i = bySource.last(where: { elements[$0].sourceStart <= c.line && c.line <= elements[$0].sourceEnd }) {
                    elements[i].leading.append(c.text)
                } else {
                    trailingOrphans.append(c.text)
                }
            }
            // Blank lines the author left before a top-level key or a stage (above its comments).
            for i in elements.indices where elements[i].keepsBlank && i > 0 {
                let firstLine = elements[i].sourceStart - elements[i].leading.count
                elements[i].blankBefore = firstLine > 1 && blankLine(firstLine - 1)
            }
        }

        func blankLine(_ line: Int) -> Bool {
            file.line(line).allSatisfy { $0 == " " || $0 == "\t" || $0 == "\r" }
        }

        func serialise(orphans: [String]) -> String {
            var out = ""
            for (i, e) in elements.enumerated() {
                let pad = String(repeating: " ", count: e.indent)
                if e.blankBefore && i > 0 { out += "\n" }
                for c in e.leading { out += pad + c + "\n" }
                // A block scalar's comment goes on its header line, not after its last content line.
                let headLines = e.head.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
                out += pad + headLines[0]
                if !e.trailing.isEmpty { out += "  " + e.trailing.joined(separator: " ") }
                if headLines.count > 1 { out += "\n" + headLines[1] }
                out += "\n"
            }
            for c in orphans { out += c + "\n" }
            return out
        }
    }
}
