import RecipeCore

/// Span edits against a file's original bytes, applied in one go: the one mechanism behind every
/// tool that writes into a recipe a person keeps (`merge-file`, the preview's write-back,
/// `migrate`, `edit`/`revert`/`relink` on a sidecar). Every byte outside an edited span stays as
/// written, so indents, quoting, number spellings, blank lines and comments survive.
///
/// ```swift
/// var editor = SourceEditor(file)              // exposure: 0.30   # stops
/// replace(node.range, with: "0.5")      // exposure: 0.5   # stops
/// let text = apply()
/// ```
public struct SourceEditor: Sendable {
    /// One replacement of the bytes `range` by `text` (an insertion when the range is empty).
    public struct Edit: Sendable {
        public var range: Range<Int>
        public var text: String
    }

    /// Why an edit in place is not clear; the caller writes the canonical text instead.
    public struct Unclear: Error, Sendable {
        public var reason: String
        public init(_ reason: String) { self.reason = reason }
    }

    public let file: SourceFile
    public private(set) var edits: [Edit] = []

    public init(_ file: SourceFile) { self.file = file }

    /// True when nothing has been edited.
    public var isEmpty: Bool { edits.isEmpty }

    public mutating func replace(_ range: Range<Int>, with text: String) {
        edits.append(Edit(range: range, text: text))
    }

    /// Replaces the source text of a scalar or flow node.
    public mutating func replace(_ range: SourceRange, with text: String) {
        replace(range.start.offset..<range.end.offset, with: text)
    }

    public mutating func insert(_ text: String, at offset: Int) {
        edits.append(Edit(range: offset..<offset, text: text))
    }

    /// Deletes whole lines (1-based, inclusive), line breaks included.
    public mutating func delete(lines: ClosedRange<Int>) {
        replace(start(ofLine: lines.lowerBound)..<start(ofLine: lines.upperBound + 1), with: "")
    }

    /// Inserts whole lines (each without its line break) before 1-based `line` (after the last
    /// line when `line` is past the end), in the file's own line break.
    public mutating func insert(lines: [String], before line: Int) {
        guard !lines.isEmpty else { return }
        let at = start(ofLine: line)
        let needsBreak = at == file.bytes.count && file.bytes.last.map { $0 != 0x0A && $0 != 0x0D } == true
        let text = lines.map { $0 + lineBreak }.joined()
        insert((needsBreak ? lineBreak : "") + text, at: at)
    }

    /// The byte offset where 1-based `line` starts (the end of the file past the last line).
    public func start(ofLine line: Int) -> Int {
        line >= 1 && line <= file.lineCount ? file.lineStarts[line - 1] : file.bytes.count
    }

    /// The file's line break: CR LF when its first line ends so, else LF.
    public var lineBreak: String {
        guard file.lineCount > 1 else { return "\n" }
        let end = file.lineStarts[1]
        return end >= 2 && file.bytes[end - 2] == 0x0D && file.bytes[end - 1] == 0x0A ? "\r\n" : "\n"
    }

    /// The edited text; nil when two edits overlap (a bug in the caller, reported as "unclear").
    /// Insertions at one offset keep the order they were made in and come before a replacement
    /// that starts there (a stage written where a deleted one was).
    public func apply() -> String? {
        let ordered = edits.enumerated().sorted { a, b in
            let x = a.element.range, y = b.element.range
            if x.lowerBound != y.lowerBound { return x.lowerBound < y.lowerBound }
            if x.isEmpty != y.isEmpty { return x.isEmpty }
            return a.offset < b.offset
        }.map(\.element)
        var out: [UInt8] = []
        out.reserveCapacity(file.bytes.count + 256)
        var at = 0
        for edit in ordered {
            guard edit.range.lowerBound >= at, edit.range.upperBound <= file.bytes.count else { return nil }
            out += file.bytes[at..<edit.range.lowerBound]
            out += Array(edit.text.utf8)
            at = edit.range.upperBound
        }
        out += file.bytes[at...]
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: - YAML pairs

    /// Where a value's own text ends: a block collection ends with its last child (its range runs
    /// on to the next token), a block scalar before its final line break.
    func contentEnd(_ node: YAMLNode) -> Int {
        switch node.content {
        case .scalar(_, let style):
            if style == .literal || style == .folded { return file.lineEnds[node.lastLine - 1] }
            return node.range.end.offset
        case .sequence(let items):
            guard !node.flow, let last = items.last else { return node.range.end.offset }
            return contentEnd(last)
        case .mapping(let pairs):
            guard !node.flow, let last = pairs.last else { return node.range.end.offset }
            return contentEnd(last.value)
        }
    }

    /// Replaces a pair's value with flow `text`. Where the old value and `text` have the same
    /// shape (the same keys, lists of the same length) only the scalars that differ are replaced,
    /// so `mask:` written over three lines keeps its lines and one number changes; otherwise a
    /// scalar or flow value is replaced token for token and a block value from the colon on
    /// (`mask:\n    gradient: …` becomes `mask: {gradient: …}`).
    mutating func setValue(_ p: YAMLPair, _ text: String) throws(Unclear) {
        let v = p.value
        if v.isNull, v.scalarStyle == .plain, v.scalar?.isEmpty == true { throw Unclear("`\(p.key.scalar ?? "")` has an empty value") }
        if let found = Self.flowValue(text) {
            let (probe, node) = found
            var trial = self
            if trial.refine(v, to: node, in: probe) {
                self = trial
                return
            }
        }
        let isBlock = v.scalarStyle == .literal || v.scalarStyle == .folded || (!v.flow && v.scalar == nil)
        // A literal block given new text stays a literal block (a note's lines, merged from the
        // other side), indented as it was.
        if v.scalarStyle == .literal, let new = Self.flowValue(text)?.1.scalar, new.contains("\n") {
            let keyColumn = p.key.range.start.column - 1
            let lines = v.range.start.line < v.lastLine ? file.text(v.range).split(separator: "\n").dropFirst() : []
            let indent = lines.first { !$0.allSatisfy { $0 == " " } }.map { $0.prefix { $0 == " " }.count } ?? keyColumn + 2
            if let block = YAMLText.literalBlock(new, indent: max(indent, keyColumn + 1), parentIndent: keyColumn) {
                replace(p.key.range.end.offset..<contentEnd(v), with: ": " + block)
                return
            }
        }
        if isBlock {
            replace(p.key.range.end.offset..<contentEnd(v), with: ": " + text)
        } else {
            replace(v.range, with: text)
        }
    }

    /// `text` read as a YAML value, with the file its marks point into.
    static func flowValue(_ text: String) -> (SourceFile, YAMLNode)? {
        let probe = SourceFile(path: "-", text: "v: " + text + "\n")
        let (root, diagnostics) = YAMLReader.read(probe)
        guard diagnostics.isEmpty, let node = root?.mapping?.first?.value else { return nil }
        return (probe, node)
    }

    /// Edits `old` into `new` scalar by scalar; false (with some edits made) when their shapes
    /// differ or a scalar cannot be replaced in place.
    mutating func refine(_ old: YAMLNode, to new: YAMLNode, in source: SourceFile) -> Bool {
        switch (old.content, new.content) {
        case (.scalar(let s, let style), .scalar):
            if YAMLText.canonical(old) == YAMLText.canonical(new) { return true }
            if style == .literal || style == .folded || (style == .plain && s.isEmpty) { return false }
            replace(old.range, with: source.text(new.range))
            return true
        case (.sequence(let a), .sequence(let b)):
            guard a.count == b.count else { return false }
            for (x, y) in zip(a, b) {
                guard refine(x, to: y, in: source) else { return false }
            }
            return true
        case (.mapping(let a), .mapping(let b)):
            guard a.count == b.count else { return false }
            for p in a {
                guard let q = b.first(where: { $0.key.scalar != nil && $0.key.scalar == p.key.scalar }),
                      refine(p.value, to: q.value, in: source) else { return false }
            }
            return true
        default:
            return false
        }
    }

    /// Adds `name: text` to a mapping: inside a flow mapping after its last pair, in a block
    /// mapping as a line below its last pair at the indent of its keys.
    mutating func insertPair(_ name: String, _ text: String, into mapping: YAMLNode) throws(Unclear) {
        guard let pairs = mapping.mapping else { throw Unclear("`\(name)` has no mapping to go into") }
        if mapping.flow {
            if let last = pairs.last {
                insert(", \(name): \(text)", at: contentEnd(last.value))
            } else {
                insert("\(name): \(text)", at: mapping.range.start.offset + 1)
            }
            return
        }
        guard let first = pairs.first, let last = pairs.last else { throw Unclear("`\(name)` has no mapping to go into") }
        let indent = String(repeating: " ", count: first.key.range.start.column - 1)
        insert(lines: [indent + name + ": " + text], before: last.value.lastLine + 1)
    }

    /// Removes a pair: from a flow mapping with its comma, from a block mapping with its lines
    /// (the first pair of a stage item hands its `- ` to the next pair).
    mutating func deletePair(_ p: YAMLPair, in mapping: YAMLNode) throws(Unclear) {
        guard let pairs = mapping.mapping, let i = pairs.firstIndex(of: p) else { throw Unclear("a key to remove was not found") }
        if mapping.flow {
            if pairs.count == 1 {
                replace(p.key.range.start.offset..<contentEnd(p.value), with: "")
            } else if i + 1 < pairs.count {
                replace(p.key.range.start.offset..<pairs[i + 1].key.range.start.offset, with: "")
            } else {
                replace(contentEnd(pairs[i - 1].value)..<contentEnd(p.value), with: "")
            }
            return
        }
        let line = p.key.range.start.line, last = p.value.lastLine
        guard i == 0 || pairs[i - 1].value.lastLine < line, i + 1 == pairs.count || pairs[i + 1].key.range.start.line > last else {
            throw Unclear("two keys share a line")
        }
        let before = file.line(line).prefix(p.key.range.start.column - 1)
        if before.allSatisfy({ $0 == " " }) {
            delete(lines: line...last)
        } else if i + 1 < pairs.count {
            replace(p.key.range.start.offset..<pairs[i + 1].key.range.start.offset, with: "")
        } else {
            throw Unclear("the only key of an item cannot be removed")
        }
    }
}
