import RecipeCore
#if canImport(Glibc)
import Glibc
#endif

/// Replaces a text file atomically (temporary file in the same folder, then rename), keeping its
/// permission bits: `fmt` and `migrate` rewrite recipes people keep in git.
package enum TextOutput {
    package static func replace(_ path: String, with text: String) throws(ImageError) {
        var st = stat()
        let mode = stat(path, &st) == 0 ? st.st_mode & 0o7777 : 0o644
        let out = try AtomicOutputFile(path: path)
        let bytes = Array(text.utf8)
        guard fwrite(bytes, 1, bytes.count, out.handle) == bytes.count else {
            out.abort()
            throw ImageError(.writeFailed, path: path, "cannot write: \(errnoText())")
        }
        fchmod(fileno(out.handle), mode)
        try out.commit()
    }
}
