// libxml2's pull reader reads darktable's RDF/XML: an XML parser is not something to write by
// hand. (Not FoundationXML: it brings the whole of Foundation and CoreFoundation's start-up into
// every process, 2.4 MiB more RSS before the first pixel; measured.) It is loaded on the first
// sidecar read, not at every start (CXML2Loader).
internal import CXML2Loader

/// darktable's XMP sidecar (`photo.jpg.xmp`): the edit as `darktable:history`, one `rdf:li` per
/// module with its operation name and packed params, and `darktable:xmp_version`. Kept verbatim
/// as a frozen base under the identifier `org.darktable.xmp`; the rendering comes from
/// darktable's export, given on the command line.
public enum DarktableSidecar {
    public static let formatIdentifier = "org.darktable.xmp"

    /// libxml2's version as loaded ("2.9.14", from its xmlParserVersion "20914"), nil when
    /// libxml2.so.2 cannot be loaded; for `recipe --version`.
    public static var libxml2Version: String? {
        guard let encoded = rcp_xml_version().map({ String(cString: $0) }), let number = Int(encoded) else { return nil }
        return "\(number / 10000).\(number / 100 % 100).\(number % 100)"
    }

    struct Reading {
        var version: String?
        var historyEnd: String?
        var operations: [String] = []
        var sawDarktable = false
    }

    /// Walks every element and its attributes. No network, no entity substitution, no DTD
    /// loading; libxml2's own messages are silenced (the error is reported here, with its line).
    static func scan(_ path: String, bytes: [UInt8]) throws -> Reading {
        try XMLTree.withReader(bytes, path: path, what: "darktable's XMP") { try scan(path, $0) }
    }

    private static func scan(_ path: String, _ reader: OpaquePointer) throws -> Reading {
        func string(_ p: UnsafePointer<UInt8>?) -> String { p.map { String(cString: $0) } ?? "" }
        var reading = Reading()
        while true {
            let status = rcp_xml_read(reader)
            if status == 0 { break }
            guard status == 1 else {
                let line = rcp_xml_line(reader)
                throw HistoryError(path, "not a readable XMP file (XML error at line \(line))")
            }
            guard rcp_xml_node_type(reader) == Int32(RCP_XML_READER_TYPE_ELEMENT) else { continue }
            let element = string(rcp_xml_name(reader))
            if element.hasPrefix("darktable:") { reading.sawDarktable = true }
            var operation: String?
            while rcp_xml_next_attribute(reader) == 1 {
                let key = string(rcp_xml_name(reader))
                guard key.hasPrefix("darktable:") || key.hasPrefix("xmlns:darktable") else { continue }
                reading.sawDarktable = true
                let value = string(rcp_xml_value(reader))
                switch key {
                case "darktable:xmp_version": reading.version = value
                case "darktable:history_end": reading.historyEnd = value
                case "darktable:operation": operation = value
                default: break
                }
            }
            if element == "rdf:li", let operation { reading.operations.append(operation) }
        }
        return reading
    }

    static func read(_ path: String, bytes: [UInt8]) throws -> ForeignEdit {
        let reader = try scan(path, bytes: bytes)
        guard reader.sawDarktable else { throw HistoryError(path, "an XMP file without darktable's edit history") }
        // "colorin, colorout, exposure ×2": runs of one module counted.
        var parts: [String] = []
        var i = 0
        while i < reader.operations.count {
            var j = i
            while j < reader.operations.count, reader.operations[j] == reader.operations[i] { j += 1 }
            parts.append(reader.operations[i] + (j - i > 1 ? " ×\(j - i)" : ""))
            i = j
        }
        var summary = "darktable history: " + (parts.isEmpty ? "empty" : parts.joined(separator: ", "))
        if let end = reader.historyEnd { summary += " (history_end \(end))" }
        return ForeignEdit(format: formatIdentifier, version: reader.version ?? "?", tool: "darktable", source: path, bytes: bytes, summary: summary)
    }

    /// `photo.jpg.xmp` (darktable's naming) or `photo.xmp` beside the photo, when there is one.
    public static func sidecar(forPhoto photo: String) -> String? {
        for p in [photo + ".xmp", photo + ".XMP", Paths.join(Paths.folder(of: photo), Paths.stem(of: photo) + ".xmp")] where Paths.isFile(p) {
            return p
        }
        return nil
    }
}
