import Foundation
import RecipeHistory
import Testing
import TestSupport

/// Two things at once, as real processes: two `apply` runs on one output folder, two `edit`s of
/// one photo, and a lock held by another program while recipe wants it. Nothing may be
/// lost without a word: every photo rendered once and recorded, every stage kept, or the loser
/// told so with a non-zero exit.
@Suite("two processes at once")
struct ConcurrencyTests: CLITest {

    /// Runs both commands at once and returns both results.
    func together(_ a: [String], _ b: [String]) throws -> (ToolResult, ToolResult) {
        nonisolated(unsafe) var results: [ToolResult?] = [nil, nil]
        nonisolated(unsafe) var failure: (any Error)?
        let group = DispatchGroup()
        for (i, args) in [a, b].enumerated() {
            group.enter()
            DispatchQueue.global().async {
                do { results[i] = try ExternalTool.run(TestPaths.recipeBinary, args) } catch { failure = error }
                group.leave()
            }
        }
        group.wait()
        if let failure { throw failure }
        return (results[0]!, results[1]!)
    }

    /// Another program holding the lock of `path` (flock(2), as flock(1) takes it) for `seconds`,
    /// in one process, so terminating it lets the lock go at once.
    func holdLock(_ path: String, shared: Bool = false, seconds: Double) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: ExternalTool.find("python3")!)
        p.arguments = ["-c", "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDONLY); "
                       + "fcntl.flock(fd, fcntl.\(shared ? "LOCK_SH" : "LOCK_EX")); time.sleep(float(sys.argv[2]))", path, "\(seconds)"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        // Until the kernel lists it as held.
        for _ in 0..<250 {
            if let locks = try? String(contentsOfFile: "/proc/locks", encoding: .utf8), locks.contains(" \(p.processIdentifier) ") { break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return p
    }

    /// Ends a holder at once (SIGKILL: the test runner's children may have SIGTERM blocked).
    func stop(_ p: Process) {
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
    }

    func manifestOutputs(_ out: String) throws -> Set<String> {
        let text = try String(contentsOfFile: out + "/.recipe-manifest.jsonl", encoding: .utf8)
        return Set(text.split(separator: "\n").compactMap {
            ((try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any])?["output"] as? String
        })
    }

    @Test("two applies on one output folder at once: every photo rendered once, none failed, every record kept; the next run renders none")
    func twoApplies() throws {
        let applyTests = ApplyTests()
        let (root, good) = try applyTests.tree("two-applies", count: 24, folders: 4)
        let dir = (root as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let look = try applyTests.recipeFile(dir)
        for round in 0..<4 {
            let out = dir + "/out\(round)"
            let args = ["apply", "--json", "--progress", "none", look, root, "-o", out, "--jobs", "1"]
            let (a, b) = try together(args, args)
            let runs = [a, b].map { r in
                String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").compactMap {
                    (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
                }
            }
            #expect(a.status == 0 && b.status == 0, "round \(round): \(a.stderr) / \(b.stderr)")
            let rendered = runs.flatMap { $0.filter { $0["status"] as? String == "rendered" } }
            let failed = runs.flatMap { $0.filter { $0["status"] as? String == "failed" } }
            #expect(failed.isEmpty, "round \(round): \(failed)")
            #expect(rendered.count == good.count, "round \(round): each photo rendered once between the two runs, not \(rendered.count) times")
            #expect(try manifestOutputs(out).count == good.count, "round \(round): every output recorded")
            let leftovers = try FileManager.default.subpathsOfDirectory(atPath: out).filter { $0.contains(".recipe-tmp-") }
            #expect(leftovers.isEmpty, "round \(round): temporary files left: \(leftovers)")
            let again = try applyTests.apply([look, root, "-o", out])
            #expect(again.status == 0 && again.count("rendered") == 0 && again.count("skipped") == good.count)
        }
    }

    @Test("apply waits for another holder of its output folder, saying so; --no-wait refuses (exit 2); the shards of one split share the folder",
          Requirement.tool("python3"))
    func applyLock() throws {
        let applyTests = ApplyTests()
        let (root, good) = try applyTests.tree("apply-lock", count: 6, folders: 2)
        let dir = (root as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let look = try applyTests.recipeFile(dir)
        let out = dir + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)

        let holder = try holdLock(out, seconds: 30)
        let refused = try recipe(["apply", look, root, "-o", out, "--no-wait"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("another `recipe apply` is writing this folder (pid \(holder.processIdentifier)"), "names the holder: \(refused.stderr)")
        #expect(refused.stderr.contains("nothing done"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).isEmpty, "nothing written")
        stop(holder)

        // A shard run shares the folder with the other shards of its split, not with a whole run.
        let shardHolder = try holdLock(out, shared: true, seconds: 30)
        let shard = try recipe(["apply", look, root, "-o", out, "--shard", "1/2", "--no-wait"])
        #expect(shard.status == 0, "\(shard.stderr)")
        let whole = try recipe(["apply", look, root, "-o", out, "--no-wait"])
        #expect(whole.status == 2)
        stop(shardHolder)

        // Without --no-wait it waits for the holder, says so, then does its work.
        let briefHolder = try holdLock(out, seconds: 1.5)
        let start = Date()
        let waited = try applyTests.apply([look, root, "-o", out])
        #expect(Date().timeIntervalSince(start) >= 1.0, "it waited for the holder")
        #expect(waited.status == 0)
        #expect(waited.stderr.contains("waiting for it to finish"))
        #expect(waited.count("rendered") + waited.count("skipped") == good.count)
        briefHolder.waitUntilExit()
    }

    @Test("two edits of one photo at once: both stages are kept, or the one refused says so and exits non-zero")
    func twoEdits() throws {
        let dir = TestPaths.temporaryDirectory("two-edits").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let photo = dir + "/IMG_0001.jpg"
        for round in 0..<8 {
            try? FileManager.default.removeItem(atPath: photo + ".recipe.yaml")
            if round == 0 { try FileManager.default.copyItem(atPath: TestPaths.fixture("jpeg/pil_hopper.jpg"), toPath: photo) }
            let (a, b) = try together(["edit", photo, "--stage", "exposure: 0.1", "--no-render"],
                                      ["edit", photo, "--stage", "saturation: 0.9", "--no-render"])
            let sidecar = try Sidecar.load(photo + ".recipe.yaml")
            let ops = Set(sidecar.checked.stages.compactMap(\.op))
            for (result, op) in [(a, "exposure"), (b, "saturation")] {
                if result.status == 0 {
                    #expect(ops.contains(op), "round \(round): `\(op)` reported written but lost: \(String(decoding: result.stdout, as: UTF8.self))")
                } else {
                    #expect(result.stderr.contains("nothing written"), "round \(round): a refusal says so: \(result.stderr)")
                }
            }
            #expect(a.status == 0 || b.status == 0, "round \(round): at least one edit goes through")
        }
    }

    @Test("two edits at once, each rendering: the current version on disk is always the render of the sidecar they leave (a slow render finishing last left it without the other stage: 2 of 10 rounds on kodim03)")
    func twoEditsRender() throws {
        let dir = TestPaths.temporaryDirectory("two-edits-render").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let photo = dir + "/IMG_0001.png", current = dir + "/current.png", check = dir + "/check.png"
        try FileManager.default.copyItem(atPath: TestPaths.samples.appendingPathComponent("kodim03.png").path, toPath: photo)
        var stale = 0
        for round in 0..<8 {
            try? FileManager.default.removeItem(atPath: photo + ".recipe.yaml")
            // A slow render (a wide blur) that usually writes its sidecar first, and a quick one
            // started a few milliseconds later, which usually finishes first.
            let slow = Process()
            slow.executableURL = URL(fileURLWithPath: TestPaths.recipeBinary)
            slow.arguments = ["edit", photo, "--stage", "blur: 12px", "-o", current]
            slow.standardOutput = FileHandle.nullDevice
            slow.standardError = FileHandle.nullDevice
            try slow.run()
            Thread.sleep(forTimeInterval: Double(round % 5) * 0.02)
            let quick = try recipe(["edit", photo, "--stage", "saturation: 0.5", "-o", current])
            slow.waitUntilExit()
            #expect(slow.terminationStatus == 0 && quick.status == 0, "round \(round): \(quick.stderr)")
            // What the sidecar they left renders to, by `recipe render` (the sidecar beside the photo).
            _ = try ok(["render", photo, "-o", check])
            if FileManager.default.contents(atPath: current) != FileManager.default.contents(atPath: check) { stale += 1 }
        }
        #expect(stale == 0, "\(stale) of 8 rounds left a current version that is not the sidecar's")
    }

    @Test("edit waits for another holder of the photo's folder, saying so, then keeps its stage",
          Requirement.tool("python3"))
    func editWaits() throws {
        let dir = TestPaths.temporaryDirectory("edit-waits").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let photo = dir + "/IMG_0001.jpg"
        try FileManager.default.copyItem(atPath: TestPaths.fixture("jpeg/pil_hopper.jpg"), toPath: photo)
        let holder = try holdLock(dir, seconds: 1.5)
        let start = Date()
        let r = try recipe(["edit", photo, "--stage", "exposure: 0.2", "--no-render"])
        #expect(Date().timeIntervalSince(start) >= 1.0, "it waited for the holder")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("another process is changing the edits in its folder"))
        #expect(try Sidecar.load(photo + ".recipe.yaml").checked.stages.compactMap(\.op) == ["exposure"])
        holder.waitUntilExit()
    }
}
