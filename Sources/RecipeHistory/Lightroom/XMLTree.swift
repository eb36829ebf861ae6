internal import CXML2Loader

/// A small element tree read by libxml2's pull reader (see CameraRawXMP for why that reader),
/// with each name resolved to its namespace through the `xmlns` declarations in scope.
///
/// ```swift
/// let root = try XMLTree.read(bytes, path: "a.xmp", maxDepth: 64, maxNodes: 400_000)
/// root.children.first?.local   // "RDF"
/// ```
enum XMLTree {
    static let xmlnsNamespace = "http://www.w3.org/2000/xmlns/"
    static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"

    struct Attribute {
        var prefix: String?
        var uri: String?
        var local: String
        var value: String
    }

    final class Node {
        var prefix: String?
        var uri: String?
        var local: String
        var attributes: [Attribute] = []
        var children: [Node] = []
        var text = ""
        var line: Int

        init(prefix: String?, uri: String?, local: String, line: Int) {
            self.prefix = prefix
            self.uri = uri
            self.local = local
            self.line = line
        }

        /// Every element named `name` whose parent is named `parent`, in document order.
        func descendants(named name: (String, String), under parent: (String, String)) -> [Node] {
            var found: [Node] = []
            var stack: [Node] = [self]
            while let node = stack.popLast() {
                let isParent = node.uri == parent.0 && node.local == parent.1
                for child in node.children {
                    if isParent, child.uri == name.0, child.local == name.1 { found.append(child) }
                }
                stack.append(contentsOf: node.children.reversed())
            }
            return found
        }
    }

    /// Why libxml2 cannot be used, or nil once it is loaded and initialised (`rcp_xml_load`, once
    /// for the process: `apply` may read sidecars from its workers).
    static let loadProblem: String? = {
        var message: UnsafePointer<CChar>?
        return rcp_xml_load(&message) == 1 ? nil : message.map { String(cString: $0) } ?? "libxml2 cannot be loaded"
    }()

    /// Runs `body` with a libxml2 reader over `bytes` (read in place, so the reader lives and dies
    /// inside the buffer's scope). No network, no entity substitution, no DTD loading; libxml2's
    /// own messages are silenced (errors are reported by the caller, with their line). `what`
    /// names the XMP for the message when libxml2 cannot be loaded.
    static func withReader<T>(_ bytes: [UInt8], path: String, what: String, _ body: (OpaquePointer) throws -> T) throws -> T {
        if let loadProblem { throw HistoryError(path, "cannot read \(what): \(loadProblem)") }
        return try bytes.withUnsafeBufferPointer { buffer in
            let options = Int32(RCP_XML_PARSE_NONET | RCP_XML_PARSE_NOERROR | RCP_XML_PARSE_NOWARNING)
            let reader = buffer.baseAddress.flatMap { base in
                base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    rcp_xml_reader_for_memory($0, Int32(clamping: buffer.count), options)
                }
            }
            guard let reader else { throw HistoryError(path, "not a readable XMP file (empty)") }
            defer { rcp_xml_free_reader(reader) }
            return try body(reader)
        }
    }

    /// Reads the document into a tree under a synthetic root.
    static func read(_ bytes: [UInt8], path: String, maxDepth: Int, maxNodes: Int) throws -> Node {
        try withReader(bytes, path: path, what: "XMP") { try build($0, path: path, maxDepth: maxDepth, maxNodes: maxNodes) }
    }

    private static func build(_ reader: OpaquePointer, path: String, maxDepth: Int, maxNodes: Int) throws -> Node {
        func string(_ p: UnsafePointer<UInt8>?) -> String { p.map { String(cString: $0) } ?? "" }
        let root = Node(prefix: nil, uri: nil, local: "", line: 0)
        // stack[d + 1] is the open element at depth d (stack[0] the synthetic root); scopes alike.
        var stack: [Node] = [root]
        var scopes: [[String: String]] = [["xml": xmlNamespace, "xmlns": xmlnsNamespace]]
        var nodes = 0
        while true {
            let status = rcp_xml_read(reader)
            if status == 0 { break }
            let line = Int(rcp_xml_line(reader))
            guard status == 1 else { throw HistoryError(path, "not a readable XMP file (XML error at line \(line))") }
            let type = rcp_xml_node_type(reader)
            let depth = Int(rcp_xml_depth(reader))
            guard depth >= 0, depth < maxDepth else {
                throw HistoryError(path, "XMP nested deeper than \(maxDepth) elements at line \(line): refused")
            }
            switch type {
            case Int32(RCP_XML_READER_TYPE_ELEMENT):
                nodes += 1
                guard nodes <= maxNodes else { throw HistoryError(path, "XMP with more than \(maxNodes) elements: refused") }
                while stack.count > depth + 1 { stack.removeLast(); scopes.removeLast() }
                let qname = string(rcp_xml_name(reader))
                var raw: [(String, String)] = []
                var scope = scopes.last ?? [:]
                while rcp_xml_next_attribute(reader) == 1 {
                    let name = string(rcp_xml_name(reader)), value = string(rcp_xml_value(reader))
                    if name == "xmlns" { scope[""] = value } else if name.hasPrefix("xmlns:") { scope[String(name.dropFirst(6))] = value }
                    raw.append((name, value))
                }
                let (prefix, local) = split(qname)
                let node = Node(prefix: prefix, uri: scope[prefix ?? ""], local: local, line: line)
                for (name, value) in raw {
                    let (p, l) = split(name)
                    let uri = name == "xmlns" ? xmlnsNamespace : p.flatMap { scope[$0] }
                    node.attributes.append(Attribute(prefix: p, uri: uri, local: l, value: value))
                }
                stack.last!.children.append(node)
                stack.append(node)
                scopes.append(scope)
            case Int32(RCP_XML_READER_TYPE_END_ELEMENT):
                while stack.count > depth + 1 { stack.removeLast(); scopes.removeLast() }
            case Int32(RCP_XML_READER_TYPE_TEXT), Int32(RCP_XML_READER_TYPE_CDATA):
                // A text node at depth d belongs to the element at depth d − 1, stack[d].
                while stack.count > depth + 1 { stack.removeLast(); scopes.removeLast() }
                stack.last!.text += string(rcp_xml_value(reader))
            default:
                break
            }
        }
        trimText(root)
        return root
    }

    private static func trimText(_ root: Node) {
        var stack = [root]
        while let node = stack.popLast() {
            node.text = String(node.text.trimmingPrefix { $0.isWhitespace }.reversed().trimmingPrefix { $0.isWhitespace }.reversed())
            stack.append(contentsOf: node.children)
        }
    }

    private static func split(_ qname: String) -> (String?, String) {
        guard let colon = qname.firstIndex(of: ":") else { return (nil, qname) }
        return (String(qname[..<colon]), String(qname[qname.index(after: colon)...]))
    }
}
