import RecipeCore

/// The three-way merge of recipes (`recipe merge-file`, git's merge driver): per header key, per
/// knob, per stage (matched as `StageMatching` says) and per parameter. A change made on one side
/// only is taken; the same change on both sides is taken once; stages added on both sides are
/// both kept, ours first; a stage or knob deleted on one side and unchanged on the other is
/// deleted. A true conflict (a value changed differently on both sides, or deleted on one side
/// and changed on the other) is written as a `ConflictMarker`, so the result is still YAML and
/// `recipe check` reports it (R225) until someone picks a side.
///
/// ```yaml
/// # base: exposure 0.3        ours: exposure 0.5, sepia 0.4     theirs: exposure 0.7, vignette 0.3
/// stages:
///   - exposure:
///       ev: {conflict: {ours: 0.5, theirs: 0.7, base: 0.3}}
///   - sepia: 0.4
///   - vignette: 0.3
/// ```
///
/// Given ours' own text (`oursText`), the result is that text with only what theirs changed
/// edited in (`FormatPreservingWrite`): a value token replaced, a stage or key inserted in the
/// style of its neighbours or deleted with its lines, a conflict marker in place of the one
/// conflicting value; indents, quoting, number spellings, comments and blank lines stay as ours
/// wrote them. Without it, or when an edit in place is not clear or does not read back as the
/// merge means (checked against the merge written afresh), the result is in `recipe fmt`'s form
/// when it checks clean, with a note saying so.
public struct RecipeMerge: Sendable {
    /// The merged recipe.
    public private(set) var text = ""
    /// One line per conflict marked in `text` ("stage 2 `sky` (exposure): ev: ours 0.5, theirs 0.7, base 0.3").
    public private(set) var conflicts: [String] = []
    /// Errors of a merged recipe without conflict markers: each side was fine, the combination
    /// is not (ours reads a stage theirs deleted, say).
    public private(set) var problems: [Diagnostic] = []
    /// Decisions worth knowing about that are not conflicts (a stage moved on both sides).
    public private(set) var notes: [String] = []

    /// True when nothing needs a person's decision.
    public var isClean: Bool { conflicts.isEmpty && problems.isEmpty }

    let base: RecipeDocument, ours: RecipeDocument, theirs: RecipeDocument
    /// The merged recipe as a document (conflicting values hold their markers), which the edit
    /// in place of ours' text aims at.
    var target: RecipeDocument

    /// Merges the three documents; with `oursText` (ours' file as written) the result keeps that
    /// text and edits in only what the merge changes.
    public init(base: RecipeDocument, ours: RecipeDocument, theirs: RecipeDocument, oursText: SourceFile? = nil) {
        self.base = base
        self.ours = ours
        self.theirs = theirs
        self.target = RecipeDocument(path: ours.path)
        var out: [String] = []
        for key in topLevelOrder() {
            switch key {
            case "params": out += mergeKnobs()
            case "stages": out += mergeStages()
            default: out += mergeHeader(key)
            }
        }
        out += ours.trailer
        finish(out.joined(separator: "\n") + "\n", oursText: oursText)
    }

    // MARK: - values

    /// Which side a three-way merge of one value takes.
    enum Pick: Equatable {
        case ours, theirs, conflict
    }

    /// One side's change wins over no change; equal changes agree; two different changes conflict.
    static func pick(_ o: RecipeDocument.Value?, _ a: RecipeDocument.Value?, _ b: RecipeDocument.Value?) -> Pick {
        typealias V = RecipeDocument.Value
        if V.same(a, b) || V.same(b, o) { return .ours }
        if V.same(a, o) { return .theirs }
        return .conflict
    }

    /// The conflict marker of one value; `inBase` says whether the base has the place at all.
    static func marker(_ o: RecipeDocument.Value?, _ a: RecipeDocument.Value?, _ b: RecipeDocument.Value?, inBase: Bool) -> String {
        ConflictMarker.text(ours: a?.text, theirs: b?.text, base: inBase ? .some(o?.text) : .none)
    }

    /// A conflict marker as a value of the merged document: its text is the marker, and it is
    /// the same as no value of either side.
    static func conflictValue(_ marker: String) -> RecipeDocument.Value {
        RecipeDocument.Value(marker, key: "\u{2}" + marker)
    }

    static func describe(_ o: RecipeDocument.Value?, _ a: RecipeDocument.Value?, _ b: RecipeDocument.Value?, inBase: Bool) -> String {
        var parts = ["ours \(a.map(\.text) ?? "(none)")", "theirs \(b.map(\.text) ?? "(none)")"]
        if inBase { parts.append("base \(o.map(\.text) ?? "(none)")") }
        return parts.joined(separator: ", ")
    }

    // MARK: - header and knobs

    /// Ours' key order; keys only theirs has go before `stages`, and `params` comes in when
    /// theirs declares the first knob.
    func topLevelOrder() -> [String] {
        var order = ours.order.isEmpty ? ["format", "version", "stages"] : ours.order
        let extra = theirs.order.filter { !order.contains($0) && ($0 != "params" || !theirs.knobs.isEmpty) }
        let at = order.firstIndex(of: "stages") ?? order.count
        order.insert(contentsOf: extra, at: at)
        if !order.contains("stages") { order.append("stages") }
        return order
    }

    mutating func mergeHeader(_ key: String) -> [String] {
        let (o, a, b) = (base.headerValue(key), ours.headerValue(key), theirs.headerValue(key))
        switch Self.pick(o, a, b) {
        case .ours:
            target.header += ours.header.filter { $0.name == key }
            return Self.lines(ours.header.first { $0.name == key }, key: key)
        case .theirs:
            target.header += theirs.header.filter { $0.name == key }
            return Self.lines(theirs.header.first { $0.name == key }, key: key)
        case .conflict:
            conflicts.append("`\(key)`: " + Self.describe(o, a, b, inBase: o != nil))
            let marker = Self.marker(o, a, b, inBase: o != nil)
            target.header.append(.init(name: key, value: Self.conflictValue(marker)))
            return ["\(key): " + marker]
        }
    }

    /// A top-level key or a knob as its source text, or written afresh when it has none.
    static func lines(_ field: RecipeDocument.Field?, key: String, indent: String = "") -> [String] {
        guard let field else { return [] }
        if let chunk = field.chunk { return [String(chunk.dropLast())] }
        return [indent + key + ": " + field.value.text]
    }

    mutating func mergeKnobs() -> [String] {
        var body: [String] = []
        for name in RecipeDiff.union(RecipeDiff.union(ours.knobs.map(\.name), theirs.knobs.map(\.name)), base.knobs.map(\.name)) {
            let (o, a, b) = (base.knob(name), ours.knob(name), theirs.knob(name))
            switch Self.pick(o, a, b) {
            case .ours:
                target.knobs += ours.knobs.filter { $0.name == name }
                body += Self.lines(ours.knobs.first { $0.name == name }, key: name, indent: "  ")
            case .theirs:
                target.knobs += theirs.knobs.filter { $0.name == name }
                body += Self.lines(theirs.knobs.first { $0.name == name }, key: name, indent: "  ")
            case .conflict:
                if let a, let b, let value = knobPartsMerge(name, o, a, b) {
                    target.knobs.append(.init(name: name, value: value))
                    body.append("  \(name): " + value.text)
                    continue
                }
                conflicts.append("param `\(name)`: " + Self.describe(o, a, b, inBase: o != nil))
                let marker = Self.marker(o, a, b, inBase: o != nil)
                target.knobs.append(.init(name: name, value: Self.conflictValue(marker)))
                body.append("  \(name): " + marker)
            }
        }
        guard !body.isEmpty else { return [] }
        return ours.paramsComments + ["params:"] + body
    }

    /// A knob both sides changed, merged part by part (`{default: …, doc: …}`): one side's new
    /// default and the other's new doc are both taken, and when only one part differs on both
    /// sides that part alone is marked (`{default: {conflict: …}, doc: …}`). Nil when both parts
    /// conflict: the whole knob is marked.
    mutating func knobPartsMerge(_ name: String, _ o: RecipeDocument.Value?, _ a: RecipeDocument.Value, _ b: RecipeDocument.Value) -> RecipeDocument.Value? {
        typealias V = RecipeDocument.Value
        func parts(_ v: V?) -> (V?, V?) {
            guard let v else { return (nil, nil) }
            let (d, doc) = DocumentBuilder.knobParts(v)
            return (d.map { V($0) }, doc.map { V($0) })
        }
        let (od, odoc) = parts(o), (ad, adoc) = parts(a), (bd, bdoc) = parts(b)
        guard odoc != nil || adoc != nil || bdoc != nil else { return nil }  // `warmth: 5600`: the value is the default
        let pickDefault = Self.pick(od, ad, bd), pickDoc = Self.pick(odoc, adoc, bdoc)
        guard pickDefault != .conflict || pickDoc != .conflict, let ad, let bd else { return nil }
        var defaultText: String, defaultKey: String
        switch pickDefault {
        case .ours: (defaultText, defaultKey) = (ad.text, ad.key)
        case .theirs: (defaultText, defaultKey) = (bd.text, bd.key)
        case .conflict:
            conflicts.append("param `\(name)` (default): " + Self.describe(od, ad, bd, inBase: od != nil))
            let marker = Self.conflictValue(Self.marker(od, ad, bd, inBase: od != nil))
            (defaultText, defaultKey) = (marker.text, marker.key)
        }
        var doc: (text: String, key: String)?
        switch pickDoc {
        case .ours: doc = adoc.map { ($0.text, $0.key) }
        case .theirs: doc = bdoc.map { ($0.text, $0.key) }
        case .conflict:
            conflicts.append("param `\(name)` (doc): " + Self.describe(odoc, adoc, bdoc, inBase: odoc != nil))
            let marker = Self.conflictValue(Self.marker(odoc, adoc, bdoc, inBase: odoc != nil))
            doc = (marker.text, marker.key)
        }
        guard let doc else { return V(defaultText, key: defaultKey) }
        return V("{default: \(defaultText), doc: \(doc.text)}", key: defaultKey + "\u{1}" + doc.key)
    }

    // MARK: - stages

    /// A stage of the result, named by where it comes from.
    enum Slot: Hashable {
        /// A stage of the base (ours and theirs may have changed or deleted it).
        case base(Int)
        /// A stage ours added (theirs may have added the same one).
        case ours(Int)
        /// A stage only theirs added.
        case theirs(Int)
    }

    /// The versions of one stage: base, ours, theirs (nil: that side has none).
    struct Versions {
        var o: RecipeDocument.Stage?
        var a: RecipeDocument.Stage?
        var b: RecipeDocument.Stage?
    }

    mutating func mergeStages() -> [String] {
        let toOurs = StageMatching(old: base.stages, new: ours.stages)
        let toTheirs = StageMatching(old: base.stages, new: theirs.stages)
        let addedOurs = ours.stages.indices.filter { toOurs.oldIndex[$0] == nil }
        let addedTheirs = theirs.stages.indices.filter { toTheirs.oldIndex[$0] == nil }
        let bothAdded = StageMatching(old: addedOurs.map { ours.stages[$0] }, new: addedTheirs.map { theirs.stages[$0] }, pairByKind: false)

        var versions: [Slot: Versions] = [:]
        var oursSlots: [Slot] = [], theirsSlots: [Slot] = []
        for (j, stage) in ours.stages.enumerated() {
            let slot = toOurs.oldIndex[j].map(Slot.base) ?? .ours(j)
            oursSlots.append(slot)
            versions[slot, default: Versions()].a = stage
        }
        let addedTheirsPosition = Dictionary(uniqueKeysWithValues: addedTheirs.enumerated().map { ($1, $0) })
        for (k, stage) in theirs.stages.enumerated() {
            var slot = toTheirs.oldIndex[k].map(Slot.base) ?? .theirs(k)
            if case .theirs = slot, let n = addedTheirsPosition[k], let m = bothAdded.oldIndex[n] { slot = .ours(addedOurs[m]) }
            theirsSlots.append(slot)
            versions[slot, default: Versions()].b = stage
        }
        for (i, stage) in base.stages.enumerated() { versions[.base(i), default: Versions()].o = stage }

        // Ours' order, with theirs' moves (of stages ours left in place) and theirs' additions.
        var order = oursSlots
        var placeAgain = Set<Slot>()
        for (i, j) in toTheirs.newIndex.enumerated() where j != nil && toTheirs.moved.contains(i) {
            if toOurs.moved.contains(i) {
                // Moved on both sides: ours' place wins; worth a word when the places differ.
                if let a = toOurs.newIndex[i], let b = j, (a > 0 ? oursSlots[a - 1] : nil) != (b > 0 ? theirsSlots[b - 1] : nil) {
                    let name = base.stages[i].id.map { "`\($0)`" } ?? "(\(base.stages[i].kind))"
                    notes.append("stage \(name) moved on both sides, to different places; ours' place is kept")
                }
            } else if toOurs.newIndex[i] != nil {
                placeAgain.insert(.base(i))
            }
        }
        order.removeAll { placeAgain.contains($0) }
        var placed = Set(order)
        let oursOnly = Set(oursSlots.filter { versions[$0]?.b == nil && versions[$0]?.o == nil })
        // After theirs' nearest earlier stage that is placed, past stages only ours added.
        // (A stage ours deleted comes back here too: if theirs changed it, it is a conflict.)
        for (k, slot) in theirsSlots.enumerated() where !placed.contains(slot) {
            let anchor = theirsSlots[..<k].last { placed.contains($0) }
            var at = anchor.flatMap { order.firstIndex(of: $0) }.map { $0 + 1 } ?? 0
            while at < order.count, oursOnly.contains(order[at]) { at += 1 }
            order.insert(slot, at: at)
            placed.insert(slot)
        }

        var body: [String] = []
        var number = 0
        for slot in order {
            guard let v = versions[slot] else { continue }
            let lines = stageLines(v, number: number + 1)
            if !lines.isEmpty { number += 1 }
            body += lines
        }
        return ours.stagesComments + [body.isEmpty ? "stages: []" : "stages:"] + body
    }

    /// The lines of one merged stage (none when it is deleted); the stage joins `target`.
    mutating func stageLines(_ v: Versions, number: Int) -> [String] {
        typealias Stage = RecipeDocument.Stage
        func whole(_ s: Stage) -> [String] {
            target.stages.append(s)
            return s.chunk.map { [String($0.dropLast())] } ?? Self.block(s, comments: s.comments)
        }
        guard let o = v.o else {
            switch (v.a, v.b) {
            case (let a?, let b?): return a.same(b) ? whole(a) : fieldMerge(v, a, b, number: number)
            case (let a?, nil): return whole(a)
            case (nil, let b?): return whole(b)
            default: return []
            }
        }
        switch (v.a, v.b) {
        case (nil, nil): return []
        case (nil, let b?): return b.same(o) ? [] : stageConflict(v, number: number)
        case (let a?, nil): return a.same(o) ? [] : stageConflict(v, number: number)
        case (let a?, let b?):
            // Neither side changed the meaning, ours left the text as it was and theirs did not
            // (a comment changed or added, the layout): theirs' text.
            if a.same(o), b.same(o), let text = b.chunk, a.chunk == o.chunk, text != o.chunk {
                var taken = b
                taken.takesText = true
                return whole(taken)
            }
            if a.same(b) || b.same(o) { return whole(a) }
            if a.same(o) { return whole(b) }
            return fieldMerge(v, a, b, number: number)
        }
    }

    /// Both sides changed the stage: merge its id, meta keys and parameters one by one.
    mutating func fieldMerge(_ v: Versions, _ a: RecipeDocument.Stage, _ b: RecipeDocument.Stage, number: Int) -> [String] {
        typealias Value = RecipeDocument.Value
        let o = v.o
        let idPick = Self.pick(o?.id.map { Value($0) }, a.id.map { Value($0) }, b.id.map { Value($0) })
        guard a.kind == b.kind, o == nil || o?.kind == a.kind, idPick != .conflict else { return stageConflict(v, number: number) }
        var merged = a
        if idPick == .theirs { merged.id = b.id }
        let label = "stage \(number)\(RecipeDiff.idText(merged)) (\(merged.kind))"
        /// The merged fields; true when some conflict.
        func merge(_ names: [String], _ get: (RecipeDocument.Stage, String) -> Value?, into fields: inout [RecipeDocument.Field]) -> Bool {
            fields = []
            var conflicted = false
            for name in names {
                let (x, y, z) = (o.flatMap { get($0, name) }, get(a, name), get(b, name))
                switch Self.pick(x, y, z) {
                case .ours: if let y { fields.append(.init(name: name, value: y)) }
                case .theirs: if let z { fields.append(.init(name: name, value: z)) }
                case .conflict:
                    conflicted = true
                    conflicts.append("\(label): \(name.isEmpty ? "" : name + ": ")" + Self.describe(x, y, z, inBase: o != nil))
                    fields.append(.init(name: name, value: Self.conflictValue(Self.marker(x, y, z, inBase: o != nil))))
                }
            }
            return conflicted
        }
        let metaNames = RecipeDiff.union(RecipeDiff.union(a.meta.map(\.name), b.meta.map(\.name)), o?.meta.map(\.name) ?? [])
        let paramNames = RecipeDiff.union(RecipeDiff.union(a.params.map(\.name), b.params.map(\.name)), o?.params.map(\.name) ?? [])
        let metaConflict = merge(metaNames, { $0.meta($1) }, into: &merged.meta)
        let paramConflict = merge(paramNames, { $0.param($1) }, into: &merged.params)
        if !metaConflict, !paramConflict {
            // One side's edit contained the other's: keep that side's text and comments.
            for side in [a, b] where merged.same(side) {
                if let chunk = side.chunk {
                    target.stages.append(side)
                    return [String(chunk.dropLast())]
                }
            }
        }
        let lines = Self.block(merged, comments: a.comments, blockParams: paramConflict)
        merged.chunk = nil
        target.stages.append(merged)
        return lines
    }

    /// Deleted on one side and changed on the other, or changed into different ops: the whole
    /// stage item becomes a marker.
    mutating func stageConflict(_ v: Versions, number: Int) -> [String] {
        let named = (v.a ?? v.b ?? v.o).flatMap(\.id).map { " `\($0)`" } ?? ""
        func what(_ s: RecipeDocument.Stage?) -> String {
            guard let s else { return "deleted it" }
            if let o = v.o, o.same(s) { return "left it as it was" }
            return v.o == nil ? "added \(s.summary)" : (s.kind == v.o?.kind ? "changed it to " : "made it ") + s.summary
        }
        conflicts.append("stage \(number)\(named): ours \(what(v.a)), theirs \(what(v.b))")
        var lines = Self.indented((v.a ?? v.b)?.comments ?? []) + ["  - \(ConflictMarker.key):"]
        lines.append("      ours: \(v.a?.flowText ?? "null")")
        lines.append("      theirs: \(v.b?.flowText ?? "null")")
        if let o = v.o { lines.append("      base: \(o.flowText)") }
        target.stages.append(RecipeDocument.Stage(id: nil, kind: ConflictMarker.key, isKnownOp: false, meta: [], params: [],
                                                  chunk: lines.joined(separator: "\n") + "\n", comments: []))
        return lines
    }

    /// Comments as lines above a stage.
    static func indented(_ comments: [String]) -> [String] { comments.map { "  " + $0 } }

    /// A stage written afresh as an item of `stages:`; parameters one per line under the op when
    /// `blockParams` (a conflict marker reads better on a line of its own).
    static func block(_ stage: RecipeDocument.Stage, comments: [String], blockParams: Bool = false) -> [String] {
        let (before, after) = stage.writtenMeta
        var entries = before.map { "\($0.0): \($0.1)" }
        var opLines: [String] = []
        let written = stage.params.filter { !$0.value.isDefault }
        if blockParams, !written.isEmpty, !(written.count == 1 && written[0].name.isEmpty) {
            entries.append("\(stage.kind):")
            opLines = written.map { "      \($0.name): \($0.value.text)" }
        } else {
            entries.append("\(stage.kind): \(stage.opText)")
        }
        var lines = indented(comments)
        for (i, entry) in entries.enumerated() { lines.append((i == 0 ? "  - " : "    ") + entry) }
        lines += opLines
        lines += after.map { "    \($0.0): \($0.1)" }
        return lines
    }

    // MARK: - the result

    /// Puts a clean result in `recipe fmt`'s form; keeps a conflicted one as written. Then,
    /// given ours' text, edits the merge into it instead, when that reads back the same.
    mutating func finish(_ merged: String, oursText: SourceFile?) {
        let file = SourceFile(path: ours.path, text: merged)
        let (checked, errors) = RecipeDocument.validate(file)
        if !checked.hasErrors, let canonical = RecipeDocument.canonicalText(checked) {
            text = canonical
        } else {
            text = merged
            if conflicts.isEmpty { problems = errors }
        }
        guard let oursText, problems.isEmpty else { return }
        let afresh = text, path = ours.path, clean = conflicts.isEmpty
        let write = FormatPreservingWrite.write(target, over: oursText, fallback: afresh) { edited in
            // Ours' text edited means what the merge written afresh means; with conflicts, resolved
            // to either side.
            let sides: [String?] = clean ? [nil] : ["ours", "theirs"]
            return sides.allSatisfy { side in
                let a = side.map { ConflictMarker.resolved(SourceFile(path: path, text: edited), side: $0) } ?? edited
                let b = side.map { ConflictMarker.resolved(SourceFile(path: path, text: afresh), side: $0) } ?? afresh
                guard let a, let b, let meant = try? RecipeDocument.parse(SourceFile(path: path, text: b)) else { return false }
                return meant.isMeant(by: a)
            }
        }
        text = write.text
        if let note = write.note { notes.append(note) }
    }
}
