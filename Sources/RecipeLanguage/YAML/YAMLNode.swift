import RecipeCore

/// One node of a recipe's YAML, with where it is. Built from libyaml's events by `YAMLReader`;
/// aliases are already expanded (within a budget), duplicate keys already reported.
///
/// ```yaml
/// exposure: 0.3        # mapping { scalar "exposure" (1:1) : scalar "0.3" (1:11, plain) }
/// ```
public struct YAMLNode: Sendable, Hashable {
    public enum ScalarStyle: Sendable, Hashable {
        case plain, singleQuoted, doubleQuoted, literal, folded
    }

    public enum Content: Sendable, Hashable {
        case scalar(String, ScalarStyle)
        case sequence([YAMLNode])
        case mapping([YAMLPair])
    }

    public var content: Content
    /// An explicit tag (`!!str`), if one was written.
    public var tag: String?
    /// True for `[…]` and `{…}` collections.
    public var flow: Bool
    public var range: SourceRange

    public init(_ content: Content, tag: String? = nil, flow: Bool = false, range: SourceRange) {
        self.content = content
        self.tag = tag
        self.flow = flow
        self.range = range
    }

    public var scalar: String? {
        if case .scalar(let s, _) = content { return s }
        return nil
    }

    public var scalarStyle: ScalarStyle? {
        if case .scalar(_, let style) = content { return style }
        return nil
    }

    /// A plain (unquoted) scalar's text.
    public var plainScalar: String? {
        if case .scalar(let s, .plain) = content { return s }
        return nil
    }

    public var sequence: [YAMLNode]? {
        if case .sequence(let items) = content { return items }
        return nil
    }

    public var mapping: [YAMLPair]? {
        if case .mapping(let pairs) = content { return pairs }
        return nil
    }

    /// YAML's null: an empty plain scalar, `~` or `null`.
    public var isNull: Bool {
        if case .scalar(let s, .plain) = content { return s.isEmpty || s == "~" || s == "null" || s == "Null" || s == "NULL" }
        return false
    }

    /// What kind of YAML value this is, in words for diagnostics ("a list", "the text `abc`").
    public var kindDescription: String {
        switch content {
        case .sequence: return "a list"
        case .mapping: return "a mapping"
        case .scalar(let s, let style):
            if isNull { return "nothing (null)" }
            if style == .plain, Double(s) != nil { return "the number \(s)" }
            let shown = s.count > 30 ? String(s.prefix(27)) + "…" : s
            return "the text `\(shown)`"
        }
    }

    /// The last source line this value occupies: a block collection ends where its last child
    /// does (its range runs on to the next token), a block scalar before its final line break.
    public var lastLine: Int {
        switch content {
        case .scalar(_, let style):
            if style == .literal || style == .folded { return max(range.start.line, range.end.line - 1) }
            return range.end.line
        case .sequence(let items):
            if flow || items.isEmpty { return range.end.line }
            return items.map(\.lastLine).max() ?? range.start.line
        case .mapping(let pairs):
            if flow || pairs.isEmpty { return range.end.line }
            return pairs.map(\.value.lastLine).max() ?? range.start.line
        }
    }

    /// Number of nodes in this subtree (the alias budget counts them).
    var nodeCount: Int {
        switch content {
        case .scalar: return 1
        case .sequence(let items): return 1 + items.reduce(0) { $0 + $1.nodeCount }
        case .mapping(let pairs): return 1 + pairs.reduce(0) { $0 + $1.key.nodeCount + $1.value.nodeCount }
        }
    }
}

/// A key and its value in a mapping.
public struct YAMLPair: Sendable, Hashable {
    public var key: YAMLNode
    public var value: YAMLNode
    public init(key: YAMLNode, value: YAMLNode) {
        self.key = key
        self.value = value
    }
}
