#if canImport(Glibc)
import Glibc
#endif

/// What `stat(2)` says about a file, enough to tell that it has not been touched since it was
/// hashed (as git's index does): size, modification time in nanoseconds, inode and device.
///
/// ```swift
/// let s = FileStat.of("IMG_0001.JPG")   // FileStat(size: 2318841, mtime: 1763720417123456789, …)
/// ```
public struct FileStat: Equatable, Sendable {
    public var size: Int
    /// Modification time, nanoseconds since 1970.
    public var mtime: Int64
    public var inode: UInt64
    public var device: UInt64

    public init(size: Int, mtime: Int64, inode: UInt64, device: UInt64) {
        self.size = size
        self.mtime = mtime
        self.inode = inode
        self.device = device
    }

    /// The stat of a regular file (following symbolic links); nil for anything else or none.
    public static func of(_ path: String) -> FileStat? {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return FileStat(st)
    }

    init(_ st: stat) {
        size = Int(st.st_size)
        mtime = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        inode = UInt64(st.st_ino)
        device = UInt64(st.st_dev)
    }

    /// Nanoseconds since 1970, now.
    public static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}
