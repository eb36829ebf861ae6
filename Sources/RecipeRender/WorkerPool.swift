import RecipeCore
#if canImport(Glibc)
import Glibc
#endif

/// A fixed set of threads that split a loop over rows with the calling thread: `run(count:)`
/// cuts `0..<count` into one contiguous chunk per thread and returns when all are done. Each
/// index is handled exactly once, by the same code, so results do not depend on the thread
/// count or on timing. One pool serves every point stage of a render, and with threads those
/// stages call `run` from threads of their own: callers take turns (the helpers serve one loop at
/// a time).
///
/// ```swift
/// let pool = WorkerPool(threads: 4)        // the caller and 3 helpers
/// pool.run(count: strip.rowCount) { row in program.run(strip.row(row), …) }
/// ```
public final class WorkerPool: @unchecked Sendable {
    public let threads: Int
    private var mutex = pthread_mutex_t()
    /// Held by a caller for its whole `run`, so two callers never share the helpers at once.
    private var turn = pthread_mutex_t()
    private var wake = pthread_cond_t()
    private var done = pthread_cond_t()
    private var generation = 0
    private var pending = 0
    private var stopping = false
    private var body: ((Int, Range<Int>) -> Void)?
    private var count = 0
    private var helpers: [WorkerThread] = []

    /// `threads` counts the caller: 1 runs everything on the calling thread.
    public init(threads: Int) {
        self.threads = max(1, threads)
        pthread_mutex_init(&mutex, nil)
        pthread_mutex_init(&turn, nil)
        pthread_cond_init(&wake, nil)
        pthread_cond_init(&done, nil)
        for index in 1..<self.threads {
            let box = Unchecked(self)
            helpers.append(WorkerThread { box.value.helperLoop(index) })
        }
    }

    deinit {
        pthread_mutex_destroy(&mutex)
        pthread_mutex_destroy(&turn)
        pthread_cond_destroy(&wake)
        pthread_cond_destroy(&done)
    }

    /// Stops the helper threads (call once, before the pool is dropped: they hold it).
    public func shutdown() {
        pthread_mutex_lock(&mutex)
        stopping = true
        pthread_cond_broadcast(&wake)
        pthread_mutex_unlock(&mutex)
        for helper in helpers { helper.join() }
        helpers = []
    }

    /// The rows of chunk `index` of `count` split `threads` ways.
    private func chunk(_ index: Int, of count: Int) -> Range<Int> {
        (count * index / threads)..<(count * (index + 1) / threads)
    }

    /// Calls `body(i)` for every i in `0..<count`, split across the threads. Safe to call from
    /// several threads at once: they take turns.
    public func run(count: Int, _ body: @escaping (Int) -> Void) {
        runChunks(count: count) { _, rows in
            for i in rows { body(i) }
        }
    }

    /// Calls `body(worker, rows)` once for each thread's contiguous chunk of `0..<count`, `worker`
    /// in `0..<threads` naming the chunk (the same worker's chunks never run at once: state kept
    /// per worker, a pass's colour cache, needs no lock). Empty chunks are skipped.
    public func runChunks(count: Int, _ body: @escaping (_ worker: Int, _ rows: Range<Int>) -> Void) {
        guard threads > 1, count > 1 else {
            if count > 0 { body(0, 0..<count) }
            return
        }
        // Without the turn, a second caller overwrote body, count and pending while the helpers
        // served the first: a helper could miss a generation and the first caller waited for
        // ever (seen as a hang of `render --threads 8` on soft-glow, two point stages on two
        // threads), or run one caller's body over the other's count.
        pthread_mutex_lock(&turn)
        defer { pthread_mutex_unlock(&turn) }
        pthread_mutex_lock(&mutex)
        if stopping {
            // Shut down while a stage's thread still runs (it reads ahead of a consumer that has
            // stopped, as a straighten does under a crop): no helpers are left to wait for.
            pthread_mutex_unlock(&mutex)
            body(0, 0..<count)
            return
        }
        self.body = body
        self.count = count
        pending = threads - 1
        generation += 1
        pthread_cond_broadcast(&wake)
        pthread_mutex_unlock(&mutex)
        let first = chunk(0, of: count)
        if !first.isEmpty { body(0, first) }
        pthread_mutex_lock(&mutex)
        while pending > 0 { pthread_cond_wait(&done, &mutex) }
        self.body = nil
        pthread_mutex_unlock(&mutex)
    }

    private func helperLoop(_ index: Int) {
        var seen = 0
        while true {
            pthread_mutex_lock(&mutex)
            while generation == seen && !stopping { pthread_cond_wait(&wake, &mutex) }
            // A loop handed out before the shutdown is still served: its caller waits for it.
            if generation == seen { pthread_mutex_unlock(&mutex); return }
            seen = generation
            let body = self.body!, count = self.count
            pthread_mutex_unlock(&mutex)
            let rows = chunk(index, of: count)
            if !rows.isEmpty { body(index, rows) }
            pthread_mutex_lock(&mutex)
            pending -= 1
            if pending == 0 { pthread_cond_signal(&done) }
            pthread_mutex_unlock(&mutex)
        }
    }
}
