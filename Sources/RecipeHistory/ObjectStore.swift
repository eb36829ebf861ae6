import RecipeCore
#if canImport(Glibc)
import Glibc
#endif

/// The content-addressed store beside a sidecar that keeps the pixels of frozen base layers byte
/// for byte (never re-encoded).
///
/// Layout, one folder per photo folder, shared by its sidecars (identical files are kept once):
///
/// ```
/// photos/IMG_0001.JPG
/// photos/IMG_0001.JPG.recipe.yaml
/// photos/recipe-objects/sha256/6f/1e0c…(62 more hex digits)
/// ```
///
/// An object's name is the SHA-256 of its bytes; objects are written to a temporary file, synced
/// and renamed, and made read-only, and they are written before the sidecar that names them. The
/// folder is plain files, safe to commit to git or to track with git-lfs
/// (`recipe-objects/** filter=lfs diff=lfs merge=lfs -text`).
public struct ObjectStore: Sendable {
    /// Name of the store's folder beside the sidecars.
    public static let folderName = "recipe-objects"
    /// The store's folder.
    public let root: String

    public init(root: String) {
        self.root = root
    }

    /// The store for the sidecar (or photo) at `path`: `recipe-objects/` in the same folder.
    public static func beside(_ path: String) -> ObjectStore {
        ObjectStore(root: Paths.folder(of: path) + "/" + folderName)
    }

    /// Where the object with this digest lives.
    public func path(of sha256: String) -> String {
        precondition(ObjectReference.isDigest(sha256), "not a digest: \(sha256)")
        let hex = Array(sha256)
        return "\(root)/sha256/\(String(hex[0..<2]))/\(String(hex[2...]))"
    }

    /// Copies a file into the store verbatim and returns its reference. A file already stored
    /// (same digest, intact) is not written again.
    public func put(file source: String, type: String?) throws -> ObjectReference {
        let bytes: [UInt8]
        do { bytes = try InputFile.readAll(source, limit: ObjectStore.maxObjectBytes) } catch { throw HistoryError(source, error.reason) }
        return try put(bytes: bytes, type: type)
    }

    /// Stores bytes and returns their reference.
    public func put(bytes: [UInt8], type: String?) throws -> ObjectReference {
        let digest = ContentHash.bytes(bytes)
        let ref = ObjectReference(sha256: digest, size: bytes.count, type: type)
        let target = path(of: digest)
        if (try? verify(ref)) != nil { return ref }
        try Paths.makeFolders(Paths.folder(of: target))
        try Paths.writeAtomically(target, bytes, mode: 0o444)
        return ref
    }

    /// The path of an intact object: it exists, has the recorded size and hashes to its name.
    /// A missing or tampered object is an error naming it.
    @discardableResult
    public func verify(_ ref: ObjectReference) throws -> String {
        let p = path(of: ref.sha256)
        var st = stat()
        guard stat(p, &st) == 0 else {
            throw HistoryError(p, "object \(ref.sha256.prefix(12))… is missing from the store (\(ObjectStore.folderName)/ must travel with the sidecar)")
        }
        let (digest, size) = try ContentHash.file(p)
        guard digest == ref.sha256, size == ref.size else {
            throw HistoryError(p, "object is damaged or was changed: its bytes hash to \(digest.prefix(12))… (\(size) bytes), not \(ref.sha256.prefix(12))… (\(ref.size) bytes)")
        }
        return p
    }

    /// Objects larger than this are refused (a rendering of a 200 MP photo fits).
    public static let maxObjectBytes = 1 << 30
}
