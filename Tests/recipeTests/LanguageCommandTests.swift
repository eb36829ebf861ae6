import Foundation
import RecipeCore
import RecipeLanguage
import Testing
import TestSupport

/// `recipe check / fmt / migrate / explain / ops / schema` as a user runs them.
@Suite("recipe check / fmt / migrate / explain / ops")
struct LanguageCommandTests: CLITest {
    func folder(_ files: [String: String]) throws -> URL {
        let dir = TestPaths.temporaryDirectory("lang")
        for (name, text) in files {
            let url = dir.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        return dir
    }

    static let good = "format: dev.recipe.edit\nversion: 1.1\nstages:\n  - exposure: 0.3\n"
    static let bad = "format: dev.recipe.edit\nversion: 1.1\nstages:\n  - saturaton: 1.2\n  - exposure: 12\n"

    @Test("check: exit 0 on clean files, 2 with errors; every error of every file is printed with a caret")
    func check() throws {
        let dir = try folder(["a/good.recipe.yaml": Self.good, "b/bad.recipe.yaml": Self.bad, "notes.txt": "not a recipe"])
        defer { try? FileManager.default.removeItem(at: dir) }
        let ok = try recipe(["check", dir.appendingPathComponent("a").path])
        #expect(ok.status == 0)
        #expect(ok.stderr.contains("checked 1 file: no errors"))
        let r = try recipe(["check", dir.path])
        #expect(r.status == 2)  // recipe errors (the exit-status table)
        let out = String(decoding: r.stdout, as: UTF8.self)
        #expect(out.contains("bad.recipe.yaml:4:5: error[R204]: unknown operation `saturaton`"))
        #expect(out.contains("  |     ^~~~~~~~~"))
        #expect(out.contains("= note: did you mean `saturation`?"))
        #expect(out.contains("bad.recipe.yaml:5:15: error[R207]"))
        #expect(r.stderr.contains("checked 2 files: 2 errors in 1 file"))
        #expect(!out.contains("notes.txt"))
    }

    @Test("check --format json: one object per diagnostic with position, code and notes")
    func checkJSON() throws {
        let dir = try folder(["bad.recipe.yaml": Self.bad])
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try recipe(["check", "--format", "json", dir.appendingPathComponent("bad.recipe.yaml").path])
        #expect(r.status == 2)
        let lines = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 2)
        let first = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(first["code"] as? String == "R204")
        #expect(first["line"] as? Int == 4 && first["column"] as? Int == 5)
        #expect(first["severity"] as? String == "error")
        #expect((first["notes"] as? [[String: Any]])?.first?["message"] as? String == "did you mean `saturation`?")
    }

    @Test("check: a missing file is an error naming it; a usage error exits 2")
    func missing() throws {
        let r = try recipe(["check", "/nonexistent/x.recipe.yaml"])
        #expect(r.status == 2)
        #expect(String(decoding: r.stdout, as: UTF8.self).contains("/nonexistent/x.recipe.yaml"))
        #expect(try recipe(["check", "--format", "xml", "x"]).status == 2)
    }

    @Test("fmt rewrites in place, keeps comments, --check lists what is not canonical; files with errors are refused")
    func fmt() throws {
        let messy = "# look\nformat: dev.recipe.edit\nversion: 1.1\nstages:\n  - exposure: {ev: 0.30}   # brighter\n  - white-balance: {tint: 8.0, temp: 5200}\n"
        let dir = try folder(["m.recipe.yaml": messy, "bad.recipe.yaml": Self.bad])
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("m.recipe.yaml").path
        let check = try recipe(["fmt", "--check", path])
        #expect(check.status == 1)
        #expect(String(decoding: check.stdout, as: UTF8.self) == path + "\n")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == messy, "--check wrote the file")
        #expect(try recipe(["fmt", path]).status == 0)
        let formatted = try String(contentsOfFile: path, encoding: .utf8)
        #expect(formatted == "# look\nformat: dev.recipe.edit\nversion: 1.1\nstages:\n  - exposure: 0.3  # brighter\n  - white-balance: {temp: 5200, tint: 8}\n")
        #expect(try recipe(["fmt", "--check", path]).status == 0)
        let refused = try recipe(["fmt", dir.appendingPathComponent("bad.recipe.yaml").path])
        #expect(refused.status == 2)  // a recipe error: nothing done (the exit-status table)
        #expect(refused.stderr.contains("fix the errors first"))
        #expect(try String(contentsOfFile: dir.appendingPathComponent("bad.recipe.yaml").path, encoding: .utf8) == Self.bad)
    }

    @Test("fmt formats a recipe whose .cube file is missing (check is where missing files are reported)")
    func fmtWithoutLUT() throws {
        let text = "format: dev.recipe.edit\nversion: 1.1\nstages:\n  - lut: {file: looks/film.cube, amount: 0.80}\n"
        let dir = try folder(["nolut.recipe.yaml": text])
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("nolut.recipe.yaml").path
        let r = try recipe(["fmt", path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("amount: 0.8}"))
        let check = try recipe(["check", path])
        let said = String(decoding: check.stdout, as: UTF8.self) + check.stderr
        #expect(check.status != 0 && said.contains("R220"), "\(said)")
    }

    @Test("migrate rewrites a 1.0 recipe to the current version as a visible diff of the migrated spans only; --check lists it first; a 1.1 file with nothing to migrate is left alone")
    func migrate() throws {
        let old = "format: dev.recipe.edit\nversion: 1.0\nstages:\n  - vignette: {intensity: 0.8}\n"
        let dir = try folder(["old.recipe.yaml": old])
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("old.recipe.yaml").path
        #expect(try recipe(["migrate", "--check", path]).status == 1)
        let r = try recipe(["migrate", path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("1.0 → 1.5"))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "format: dev.recipe.edit\nversion: 1.5\nstages:\n  - vignette: {amount: 0.8}\n")
        #expect(try recipe(["migrate", "--check", path]).status == 0)
        // 1.2 only added `develop` (1.3 `lens`, 1.4 measured `auto`, 1.5 `denoise`): a 1.1 file without them is current enough; one with it moves its version.
        let plain = "format: dev.recipe.edit\nversion: 1.1\nstages:\n  - exposure: 0.3\n"
        let raw = "format: dev.recipe.edit\nversion: 1.1\nstages:\n  - develop: daylight\n"
        try plain.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try recipe(["migrate", "--check", path]).status == 0)
        #expect(try recipe(["fmt", "--check", path]).status == 0, "fmt leaves a 1.1 file at 1.1")
        try raw.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try recipe(["migrate", "--check", path]).status == 1)
        #expect(try recipe(["migrate", path]).status == 0)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == raw.replacingOccurrences(of: "1.1", with: "1.5"))
    }

    @Test("explain prints the typed graph with sizes; --dot gives Graphviz")
    func explain() throws {
        let text = "format: dev.recipe.edit\nversion: 1.1\nstages:\n  - exposure: 0.3\n  - resize: {long-edge: 2048}\n"
        let dir = try folder(["e.recipe.yaml": text])
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("e.recipe.yaml").path
        let r = try recipe(["explain", path, "--size", "3000x2000"])
        #expect(r.status == 0, "\(r.stderr)")
        let out = String(decoding: r.stdout, as: UTF8.self)
        #expect(out.contains("#2 resize"))
        #expect(out.contains("2048×1365"))
        #expect(out.contains("output: #2 2048×1365"))
        let dot = String(decoding: try recipe(["explain", path, "--dot"]).stdout, as: UTF8.self)
        #expect(dot.hasPrefix("digraph recipe {"))
        #expect(dot.contains("n1 -> n2"))
    }

    @Test("explain prints the plan that renders once (--passes: after each optimiser pass); a long op name keeps a space before its size")
    func explainPlanOnce() throws {
        let text = "format: dev.recipe.edit\nversion: 1.1\nstages:\n  - exposure: 0.3\n  - shadows-highlights: {shadows: 0.3}\n  - contrast: 1.1\n"
        let dir = try folder(["p.recipe.yaml": text])
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("p.recipe.yaml").path
        let out = try ok(["explain", path, "--size", "1800x1200"])
        // The graph's table: the 18-character name was run into its size (`shadows-highlights1800×1200`).
        #expect(out.contains("#2 shadows-highlights 1800×1200"), "\(out)")
        #expect(!out.contains("shadows-highlights1800"), "\(out)")
        // One plan, not the eight passes' (each of which printed the plan again).
        #expect(!out.contains("LowerPointOps:") && !out.contains("FusePointRuns:"), "\(out)")
        #expect(out.components(separatedBy: "pass 1:").count == 2, "the plan once: \(out)")
        let passes = try ok(["explain", path, "--size", "1800x1200", "--passes"])
        for pass in ["LowerPointOps:", "DropIdentities:", "FusePointRuns:"] { #expect(passes.contains(pass), "--passes: no \(pass)") }
        // The last pass's plan is the plan printed without --passes.
        let last = try #require(passes.components(separatedBy: "FusePointRuns:\n").last)
        let once = try #require(out.components(separatedBy: "optimiser pass):\n").last)
        #expect(last == once, "the plan differs from the last pass's:\n\(once)\n---\n\(last)")
    }

    @Test("explain says which Gaussians run on a coarser grid (from σ 16 px)")
    func explainCoarseGrid() throws {
        let text = "format: dev.recipe.edit\nversion: 1.1\nstages:\n  - clarity: 0.3\n  - sharpen: {amount: 1, sigma: 15px}\n"
        let dir = try folder(["g.recipe.yaml": text])
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try recipe(["explain", dir.appendingPathComponent("g.recipe.yaml").path, "--size", "6000x4000"])
        #expect(r.status == 0, "\(r.stderr)")
        let out = String(decoding: r.stdout, as: UTF8.self)
        // clarity: σ 2% of the 4000-px short side.
        #expect(out.contains("unsharp σ 80 px on a grid 10× coarser amount 0.3"), "\(out)")
        #expect(out.contains("unsharp σ 15 px amount 1"), "\(out)")
    }

    @Test("explain says which passes run inside the neighbourhood stages beside them")
    func explainRunTimeFusion() throws {
        // A contrast (encoded) before shadows/highlights (linear: an exposure follows it), a
        // sharpen (encoded), a vibrance (encoded), a blur (linear): the pass before
        // shadows/highlights leaves its → linear to it, the exposure and → encoded after it run
        // as tables on the rows it emits, the vibrance and → linear (not all per-channel) as
        // their pass on the rows the sharpen emits. A blur after a branch point reads its
        // → linear as it reads rows. Each is the plan's pass number.
        let text = "format: dev.recipe.edit\nversion: 1.1\nstages:\n  - contrast: 1.1\n"
            + "  - shadows-highlights: {shadows: 0.3}\n  - exposure: 0.1\n  - sharpen: {amount: 0.5, sigma: 1px}\n  - vibrance: 0.2\n"
            + "  - blur: {sigma: 2px}\n  - saturation: 1.1\n"
        // (A saturation before the branch point: per-channel steps would move to its readers
        // instead, `BranchFromSource`, and the blur's reader would read the photo's codes.)
        let glow = "format: dev.recipe.edit\nversion: 1.1\nstages:\n  - id: base\n    saturation: 1.1\n  - id: glow\n    input: base\n"
            + "    blur: 4px\n  - input: base\n    blend: {with: glow, mode: screen, opacity: 0.5}\n"
        let dir = try folder(["f.recipe.yaml": text, "g.recipe.yaml": glow])
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try recipe(["explain", dir.appendingPathComponent("f.recipe.yaml").path, "--size", "3000x2000"])
        #expect(r.status == 0, "\(r.stderr)")
        let out = String(decoding: r.stdout, as: UTF8.self)
        #expect(out.contains("at run time: pass 1 leaves its last → linear to pass 2, which takes its mask from the encoded rows"), "\(out)")
        #expect(out.contains("at run time: pass 3 (matrix, → encoded) runs inside pass 2, on each row it emits"), "\(out)")
        #expect(out.contains("at run time: pass 5 (vibrance, → linear) runs inside pass 4, on each row it emits"), "\(out)")
        // The last pass, writing the encoder's 8-bit codes, runs inside the blur before it.
        #expect(out.contains("at run time: pass 7 (matrix, → encoded) runs inside pass 6, on each row it emits"), "\(out)")
        let g = String(decoding: try recipe(["explain", dir.appendingPathComponent("g.recipe.yaml").path, "--size", "3000x2000"]).stdout,
                       as: UTF8.self)
        #expect(g.contains("at run time: pass 4 (→ linear) runs inside pass 5, on each row it reads"), "\(g)")
        let unfused = String(decoding: try recipe(["explain", dir.appendingPathComponent("f.recipe.yaml").path, "--no-fuse"]).stdout, as: UTF8.self)
        #expect(!unfused.contains("at run time"))
    }

    @Test("ops lists every operation; ops NAME shows parameters; an unknown name suggests one")
    func ops() throws {
        let list = String(decoding: try recipe(["ops"]).stdout, as: UTF8.self)
        #expect(list.split(separator: "\n").filter { $0.hasPrefix("white-balance ") || $0.hasPrefix("exposure ") }.count == 2)
        let one = try recipe(["ops", "white-balance"])
        #expect(String(decoding: one.stdout, as: UTF8.self).contains("temp *"))
        let unknown = try recipe(["ops", "saturaton"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("did you mean `saturation`?"))
    }

    @Test("schema prints valid JSON of draft 2020-12")
    func schema() throws {
        let r = try recipe(["schema"])
        let json = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        #expect(json["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema")
    }
}
