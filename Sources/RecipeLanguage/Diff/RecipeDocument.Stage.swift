import RecipeOps

extension RecipeDocument {
    /// One entry of `stages:`, as canonical values.
    ///
    /// ```yaml
    /// - id: sky                  # id "sky", kind "exposure", params [ev -0.7],
    ///   exposure: {ev: -0.70}    # meta [enabled true (default)]
    /// ```
    public struct Stage: Sendable {
        public var id: String?
        /// The op (`exposure`), `base` for a frozen layer, or the key of a stage kind this build does not know.
        public var kind: String
        public var isKnownOp: Bool
        /// `input`, `enabled` (always: true by default), `mask`, `note`, then any other key.
        public var meta: [Field]
        /// A known op's parameters in declaration order, defaults included; for another kind,
        /// the fields of its mapping (one unnamed field when its value is not a mapping).
        public var params: [Field]
        /// The stage's source text with the comments above it, indented as an item of `stages:`.
        var chunk: String?
        /// Every comment in `chunk`, above the stage or after its lines: a stage written afresh
        /// keeps them above itself.
        var comments: [String]
        /// A merge takes this stage's text (`chunk`) over the file's own though they mean the
        /// same: only the other side changed its comments or layout.
        var takesText = false

        public func meta(_ name: String) -> Value? { meta.first { $0.name == name }?.value }
        public func param(_ name: String) -> Value? { params.first { $0.name == name }?.value }

        /// Everything but the id, for matching stages that have none.
        var content: String {
            ([kind] + meta.map { "\($0.name)=\($0.value.key)" } + params.map { "\($0.name)=\($0.value.key)" }).joined(separator: "\u{1}")
        }

        /// Same meaning, id included.
        func same(_ other: Stage) -> Bool { id == other.id && content == other.content }

        /// The op's value as `recipe fmt` writes it: `0.3` (shorthand), `{sigma: 1%, …}`, `{}`.
        public var opText: String {
            let written = params.filter { !$0.value.isDefault }
            if !isKnownOp, written.count == 1, written[0].name.isEmpty { return written[0].value.text }
            if written.isEmpty { return "{}" }
            if isKnownOp, written.count == 1, written[0].name == Operations.named(kind)?.primary { return written[0].value.text }
            return "{" + written.map { "\($0.name): \($0.value.text)" }.joined(separator: ", ") + "}"
        }

        /// The keys written besides the op, in canonical order: `id`, `input`, `enabled` (when
        /// false), then after the op `mask`, `note` and any other key.
        var writtenMeta: (before: [(String, String)], after: [(String, String)]) {
            var before: [(String, String)] = id.map { [("id", YAMLText.string($0))] } ?? []
            var after: [(String, String)] = []
            for f in meta where !f.value.isDefault {
                if f.name == "input" || f.name == "enabled" { before.append((f.name, f.value.text)) } else { after.append((f.name, f.value.text)) }
            }
            return (before, after)
        }

        /// The whole stage as one flow mapping: `{id: sky, exposure: -0.7, mask: {…}}`.
        public var flowText: String {
            let (before, after) = writtenMeta
            let parts = before + [(kind, opText)] + after
            return "{" + parts.map { "\($0.0): \($0.1)" }.joined(separator: ", ") + "}"
        }

        /// For messages: `blur {sigma: 1%}`, `sepia 0.4, enabled: false`, `invert`.
        public var summary: String {
            let op = opText == "{}" ? kind : kind + " " + opText
            let (before, after) = writtenMeta
            let extras = (before.filter { $0.0 != "id" } + after).map { "\($0.0): \($0.1)" }
            let text = ([op] + extras).joined(separator: ", ")
            return text.count > 100 ? String(text.prefix(97)) + "…" : text
        }
    }
}
