// FoundationEssentials for PropertyListDecoder: AAE files are XML property lists, and a plist
// reader is exactly what no C library of ours provides.
import FoundationEssentials

/// Apple Photos' edit sidecar, `IMG_0001.AAE`: an XML property list naming the edit's format
/// (`adjustmentFormatIdentifier`, `adjustmentFormatVersion`), the editor, a timestamp and the
/// opaque `adjustmentData`, exported beside the original `IMG_0001.JPG` and its rendering
/// `IMG_E0001.JPG`.
///
/// ```xml
/// <key>adjustmentFormatIdentifier</key><string>com.apple.photo</string>
/// <key>adjustmentFormatVersion</key><string>1.5</string>
/// ```
public enum AppleAdjustmentData {
    struct Plist: Decodable {
        var adjustmentFormatIdentifier: String
        var adjustmentFormatVersion: String?
        var adjustmentData: Data?
        var adjustmentBaseVersion: Int?
        var adjustmentEditorBundleID: String?
        var adjustmentRenderTypes: Int?
        var adjustmentTimestamp: Date?
    }

    static func read(_ path: String, bytes: [UInt8]) throws -> ForeignEdit {
        let plist: Plist
        do {
            plist = try PropertyListDecoder().decode(Plist.self, from: Data(bytes))
        } catch DecodingError.keyNotFound(let key, _) {
            throw HistoryError(path, "not an Apple adjustment file: the property list has no `\(key.stringValue)`")
        } catch {
            throw HistoryError(path, "not an Apple adjustment file: it is not a readable property list")
        }
        var summary = "\(plist.adjustmentData?.count ?? 0) bytes of adjustment data"
        if let base = plist.adjustmentBaseVersion { summary += ", base version \(base)" }
        return ForeignEdit(format: plist.adjustmentFormatIdentifier, version: plist.adjustmentFormatVersion ?? "?",
                           tool: plist.adjustmentEditorBundleID,
                           made: plist.adjustmentTimestamp.map { $0.formatted(.iso8601) },
                           source: path, bytes: bytes, summary: summary)
    }

    /// `IMG_0001.AAE` beside `IMG_0001.JPG`, when there is one.
    public static func sidecar(forPhoto photo: String) -> String? {
        let folder = Paths.folder(of: photo), stem = Paths.stem(of: photo)
        for ext in ["AAE", "aae"] {
            let p = Paths.join(folder, stem + "." + ext)
            if Paths.isFile(p) { return p }
        }
        return nil
    }

    /// Where Photos puts the rendering of `IMG_0001.JPG`'s edit: `IMG_E0001.JPG` (any case of
    /// the JPEG or PNG extension). Nil when it is not there.
    public static func rendering(forPhoto photo: String) -> String? {
        let folder = Paths.folder(of: photo), stem = Paths.stem(of: photo)
        let edited = stem.hasPrefix("IMG_") ? "IMG_E" + stem.dropFirst(4) : stem + "_E"
        for ext in [Paths.pathExtension(of: photo), "JPG", "jpg", "JPEG", "jpeg", "PNG", "png"] where !ext.isEmpty {
            let p = Paths.join(folder, edited + "." + ext)
            if Paths.isFile(p) { return p }
        }
        return nil
    }

    /// The name the rendering would have, for messages.
    public static func expectedRendering(forPhoto photo: String) -> String {
        let stem = Paths.stem(of: photo)
        let edited = stem.hasPrefix("IMG_") ? "IMG_E" + stem.dropFirst(4) : stem + "_E"
        return Paths.join(Paths.folder(of: photo), edited + "." + Paths.pathExtension(of: photo))
    }
}
