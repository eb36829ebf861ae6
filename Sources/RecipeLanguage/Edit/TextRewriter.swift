import RecipeCore
import RecipeOps

/// Edits a recipe's text so it means `target`: compares the file's own document with the target
/// key by key, knob by knob, stage by stage (matched as `StageMatching` says) and parameter by
/// parameter, and edits only what differs: a value token is replaced, a key or stage is inserted
/// in the style of its neighbours (their indent; a flow mapping gets `, key: value`) or deleted
/// with its lines. Everything else — indents, quoting, number spellings, comments, blank lines —
/// stays byte for byte.
///
/// ```yaml
/// # file                           target: saturation 0.8      result
/// stages:                                                      stages:
///     - saturation:                                                - saturation:
///         amount: 0.90   # punchy                                      amount: 0.8   # punchy
/// ```
///
/// What it cannot place clearly (stages that changed order, a flow list of stages, an empty
/// value) throws `Unclear`, and the caller writes the canonical text.
struct TextRewriter {
    typealias Unclear = SourceEditor.Unclear

    let file: SourceFile
    let root: YAMLNode
    let document: RecipeDocument
    let target: RecipeDocument
    var editor: SourceEditor
    /// Whether the target's own text of a new stage may be rewritten in the file's style: true
    /// when the target is a tool's canonical text (an edit of a sidecar), false when it is a
    /// person's (theirs, in a merge: their stage keeps their text).
    var restyleNewStages = false

    init(_ file: SourceFile, target: RecipeDocument) throws(Unclear) {
        let document: RecipeDocument
        do { document = try RecipeDocument.parse(file) } catch { throw Unclear("the file does not check clean") }
        let (root, _) = YAMLReader.read(file)
        guard let root, root.mapping != nil, !root.flow else { throw Unclear("its top level is not a block mapping") }
        self.file = file
        self.root = root
        self.document = document
        self.target = target
        self.editor = SourceEditor(file)
    }

    mutating func run() throws(Unclear) -> String {
        try header()
        try knobs()
        try stages()
        guard let text = editor.apply() else { throw Unclear("two edits overlap") }
        return text
    }

    // MARK: - top level

    static func pair(_ key: String, in node: YAMLNode) -> YAMLPair? { node.mapping?.first { $0.key.scalar == key } }

    mutating func header() throws(Unclear) {
        let names = RecipeDiff.union(document.header.map(\.name), target.header.map(\.name))
        for name in names {
            let (a, t) = (document.headerValue(name), target.headerValue(name))
            if RecipeDocument.Value.same(a, t) { continue }
            let p = Self.pair(name, in: root)
            switch (p, t) {
            case (let p?, let t?): try editor.setValue(p, t.text)
            case (let p?, nil): try editor.deletePair(p, in: root)
            case (nil, let t?): editor.insert(lines: [name + ": " + t.text], before: firstBodyLine())
            case (nil, nil): continue
            }
        }
    }

    /// The first line of the `params:` or `stages:` piece (comments above them included): new
    /// header keys go before it.
    func firstBodyLine() -> Int {
        let pairs = root.mapping ?? []
        guard let i = pairs.firstIndex(where: { $0.key.scalar == "params" || $0.key.scalar == "stages" }) else { return file.lineCount + 1 }
        return i == 0 ? pairs[i].key.range.start.line : pairs[i - 1].value.lastLine + 1
    }

    // MARK: - knobs

    mutating func knobs() throws(Unclear) {
        let names = RecipeDiff.union(document.knobs.map(\.name), target.knobs.map(\.name))
        guard names.contains(where: { !RecipeDocument.Value.same(document.knob($0), target.knob($0)) }) else { return }
        guard let params = Self.pair("params", in: root), params.value.mapping != nil else {
            guard Self.pair("params", in: root) == nil, Self.pair("stages", in: root) != nil else { throw Unclear("there is no `params:` mapping to add a param to") }
            let indent = String(repeating: " ", count: stageIndent() ?? 2)
            let lines = target.knobs.map { indent + $0.name + ": " + $0.value.text }
            editor.insert(lines: ["params:"] + lines, before: firstBodyLine())
            return
        }
        if target.knobs.isEmpty {
            try editor.deletePair(params, in: root)
            return
        }
        for name in names {
            let (a, t) = (document.knob(name), target.knob(name))
            if RecipeDocument.Value.same(a, t) { continue }
            let p = Self.pair(name, in: params.value)
            switch (p, t) {
            case (let p?, let t?):
                // `{default: 5600, doc: …}` of which one part stays: only the other changes (a
                // merge's conflict marker, keyed with a leading \u{2}, is written as its text).
                let (oldDefault, oldDoc) = DocumentBuilder.knobParts(a), (newDefault, newDoc) = DocumentBuilder.knobParts(t)
                func text(_ key: String) -> String { key.hasPrefix("\u{2}") ? String(key.dropFirst()) : key }
                if let d = Self.pair("default", in: p.value), let newDefault, oldDoc == newDoc, oldDefault != newDefault {
                    try editor.setValue(d, text(newDefault))
                } else if let d = Self.pair("doc", in: p.value), let newDoc, oldDefault == newDefault, oldDoc != newDoc {
                    try editor.setValue(d, text(newDoc))
                } else {
                    try editor.setValue(p, t.text)
                }
            case (let p?, nil): try editor.deletePair(p, in: params.value)
            case (nil, let t?): try editor.insertPair(name, t.text, into: params.value)
            case (nil, nil): continue
            }
        }
    }

    // MARK: - stages

    /// The column (0-based) of the `-` of the first stage item.
    func stageIndent() -> Int? {
        guard let first = Self.pair("stages", in: root)?.value.sequence?.first else { return nil }
        return file.line(first.range.start.line).prefix { $0 == " " }.count
    }

    mutating func stages() throws(Unclear) {
        let old = document.stages, new = target.stages
        if old.count == new.count, zip(old, new).allSatisfy({ $0.same($1) }), !new.contains(where: \.takesText) { return }
        guard let stages = Self.pair("stages", in: root) else { throw Unclear("there is no `stages:`") }
        let nodes = stages.value.sequence ?? []
        guard nodes.count == old.count else { throw Unclear("its stages could not be told apart") }
        if new.isEmpty {
            editor.replace(stages.key.range.end.offset..<editor.contentEnd(stages.value), with: ": []")
            return
        }
        if nodes.isEmpty {
            guard !stages.value.flow || stages.value.range.start.line == stages.key.range.start.line else { throw Unclear("its empty stage list is not on the `stages:` line") }
            editor.replace(stages.key.range.end.offset..<editor.contentEnd(stages.value), with: ":")
            editor.insert(lines: new.flatMap { stageLines($0, indent: 2, comments: true) }, before: stages.key.range.start.line + 1)
            return
        }
        guard !stages.value.flow else { throw Unclear("its stages are a flow list") }
        let items = nodes.map { ($0.range.start.line, $0.lastLine) }
        let ranges = SourceChunks.lineRanges(items, after: stages.key.range.start.line)
        guard ranges.allSatisfy({ $0 != nil }) else { throw Unclear("two stages share a line") }
        let matching = StageMatching(old: old, new: new)
        guard matching.moved.isEmpty else { throw Unclear("stages changed order") }
        let indent = stageIndent() ?? 2
        for (i, j) in matching.newIndex.enumerated() {
            if let j, new[j].takesText, old[i].same(new[j]) {
                // The other side's text of a stage that means the same (its comments).
                editor.delete(lines: ranges[i]!)
                editor.insert(lines: stageLines(new[j], indent: indent, comments: true), before: ranges[i]!.upperBound + 1)
            } else if let j {
                try rewriteStage(nodes[i], old[i], new[j], indent: indent)
            } else {
                editor.delete(lines: ranges[i]!)
            }
        }
        for (j, stage) in new.enumerated() where matching.oldIndex[j] == nil {
            // After the stage of the nearest earlier new stage that was in the file.
            let before = (0..<j).last { matching.oldIndex[$0] != nil }.flatMap { matching.oldIndex[$0] }
            let line = before.map { ranges[$0]!.upperBound + 1 } ?? ranges[0]!.lowerBound
            editor.insert(lines: stageLines(stage, indent: indent, comments: true), before: line)
        }
    }

    /// A stage written afresh as an item at `indent`: its own text when it has some (a stage
    /// taken from the other side of a merge), else canonically (a tool's new stage), with its
    /// parameters in block form when the file's other stages write theirs that way.
    func stageLines(_ stage: RecipeDocument.Stage, indent: Int, comments: Bool) -> [String] {
        var lines: [String]
        if let chunk = stage.chunk, !restyleNewStages {
            lines = chunk.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if lines.last == "" { lines.removeLast() }
        } else {
            // A shorthand (`sepia: 0.25`) stays one; a `{…}` mapping follows the neighbours.
            lines = RecipeMerge.block(stage, comments: stage.comments,
                                      blockParams: stage.opText.hasPrefix("{") && neighboursWriteBlockParams())
        }
        func isCommentOrBlank(_ line: String) -> Bool {
            line.trimmingPrefix(while: { $0 == " " }).hasPrefix("#") || line.allSatisfy { $0 == " " }
        }
        if !comments {
            lines = Array(lines.drop(while: isCommentOrBlank))
        } else {
            // A comment the other side's piece carries that this file already has (a closing
            // comment both wrote below the last stage) is not written twice.
            let own = Set((1...max(1, file.lineCount)).map { file.line($0).trimmingPrefix(while: { $0 == " " }) }.filter { $0.hasPrefix("#") })
            let lead = lines.prefix(while: isCommentOrBlank)
            lines = lead.filter { !own.contains($0.trimmingPrefix(while: { $0 == " " })) } + lines.dropFirst(lead.count)
        }
        return Self.spaced(SourceChunks.reindent(lines, to: indent), after: indent, like: itemSpacing())
    }

    /// Whether the file's stages write their parameters as block mappings (`exposure:` then
    /// `ev: 0.3` on the next line): at least one does and none uses a flow mapping `{…}`.
    /// Shorthands (`exposure: 0.3`) say nothing either way.
    func neighboursWriteBlockParams() -> Bool {
        var block = 0
        for item in Self.pair("stages", in: root)?.value.sequence ?? [] {
            for pair in item.mapping ?? [] where pair.key.scalar.map({ Operations.named($0) != nil }) ?? false {
                guard pair.value.mapping != nil else { continue }
                if pair.value.flow { return false }
                block += 1
            }
        }
        return block > 0
    }

    /// How far the first stage's keys sit after its `-` (`- exposure` 2, `-   exposure` 4).
    func itemSpacing() -> Int {
        guard let first = Self.pair("stages", in: root)?.value.sequence?.first, let dash = stageIndent() else { return 2 }
        let spacing = first.range.start.column - 1 - dash
        return first.flow || spacing < 2 ? 2 : spacing
    }

    /// Canonical item lines (`- key` and continuation lines 2 past the dash at `indent`) with
    /// the keys `spacing` past the dash instead, as the file's other stages have them.
    static func spaced(_ lines: [String], after indent: Int, like spacing: Int) -> [String] {
        guard spacing != 2 else { return lines }
        let dash = String(repeating: " ", count: indent) + "- ", extra = String(repeating: " ", count: spacing - 2)
        var inItem = false
        return lines.map { line in
            if line.hasPrefix(dash) {
                inItem = true
                return String(repeating: " ", count: indent) + "-" + String(repeating: " ", count: spacing - 1) + line.dropFirst(dash.count)
            }
            guard inItem, !line.isEmpty else { return line }
            return extra + line
        }
    }

    /// One stage whose meaning changed: its id, meta keys and parameters edited one by one; a
    /// stage that became another op is written afresh in its place (the comments above it stay).
    mutating func rewriteStage(_ node: YAMLNode, _ a: RecipeDocument.Stage, _ t: RecipeDocument.Stage, indent: Int) throws(Unclear) {
        if a.same(t) { return }
        guard node.mapping != nil, let op = Self.pair(a.kind, in: node), a.kind == t.kind, a.isKnownOp == t.isKnownOp else {
            guard !node.flow || node.range.start.line == node.lastLine else { throw Unclear("a flow stage spans lines") }
            editor.delete(lines: node.range.start.line...node.lastLine)
            editor.insert(lines: stageLines(t, indent: indent, comments: false), before: node.lastLine + 1)
            return
        }
        if a.id != t.id {
            switch (Self.pair("id", in: node), t.id) {
            case (let p?, let id?): try editor.setValue(p, YAMLText.string(id))
            case (let p?, nil): try editor.deletePair(p, in: node)
            case (nil, let id?): try editor.insertPair("id", YAMLText.string(id), into: node)
            case (nil, nil): break
            }
        }
        for name in RecipeDiff.union(a.meta.map(\.name), t.meta.map(\.name)) {
            let (x, y) = (a.meta(name), t.meta(name))
            if RecipeDocument.Value.same(x, y) { continue }
            let want = y.flatMap { $0.isDefault ? nil : $0.text }
            switch (Self.pair(name, in: node), want) {
            case (let p?, let want?): try editor.setValue(p, want)
            case (let p?, nil): try editor.deletePair(p, in: node)
            case (nil, let want?): try editor.insertPair(name, want, into: node)
            case (nil, nil): throw Unclear("stage `\(a.kind)`: `\(name)` changed without being written")
            }
        }
        try rewriteParams(op, a, t)
    }

    /// The op's value: a mapping gets each changed parameter edited; a shorthand (`exposure:
    /// 0.3`) gets the new primary value, or the op's whole value when other parameters join it.
    mutating func rewriteParams(_ op: YAMLPair, _ a: RecipeDocument.Stage, _ t: RecipeDocument.Stage) throws(Unclear) {
        let changed = RecipeDiff.union(a.params.map(\.name), t.params.map(\.name)).filter { !RecipeDocument.Value.same(a.param($0), t.param($0)) }
        guard !changed.isEmpty else { return }
        let value = op.value
        guard value.mapping != nil else {
            let primary = a.isKnownOp ? Operations.named(a.kind)?.primary : ""
            if changed == [primary ?? ""], let v = t.param(changed[0]), !v.isDefault {
                try editor.setValue(op, v.text)
            } else {
                try editor.setValue(op, t.opText)
            }
            return
        }
        for name in changed {
            let want = t.param(name).flatMap { $0.isDefault ? nil : $0.text }
            switch (Self.pair(name, in: value), want) {
            case (let p?, let want?): try editor.setValue(p, want)
            case (let p?, nil): try editor.deletePair(p, in: value)
            case (nil, let want?): try editor.insertPair(name, want, into: value)
            case (nil, nil): continue
            }
        }
    }
}
