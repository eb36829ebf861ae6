import Glibc
import RecipeRender
import Testing

/// Per-caller tallies: `run` hands each index to one thread, so the slots of one caller are
/// written by one thread at a time and need no lock.
private final class Tally: @unchecked Sendable {
    let counts: UnsafeMutablePointer<Int>
    let size: Int
    init(size: Int) {
        self.size = size
        counts = .allocate(capacity: size)
        counts.initialize(repeating: 0, count: size)
    }
    deinit { counts.deallocate() }
}

@Suite("Worker pool")
struct WorkerPoolTests {
    @Test("every index once per run, for any thread count")
    func eachIndexOnce() {
        for threads in [1, 2, 3, 8] {
            let pool = WorkerPool(threads: threads)
            defer { pool.shutdown() }
            for count in [0, 1, 2, 7, 64, 1000] {
                let tally = Tally(size: max(1, count))
                pool.run(count: count) { i in tally.counts[i] += 1 }
                let wrong = (0..<count).filter { tally.counts[$0] != 1 }
                #expect(wrong.isEmpty, "threads \(threads), count \(count): indices \(wrong.prefix(5)) not run once")
            }
        }
    }

    @Test("runChunks: one contiguous chunk a worker, the workers distinct, every index once")
    func chunks() {
        for threads in [1, 2, 3, 8] {
            let pool = WorkerPool(threads: threads)
            defer { pool.shutdown() }
            for count in [0, 1, 2, 7, 64, 1000] {
                let tally = Tally(size: max(1, count)), workers = Tally(size: threads)
                pool.runChunks(count: count) { worker, rows in
                    workers.counts[worker] += 1
                    for i in rows { tally.counts[i] = worker + 1 }
                }
                #expect((0..<threads).allSatisfy { workers.counts[$0] <= 1 }, "threads \(threads), count \(count): a worker ran twice")
                #expect((0..<count).allSatisfy { tally.counts[$0] > 0 }, "threads \(threads), count \(count): an index was not run")
                // Contiguous and in worker order: the worker numbers never go down along the indices.
                #expect(count < 2 || (1..<count).allSatisfy { tally.counts[$0] >= tally.counts[$0 - 1] })
            }
        }
    }

    // One pool serves all the point stages of a render, each on its own thread. Before callers
    // took turns this hung (or ran one caller's body over another's count) within a few hundred
    // runs; each caller here makes 3,000.
    // The limit catches a hang, not slowness: alone this takes under a second, but beside the
    // whole suite on 2 busy cores it once passed 60 s.
    @Test("callers on several threads take turns", .timeLimit(.minutes(4)))
    func concurrentCallers() {
        let pool = WorkerPool(threads: 4)
        defer { pool.shutdown() }
        let callers = 4, runs = 3000
        let tallies = (0..<callers).map { c in Tally(size: 16 + 9 * c) }
        let threads = (0..<callers).map { c in
            let tally = tallies[c]
            return WorkerThread {
                for _ in 0..<runs {
                    pool.run(count: tally.size) { i in tally.counts[i] += 1 }
                }
            }
        }
        for thread in threads { thread.join() }
        for (c, tally) in tallies.enumerated() {
            let wrong = (0..<tally.size).filter { tally.counts[$0] != runs }
            #expect(wrong.isEmpty, "caller \(c): indices \(wrong.prefix(5)) not run \(runs) times")
        }
    }

    // A render shuts its pool down when the encoder has every row, while a stage's own thread
    // may still be making rows nobody will read (a straighten under a crop of its top part).
    // That thread's run waited for helpers that had left: `render` of square-crop hung.
    @Test("a pool shut down under a running caller serves it, and runs later calls on the caller", .timeLimit(.minutes(4)))
    func shutdownWhileRunning() {
        for _ in 0..<200 {
            let pool = WorkerPool(threads: 3)
            let tally = Tally(size: 64)
            let caller = WorkerThread {
                for _ in 0..<20 { pool.run(count: tally.size) { i in tally.counts[i] += 1 } }
            }
            pool.shutdown()
            caller.join()
            let wrong = (0..<tally.size).filter { tally.counts[$0] != 20 }
            #expect(wrong.isEmpty, "indices \(wrong.prefix(5)) not run 20 times")
        }
    }
}
