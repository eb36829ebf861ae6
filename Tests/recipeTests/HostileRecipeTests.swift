import Foundation
import Testing
import TestSupport

/// Recipes from strangers that ask for unbounded work: a LUT that is a FIFO (opening it waits for
/// a writer for ever), a resize to ten billion pixels. Each is refused at once with a message
/// naming the problem; nothing is written.
@Suite("hostile recipes: refused at once")
struct HostileRecipeTests: CLITest {
    /// Runs `recipe args` and returns the result and the seconds it took.
    func timed(_ args: [String]) throws -> (ToolResult, Double) {
        let start = Date()
        let r = try recipe(args)
        return (r, Date().timeIntervalSince(start))
    }

    @Test("a LUT that is a FIFO: check, render, explain and apply refuse it (R227) in seconds, never waiting on the pipe")
    func fifoLUT() throws {
        let dir = TestPaths.temporaryDirectory("fifo-lut").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(mkfifo(dir + "/look.cube", 0o644) == 0)
        let look = dir + "/look.recipe.yaml"
        try write("format: dev.recipe.edit\nversion: 1.1\nstages:\n  - lut: {file: look.cube}\n", look)
        let photo = TestPaths.fixture("jpeg/pil_hopper.jpg")
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: photo, toPath: dir + "/in/a.jpg")
        for args in [["check", look], ["render", photo, "--recipe", look, "-o", dir + "/out.jpg"],
                     ["explain", look, "--photo", photo], ["apply", look, dir + "/in", "-o", dir + "/out"]] {
            let (r, seconds) = try timed(args)
            #expect(r.status == 2, "\(args[0]): exit \(r.status): \(r.stderr)")
            let said = String(decoding: r.stdout, as: UTF8.self) + r.stderr  // `check` prints diagnostics on stdout
            #expect(said.contains("R227") && said.contains("which is a FIFO (named pipe), not a regular file"), "\(args[0]): \(said)")
            #expect(seconds < 5, "\(args[0]) took \(seconds) s")
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/out.jpg"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/out/a.jpg"))
    }

    @Test("a resize to 100000×100000: check warns (R303); render refuses before decoding, in seconds, writing nothing; --max-pixels decides")
    func oversizeResize() throws {
        let dir = TestPaths.temporaryDirectory("oversize").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let huge = dir + "/huge.recipe.yaml"
        try write("format: dev.recipe.edit\nversion: 1.1\nstages:\n  - resize: {width: 100000, height: 100000}\n", huge)
        let check = try recipe(["check", huge])
        #expect(check.status == 0)
        #expect(check.stderr.contains("warning[R303]") || String(decoding: check.stdout, as: UTF8.self).contains("warning[R303]"))
        let photo = TestPaths.fixture("jpeg/pil_hopper.jpg")
        for ext in ["tif", "jpg", "png"] {
            let (r, seconds) = try timed(["render", photo, "--recipe", huge, "-o", dir + "/out." + ext])
            #expect(r.status == 1, "\(ext): \(r.stderr)")
            #expect(r.stderr.contains("resize (stage 1) makes a 100000×100000 image") && r.stderr.contains("--max-pixels"), "\(r.stderr)")
            #expect(seconds < 5)
            #expect(!FileManager.default.fileExists(atPath: dir + "/out." + ext))
        }
        // The limit is --max-pixels: a 2000×2000 resize passes by default and is refused under 1 MP.
        try write("format: dev.recipe.edit\nversion: 1.1\nstages:\n  - resize: {width: 2000, height: 2000}\n", huge)
        _ = try ok(["render", photo, "--recipe", huge, "-o", dir + "/ok.jpg"])
        let small = try recipe(["render", photo, "--recipe", huge, "-o", dir + "/no.jpg", "--max-pixels", "1000000"])
        #expect(small.status == 1 && small.stderr.contains("2000×2000"))
    }

    @Test("a 3D LUT too large for --max-memory is refused from its header, before it is read: exit 1 in seconds; a small one renders under the same budget")
    func lutOverBudget() throws {
        let dir = TestPaths.temporaryDirectory("lut-budget").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // The header declares 256³ (about 400 MB of table, parsed and copied): the rows need not follow.
        try write("TITLE \"huge\"\nLUT_3D_SIZE 256\n0 0 0\n", dir + "/huge.cube")
        try write("format: dev.recipe.edit\nversion: 1.1\nstages:\n  - lut: {file: huge.cube}\n", dir + "/huge.recipe.yaml")
        let photo = TestPaths.fixture("jpeg/pil_hopper.jpg")
        let (r, seconds) = try timed(["render", photo, "--recipe", dir + "/huge.recipe.yaml", "-o", dir + "/out.jpg", "--max-memory", "300M"])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("a 3D LUT of 256³ needs about") && r.stderr.contains("--max-memory"), "\(r.stderr)")
        #expect(seconds < 5)
        #expect(!FileManager.default.fileExists(atPath: dir + "/out.jpg"))
        // 17³, written out in full, renders under the same budget.
        var cube = "LUT_3D_SIZE 17\n"
        for b in 0..<17 { for g in 0..<17 { for r in 0..<17 { cube += "\(Double(r) / 16) \(Double(g) / 16) \(Double(b) / 16)\n" } } }
        try write(cube, dir + "/small.cube")
        try write("format: dev.recipe.edit\nversion: 1.1\nstages:\n  - lut: {file: small.cube}\n", dir + "/small.recipe.yaml")
        _ = try ok(["render", photo, "--recipe", dir + "/small.recipe.yaml", "-o", dir + "/small.jpg", "--max-memory", "300M"])
    }

    @Test("--timeout stops a render that runs too long (exit 1, nothing written) and, in apply, fails that photo while the batch goes on")
    func timeout() throws {
        let dir = TestPaths.temporaryDirectory("timeout").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // 64 million pixels out of a small photo: seconds of work in a debug build.
        let slow = dir + "/slow.recipe.yaml"
        try write("format: dev.recipe.edit\nversion: 1.1\nstages:\n  - resize: {width: 8000, height: 8000}\n  - blur: 2px\n", slow)
        let photo = TestPaths.fixture("jpeg/pil_hopper.jpg")
        let (r, seconds) = try timed(["render", photo, "--recipe", slow, "-o", dir + "/out.png", "--timeout", "0.3"])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("took longer than --timeout 0.3 s; stopped, nothing written"), "\(r.stderr)")
        #expect(seconds < 10)
        #expect(!FileManager.default.fileExists(atPath: dir + "/out.png"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).allSatisfy { !$0.contains(".recipe-tmp-") }, "a temporary file was left")

        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        for name in ["a.jpg", "b.jpg", "c.jpg"] { try FileManager.default.copyItem(atPath: photo, toPath: dir + "/in/" + name) }
        let batch = try recipe(["apply", slow, dir + "/in", "-o", dir + "/out", "--timeout", "0.3", "--jobs", "1"])
        #expect(batch.status == 1)
        #expect(batch.stderr.contains("rendered 0, up to date 0, failed 3"), "\(batch.stderr)")
        #expect(batch.stderr.components(separatedBy: "took longer than --timeout").count == 4, "each photo named with the reason")
        // A generous limit changes nothing.
        let quick = dir + "/quick.recipe.yaml"
        try write("format: dev.recipe.edit\nversion: 1.1\nstages:\n  - exposure: 0.2\n", quick)
        _ = try ok(["apply", quick, dir + "/in", "-o", dir + "/out2", "--timeout", "60"])
        #expect(FileManager.default.fileExists(atPath: dir + "/out2/c.jpg"))
    }
}
