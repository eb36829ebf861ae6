#if canImport(Glibc)
import Glibc
#endif

/// The work list and the finished outcomes between the workers and the main thread.
final class BatchQueue: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var ready = pthread_cond_t()
    private var items: [BatchRun.Item]
    private var nextIndex = 0
    private var outcomes: [BatchRun.Outcome] = []
    private var delivered = 0

    init(_ items: [BatchRun.Item]) {
        self.items = items
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&ready, nil)
    }

    deinit {
        pthread_mutex_destroy(&mutex)
        pthread_cond_destroy(&ready)
    }

    func next() -> BatchRun.Item? {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        guard nextIndex < items.count else { return nil }
        nextIndex += 1
        return items[nextIndex - 1]
    }

    func finish(_ outcome: BatchRun.Outcome) {
        pthread_mutex_lock(&mutex)
        outcomes.append(outcome)
        pthread_cond_signal(&ready)
        pthread_mutex_unlock(&mutex)
    }

    /// The next finished outcome, waiting for one; nil when every item has been delivered.
    func waitForOutcome() -> BatchRun.Outcome? {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        while outcomes.isEmpty {
            if delivered == items.count { return nil }
            pthread_cond_wait(&ready, &mutex)
        }
        delivered += 1
        return outcomes.removeFirst()
    }
}
