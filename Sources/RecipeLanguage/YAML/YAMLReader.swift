internal import CYAML
import RecipeCore

/// Reads a recipe's YAML with libyaml's event API (the C library itself: its parser is the
/// reference implementation, and the event API gives the marks we need) into a `YAMLNode` tree
/// with file, line and column on every node. It bounds what hostile input can cost: file size,
/// nesting depth and alias expansion are capped; explicit tags beyond YAML's core schema, a second
/// document and duplicate keys (which libyaml accepts silently) are reported.
///
/// ```swift
/// let (root, diagnostics) = YAMLReader.read(SourceFile(path: "a.recipe.yaml", text: "exposure: 0.3\n"))
/// ```
public enum YAMLReader {
    /// Limits on what a recipe file may cost to read.
    public struct Limits: Sendable {
        public var maxBytes = 1 << 20
        public var maxDepth = 64
        /// Nodes that alias expansion may add in total (billion-laughs guard).
        public var maxAliasNodes = 10_000
        /// Stages a recipe may have, and a chain of recipes together (the checker's bound, R108):
        /// each stage costs planning and, for a neighbourhood stage, a window of rows, so a recipe
        /// of 10,000 blurs must be refused before it is planned. Hand-written looks use tens.
        public var maxStages = 256
        public init() {}
    }

    static let coreTags: Set<String> = [
        "tag:yaml.org,2002:str", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float",
        "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map",
    ]

    /// The root node (nil when the file has no usable document) and the diagnostics found.
    public static func read(_ file: SourceFile, limits: Limits = Limits()) -> (YAMLNode?, [Diagnostic]) {
        if file.bytes.count > limits.maxBytes {
            return (nil, [Diagnostic(.fileTooLarge,
                "recipe file is \(file.bytes.count) bytes; the limit is \(limits.maxBytes)",
                at: nil, file: file.path, notes: [.init("a recipe is a few kilobytes of text; is this the right file?")])])
        }
        var builder = Builder(file: file, limits: limits)
        builder.run()
        return (builder.root, builder.diagnostics)
    }

    /// Turns events into nodes on an explicit stack (no recursion, so depth costs no C stack).
    struct Builder {
        /// An open collection. Its arrays are appended to in place (`stack[top].items.append`),
        /// never through a copy of the frame: a copy would make each append copy the whole array,
        /// and a list of n items would cost n² (a fuzzer found that).
        struct Frame {
            var isMapping: Bool
            var items: [YAMLNode] = []
            var pairs: [YAMLPair] = []
            var pendingKey: YAMLNode?
            var flow: Bool
            var tag: String?
            var anchor: String?
            var start: SourceLocation
        }

        let file: SourceFile
        let limits: Limits
        var stack: [Frame] = []
        var anchors: [String: YAMLNode] = [:]
        var aliasNodes = 0
        var documents = 0
        var root: YAMLNode?
        var diagnostics: [Diagnostic] = []

        init(file: SourceFile, limits: Limits) {
            self.file = file
            self.limits = limits
        }

        /// The last mark turned into a byte offset: libyaml reports marks in order, so the next
        /// one is found from here instead of from the start of its line (long lines stay linear).
        var cursor = (line: 0, column: 0, offset: 0)

        /// The file starts with a UTF-8 byte order mark (what some Windows editors write): libyaml
        /// skips it, and counts line 1's columns after it.
        var startsWithBOM: Bool { file.bytes.starts(with: [0xEF, 0xBB, 0xBF]) }

        mutating func location(_ mark: yaml_mark_t) -> SourceLocation {
            let line = Int(mark.line), column = Int(mark.column) + (line == 0 && startsWithBOM ? 1 : 0)
            let offset: Int
            if line == cursor.line, column >= cursor.column {
                offset = file.offset(from: cursor.offset, advancing: column - cursor.column)
            } else {
                offset = file.offset(line: line, column: column)
            }
            cursor = (line, column, offset)
            return SourceLocation(line: line + 1, column: column + 1, offset: offset)
        }

        mutating func range(_ start: yaml_mark_t, _ end: yaml_mark_t) -> SourceRange {
            let a = location(start)
            return SourceRange(file: file.path, start: a, end: location(end))
        }

        mutating func run() {
            var parser = yaml_parser_t()
            guard yaml_parser_initialize(&parser) != 0 else {
                diagnostics.append(Diagnostic(.yamlSyntax, "cannot start the YAML parser (out of memory)", at: nil, file: file.path))
                return
            }
            defer { yaml_parser_delete(&parser) }
            file.bytes.withUnsafeBufferPointer { buffer in
                // libyaml keeps the pointer; the buffer outlives the parse loop below.
                let base = buffer.baseAddress ?? UnsafePointer<UInt8>(bitPattern: 1)!
                yaml_parser_set_input_string(&parser, base, buffer.count)
                // UTF-8, always; with a byte order mark libyaml finds that out itself and skips the
                // mark (told the encoding, it would read the mark as text).
                if !startsWithBOM { yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING) }
                var event = yaml_event_t()
                while true {
                    guard yaml_parser_parse(&parser, &event) != 0 else {
                        reportParserError(parser)
                        return
                    }
                    defer { yaml_event_delete(&event) }
                    if event.type == YAML_STREAM_END_EVENT { return }
                    if !handle(event) { return }
                }
            }
        }

        mutating func reportParserError(_ parser: yaml_parser_t) {
            let problem = parser.problem.map { String(cString: $0) } ?? "malformed YAML"
            let mark = parser.problem_mark
            let at = range(mark, mark)
            var notes: [Diagnostic.Note] = []
            if let context = parser.context.map({ String(cString: $0) }),
               parser.context_mark.line != mark.line || parser.context_mark.column != mark.column {
                notes.append(.init(context, at: range(parser.context_mark, parser.context_mark)))
            }
            // `color: #996633` inside a flow mapping: the `#` starts a comment and the mapping never
            // closes, so libyaml complains a line later. Point at the likely cause.
            let last = Int(mark.line), first = max(0, last - 10)
            if first <= last {
                for line in (first...last).reversed() {
                    let text = Array(file.line(line + 1))
                    let hashes = text.indices.filter { $0 > 0 && text[$0] == "#" && text[$0 - 1] == " " }
                    if let hash = hashes.first, text[..<hash].contains(where: { $0 == "{" || $0 == "[" || $0 == ":" }),
                       text[(hash + 1)...].prefix(6).count == 6, text[(hash + 1)...].prefix(6).allSatisfy(\.isHexDigit) {
                        notes.append(.init("a `#` after a space starts a YAML comment (line \(line + 1)): quote colours, \"#rrggbb\""))
                        break
                    }
                }
            }
            if problem.contains("tab") || file.line(Int(mark.line) + 1).prefix(while: { $0 == " " || $0 == "\t" }).contains("\t") {
                notes.append(.init("indent with spaces; YAML does not allow tabs for indentation"))
            }
            diagnostics.append(Diagnostic(.yamlSyntax, problem, at: at, notes: notes))
        }

        /// Handles one event; false stops the parse.
        mutating func handle(_ event: yaml_event_t) -> Bool {
            let r = range(event.start_mark, event.end_mark)
            switch event.type {
            case YAML_DOCUMENT_START_EVENT:
                documents += 1
                if documents > 1 {
                    diagnostics.append(Diagnostic(.multipleDocuments,
                        "a recipe file holds one YAML document; a second one starts here", at: r,
                        notes: [.init("remove the `---` line and what follows, or put it in a file of its own")]))
                    return false
                }
            case YAML_SCALAR_EVENT:
                let s = event.data.scalar
                let text = s.value.map { String(decoding: UnsafeBufferPointer(start: $0, count: Int(s.length)), as: UTF8.self) } ?? ""
                let style: YAMLNode.ScalarStyle
                switch s.style {
                case YAML_SINGLE_QUOTED_SCALAR_STYLE: style = .singleQuoted
                case YAML_DOUBLE_QUOTED_SCALAR_STYLE: style = .doubleQuoted
                case YAML_LITERAL_SCALAR_STYLE: style = .literal
                case YAML_FOLDED_SCALAR_STYLE: style = .folded
                default: style = .plain
                }
                guard let tag = checkTag(s.tag, at: r) else { return false }
                // Honour core tags: `!!str 0.3` is text (as if quoted), `!!float "0.3"` a number.
                var resolved = style
                if tag == "tag:yaml.org,2002:str", style == .plain { resolved = .doubleQuoted }
                if let tag, tag != "tag:yaml.org,2002:str", style == .singleQuoted || style == .doubleQuoted { resolved = .plain }
                let node = YAMLNode(.scalar(text, resolved), tag: tag, range: r)
                return add(node, anchor: s.anchor)
            case YAML_ALIAS_EVENT:
                let name = event.data.alias.anchor.map { String(cString: $0) } ?? ""
                guard let target = anchors[name] else {
                    diagnostics.append(Diagnostic(.yamlSyntax, "alias `*\(name)` names no anchor defined before it", at: r))
                    return false
                }
                aliasNodes += target.nodeCount
                if aliasNodes > limits.maxAliasNodes {
                    diagnostics.append(Diagnostic(.aliasBudget,
                        "alias expansion exceeds \(limits.maxAliasNodes) nodes; refusing to expand further", at: r,
                        notes: [.init("a recipe needs few aliases; this looks like an alias bomb (billion laughs)")]))
                    return false
                }
                var copy = target
                copy.range = r  // the copy is reported where the alias is used
                return add(copy, anchor: nil)
            case YAML_SEQUENCE_START_EVENT:
                let s = event.data.sequence_start
                guard let tag = checkTag(s.tag, at: r), push(at: r) else { return false }
                stack.append(Frame(isMapping: false, flow: s.style == YAML_FLOW_SEQUENCE_STYLE, tag: tag,
                                   anchor: s.anchor.map { String(cString: $0) }, start: r.start))
            case YAML_MAPPING_START_EVENT:
                let m = event.data.mapping_start
                guard let tag = checkTag(m.tag, at: r), push(at: r) else { return false }
                stack.append(Frame(isMapping: true, flow: m.style == YAML_FLOW_MAPPING_STYLE, tag: tag,
                                   anchor: m.anchor.map { String(cString: $0) }, start: r.start))
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                guard let frame = stack.popLast() else { return false }
                let range = SourceRange(file: file.path, start: frame.start, end: r.end)
                if frame.isMapping {
                    checkDuplicates(frame.pairs)
                    return addAnchored(YAMLNode(.mapping(frame.pairs), tag: frame.tag, flow: frame.flow, range: range), anchor: frame.anchor)
                }
                return addAnchored(YAMLNode(.sequence(frame.items), tag: frame.tag, flow: frame.flow, range: range), anchor: frame.anchor)
            default:
                break
            }
            return true
        }

        mutating func push(at r: SourceRange) -> Bool {
            if stack.count >= limits.maxDepth {
                diagnostics.append(Diagnostic(.nestingTooDeep,
                    "nesting deeper than \(limits.maxDepth) levels", at: r,
                    notes: [.init("a recipe nests a few levels deep; this file is not a recipe or is hostile")]))
                return false
            }
            return true
        }

        mutating func checkTag(_ tag: UnsafeMutablePointer<yaml_char_t>?, at r: SourceRange) -> String?? {
            guard let tag else { return .some(nil) }
            let name = String(cString: tag)
            if Self.coreTagsContain(name) { return .some(name) }
            diagnostics.append(Diagnostic(.unknownTag, "unknown tag `\(shortTag(name))`", at: r,
                notes: [.init("recipes use plain YAML values; remove the tag")]))
            return nil
        }

        static func coreTagsContain(_ name: String) -> Bool { YAMLReader.coreTags.contains(name) }

        func shortTag(_ name: String) -> String {
            name.hasPrefix("tag:yaml.org,2002:") ? "!!" + name.dropFirst("tag:yaml.org,2002:".count) : name
        }

        mutating func add(_ node: YAMLNode, anchor: UnsafeMutablePointer<yaml_char_t>?) -> Bool {
            addAnchored(node, anchor: anchor.map { String(cString: $0) })
        }

        mutating func addAnchored(_ node: YAMLNode, anchor: String?) -> Bool {
            if let anchor { anchors[anchor] = node }
            guard !stack.isEmpty else {
                root = node
                return true
            }
            let top = stack.count - 1
            if !stack[top].isMapping {
                stack[top].items.append(node)
            } else if let key = stack[top].pendingKey {
                stack[top].pairs.append(YAMLPair(key: key, value: node))
                stack[top].pendingKey = nil
            } else {
                stack[top].pendingKey = node
            }
            return true
        }

        mutating func checkDuplicates(_ pairs: [YAMLPair]) {
            guard pairs.count > 1 else { return }
            var seen: [String: SourceRange] = [:]
            for pair in pairs {
                guard let key = pair.key.scalar else { continue }
                if let first = seen[key] {
                    diagnostics.append(Diagnostic(.duplicateKey, "duplicate key `\(key)`", at: pair.key.range,
                        notes: [.init("first given here; YAML would silently keep only one of them", at: first)]))
                } else {
                    seen[key] = pair.key.range
                }
            }
        }
    }
}

extension YAMLReader {
    /// The libyaml the reader runs on, at run time (`yaml_get_version_string`: "0.2.5"), for
    /// `recipe --version`.
    public static var libyamlVersion: String { String(cString: yaml_get_version_string()) }
}
