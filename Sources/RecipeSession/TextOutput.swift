import RecipeCore
import RecipeHistory
#if canImport(Glibc)
import Glibc
#endif

/// Replaces a text file atomically (temporary file in the same folder, then rename), keeping its
/// permission bits: `fmt`, `migrate`, `merge-file` and the preview's write-back rewrite recipes
/// people keep in git. A recipe that is a symbolic link is written through to the file it names
/// (as an editor saves it), never replaced by a plain file; a link to nothing is refused.
package enum TextOutput {
    /// The file a write of `path` changes: `path`, or the file its link resolves to.
    static func target(_ path: String) throws(ImageError) -> String {
        var st = stat()
        guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFLNK else { return path }
        guard let resolved = realpath(path, nil) else {
            throw ImageError(.writeFailed, path: path, "is a link to nothing (\(errnoText())); nothing written")
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Replaces `path` with `text` only if it still holds `original`, the bytes the new text was
    /// made from: a save made meanwhile (an editor's, another recipe command's) is never
    /// overwritten; the caller is told instead, and nothing is written. Done under the folder's
    /// lock, which recipe's other writers of recipes and sidecars take too.
    package static func replace(_ named: String, with text: String, ifStill original: [UInt8]) throws(ImageError) {
        let path = try target(named)
        let lock: FileLock
        do { lock = try FileLock(folder: Paths.folder(of: path), mode: .exclusive) } catch {
            throw ImageError(.writeFailed, path: path, "cannot lock its folder: \(error)")
        }
        defer { lock.release() }
        let now: [UInt8]
        do { now = try InputFile.readAll(path, limit: max(1 << 24, original.count + 1)) } catch {
            throw ImageError(.writeFailed, path: path, "is gone or unreadable since it was read (\(error.reason)); nothing written")
        }
        guard now == original else {
            throw ImageError(.writeFailed, path: path, "changed on disk since it was read (saved in an editor?); nothing written: the change was made to the old text, so make it again")
        }
        try replace(path, with: text)
    }

    package static func replace(_ named: String, with text: String) throws(ImageError) {
        let path = try target(named)
        var st = stat()
        let mode = stat(path, &st) == 0 ? st.st_mode & 0o7777 : 0o644
        let out = try AtomicOutputFile(path: path)
        let bytes = Array(text.utf8)
        guard fwrite(bytes, 1, bytes.count, out.handle) == bytes.count else {
            out.abort()
            throw ImageError(.writeFailed, path: path, "cannot write: \(errnoText())")
        }
        out.setMode(mode)
        try out.commit()
    }
}
