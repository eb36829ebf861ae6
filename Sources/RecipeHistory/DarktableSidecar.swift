// libxml2's pull reader reads darktable's RDF/XML: an XML parser is not something to write by
// hand. (Not FoundationXML: it brings the whole of Foundation and CoreFoundation's start-up into
// every process, 2.4 MiB more RSS before the first pixel; measured.)
import CXML2

/// darktable's XMP sidecar (`photo.jpg.xmp`): the edit as `darktable:history`, one `rdf:li` per
/// module with its operation name and packed params, and `darktable:xmp_version`. Kept verbatim
/// as a frozen base under the identifier `org.darktable.xmp`; the rendering comes from
/// darktable's export, given on the command line.
public enum DarktableSidecar {
    public static let formatIdentifier = "org.darktable.xmp"

    /// libxml2 asks for one initialisation before parsing on several threads (`apply` may read
    /// sidecars from its workers).
    private static let initialized: Void = xmlInitParser()

    struct Reading {
        var version: String?
        var historyEnd: String?
        var operations: [String] = []
        var sawDarktable = false
    }

    /// Walks every element and its attributes. No network, no entity substitution, no DTD
    /// loading; libxml2's own messages are silenced (the error is reported here, with its line).
    static func scan(_ path: String, bytes: [UInt8]) throws -> Reading {
        _ = initialized
        // The reader reads `bytes` in place, so it lives and dies inside the buffer's scope.
        return try bytes.withUnsafeBufferPointer { buffer in
            let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
            let reader = buffer.baseAddress.flatMap { base in
                base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    xmlReaderForMemory($0, Int32(clamping: buffer.count), nil, nil, options)
                }
            }
            guard let reader else { throw HistoryError(path, "not a readable XMP file (empty)") }
            defer { xmlFreeTextReader(reader) }
            return try scan(path, reader)
        }
    }

    private static func scan(_ path: String, _ reader: xmlTextReaderPtr) throws -> Reading {
        func string(_ p: UnsafePointer<xmlChar>?) -> String { p.map { String(cString: $0) } ?? "" }
        var reading = Reading()
        while true {
            let status = xmlTextReaderRead(reader)
            if status == 0 { break }
            guard status == 1 else {
                let line = xmlTextReaderGetParserLineNumber(reader)
                throw HistoryError(path, "not a readable XMP file (XML error at line \(line))")
            }
            guard xmlTextReaderNodeType(reader) == Int32(XML_READER_TYPE_ELEMENT.rawValue) else { continue }
            let element = string(xmlTextReaderConstName(reader))
            if element.hasPrefix("darktable:") { reading.sawDarktable = true }
            var operation: String?
            while xmlTextReaderMoveToNextAttribute(reader) == 1 {
                let key = string(xmlTextReaderConstName(reader))
                guard key.hasPrefix("darktable:") || key.hasPrefix("xmlns:darktable") else { continue }
                reading.sawDarktable = true
                let value = string(xmlTextReaderConstValue(reader))
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
