import RecipeCore

/// How `recipe merge-file` marks a conflict it cannot resolve, and how `recipe check` finds one
/// (R225). The conflicting value is replaced by a mapping holding each side's value, so the file
/// stays valid YAML; `null` stands for a side that has no value there (it deleted the stage or
/// the param). `base` is left out when the common ancestor has no such value.
///
/// ```yaml
/// stages:
///   - id: sky
///     exposure: {ev: {conflict: {ours: 0.5, theirs: 0.7, base: 0.3}}}
///   - conflict: {ours: null, theirs: {sepia: 0.6}, base: {sepia: 0.4}}   # a whole stage
/// ```
///
/// Resolving means replacing the whole `{conflict: …}` mapping with the value to keep (for a stage
/// item: the stage, or nothing).
public enum ConflictMarker {
    /// The one key of a marker mapping.
    public static let key = "conflict"
    /// The sides, in the order they are written.
    public static let sides = ["ours", "theirs", "base"]

    /// The marker text for the sides' canonical values (nil: that side has no value; a nil base
    /// is left out).
    ///
    /// `text(ours: "0.5", theirs: "0.7", base: "0.3")` is `{conflict: {ours: 0.5, theirs: 0.7, base: 0.3}}`.
    public static func text(ours: String?, theirs: String?, base: String??) -> String {
        var parts = ["ours: \(ours ?? "null")", "theirs: \(theirs ?? "null")"]
        if case .some(let b) = base { parts.append("base: \(b ?? "null")") }
        return "{\(key): {\(parts.joined(separator: ", "))}}"
    }

    /// The sides of `node` when it is a marker: a mapping whose only key is `conflict`, holding a
    /// mapping with `ours` and `theirs` (and maybe `base`) and nothing else.
    public static func sides(of node: YAMLNode) -> [String: YAMLNode]? {
        guard let pairs = node.mapping, pairs.count == 1, pairs[0].key.scalar == key,
              let inner = pairs[0].value.mapping else { return nil }
        var found: [String: YAMLNode] = [:]
        for pair in inner {
            guard let side = pair.key.scalar, sides.contains(side) else { return nil }
            found[side] = pair.value
        }
        return found["ours"] != nil && found["theirs"] != nil ? found : nil
    }

    /// An R225 error for every marker in the tree, in document order.
    static func diagnostics(in root: YAMLNode, file: String) -> [Diagnostic] {
        var found: [Diagnostic] = []
        visit(root, path: [], into: &found, file: file)
        return found
    }

    /// One step of the path from the root to a value: a key, or a list position.
    enum Step {
        case key(String)
        case item(Int)
    }

    static func visit(_ node: YAMLNode, path: [Step], into found: inout [Diagnostic], file: String) {
        if let sides = sides(of: node) {
            found.append(diagnostic(sides, at: node, path: path, file: file))
            return
        }
        switch node.content {
        case .scalar: break
        case .sequence(let items):
            for (i, item) in items.enumerated() { visit(item, path: path + [.item(i + 1)], into: &found, file: file) }
        case .mapping(let pairs):
            for pair in pairs { visit(pair.value, path: path + [.key(pair.key.scalar ?? "?")], into: &found, file: file) }
        }
    }

    static func diagnostic(_ sides: [String: YAMLNode], at node: YAMLNode, path: [Step], file: String) -> Diagnostic {
        func shown(_ side: String) -> String? {
            guard let value = sides[side] else { return nil }
            if value.isNull { return "\(side) (none)" }
            let text = YAMLText.canonical(value)
            return "\(side) " + (text.count > 48 ? String(text.prefix(45)) + "…" : text)
        }
        let values = ConflictMarker.sides.compactMap(shown).joined(separator: ", ")
        let keyRange = node.mapping?.first?.key.range ?? node.range
        var notes: [Diagnostic.Note] = [
            .init("`recipe merge-file` could not choose between the two edits here: replace the whole `{conflict: …}` with the value to keep"),
        ]
        if sides.values.contains(where: \.isNull) { notes.append(.init("(none): that side has no such value (it deleted it, or never had it)")) }
        return Diagnostic(.unresolvedConflict, "unresolved merge conflict in \(describe(path)): \(values)",
                          at: keyRange, file: file, notes: notes)
    }

    /// Where a value is, in words: "stage 2 (`exposure.ev`)", "param `warmth`", "`version`".
    static func describe(_ path: [Step]) -> String {
        guard case .key(let top)? = path.first else { return "the recipe" }
        let rest = path.dropFirst()
        if top == "stages", case .item(let n)? = rest.first {
            let inner = dotted(rest.dropFirst())
            return inner.isEmpty ? "stage \(n)" : "stage \(n) (`\(inner)`)"
        }
        if top == "params", case .key(let name)? = rest.first {
            let inner = dotted(rest.dropFirst())
            return inner.isEmpty ? "param `\(name)`" : "param `\(name)` (`\(inner)`)"
        }
        return "`\(dotted(path[...]))`"
    }

    static func dotted(_ steps: ArraySlice<Step>) -> String {
        var out = ""
        for step in steps {
            switch step {
            case .key(let k): out += (out.isEmpty ? "" : ".") + k
            case .item(let i): out += "[\(i)]"
            }
        }
        return out
    }
}
