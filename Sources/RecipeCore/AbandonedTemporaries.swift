#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The temporary files of writers that were killed (SIGKILL, the OOM killer, a power cut), which
/// no signal handler could remove: `.NAME.recipe-tmp-XXXXXX` beside an output, up to a whole
/// photo's size each. The first output a process writes into a folder removes those of the folder
/// that nobody holds: a live writer holds an exclusive `flock` on its temporary until it is renamed
/// into place (`AtomicOutputFile`), and the kernel releases it when the writer dies, whatever
/// killed it; on NFS the lock is the server's, so another host's writer is seen too. A file
/// younger than a minute is left alone (its writer may not have locked it yet).
///
/// ```swift
/// AbandonedTemporaries.clean("out")   // once per folder and process; later calls return at once
/// ```
public enum AbandonedTemporaries {
    private static let cleaned = Mutex<Set<String>>([])
    /// Below this age a temporary is never removed, held or not.
    static let minimumAge: Int = 60

    /// Removes the abandoned temporaries of `folder`, the first time it is asked for that folder;
    /// returns how many it removed.
    @discardableResult
    public static func clean(_ folder: String) -> Int {
        guard cleaned.withLock({ $0.insert(folder).inserted }), let dir = opendir(folder) else { return 0 }
        defer { closedir(dir) }
        var removed = 0
        let now = time(nil)
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            guard name.hasPrefix("."), let tag = name.firstRange(of: ".recipe-tmp-"), name[tag.upperBound...].count == 6 else { continue }
            let path = folder + "/" + name
            let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            var st = stat()
            guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG, now - st.st_mtim.tv_sec >= minimumAge,
                  flock(fd, LOCK_EX | LOCK_NB) == 0 else { continue }
            if unlink(path) == 0 { removed += 1 }
        }
        return removed
    }
}
