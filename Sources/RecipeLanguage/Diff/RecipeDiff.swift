/// The semantic difference of two recipes (`recipe diff`): what a reviewer needs to know, one
/// line per change, with formatting, comments, key order and shorthand ignored. Stages are
/// matched as `StageMatching` says; positions are 1-based (the old one for a removed stage, the
/// new one otherwise).
///
/// ```
/// version 1.0 → 1.1
/// param `warmth` 5600 → 6000
/// - stage 2: sepia 0.4
/// ~ stage `sky` moved 3 → 1
/// stage 1 `sky` (exposure): ev -0.7 → -0.5
/// stage 4 (vignette): enabled true (default) → false
/// + stage 5 `glow`: blur {sigma: 1%}
/// ```
public struct RecipeDiff: Sendable {
    /// The changes, header first, then removed stages, then the new recipe's stages in order.
    public private(set) var lines: [String] = []

    /// True when the recipes mean the same.
    public var isEmpty: Bool { lines.isEmpty }

    public init(old: RecipeDocument, new: RecipeDocument) {
        compareHeader(old, new)
        compareStages(old.stages, new.stages)
    }

    /// `name old → new` when the values differ; with `marked`, `+ name: new` and `- name: old`
    /// for a value only one side has (else `(none)` stands for it).
    static func change(_ label: String, _ old: RecipeDocument.Value?, _ new: RecipeDocument.Value?, marked: Bool) -> String? {
        guard !RecipeDocument.Value.same(old, new) else { return nil }
        if marked, old == nil, let new { return "+ \(label): \(RecipeDocument.Value.shown(new))" }
        if marked, new == nil, let old { return "- \(label): \(RecipeDocument.Value.shown(old))" }
        return (label.isEmpty ? "" : label + " ") + "\(RecipeDocument.Value.shown(old)) → \(RecipeDocument.Value.shown(new))"
    }

    /// Names in the first list's order, then those only the second has.
    static func union(_ a: [String], _ b: [String]) -> [String] {
        var seen = Set(a)
        return a + b.filter { seen.insert($0).inserted }
    }

    mutating func compareHeader(_ old: RecipeDocument, _ new: RecipeDocument) {
        for name in Self.union(old.header.map(\.name), new.header.map(\.name)) {
            if let line = Self.change(name, old.headerValue(name), new.headerValue(name), marked: true) { lines.append(line) }
        }
        for name in Self.union(old.knobs.map(\.name), new.knobs.map(\.name)) {
            if let line = Self.change("param `\(name)`", old.knob(name), new.knob(name), marked: true) { lines.append(line) }
        }
    }

    mutating func compareStages(_ old: [RecipeDocument.Stage], _ new: [RecipeDocument.Stage]) {
        let matching = StageMatching(old: old, new: new)
        for (i, stage) in old.enumerated() where matching.newIndex[i] == nil {
            lines.append("- stage \(i + 1)\(Self.idText(stage)): \(stage.summary)")
        }
        for (j, stage) in new.enumerated() {
            guard let i = matching.oldIndex[j] else {
                lines.append("+ stage \(j + 1)\(Self.idText(stage)): \(stage.summary)")
                continue
            }
            let before = old[i]
            if matching.moved.contains(i) {
                lines.append("~ stage \(stage.id.map { "`\($0)`" } ?? "(\(stage.kind))") moved \(i + 1) → \(j + 1)")
            }
            let label = "stage \(j + 1)\(Self.idText(stage))"
            guard before.kind == stage.kind else {
                lines.append("\(label): \(before.summary) → \(stage.summary)")
                continue
            }
            let opLabel = "\(label) (\(stage.kind)): "
            if before.id != stage.id {
                lines.append(opLabel + "id \(before.id.map { "`\($0)`" } ?? "(none)") → \(stage.id.map { "`\($0)`" } ?? "(none)")")
            }
            for name in Self.union(before.meta.map(\.name), stage.meta.map(\.name)) {
                // `enabled true → false`: a meta key's default needs no mark.
                let (was, now) = (before.meta(name).map(Self.written), stage.meta(name).map(Self.written))
                if let line = Self.change(name, was, now, marked: false) { lines.append(opLabel + line) }
            }
            for name in Self.union(before.params.map(\.name), stage.params.map(\.name)) {
                if let line = Self.change(name, before.param(name), stage.param(name), marked: false) { lines.append(opLabel + line) }
            }
        }
    }

    static func written(_ v: RecipeDocument.Value) -> RecipeDocument.Value { .init(v.text, key: v.key) }

    static func idText(_ stage: RecipeDocument.Stage) -> String { stage.id.map { " `\($0)`" } ?? "" }
}
