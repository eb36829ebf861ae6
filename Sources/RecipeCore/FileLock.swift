#if canImport(Glibc)
import Glibc
#endif

/// An advisory lock (flock(2)) that coordinates recipe's own writers of one thing: the runs of
/// `apply` writing one output folder, the commands rewriting the sidecars and recipes of one
/// folder. The kernel drops it when the process ends, however it ends, so a killed run leaves no
/// stale lock behind (unlike a lock file made with O_EXCL, which someone must delete).
///
/// ```swift
/// let lock = try FileLock(folder: "out", mode: .exclusive) { holder in
///     print("waiting for \(holder ?? "another process")")
/// }
/// …                      // read, change, write
/// lock.release()         // or let it go out of scope
/// ```
///
/// Other programs (a text editor saving a recipe) do not take it: writers that read, change and
/// write a file also check that it did not change underneath (`FileLock.unchanged`).
public final class FileLock: @unchecked Sendable {
    public enum Mode: Sendable {
        /// Many holders at once (the shards of one batch), none while an exclusive holder has it.
        case shared
        case exclusive
    }

    /// Why a lock was not taken.
    public enum Failure: Error, Sendable {
        /// Someone else holds it and the caller would not wait; the holder as `holders` names it.
        case busy(holder: String?)
        case cannotOpen(String)
    }

    public let path: String
    private var fd: Int32

    /// Locks the folder `path` itself (opened read-only: no file is created, and a folder one may
    /// not write to can still be locked).
    public convenience init(folder path: String, mode: Mode, wait: Bool = true, waiting: (String?) -> Void = { _ in }) throws(Failure) {
        try self.init(path: path, flags: O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC, mode: mode, wait: wait, waiting: waiting)
    }

    /// Locks the file `path`, creating it (empty) when missing. Opened O_NONBLOCK and O_NOFOLLOW:
    /// a FIFO or a link planted at the lock's name fails at once instead of blocking the open.
    public convenience init(file path: String, mode: Mode, wait: Bool = true, waiting: (String?) -> Void = { _ in }) throws(Failure) {
        try self.init(path: path, flags: O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, mode: mode, wait: wait, waiting: waiting)
    }

    /// Takes the lock at once if it is free; else calls `waiting` with the holder (when it can be
    /// named) and blocks until it is free, or throws `.busy` when `wait` is false.
    private init(path: String, flags: Int32, mode: Mode, wait: Bool, waiting: (String?) -> Void) throws(Failure) {
        self.path = path
        fd = open(path, flags, 0o644)
        guard fd >= 0 else { throw .cannotOpen("cannot open \(path) to lock it: \(errnoText())") }
        let op = mode == .exclusive ? LOCK_EX : LOCK_SH
        if flock(fd, op | LOCK_NB) == 0 { return }
        guard errno == EWOULDBLOCK else {
            let why = errnoText()
            close(fd)
            throw .cannotOpen("cannot lock \(path): \(why)")
        }
        let holder = FileLock.holders(of: fd).first
        guard wait else {
            close(fd)
            throw .busy(holder: holder)
        }
        waiting(holder)
        while flock(fd, op) != 0 {
            guard errno == EINTR else {
                let why = errnoText()
                close(fd)
                throw .cannotOpen("cannot lock \(path): \(why)")
            }
        }
    }

    deinit { release() }

    /// Lets the lock go (closing the descriptor); also done when the lock is freed.
    public func release() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
    }

    /// The other processes holding a lock on the same file, as "pid N (command line)", from
    /// /proc/locks. Empty where the kernel does not say (a lock held on another machine over NFS).
    static func holders(of fd: Int32) -> [String] {
        var st = stat()
        guard fstat(fd, &st) == 0, let text = procFile("/proc/locks") else { return [] }
        // "1: FLOCK  ADVISORY  WRITE 12345 08:01:1234567 0 EOF": device major:minor (hex) and inode.
        let dev = UInt64(st.st_dev)
        let major = (dev >> 8) & 0xfff | (dev >> 32) & ~UInt64(0xfff), minor = dev & 0xff | (dev >> 12) & ~UInt64(0xff)
        let key = String(major, radix: 16, uppercase: false).leftPadded(2) + ":" + String(minor, radix: 16).leftPadded(2) + ":\(st.st_ino)"
        let me = getpid()
        var found: [String] = []
        for line in String(decoding: text, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            // A blocked waiter's line starts "1: ->"; only holders are named.
            guard fields.count >= 6, fields[1] == "FLOCK", let pid = Int32(fields[4]), pid != me, fields[5] == key else { continue }
            let command = procFile("/proc/\(pid)/cmdline", limit: 4096)
                .map { String(decoding: $0.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self).trimmingSuffix(" ") } ?? ""
            found.append("pid \(pid)" + (command.isEmpty ? "" : " (\(command))"))
        }
        return found
    }
}

/// A /proc file's bytes (its size says 0: read until the end), up to `limit`.
private func procFile(_ path: String, limit: Int = 1 << 22) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while bytes.count < limit {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0, errno == EINTR { continue }
        guard n > 0 else { break }
        bytes += chunk[..<n]
    }
    return bytes
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }

    fileprivate func trimmingSuffix(_ suffix: Character) -> String {
        var s = self
        while s.last == suffix { s.removeLast() }
        return s
    }
}
