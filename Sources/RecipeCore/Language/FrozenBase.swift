/// A frozen base layer: another tool's adjustment data, kept verbatim in a recipe together with
/// the pixels it produced, so a photo's edit history survives tools this build cannot interpret.
///
/// In a sidecar it is a stage whose key is `base` (DESIGN.md §4); rendering starts from the
/// pixels of the last enabled base, and the stages after it apply on top:
///
/// ```yaml
/// stages:
///   - id: apple-edit
///     base:
///       format: com.apple.photo
///       version: "1.5"
///       tool: com.apple.mobileslideshow
///       source: IMG_0001.AAE
///       embedded: 2026-11-21T10:00:00Z
///       pixels: {sha256: 6f1e…, size: 812344, type: jpeg}
///       data-sha256: 0c7d…
///       data: |
///         <?xml version="1.0" encoding="UTF-8"?>
///         …
///   - exposure: 0.3
/// ```
public struct FrozenBase: Sendable, Hashable {
    /// The foreign format identifier (`com.apple.photo`, `org.darktable.xmp`, `dev.recipe.edit`).
    public var format: String
    /// The foreign format version, as text (`1.5`, `99.0`).
    public var version: String
    /// The editor that wrote the data, when it says (a bundle id, `darktable 4.2.1`).
    public var tool: String?
    /// The file name the data came from (`IMG_0001.AAE`).
    public var source: String?
    /// When the data was embedded (ISO 8601, UTC).
    public var embedded: String?
    /// The rendered pixels the data produced: a file in the object store.
    public var pixels: ObjectReference
    /// The foreign data itself, byte for byte.
    public var data: Payload
    /// SHA-256 of the data's bytes (lower-case hex), checked when it is extracted.
    public var dataSHA256: String?

    /// The data: UTF-8 text kept as text, anything else as base64.
    public enum Payload: Sendable, Hashable {
        case text(String)
        case base64(String)
    }

    public init(format: String, version: String, tool: String? = nil, source: String? = nil, embedded: String? = nil,
                pixels: ObjectReference, data: Payload, dataSHA256: String? = nil) {
        self.format = format
        self.version = version
        self.tool = tool
        self.source = source
        self.embedded = embedded
        self.pixels = pixels
        self.data = data
        self.dataSHA256 = dataSHA256
    }
}

/// A file in a content-addressed object store: its SHA-256, its size and what it holds.
public struct ObjectReference: Sendable, Hashable {
    /// Lower-case hex SHA-256 of the file's bytes.
    public var sha256: String
    public var size: Int
    /// `jpeg` or `png`.
    public var type: String?

    public init(sha256: String, size: Int, type: String? = nil) {
        self.sha256 = sha256
        self.size = size
        self.type = type
    }

    /// True for 64 lower-case hex digits.
    public static func isDigest(_ s: String) -> Bool {
        s.utf8.count == 64 && s.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }
}

/// The original a sidecar belongs to: `original: {file: IMG_0001.JPG, sha256: …, size: …}`.
/// A sidecar binds to its photo by content, so a renamed photo can be re-linked and a changed
/// one is noticed.
public struct OriginalBinding: Sendable, Hashable {
    /// The photo's file name when the sidecar was written (informative; the hash decides).
    public var file: String?
    public var sha256: String
    public var size: Int

    public init(file: String?, sha256: String, size: Int) {
        self.file = file
        self.sha256 = sha256
        self.size = size
    }
}
