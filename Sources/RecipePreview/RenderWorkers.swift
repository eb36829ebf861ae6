import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Threads of their own for renders, so a render never blocks Swift's cooperative pool (on two
/// cores that pool has two threads, and the server's request handling runs on it). The live render
/// of a save goes before thumbnails; a queued job that is no longer wanted when its turn comes
/// (`stillWanted` false: a newer save made it stale) is dropped with nil.
///
/// ```swift
/// let workers = RenderWorkers(threads: 2)
/// let jpeg = await workers.run(.live) { renderer.render(...) }
/// ```
package final class RenderWorkers: Sendable {
    package enum Priority: Sendable { case live, background }

    private struct Job {
        var stillWanted: @Sendable () -> Bool
        var body: @Sendable (Bool) -> Void
    }
    private struct Queues {
        var live: [Job] = []
        var background: [Job] = []
    }
    private let queues = Mutex(Queues())
    nonisolated(unsafe) private let ready: UnsafeMutablePointer<sem_t>

    package init(threads: Int) {
        ready = .allocate(capacity: 1)
        sem_init(ready, 0, 0)
        for _ in 0..<max(1, threads) {
            Thread.start { [self] in while true { self.next() } }
        }
    }

    private func next() {
        while sem_wait(ready) != 0 {}
        guard let job = queues.withLock({ q -> Job? in
            if !q.live.isEmpty { return q.live.removeFirst() }
            if !q.background.isEmpty { return q.background.removeFirst() }
            return nil
        }) else { return }
        job.body(job.stillWanted())
    }

    /// Runs `body` on a render thread; nil when the job was dropped as stale before it started.
    package func run<T: Sendable>(_ priority: Priority, stillWanted: @escaping @Sendable () -> Bool = { true },
                                  _ body: @escaping @Sendable () -> T) async -> T? {
        await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            let job = Job(stillWanted: stillWanted) { wanted in continuation.resume(returning: wanted ? body() : nil) }
            queues.withLock { q in
                switch priority {
                case .live: q.live.append(job)
                case .background: q.background.append(job)
                }
            }
            sem_post(ready)
        }
    }
}
