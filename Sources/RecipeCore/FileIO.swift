#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import CFileSync

/// Opens originals for reading, and only for reading.
public enum InputFile {
    /// Opens `path` read-only after checking it is a non-empty regular file.
    public static func open(_ path: String) throws(ImageError) -> UnsafeMutablePointer<FILE> {
        let fd = try openRegular(path, prefix: "")
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            close(fd)
            throw ImageError(.unreadable, path: path, "cannot read: \(errnoText())")
        }
        guard st.st_size > 0 else {
            close(fd)
            throw ImageError(.corrupt, path: path, "empty file (0 bytes)")
        }
        guard let f = fdopen(fd, "rb") else {
            close(fd)
            throw ImageError(.unreadable, path: path, errnoText())
        }
        return f
    }

    /// A descriptor of `path` opened read-only, refused unless it is a regular file. Opened with
    /// O_NONBLOCK and checked with fstat on that descriptor: a FIFO (or a device, a socket) would
    /// block a plain open(2) until a writer came, hanging a render or a whole batch.
    /// `prefix` goes before the system's reason when it cannot be opened at all.
    public static func openRegular(_ path: String, prefix: String = "cannot open: ") throws(ImageError) -> Int32 {
        let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw ImageError(.unreadable, path: path, prefix + errnoText()) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            close(fd)
            throw ImageError(.unreadable, path: path, "cannot read: \(errnoText())")
        }
        let type = st.st_mode & S_IFMT
        guard type == S_IFREG else {
            close(fd)
            throw ImageError(.unreadable, path: path, "is \(kindName(type)), not a regular file")
        }
        // Reads of a regular file never block; clear the flag so stdio sees a plain descriptor.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    /// "a directory", "a FIFO (named pipe)", … for messages.
    public static func kindName(_ type: mode_t) -> String {
        switch type {
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        default: "not a file"
        }
    }

    /// The first `count` bytes of a file (fewer if it is shorter), for format sniffing.
    public static func prefix(_ path: String, count: Int) throws(ImageError) -> [UInt8] {
        let f = try open(path)
        defer { fclose(f) }
        var bytes = [UInt8](repeating: 0, count: count)
        let n = fread(&bytes, 1, count, f)
        return Array(bytes.prefix(n))
    }

    /// The whole of a small file (a recipe, a LUT), refusing one over `limit` bytes before reading
    /// it. Unlike `open`, an empty file is returned as no bytes (a recipe decides what that means).
    public static func readAll(_ path: String, limit: Int) throws(ImageError) -> [UInt8] {
        let fd = try openRegular(path)
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw ImageError(.unreadable, path: path, "cannot read: \(errnoText())") }
        guard Int(st.st_size) <= limit else {
            throw ImageError(.tooLarge, path: path, "file is \(st.st_size) bytes; the limit is \(limit)")
        }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw ImageError(.unreadable, path: path, "cannot read: \(errnoText())") }
            if n == 0 { return Array(bytes[..<done]) }  // shrank while reading
            done += n
        }
        return bytes
    }

    /// Device and inode of `path`, to recognise the same file under two names.
    public static func identity(_ path: String) -> (dev: UInt64, ino: UInt64)? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return (UInt64(st.st_dev), UInt64(st.st_ino))
    }
}

/// An output written to a temporary file beside its destination and renamed into place, so a crash
/// or kill leaves either the old file or the new one, never a torn one.
///
/// ```swift
/// let out = try AtomicOutputFile(path: "out/photo.jpg")
/// fwrite(bytes, 1, n, out.handle)
/// try out.commit()      // fsync + rename; without it, deinit removes the temporary
/// ```
public final class AtomicOutputFile {
    /// The destination.
    public let path: String
    /// The temporary file being written (a hidden file in the destination's folder).
    public let temporaryPath: String
    /// The open stream. Each MiB written is handed to the kernel's writeback as it comes
    /// (`rk_writeback_stream`), so `commit`'s fsync waits for the last MiB, not the whole file.
    public let handle: UnsafeMutablePointer<FILE>
    /// Bytes the stream buffers (for memory estimates).
    public static let bufferBytes = Int(RK_WRITEBACK_BUFFER_BYTES)
    /// The temporary file's descriptor (the stream's; `fileno` has none for it).
    private let descriptor: Int32
    /// The first error a write to the file gave (errno; 0 while none has), set by the stream.
    private let writeError: UnsafeMutablePointer<Int32>
    private var finished = false
    /// With a root (`inside:`): the output's folder, opened from the root without following a
    /// link, which the temporary is created in and renamed within (-1: by path).
    private var directory: Int32 = -1
    /// The temporary's name in `directory`.
    private var temporaryName = ""

    /// The output at `path`, written only inside the folder `root` (a batch's output folder): the
    /// folders below `root` are opened one by one without following a link, and the file is
    /// created and renamed in the folder so opened, so a folder swapped for a link meanwhile (by
    /// someone else writing in `root`) cannot take the write outside it. `root` itself may be a
    /// link: the user named it.
    public convenience init(path: String, inside root: String) throws(ImageError) {
        let prefix = root.hasSuffix("/") ? root : root + "/"
        let slash = path.lastIndex(of: "/")
        let dir = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard dir == root || dir + "/" == prefix || dir.hasPrefix(prefix), !name.isEmpty else {
            throw ImageError(.refused, path: path, "is not inside \(root); nothing written")
        }
        let fd: Int32
        switch ConfinedFolder.open(dir, inside: root, creating: false) {
        case .success(let opened): fd = opened
        case .failure(let f): throw ImageError(f.isLink ? .refused : .writeFailed, path: path, "\(f.folder) \(f.reason): nothing written")
        }
        try self.init(path: path, directory: fd, name: name)
    }

    /// The temporary created in the open folder `directory` (which the file then owns).
    private init(path: String, directory: Int32, name: String) throws(ImageError) {
        self.path = path
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        var created: (fd: Int32, name: String)?
        for _ in 0..<100 where created == nil {
            let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
            let tmp = ".\(name).recipe-tmp-" + String((0..<6).map { _ in letters[Int.random(in: 0..<letters.count)] })
            let fd = openat(directory, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
            if fd >= 0 { created = (fd, tmp) } else if errno != EEXIST { break }
        }
        guard let (fd, tmp) = created else {
            let reason = errnoText()
            close(directory)
            throw ImageError(.writeFailed, path: path, "cannot create a temporary file: \(reason)")
        }
        _ = flock(fd, LOCK_EX | LOCK_NB)
        let (f, writeError): (UnsafeMutablePointer<FILE>, UnsafeMutablePointer<Int32>)
        do {
            (f, writeError) = try Self.stream(fd, path: path)
        } catch {
            unlinkat(directory, tmp, 0)
            close(directory)
            throw error
        }
        self.writeError = writeError
        self.temporaryPath = folder + "/" + tmp
        self.handle = f
        self.descriptor = fd
        self.directory = directory
        self.temporaryName = tmp
        TemporaryFiles.register(temporaryPath)
    }

    /// The stream over the temporary's descriptor `fd`, and where it records its first write
    /// error; `fd` closed when it cannot be opened.
    private static func stream(_ fd: Int32, path: String) throws(ImageError) -> (UnsafeMutablePointer<FILE>, UnsafeMutablePointer<Int32>) {
        let writeError = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        writeError.initialize(to: 0)
        guard let f = rk_writeback_stream(fd, writeError) ?? fdopen(fd, "wb") else {
            let reason = errnoText()
            writeError.deallocate()
            close(fd)
            throw ImageError(.writeFailed, path: path, "cannot open the temporary file: \(reason)")
        }
        return (f, writeError)
    }

    /// Removes the temporary (within the open folder when there is one).
    private func removeTemporary() {
        if directory >= 0 { unlinkat(directory, temporaryName, 0) } else { unlink(temporaryPath) }
    }

    public init(path: String) throws(ImageError) {
        self.path = path
        let slash = path.lastIndex(of: "/")
        let dir = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard !name.isEmpty else { throw ImageError(.writeFailed, path: path, "output path names a folder, not a file") }
        var st = stat()
        guard stat(dir.isEmpty ? "/" : dir, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
            throw ImageError(.writeFailed, path: path, "output folder \(dir) does not exist")
        }
        AbandonedTemporaries.clean(dir.isEmpty ? "/" : dir)
        var template = Array("\(dir.isEmpty ? "" : dir)/.\(name).recipe-tmp-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw ImageError(.writeFailed, path: path, "cannot create a temporary file: \(errnoText())") }
        // Held until the file is renamed into place: a process that finds the temporary without a
        // holder knows its writer is gone (`AbandonedTemporaries`).
        _ = flock(fd, LOCK_EX | LOCK_NB)
        let tmp = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        // mkstemp creates 0600; give the output the permissions a plain create would (0666 & ~umask).
        let mask = umask(0)
        umask(mask)
        fchmod(fd, 0o666 & ~mask)
        let (f, writeError): (UnsafeMutablePointer<FILE>, UnsafeMutablePointer<Int32>)
        do {
            (f, writeError) = try Self.stream(fd, path: path)
        } catch {
            unlink(tmp)
            throw error
        }
        self.writeError = writeError
        self.temporaryPath = tmp
        self.handle = f
        self.descriptor = fd
        TemporaryFiles.register(tmp)
    }

    /// Why a write to the file failed, in the system's words ("no space left on device"), once
    /// one has.
    public var writeFailure: String? {
        writeError.pointee == 0 ? nil : errnoText(writeError.pointee)
    }

    /// Runs `body`, which writes the file through `handle` (an encoder); when it fails after a
    /// write to the file did, the error is that write's, naming the output (`out.png: no space
    /// left on device`), not what the library made of it (libpng's "Write Error", libtiff's
    /// "Maximum TIFF file size exceeded").
    ///
    /// ```swift
    /// let warnings = try out.writing { try encode(into: out.handle) }
    /// ```
    public func writing<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            if let writeFailure { throw ImageError(.writeFailed, path: path, writeFailure) }
            throw error
        }
    }

    /// Flushes, syncs and renames the temporary file onto the destination.
    public func commit() throws(ImageError) {
        precondition(!finished, "AtomicOutputFile committed twice")
        finished = true
        defer { TemporaryFiles.unregister(temporaryPath) }
        let flushed = fflush(handle) == 0 && fsync(descriptor) == 0
        let flushError = writeFailure ?? errnoText()
        guard flushed else {
            fclose(handle)
            removeTemporary()
            throw ImageError(.writeFailed, path: path, flushError)
        }
        // Renamed while still open, so its lock is held until it is in place.
        let name = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
        guard (directory >= 0 ? renameat(directory, temporaryName, directory, name) : rename(temporaryPath, path)) == 0 else {
            let e = errnoText()
            fclose(handle)
            removeTemporary()
            throw ImageError(.writeFailed, path: path, "cannot move the output into place: \(e)")
        }
        guard fclose(handle) == 0 else {
            throw ImageError(.writeFailed, path: path, "cannot close the output: \(errnoText())")
        }
    }

    /// Sets the permission bits the file will have (a rewritten recipe keeps its own; objects in
    /// the store are read-only). `fileno` has no descriptor for the stream: this is the way.
    public func setMode(_ mode: mode_t) {
        fchmod(descriptor, mode)
    }

    /// Discards the temporary file; the destination is untouched.
    public func abort() {
        guard !finished else { return }
        finished = true
        fclose(handle)
        removeTemporary()
        TemporaryFiles.unregister(temporaryPath)
    }

    deinit {
        abort()
        if directory >= 0 { close(directory) }
        writeError.deallocate()
    }
}

/// Temporary outputs in flight, so a SIGINT/SIGTERM handler can remove them before the process
/// dies. The paths live in a fixed C buffer because a signal handler may not touch Swift arrays.
public enum TemporaryFiles {
    static let slots = 64
    static let slotSize = 4096
    // calloc, not allocate+initialize: the zeroed pages stay untouched (and out of RSS) until used.
    nonisolated(unsafe) static let table: UnsafeMutablePointer<CChar> =
        calloc(slots * slotSize, 1)!.assumingMemoryBound(to: CChar.self)
    nonisolated(unsafe) static var lock = pthread_mutex_t()
    nonisolated(unsafe) static var lockReady: Bool = {
        pthread_mutex_init(&lock, nil)
        return true
    }()

    static func register(_ path: String) {
        _ = lockReady
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        let bytes = Array(path.utf8CString)
        guard bytes.count <= slotSize else { return }
        for i in 0..<slots where table[i * slotSize] == 0 {
            bytes.withUnsafeBufferPointer { (table + i * slotSize).update(from: $0.baseAddress!, count: bytes.count) }
            return
        }
    }

    static func unregister(_ path: String) {
        _ = lockReady
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        for i in 0..<slots where table[i * slotSize] != 0 {
            if String(cString: table + i * slotSize) == path { table[i * slotSize] = 0 }
        }
    }

    /// Unlinks every registered temporary file. Async-signal-safe (only `unlink` is called).
    public static func removeAllFromSignalHandler() {
        for i in 0..<slots where table[i * slotSize] != 0 {
            unlink(table + i * slotSize)
        }
    }

    /// Installs SIGINT/SIGTERM/SIGHUP handlers that remove temporaries and then die by the signal.
    public static func installSignalCleanup() {
        _ = table
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            signal(sig) { s in
                TemporaryFiles.removeAllFromSignalHandler()
                signal(s, SIG_DFL)
                raise(s)
            }
        }
    }
}

/// `strerror(code)` (of `errno` by default) as a Swift string, lower-cased first letter ("no such
/// file or directory").
public func errnoText(_ code: Int32 = errno) -> String {
    let text = String(cString: strerror(code))
    guard let first = text.first else { return text }
    return first.lowercased() + text.dropFirst()
}

/// A folder below a root, opened (or made) one level at a time from the root without following a
/// link: what writes confined to a folder the user named go through, so that a folder swapped
/// for a link meanwhile cannot take them outside it. The root itself may be a link.
///
/// ```swift
/// if case .success(let fd) = ConfinedFolder.open("out/a/b", inside: "out", creating: true) { … close(fd) }
/// ```
public enum ConfinedFolder {
    public struct Failure: Error {
        /// The folder that could not be opened or made, and why ("is a link; …").
        public var folder: String
        public var reason: String
        /// A link (or something not a folder) where a folder was expected.
        public var isLink: Bool
    }

    /// The descriptor of `path` (the caller closes it), `path` being `root` or a folder below it.
    public static func open(_ path: String, inside root: String, creating: Bool) -> Result<Int32, Failure> {
        let prefix = root.hasSuffix("/") ? root : root + "/"
        guard path == root || path + "/" == prefix || path.hasPrefix(prefix) else {
            return .failure(Failure(folder: path, reason: "is not inside \(root)", isLink: false))
        }
        var fd = Glibc.open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(Failure(folder: root, reason: "cannot open the folder: \(errnoText())", isLink: false)) }
        var walked = String(prefix.dropLast())
        for part in (path.count > prefix.count ? path.dropFirst(prefix.count) : "").split(separator: "/") where part != "." {
            walked += "/" + part
            if creating, mkdirat(fd, String(part), 0o777) != 0, errno != EEXIST {
                let why = errnoText()
                close(fd)
                return .failure(Failure(folder: walked, reason: "cannot create the folder: \(why)", isLink: false))
            }
            let next = openat(fd, String(part), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            let why = errno
            close(fd)
            guard next >= 0 else {
                return .failure(why == ELOOP || why == ENOTDIR
                    ? Failure(folder: walked, reason: "is a link or not a folder; outputs are written only inside \(root), never through a link out of it", isLink: true)
                    : Failure(folder: walked, reason: "cannot open the folder: \(errnoText(why))", isLink: false))
            }
            fd = next
        }
        return .success(fd)
    }
}
