// Camera Raw settings are read with libxml2's pull reader, the one darktable's sidecars already
// use (CXML2Loader): it is loaded lazily on the first XMP read, so the reader costs no new
// dependency and nothing at start-up. Exempi or Exiv2 would each add a C++ library (and its
// runtime) to the build for a read-only job that needs none of their writing or schema code.
internal import CXML2Loader

/// One XMP document's RDF, as the Camera Raw settings in it need it: every top-level
/// `rdf:Description`'s properties, from attributes (`crs:Exposure2012="+0.35"`) and child elements
/// (`<crs:Exposure2012>0.35</crs:Exposure2012>`), lists (`rdf:Seq`, `rdf:Bag`, `rdf:Alt` of
/// `rdf:li`) and structures (`rdf:li` with attributes or `rdf:parseType="Resource"`, a nested
/// `rdf:Description`), such as the tone curves and the local corrections.
///
/// ```swift
/// let doc = try CameraRawXMP.parse(bytes, path: "IMG_0001.xmp")
/// doc.properties.first { $0.key == "Exposure2012" }?.value   // .text("+0.35")
/// ```
///
/// Safe on hostile input: a document type declaration is refused before parsing (XMP never has
/// one, so no entity is declared, let alone expanded: no `XML_PARSE_NOENT`, no DTD loading, no
/// network), nesting deeper than `maxDepth` and more than `maxNodes` elements are refused, and
/// the size is bounded by `maxBytes`.
public enum CameraRawXMP {
    /// The Camera Raw settings namespace.
    public static let crsNamespace = "http://ns.adobe.com/camera-raw-settings/1.0/"
    static let rdfNamespace = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    /// Larger XMP is refused: a sidecar with brush masks is a few hundred kB; a recipe sidecar
    /// holding it verbatim may be 16 MiB.
    public static let maxBytes = 8 << 20
    /// Real XMP nests about 12 deep (local corrections' masks); anything past this is refused.
    public static let maxDepth = 64
    /// Elements in one document.
    public static let maxNodes = 400_000

    /// A property's value.
    public indirect enum Value: Sendable, Equatable {
        case text(String)
        case list([Value])
        case record([Property])

        /// The text, when it is one.
        public var text: String? { if case .text(let t) = self { t } else { nil } }
        /// The items, when it is a list.
        public var items: [Value]? { if case .list(let l) = self { l } else { nil } }
        /// The fields, when it is a structure.
        public var fields: [Property]? { if case .record(let r) = self { r } else { nil } }
        /// A structure's field by key.
        public subscript(_ key: String) -> Value? { fields?.first { $0.key == key }?.value }
    }

    /// A named value: `key` is the local name for Camera Raw's namespace (`Exposure2012`) and
    /// `prefix:local` with the usual prefix for the others (`tiff:Orientation`, `xmp:Rating`).
    public struct Property: Sendable, Equatable {
        public var key: String
        public var value: Value
        /// The line it is written on.
        public var line: Int
    }

    /// The document's top-level properties, in document order.
    public struct Document: Sendable {
        public private(set) var properties: [Property] = []
        /// Where each key is in `properties` (a translation looks up every key several times).
        private var index: [String: Int] = [:]

        public init() {}

        public subscript(_ key: String) -> Property? { index[key].map { properties[$0] } }

        /// Adds a property whose key is not there yet.
        mutating func append(_ property: Property) {
            precondition(index[property.key] == nil, "\(property.key) added twice")
            index[property.key] = properties.count
            properties.append(property)
        }
    }

    /// Parses one XMP document (a sidecar, a preset or an embedded packet).
    public static func parse(_ bytes: [UInt8], path: String) throws -> Document {
        guard bytes.count <= maxBytes else {
            throw HistoryError(path, "XMP of \(bytes.count) bytes: over the \(maxBytes >> 20) MiB an XMP file may have")
        }
        if let declaration = ["<!DOCTYPE", "<!ENTITY"].first(where: { EmbeddedXMP.firstIndex(of: Array($0.utf8), in: bytes, from: 0) != nil }) {
            throw HistoryError(path, "XMP with a document type declaration (\(declaration)): refused, XMP never has one (entities are not expanded)")
        }
        let root = try XMLTree.read(bytes, path: path, maxDepth: maxDepth, maxNodes: maxNodes)
        var document = Document()
        let lines = LineFinder(bytes: bytes)
        for description in root.descendants(named: (rdfNamespace, "Description"), under: (rdfNamespace, "RDF")) {
            for var property in try properties(of: description, path: path) {
                property.line = lines.line(of: property.key) ?? property.line
                if let earlier = document[property.key] {
                    // A preset may give its name both as an attribute and as a language list;
                    // two different values of a setting are ambiguous.
                    if let a = earlier.value.text, let b = property.value.text, a != b, CameraRawRanges.range(of: property.key) != nil {
                        throw HistoryError(path, "\(property.key) is given twice, as \(a) (line \(earlier.line)) and as \(b) (line \(property.line))")
                    }
                    continue
                }
                document.append(property)
            }
        }
        return document
    }

    /// The line each property name is first written on (`:Key="` or `:Key>`), found in one pass
    /// over the text: libxml2's reader reports the line it has read up to, which for a start tag
    /// with many attributes is its last.
    struct LineFinder {
        var first: [Substring: Int] = [:]

        init(bytes: [UInt8]) {
            func isNameByte(_ b: UInt8) -> Bool { (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F || b == 0x2D || b == 0x2E }
            var line = 1, i = 0
            while i < bytes.count {
                let b = bytes[i]
                i += 1
                if b == 0x0A { line += 1; continue }
                guard b == 0x3A else { continue }
                let start = i
                while i < bytes.count, isNameByte(bytes[i]) { i += 1 }
                if i > start, i < bytes.count, bytes[i] == 0x3D || bytes[i] == 0x3E {
                    let name = Substring(decoding: bytes[start..<i], as: UTF8.self)
                    if first[name] == nil { first[name] = line }
                }
            }
        }

        func line(of key: String) -> Int? { first[key.split(separator: ":").last ?? Substring(key)] }
    }

    /// The properties of a node that holds them: its attributes (but the RDF ones) and its
    /// property elements.
    static func properties(of node: XMLTree.Node, path: String) throws -> [Property] {
        var out: [Property] = []
        for a in node.attributes where a.uri != rdfNamespace && a.uri != XMLTree.xmlnsNamespace && a.uri != XMLTree.xmlNamespace {
            out.append(Property(key: key(a.uri, a.local, a.prefix), value: .text(a.value), line: node.line))
        }
        for child in node.children {
            out.append(Property(key: key(child.uri, child.local, child.prefix), value: try value(of: child, path: path), line: child.line))
        }
        return out
    }

    /// A property element's value: a list, a structure or text.
    static func value(of element: XMLTree.Node, path: String) throws -> Value {
        if let container = element.children.first(where: { $0.uri == rdfNamespace && ["Seq", "Bag", "Alt"].contains($0.local) }) {
            return .list(try container.children.filter { $0.uri == rdfNamespace && $0.local == "li" }.map { try value(of: $0, path: path) })
        }
        if let description = element.children.first(where: { $0.uri == rdfNamespace && $0.local == "Description" }) {
            return .record(try properties(of: description, path: path))
        }
        let isResource = element.attributes.contains { $0.uri == rdfNamespace && $0.local == "parseType" && $0.value == "Resource" }
        let hasFields = element.attributes.contains { $0.uri != rdfNamespace && $0.uri != XMLTree.xmlnsNamespace && $0.uri != XMLTree.xmlNamespace }
        if isResource || hasFields || !element.children.isEmpty {
            return .record(try properties(of: element, path: path))
        }
        return .text(element.text)
    }

    /// The key a property is known by (see `Property.key`).
    static func key(_ uri: String?, _ local: String, _ prefix: String?) -> String {
        guard let uri else { return local }
        if uri == crsNamespace { return local }
        let usual = usualPrefixes[uri] ?? prefix ?? "?"
        return usual + ":" + local
    }

    static let usualPrefixes = [
        "http://ns.adobe.com/tiff/1.0/": "tiff", "http://ns.adobe.com/xap/1.0/": "xmp", "http://ns.adobe.com/exif/1.0/": "exif",
        "http://purl.org/dc/elements/1.1/": "dc", "http://ns.adobe.com/xap/1.0/mm/": "xmpMM", "http://ns.adobe.com/photoshop/1.0/": "photoshop",
        "http://ns.adobe.com/exif/1.0/aux/": "aux", "http://ns.adobe.com/lightroom/1.0/": "lr", "http://ns.adobe.com/xmp/note/": "xmpNote",
        "http://ns.adobe.com/exif/1.0/EX/": "exifEX",
    ]
}
