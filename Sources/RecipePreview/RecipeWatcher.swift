import RecipeCore
#if canImport(Glibc)
import Glibc
#endif

/// Calls `changed` when a file may have new contents: after an editor writes it in place, renames
/// a temporary file over it (an atomic save), or deletes and creates it again. It watches the
/// file's *folder* with inotify, for the events naming the file, so the watch survives the file
/// being replaced; where inotify cannot be had (`RECIPE_PREVIEW_POLL=1` forces this) it polls the
/// file's stat (inode, size, modification time) every `pollInterval`. Bursts of events (an editor
/// writing in pieces) are settled for `settle` before one call. The caller compares contents: a
/// call means "look again", not "it differs".
///
/// ```swift
/// let watcher = try RecipeWatcher(path: "look.recipe.yaml") { print("look again") }
/// watcher.stop()
/// ```
package final class RecipeWatcher: Sendable {
    package enum Mode: String, Sendable { case inotify, polling }

    package let path: String
    package let mode: Mode
    private let stopped = CancelFlag()

    package init(path: String, pollInterval: Double = 0.1, settle: Double = 0.01, forcePolling: Bool = false,
                 changed: @escaping @Sendable () -> Void) throws {
        self.path = path
        let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let fd = forcePolling || getenv("RECIPE_PREVIEW_POLL") != nil ? -1 : inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        var watch: Int32 = -1
        if fd >= 0 {
            let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MODIFY | IN_ATTRIB)
            watch = inotify_add_watch(fd, folder.isEmpty ? "/" : folder, mask)
            if watch < 0 { close(fd) }
        }
        mode = watch >= 0 ? .inotify : .polling
        let stopped = self.stopped
        if watch >= 0 {
            Thread.start { Self.readEvents(fd: fd, name: name, settle: settle, stopped: stopped, changed: changed) }
        } else {
            Thread.start { Self.pollStat(path: path, interval: pollInterval, stopped: stopped, changed: changed) }
        }
    }

    /// Ends the watch (within one poll interval or 200 ms).
    package func stop() { stopped.cancel() }

    private static func readEvents(fd: Int32, name: String, settle: Double, stopped: CancelFlag, changed: @Sendable () -> Void) {
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var pending = false
        while !stopped.isCancelled {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            // While a change is pending, wait only `settle` for more events of the same burst.
            let ready = Glibc.poll(&p, 1, pending ? Int32(settle * 1000) : Int32(200))
            if ready == 0 {
                if pending { pending = false; changed() }
                continue
            }
            if ready < 0 { if errno == EINTR { continue } else { return } }
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { continue }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= n {
                let (length, named) = buffer.withUnsafeBytes { raw -> (Int, String) in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    let start = offset + MemoryLayout<inotify_event>.size
                    let bytes = raw[start..<min(n, start + Int(event.len))].prefix { $0 != 0 }
                    return (Int(event.len), String(decoding: bytes, as: UTF8.self))
                }
                if named == name { pending = true }
                offset += MemoryLayout<inotify_event>.size + length
            }
        }
    }

    private static func pollStat(path: String, interval: Double, stopped: CancelFlag, changed: @Sendable () -> Void) {
        func signature() -> [Int] {
            var st = stat()
            guard stat(path, &st) == 0 else { return [] }
            return [Int(st.st_ino), Int(st.st_size), Int(st.st_mtim.tv_sec), Int(st.st_mtim.tv_nsec), Int(st.st_ctim.tv_nsec)]
        }
        var last = signature()
        while !stopped.isCancelled {
            usleep(UInt32(interval * 1e6))
            let now = signature()
            if now != last { last = now; changed() }
        }
    }
}

/// A detached POSIX thread running a closure (no Foundation here).
enum Thread {
    static func start(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { raw in
            Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, box)
        precondition(result == 0, "pthread_create failed: \(result)")
        pthread_detach(thread)
    }
}

private final class ThreadBody {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}
