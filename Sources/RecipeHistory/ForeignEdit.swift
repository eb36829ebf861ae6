import RecipeCore
import RecipeLanguage

/// Another tool's adjustment data, read from its file: what it is (identifier, version, editor)
/// and its exact bytes, to be embedded verbatim as a frozen base layer.
///
/// ```swift
/// let edit = try ForeignEdit.read("IMG_0001.AAE")   // com.apple.photo 1.5, 1.9 kB
/// ```
public struct ForeignEdit: Sendable {
    /// The format identifier (`com.apple.photo`, `org.darktable.xmp`, `dev.recipe.edit`, …).
    public var format: String
    public var version: String
    /// The editor that wrote it, when the data says.
    public var tool: String?
    /// When the foreign edit was made, when the data says (ISO 8601).
    public var made: String?
    /// The file it came from.
    public var source: String
    /// The data, byte for byte.
    public var bytes: [UInt8]
    /// One line for `recipe history` ("darktable history: colorin, exposure ×2").
    public var summary: String?

    public init(format: String, version: String, tool: String? = nil, made: String? = nil, source: String, bytes: [UInt8], summary: String? = nil) {
        self.format = format
        self.version = version
        self.tool = tool
        self.made = made
        self.source = source
        self.bytes = bytes
        self.summary = summary
    }

    /// Foreign data files larger than this are refused (real ones are a few kB).
    public static let maxBytes = 4 << 20

    /// Reads a file of foreign adjustment data, telling the format from its content: an Apple
    /// property list (`.AAE`), a darktable XMP sidecar, or a YAML file with `format` and
    /// `version` (a recipe of another major version, another tool's recipe). `format` and
    /// `version` given by the user take the place of what cannot be told (opaque data).
    public static func read(_ path: String, format: String? = nil, version: String? = nil) throws -> ForeignEdit {
        let bytes = try Paths.readBytes(path, limit: maxBytes)
        if let format {
            guard let version else { throw HistoryError(path, "give the data's format version with --format-version too") }
            return ForeignEdit(format: format, version: version, source: path, bytes: bytes)
        }
        let head = String(decoding: bytes.prefix(4096), as: UTF8.self)
        if head.contains("<plist") || head.contains("-//Apple//DTD PLIST") || bytes.starts(with: Array("bplist".utf8)) {
            return try AppleAdjustmentData.read(path, bytes: bytes)
        }
        if head.contains("http://darktable.sf.net/") || String(decoding: bytes, as: UTF8.self).contains("darktable:history") {
            return try DarktableSidecar.read(path, bytes: bytes)
        }
        if let edit = ForeignRecipe.read(path, bytes: bytes) { return edit }
        if path.lowercased().hasSuffix(".aae") {
            throw HistoryError(path, "not an Apple adjustment file: it is not a property list")
        }
        throw HistoryError(path, "cannot tell which tool wrote this adjustment data; give --format ID and --format-version V to keep it as it is")
    }
}

/// A recipe-like YAML file with a `format` and `version` this build does not handle (another
/// major version of ours, or another tool's identifier).
enum ForeignRecipe {
    static func read(_ path: String, bytes: [UInt8]) -> ForeignEdit? {
        let (root, diagnostics) = YAMLReader.read(SourceFile(path: path, bytes: bytes))
        guard diagnostics.isEmpty, let pairs = root?.mapping else { return nil }
        func value(_ key: String) -> String? { pairs.first { $0.key.scalar == key }?.value.scalar }
        guard let format = value("format"), let version = value("version"), !format.isEmpty, !version.isEmpty else { return nil }
        let stages = pairs.first { $0.key.scalar == "stages" }?.value.sequence?.count
        return ForeignEdit(format: format, version: version, tool: value("generator") ?? value("tool"), source: path, bytes: bytes,
                           summary: stages.map { "\($0) stage\($0 == 1 ? "" : "s")" })
    }
}
