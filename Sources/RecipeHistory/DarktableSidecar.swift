// FoundationXML's XMLParser (libxml2 underneath) reads darktable's RDF/XML; an XML parser is
// not something to write by hand.
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// darktable's XMP sidecar (`photo.jpg.xmp`): the edit as `darktable:history`, one `rdf:li` per
/// module with its operation name and packed params, and `darktable:xmp_version`. Kept verbatim
/// as a frozen base under the identifier `org.darktable.xmp`; the rendering comes from
/// darktable's export, given on the command line.
public enum DarktableSidecar {
    public static let formatIdentifier = "org.darktable.xmp"

    final class Reader: NSObject, XMLParserDelegate {
        var version: String?
        var historyEnd: String?
        var operations: [String] = []
        var sawDarktable = false

        func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            for (key, value) in attributes where key.hasPrefix("darktable:") || key.hasPrefix("xmlns:darktable") {
                sawDarktable = true
                if key == "darktable:xmp_version" { version = value }
                if key == "darktable:history_end" { historyEnd = value }
            }
            if element == "rdf:li", let op = attributes["darktable:operation"] { operations.append(op) }
            if element.hasPrefix("darktable:") { sawDarktable = true }
        }
    }

    static func read(_ path: String, bytes: [UInt8]) throws -> ForeignEdit {
        let parser = XMLParser(data: Data(bytes))
        let reader = Reader()
        parser.delegate = reader
        guard parser.parse() else {
            let line = parser.lineNumber
            throw HistoryError(path, "not a readable XMP file (XML error at line \(line))")
        }
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
