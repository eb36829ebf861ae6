import Glibc

/// Small POSIX file helpers, so the bench needs no Foundation.
///
/// ```swift
/// FileSystem.isExecutable("/usr/bin/djpeg")            // true
/// FileSystem.join("/work/main", ".build/release/recipe") // "/work/main/.build/release/recipe"
/// ```
enum FileSystem {
    /// True if `path` names an existing file or directory.
    static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// True if `path` names a regular file this process may execute.
    static func isExecutable(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return false }
        return access(path, X_OK) == 0
    }

    /// True if `path` names a directory.
    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// The size of the file at `path` in bytes, or nil if it cannot be stat'ed.
    static func size(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_size)
    }

    /// `directory/name`, without doubling the slash.
    static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// The directory part of `path` (`"/a/b/c"` → `"/a/b"`, `"/a"` → `"/"`, `"c"` → `"."`).
    static func parent(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    /// The last component of `path` (`"/a/b/c.jpg"` → `"c.jpg"`).
    static func baseName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// The current working directory, or nil if it cannot be read.
    static func currentDirectory() -> String? {
        guard let pointer = getcwd(nil, 0) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    /// The absolute path of the running executable (`/proc/self/exe`), or nil off Linux.
    static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `path` made absolute against the current directory (no `..` folding).
    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        return join(currentDirectory() ?? ".", path)
    }

    /// The first executable named `name` in `$PATH`, or nil. A name containing `/` is checked as is.
    static func which(_ name: String) -> String? {
        if name.contains("/") { return isExecutable(name) ? name : nil }
        let searchPath = getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in searchPath.split(separator: ":", omittingEmptySubsequences: true) {
            let candidate = join(String(directory), name)
            if isExecutable(candidate) { return candidate }
        }
        return nil
    }

    /// The whole content of the file at `path`, or nil if it cannot be read.
    static func readBytes(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { return result }
            result.append(contentsOf: chunk[0..<count])
        }
    }

    /// Calls `body` with the file at `path` mapped read-only, or returns nil (errno set) if it cannot
    /// be opened or mapped. The pages are file-backed and unmapped afterwards, so reading a large file
    /// leaves nothing in the bench's heap for `fork` to copy into the children it measures.
    static func withMappedFile<Result>(
        _ path: String, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard let length = size(path), length > 0 else {
            return try body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        guard let base = mmap(nil, length, PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED else { return nil }
        defer { munmap(base, length) }
        return try body(UnsafeRawBufferPointer(start: base, count: length))
    }

    /// The file at `path` as UTF-8 text (invalid bytes repaired), or nil if it cannot be read.
    static func readText(_ path: String) -> String? {
        readBytes(path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Writes `text` to `path`, replacing it. Returns false (with errno set) on failure.
    static func writeFile(_ text: String, to path: String) -> Bool {
        writeFile(bytes: Array(text.utf8), to: path)
    }

    /// Writes `bytes` to `path`, replacing it. Returns false (with errno set) on failure.
    static func writeFile(bytes: [UInt8], to path: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return false }
        guard writeAll(bytes: bytes, to: fd) else {
            let saved = errno
            close(fd)
            errno = saved
            return false
        }
        return close(fd) == 0
    }

    /// Writes all of `text` to the open descriptor `fd`, retrying short writes and EINTR.
    /// Returns false (with errno set) on failure.
    @discardableResult
    static func writeAll(_ text: String, to fd: Int32) -> Bool {
        writeAll(bytes: Array(text.utf8), to: fd)
    }

    /// Writes all of `bytes` to the open descriptor `fd`, retrying short writes and EINTR.
    /// Returns false (with errno set) on failure.
    @discardableResult
    static func writeAll(bytes: [UInt8], to fd: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }

    /// The names in `folder` (without `.` and `..`), in directory order; nil if it cannot be read.
    static func entryNames(_ folder: String) -> [String]? {
        guard let directory = opendir(folder) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The names in `folder` (without `.` and `..`) in byte order, like `ls` in the C locale; none
    /// if it cannot be read.
    static func sortedEntryNames(_ folder: String) -> [String] {
        (entryNames(folder) ?? []).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// Deletes `path`: a file, or a folder with everything below it (links are removed, not followed).
    static func removeTree(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR, let names = entryNames(path) else {
            unlink(path)
            return
        }
        for name in names { removeTree(join(path, name)) }
        rmdir(path)
    }

    /// The text of the last `errno`, e.g. `"No such file or directory"`.
    static func errorText(_ code: Int32 = errno) -> String {
        String(cString: strerror(code))
    }
}

/// A private temporary directory (`/tmp/recipe-bench.XXXXXX`) for the rows' output files, removed
/// with everything in it by `remove()`. The rows write only plain files directly inside it.
final class ScratchDirectory {
    /// The directory's absolute path.
    let path: String
    /// Set once the directory has been removed, so `deinit` does not try again.
    private var removed = false

    /// Creates the directory with `mkdtemp`, or returns nil (errno set) if that fails.
    init?() {
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array(FileSystem.join(base, "recipe-bench.XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else { return nil }
        path = String(cString: made)
    }

    /// `path/name`.
    func file(_ name: String) -> String { FileSystem.join(path, name) }

    /// Deletes every entry in the directory (not recursing: the rows create no subdirectories)
    /// except the names in `keeping`, then the directory itself unless something was kept.
    func remove(keeping: Set<String> = []) {
        guard !removed else { return }
        removed = true
        for name in FileSystem.entryNames(path) ?? [] where !keeping.contains(name) { unlink(file(name)) }
        if keeping.isEmpty { rmdir(path) }
    }

    deinit { remove() }
}
