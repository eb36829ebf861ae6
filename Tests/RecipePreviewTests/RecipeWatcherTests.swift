import Foundation
import Synchronization
import Testing
import TestSupport
@testable import RecipePreview

/// The watcher must see every way an editor saves: in place, a new file renamed over the old
/// one, and delete then create; with inotify and with the polling fallback.
@Suite("RecipeWatcher", .serialized)
struct RecipeWatcherTests {
    final class Counter: Sendable {
        let count = Mutex(0)
        func bump() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }

        /// Waits up to 3 s for the count to pass `old`.
        func waitPast(_ old: Int) -> Bool {
            for _ in 0..<300 {
                if value > old { return true }
                usleep(10_000)
            }
            return false
        }
    }

    func saves(polling: Bool) throws {
        let folder = TestPaths.temporaryDirectory("preview-watch")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("look.recipe.yaml").path
        try "stages: []\n".write(toFile: path, atomically: false, encoding: .utf8)
        let counter = Counter()
        let watcher = try RecipeWatcher(path: path, pollInterval: 0.05, forcePolling: polling) { counter.bump() }
        defer { watcher.stop() }
        #expect(watcher.mode == (polling ? .polling : .inotify))
        usleep(100_000)

        // An unrelated file in the same folder is not the recipe.
        var n = counter.value
        try "x".write(toFile: folder.appendingPathComponent("other.txt").path, atomically: false, encoding: .utf8)
        usleep(300_000)
        #expect(counter.value == n, "a change to another file")

        n = counter.value
        try "stages: [{exposure: 0.1}]\n".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(counter.waitPast(n), "written in place")

        n = counter.value
        usleep(20_000)
        let temporary = folder.appendingPathComponent(".look.tmp").path
        try "stages: [{exposure: 0.2}]\n".write(toFile: temporary, atomically: false, encoding: .utf8)
        #expect(rename(temporary, path) == 0)
        #expect(counter.waitPast(n), "renamed over")

        n = counter.value
        #expect(unlink(path) == 0)
        usleep(200_000)
        try "stages: [{exposure: 0.3}]\n".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(counter.waitPast(n), "deleted and created again")

        // After the replacements, the watch still holds.
        n = counter.value
        usleep(100_000)
        try "stages: [{exposure: 0.4}]\n".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(counter.waitPast(n), "written in place after being replaced")
    }

    @Test("inotify sees saves in place, renamed over, deleted and created")
    func inotify() throws { try saves(polling: false) }

    @Test("polling sees the same")
    func polling() throws { try saves(polling: true) }
}
