import RecipeCore

/// The develop settings of one photo or preset as Lightroom and Camera Raw write them (the `crs:`
/// namespace, process version 2012 and later), read from XMP, with typed access that checks each
/// value against Camera Raw's own range.
///
/// ```swift
/// let settings = try CameraRawSettings.read("IMG_0001.CR2.xmp")
/// try settings.number("Exposure2012")   // 0.35, or nil when not set
/// ```
public struct CameraRawSettings: Sendable {
    /// The file the settings came from (a sidecar, a preset, a photo with embedded XMP).
    public var source: String
    /// The document's top-level properties: Camera Raw's by local name, others as `prefix:name`.
    public var document: CameraRawXMP.Document
    /// The XMP bytes, verbatim (every packet, for a photo with extended XMP), to be kept.
    public var bytes: [UInt8]

    public init(source: String, document: CameraRawXMP.Document, bytes: [UInt8]) {
        self.source = source
        self.document = document
        self.bytes = bytes
    }

    /// Reads an `.xmp` sidecar or preset, or the XMP a photo (JPEG, TIFF, DNG, HEIC) embeds.
    public static func read(_ path: String) throws -> CameraRawSettings {
        // An .xmp is bounded by the XMP limit; a photo (a DNG is tens of MB, its tag 700 anywhere)
        // is read whole, up to what a photo file may be.
        let head: [UInt8]
        do { head = try InputFile.prefix(path, count: 64) } catch { throw HistoryError(path, error.reason) }
        let isXML = EmbeddedXMP.packets(in: head) == nil
        let bytes = try Paths.readBytes(path, limit: isXML ? CameraRawXMP.maxBytes + 1 : maxPhotoBytes)
        if isXML, bytes.count > CameraRawXMP.maxBytes {
            throw HistoryError(path, "over the \(CameraRawXMP.maxBytes >> 20) MiB an XMP file may have")
        }
        if let packets = EmbeddedXMP.packets(in: bytes) {
            guard !packets.isEmpty else { throw HistoryError(path, "the photo has no XMP, so no Camera Raw settings") }
            var document = CameraRawXMP.Document()
            for packet in packets {
                for property in try CameraRawXMP.parse(packet, path: path).properties where document[property.key] == nil {
                    document.append(property)
                }
            }
            return try CameraRawSettings(source: path, document: document, bytes: Array(packets.joined())).checked()
        }
        return try CameraRawSettings(source: path, document: CameraRawXMP.parse(bytes, path: path), bytes: bytes).checked()
    }

    /// The XMP documents a photo file embeds (empty when none, or when the bytes are not a
    /// photo); for what a photographer marked in it (rating, label, keywords).
    public static func embeddedDocuments(in bytes: [UInt8], path: String) throws -> [CameraRawXMP.Document] {
        try (EmbeddedXMP.packets(in: bytes) ?? []).map { try CameraRawXMP.parse($0, path: path) }
    }

    /// A photo whose embedded XMP is read may be this large (a medium-format raw is a few hundred MB).
    public static let maxPhotoBytes = 1 << 30

    /// Parses XMP bytes (a sidecar's or a preset's).
    public static func parse(_ bytes: [UInt8], path: String) throws -> CameraRawSettings {
        try CameraRawSettings(source: path, document: CameraRawXMP.parse(bytes, path: path), bytes: bytes).checked()
    }

    /// Whether the document holds any Camera Raw setting.
    public var hasSettings: Bool { document.properties.contains { !$0.key.contains(":") } }

    /// The Camera Raw keys set, in document order (not the other namespaces').
    public var keys: [String] { document.properties.map(\.key).filter { !$0.contains(":") } }

    /// The process version as a number (6.7 for PV2012, 10, 11, 15.4 …), nil when not given.
    public var processVersion: Double? { document["ProcessVersion"]?.value.text.flatMap { Double($0) } }

    /// The tool that wrote the settings (`xmp:CreatorTool`), when the XMP says.
    public var creatorTool: String? { document["xmp:CreatorTool"]?.value.text }

    /// A number, checked against Camera Raw's range for the key; nil when the key is not set.
    public func number(_ key: String) throws -> Double? {
        guard let property = document[key] else { return nil }
        return try Self.number(property.value.text, key: key, line: property.line, source: source)
    }

    /// A boolean (`True`/`False`, `1`/`0`); nil when the key is not set.
    public func flag(_ key: String) throws -> Bool? {
        guard let property = document[key] else { return nil }
        switch property.value.text?.lowercased() {
        case "true", "1": return true
        case "false", "0": return false
        default: throw HistoryError(source, "\(key) (line \(property.line)) is `\(property.value.text ?? "a structure")`, not True or False")
        }
    }

    /// Text; nil when the key is not set.
    public func text(_ key: String) -> String? { document[key]?.value.text }

    /// A number checked against Camera Raw's range for `key` (see `CameraRawRanges`).
    static func number(_ text: String?, key: String, line: Int, source: String) throws -> Double {
        guard let text, let value = Double(text.hasPrefix("+") ? String(text.dropFirst()) : text), value.isFinite else {
            throw HistoryError(source, "\(key) (line \(line)) is `\(text ?? "a structure")`, not a number")
        }
        if let range = CameraRawRanges.range(of: key), !range.contains(value) {
            throw HistoryError(source, "\(key) (line \(line)) is \(text), outside Camera Raw's range \(CameraRawRanges.describe(range))")
        }
        return value
    }

    /// Checks every number the translation reads, so a bad value is reported before anything is
    /// written, all keys at once in document order.
    func checked() throws -> CameraRawSettings {
        for property in document.properties where CameraRawRanges.range(of: property.key) != nil {
            _ = try Self.number(property.value.text, key: property.key, line: property.line, source: source)
        }
        return self
    }
}
