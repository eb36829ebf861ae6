import RecipeCore
#if canImport(Glibc)
import Glibc
#endif

/// Path text helpers and the few file-system calls the lifecycle needs (no Foundation).
public enum Paths {
    /// The folder part of a path ("." for a bare name).
    public static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let dir = String(path[..<slash])
        return dir.isEmpty ? "/" : dir
    }

    /// The last component.
    public static func name(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// `IMG_0001` of `a/IMG_0001.JPG`.
    public static func stem(of path: String) -> String {
        let n = name(of: path)
        guard let dot = n.lastIndex(of: "."), dot != n.startIndex else { return n }
        return String(n[..<dot])
    }

    /// `JPG` of `a/IMG_0001.JPG` ("" when there is none).
    public static func pathExtension(of path: String) -> String {
        let n = name(of: path)
        guard let dot = n.lastIndex(of: "."), dot != n.startIndex else { return "" }
        return String(n[n.index(after: dot)...])
    }

    public static func join(_ folder: String, _ name: String) -> String {
        folder == "." ? name : (folder.hasSuffix("/") ? folder + name : folder + "/" + name)
    }

    public static func exists(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0
    }

    public static func isFile(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
    }

    /// `mkdir -p`.
    public static func makeFolders(_ path: String) throws {
        if path.isEmpty || path == "." || path == "/" { return }
        var st = stat()
        if stat(path, &st) == 0 {
            guard (st.st_mode & S_IFMT) == S_IFDIR else { throw HistoryError(path, "exists and is not a folder") }
            return
        }
        try makeFolders(folder(of: path))
        if mkdir(path, 0o777) != 0 && errno != EEXIST { throw HistoryError(path, "cannot create the folder: \(errnoText())") }
    }

    /// Creates the folders of `path` below `root` one by one, refusing a link anywhere below
    /// `root`: a folder inside an output folder that is a link to elsewhere (`out/sub ->
    /// ../elsewhere`) would have a batch write outside the folder the user named. `root` itself
    /// may be a link: the user named it.
    public static func makeFolders(_ path: String, inside root: String) throws {
        try makeFolders(root)
        let prefix = root.hasSuffix("/") ? root : root + "/"
        guard path.hasPrefix(prefix) else { return try makeFolders(path) }
        // Each folder made and opened in the one opened before it, never by its whole path: a
        // folder swapped for a link meanwhile cannot take the next one outside `root`.
        switch ConfinedFolder.open(path, inside: root, creating: true) {
        case .success(let fd): close(fd)
        case .failure(let failure):
            throw HistoryError(failure.folder, failure.reason + (failure.isLink ? " (make it a folder)" : ""))
        }
    }

    /// Reads a whole text file (bounded).
    public static func readBytes(_ path: String, limit: Int) throws -> [UInt8] {
        do { return try InputFile.readAll(path, limit: limit) } catch { throw HistoryError(path, error.reason) }
    }

    /// Writes bytes atomically (temporary file, fsync, rename), with `mode` when given.
    public static func writeAtomically(_ path: String, _ bytes: [UInt8], mode: mode_t? = nil) throws {
        do {
            let out = try AtomicOutputFile(path: path)
            let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, out.handle) }
            guard written == bytes.count else {
                out.abort()
                throw HistoryError(path, "cannot write: \(errnoText())")
            }
            if let mode { out.setMode(mode) }
            try out.commit()
        } catch let error as ImageError {
            throw HistoryError(path, error.reason)
        }
    }
}
