/// The elements of an XMP packet by byte offset, with their attributes and the namespace of
/// every name, so the export metadata policy can cut properties out and put others in while every
/// other byte of the packet stays as it was.
///
/// Not a validating parser: it checks what those edits rely on (every tag closes, end tags match
/// their start tags, attribute values are quoted, prefixes resolve through the `xmlns`
/// declarations in scope) and returns nil otherwise, so a packet it cannot read is dropped rather
/// than edited blindly. Comments, processing instructions (the `<?xpacket …?>` wrapper) and CDATA
/// are skipped whole.
///
/// ```swift
/// let scan = XMPScanner(packet)
/// scan?.elements.first { $0.uri == XMP.rdfNamespace && $0.local == "Description" }?.start
/// ```
struct XMPScanner {
    /// An attribute of a start tag.
    struct Attribute {
        /// From the white space before the name to the closing quote: what removing it cuts.
        var range: Range<Int>
        var qname: String
        /// The namespace URI of its prefix (nil for an unprefixed attribute).
        var uri: String?
        var local: String
        /// The value between the quotes, not yet unescaped.
        var value: Range<Int>
    }

    /// An element: its start tag and, unless it is empty (`<a/>`), its end tag.
    struct Element {
        var start: Range<Int>
        var end: Range<Int>
        var qname: String
        var uri: String?
        var local: String
        var attributes: [Attribute]
        /// The prefixes in scope inside the element ("" for the default namespace).
        var scope: [String: String]

        var isEmpty: Bool { end == start }
        var whole: Range<Int> { start.lowerBound..<end.upperBound }
        var content: Range<Int> { start.upperBound..<max(start.upperBound, end.lowerBound) }
        var prefix: String { qname.firstIndex(of: ":").map { String(qname[..<$0]) } ?? "" }
    }

    let bytes: [UInt8]
    /// Every element, in the order of their start tags.
    private(set) var elements: [Element] = []

    init?(_ bytes: [UInt8]) {
        self.bytes = bytes
        var open: [Int] = []
        var i = 0
        while let lt = find([UInt8(ascii: "<")], from: i) {
            if let skipped = skipUnparsed(at: lt) {
                guard let next = skipped else { return nil }
                i = next
            } else if byte(lt + 1) == UInt8(ascii: "/") {
                let name = readName(from: lt + 2)
                guard let gt = find([UInt8(ascii: ">")], from: name.end), let top = open.popLast(), elements[top].qname == name.text else { return nil }
                elements[top].end = lt..<(gt + 1)
                i = gt + 1
            } else {
                guard let element = readStartTag(at: lt, parentScope: open.last.map { elements[$0].scope } ?? XMPScanner.builtInScope) else { return nil }
                if !element.isEmpty { open.append(elements.count) }
                elements.append(element)
                i = element.start.upperBound
            }
        }
        guard open.isEmpty else { return nil }
    }

    static let builtInScope = ["xml": "http://www.w3.org/XML/1998/namespace"]

    /// Past a comment, processing instruction, CDATA section or declaration starting at `lt`:
    /// nil when there is none there, .some(nil) when it never ends.
    private func skipUnparsed(at lt: Int) -> Int?? {
        for (open, close) in [("<!--", "-->"), ("<![CDATA[", "]]>"), ("<?", "?>"), ("<!", ">")] where starts(open, at: lt) {
            return .some(find(Array(close.utf8), from: lt + open.utf8.count).map { $0 + close.utf8.count })
        }
        return nil
    }

    private func readStartTag(at lt: Int, parentScope: [String: String]) -> Element? {
        let name = readName(from: lt + 1)
        guard !name.text.isEmpty else { return nil }
        var j = name.end
        var raw: [(range: Range<Int>, qname: String, value: Range<Int>)] = []
        var empty = false
        while true {
            let before = j
            while let b = byte(j), isSpace(b) { j += 1 }
            guard let b = byte(j) else { return nil }
            if b == UInt8(ascii: ">") { j += 1; break }
            if b == UInt8(ascii: "/") {
                guard byte(j + 1) == UInt8(ascii: ">") else { return nil }
                j += 2
                empty = true
                break
            }
            let attr = readName(from: j)
            guard !attr.text.isEmpty, j > before else { return nil }
            j = attr.end
            while let c = byte(j), isSpace(c) { j += 1 }
            guard byte(j) == UInt8(ascii: "=") else { return nil }
            j += 1
            while let c = byte(j), isSpace(c) { j += 1 }
            guard let quote = byte(j), quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'"),
                  let close = find([quote], from: j + 1) else { return nil }
            raw.append((before..<(close + 1), attr.text, (j + 1)..<close))
            j = close + 1
        }
        var scope = parentScope
        for a in raw {
            if a.qname == "xmlns" { scope[""] = text(a.value) }
            if a.qname.hasPrefix("xmlns:") { scope[String(a.qname.dropFirst(6))] = text(a.value) }
        }
        func resolve(_ qname: String, isElement: Bool) -> (uri: String?, local: String) {
            guard let colon = qname.firstIndex(of: ":") else { return (isElement ? scope[""] : nil, qname) }
            return (scope[String(qname[..<colon])], String(qname[qname.index(after: colon)...]))
        }
        let attributes = raw.map { a in
            let (uri, local) = resolve(a.qname, isElement: false)
            return Attribute(range: a.range, qname: a.qname, uri: uri, local: local, value: a.value)
        }
        let (uri, local) = resolve(name.text, isElement: true)
        let start = lt..<j
        return Element(start: start, end: empty ? start : j..<j, qname: name.text, uri: uri, local: local, attributes: attributes, scope: scope)
    }

    /// The name starting at `from` (up to white space, `=`, `/` or `>`) and where it ends.
    private func readName(from: Int) -> (text: String, end: Int) {
        var j = from
        while let b = byte(j), !isSpace(b), b != UInt8(ascii: "="), b != UInt8(ascii: "/"), b != UInt8(ascii: ">") { j += 1 }
        return (String(decoding: bytes[from..<j], as: UTF8.self), j)
    }

    /// The text of `range` with the five predefined entities and character references replaced.
    func text(_ range: Range<Int>) -> String {
        let raw = String(decoding: bytes[range], as: UTF8.self)
        guard raw.contains("&") else { return raw }
        var out = ""
        var rest = Substring(raw)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            guard let semi = rest[amp...].firstIndex(of: ";") else { break }
            let entity = rest[rest.index(after: amp)..<semi]
            let number = entity.hasPrefix("#x") ? UInt32(entity.dropFirst(2), radix: 16) : entity.hasPrefix("#") ? UInt32(entity.dropFirst()) : nil
            if let named = XMP.reserved.first(where: { $0.entity == entity }) {
                out.append(named.character)
            } else if let scalar = number.flatMap(Unicode.Scalar.init) {
                out.unicodeScalars.append(scalar)
            } else {
                out += rest[amp...semi]
            }
            rest = rest[rest.index(after: semi)...]
        }
        return out + rest
    }

    /// `range` widened back over the white space before it, up to and including one line break,
    /// so a removed element takes its indentation and line with it.
    func withLeadingWhitespace(_ range: Range<Int>) -> Range<Int> {
        var s = range.lowerBound
        while s > 0, bytes[s - 1] == UInt8(ascii: " ") || bytes[s - 1] == UInt8(ascii: "\t") { s -= 1 }
        if s > 0, bytes[s - 1] == UInt8(ascii: "\n") { s -= 1 }
        if s > 0, bytes[s - 1] == UInt8(ascii: "\r") { s -= 1 }
        return s..<range.upperBound
    }

    /// The spaces and tabs before `offset` on its line.
    func indentation(before offset: Int) -> String {
        var s = offset
        while s > 0, bytes[s - 1] == UInt8(ascii: " ") || bytes[s - 1] == UInt8(ascii: "\t") { s -= 1 }
        return String(decoding: bytes[s..<offset], as: UTF8.self)
    }

    private func byte(_ i: Int) -> UInt8? { i < bytes.count ? bytes[i] : nil }

    private func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    private func starts(_ s: String, at i: Int) -> Bool {
        let u = Array(s.utf8)
        return i + u.count <= bytes.count && bytes[i..<(i + u.count)].elementsEqual(u)
    }

    private func find(_ needle: [UInt8], from: Int) -> Int? { XMP.firstIndex(of: needle, in: bytes, from: from) }
}
