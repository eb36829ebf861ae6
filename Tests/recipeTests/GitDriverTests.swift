import Foundation
import Testing
import TestSupport

/// `recipe diff --git` and `recipe merge-file` as git's diff and merge drivers, through real git
/// in a temporary repository (its own HOME, no system config) set up as README.md says.
@Suite("recipe diff / merge-file as git drivers")
struct GitDriverTests {
    /// A temporary repository with `.gitattributes` and the driver config pointing at the built binary.
    struct Repository {
        let root: URL
        let work: URL
        let environment: [String: String]
        let git: String

        /// `textconv`: git diffs canonical text (`recipe diff --textconv`) instead of calling the diff driver.
        init(textconv: Bool = false) throws {
            git = try #require(ExternalTool.find("git"), "git is not installed")
            root = TestPaths.temporaryDirectory("recipe-git")
            work = root.appendingPathComponent("repo")
            let home = root.appendingPathComponent("home")
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            var env = ProcessInfo.processInfo.environment
            env["HOME"] = home.path
            env["GIT_CONFIG_NOSYSTEM"] = "1"
            env["GIT_CONFIG_GLOBAL"] = home.appendingPathComponent(".gitconfig").path
            env["GIT_PAGER"] = "cat"
            env["NO_COLOR"] = "1"
            environment = env
            let binary = "'" + TestPaths.recipeBinary + "'"
            try run(["init", "-q", "-b", "main"])
            try run(["config", "user.name", "Recipe Tests"])
            try run(["config", "user.email", "tests@recipe.invalid"])
            if textconv {
                try run(["config", "diff.recipe.textconv", "\(binary) diff --textconv"])
            } else {
                try run(["config", "diff.recipe.command", "\(binary) diff --git"])
            }
            try run(["config", "merge.recipe.name", "recipe three-way merge"])
            try run(["config", "merge.recipe.driver", "\(binary) merge-file --name %P %O %A %B"])
            try write(".gitattributes", "*.recipe.yaml diff=recipe merge=recipe\n")
        }

        /// Runs git in the repository; fails the test on a non-zero exit unless `allowFailure`.
        @discardableResult
        func run(_ arguments: [String], allowFailure: Bool = false) throws -> ToolResult {
            let r = try ExternalTool.run(git, ["-C", work.path] + arguments, environment: environment)
            if !allowFailure && r.status != 0 {
                Issue.record("git \(arguments.joined(separator: " ")) exited \(r.status): \(r.stderr)")
            }
            return r
        }

        func write(_ name: String, _ text: String) throws {
            try text.write(to: work.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }

        func read(_ name: String) throws -> String {
            try String(contentsOf: work.appendingPathComponent(name), encoding: .utf8)
        }

        func commit(_ message: String) throws {
            try run(["add", "-A"])
            try run(["commit", "-q", "-m", message])
        }

        /// `look.recipe.yaml` committed as `base` on main, then edited on a branch `theirs` and on main.
        func branches(base: String, ours: String, theirs: String) throws {
            try write("look.recipe.yaml", base)
            try commit("base")
            try run(["checkout", "-q", "-b", "theirs"])
            try write("look.recipe.yaml", theirs)
            try commit("theirs")
            try run(["checkout", "-q", "main"])
            try write("look.recipe.yaml", ours)
            try commit("ours")
        }

        func remove() { try? FileManager.default.removeItem(at: root) }
    }

    static let header = "format: dev.recipe.edit\nversion: 1.1\nstages:\n"
    static let base = header + "  - exposure: 0.3  # brighter\n  - sepia: 0.4\n  - vignette: 0.3\n"

    @Test("by hand: diff exits 0, 1 or 2; merge-file rewrites OURS (or prints with -p) and exits 0 or 1")
    func byHand() throws {
        let dir = TestPaths.temporaryDirectory("recipe-diff")
        defer { try? FileManager.default.removeItem(at: dir) }
        func file(_ name: String, _ text: String) throws -> String {
            let path = dir.appendingPathComponent(name).path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        let base = try file("base.recipe.yaml", Self.base)
        let same = try file("same.recipe.yaml", Self.header + "  - exposure: {ev: 0.30}\n  - sepia: {amount: 0.4}\n  - vignette: 0.3\n")
        let ours = try file("ours.recipe.yaml", Self.header + "  - exposure: 0.5\n  - sepia: 0.4\n  - vignette: 0.3\n")
        let theirs = try file("theirs.recipe.yaml", Self.header + "  - exposure: 0.3\n  - sepia: 0.4\n")
        let bad = try file("bad.recipe.yaml", Self.header + "  - exposur: 0.3\n")
        let binary = TestPaths.recipeBinary
        #expect(try ExternalTool.run(binary, ["diff", base, same]).status == 0)
        let differ = try ExternalTool.run(binary, ["diff", base, theirs])
        #expect(differ.status == 1)
        #expect(String(decoding: differ.stdout, as: UTF8.self) == "- stage 3: vignette 0.3\n")
        let invalid = try ExternalTool.run(binary, ["diff", base, bad])
        #expect(invalid.status == 2)
        #expect(invalid.stderr.contains("bad.recipe.yaml: not a valid recipe: unknown operation `exposur`"))
        #expect(try ExternalTool.run(binary, ["diff", base]).status == 2)

        let printed = try ExternalTool.run(binary, ["merge-file", "-p", base, ours, theirs])
        #expect(printed.status == 0)
        let expected = Self.header + "  - exposure: 0.5\n  - sepia: 0.4\n"
        #expect(String(decoding: printed.stdout, as: UTF8.self) == expected)
        #expect(try ExternalTool.run(binary, ["merge-file", base, ours, theirs]).status == 0)
        #expect(try String(contentsOfFile: ours, encoding: .utf8) == expected)
        let conflicted = try ExternalTool.run(binary, ["merge-file", "--stdout", base, try file("c.recipe.yaml", Self.base.replacingOccurrences(of: "vignette: 0.3", with: "vignette: 0.5")), theirs])
        #expect(conflicted.status == 1)
        #expect(conflicted.stderr.contains("1 conflict marked with `conflict:`"))
        #expect(conflicted.stderr.contains("stage 3: ours changed it to vignette 0.5, theirs deleted it"))
    }

    @Test("git diff shows the semantic diff: changed values, not reformatted lines")
    func gitDiff() throws {
        let repo = try Repository()
        defer { repo.remove() }
        try repo.write("look.recipe.yaml", Self.base)
        try repo.commit("base")
        // Reformatted throughout, one real change.
        try repo.write("look.recipe.yaml", Self.header + "  - exposure: {ev: 0.50}   # brighter\n  - sepia: {amount: 0.40}\n  - vignette:\n      amount: 0.3\n")
        let diff = try repo.run(["diff"])
        let out = String(decoding: diff.stdout, as: UTF8.self)
        let expected = "recipe diff a/look.recipe.yaml b/look.recipe.yaml\nstage 1 (exposure): ev 0.3 → 0.5\n"
        #expect(out == expected, "git diff printed:\n\(out)\(diff.stderr)")

        // Formatting only: the driver says so.
        try repo.write("look.recipe.yaml", Self.header + "  - exposure: {ev: 0.3}\n  - sepia: 0.4\n  - vignette: 0.3\n")
        let same = String(decoding: try repo.run(["diff"]).stdout, as: UTF8.self)
        #expect(same.contains("(the same recipe: only formatting or comments changed)"))

        // A new file: git passes /dev/null as the old side.
        try repo.write("new.recipe.yaml", Self.header + "  - blur: 2px\n")
        try repo.run(["add", "new.recipe.yaml"])
        let added = String(decoding: try repo.run(["diff", "--cached"]).stdout, as: UTF8.self)
        #expect(added.contains("new recipe\n"))
        #expect(added.contains("+ stage 1: blur 2px\n"))

        // Not a recipe any more: a line diff, and git goes on (the driver exits 0).
        try repo.write("look.recipe.yaml", Self.header + "  - exposure: [0.3\n")
        let broken = try repo.run(["diff"])
        let brokenText = String(decoding: broken.stdout, as: UTF8.self)
        #expect(broken.status == 0)
        #expect(brokenText.contains("the lines that differ"))
        #expect(brokenText.contains("+  - exposure: [0.3\n"))
    }

    @Test("the textconv alternative: git diffs canonical text, also of an old version whose LUT is not beside its temporary copy")
    func textconv() throws {
        let repo = try Repository(textconv: true)
        defer { repo.remove() }
        try FileManager.default.createDirectory(at: repo.work.appendingPathComponent("looks"), withIntermediateDirectories: true)
        try repo.write("looks/film.cube", "LUT_3D_SIZE 2\n0 0 0\n1 0 0\n0 1 0\n1 1 0\n0 0 1\n1 0 1\n0 1 1\n1 1 1\n")
        try repo.write("film.recipe.yaml", Self.header + "  - lut: {file: looks/film.cube, amount: 0.7}\n  - exposure: 0.3\n")
        try repo.commit("film")
        try repo.write("film.recipe.yaml", Self.header + "  - lut:\n      amount: 0.8\n      file: looks/film.cube\n  - exposure: {ev: 0.30}\n")
        let diff = try repo.run(["diff"])
        let out = String(decoding: diff.stdout, as: UTF8.self)
        let changed = out.split(separator: "\n").filter { ($0.hasPrefix("-") || $0.hasPrefix("+")) && !$0.hasPrefix("---") && !$0.hasPrefix("+++") }
        #expect(changed == ["-  - lut: {file: looks/film.cube, amount: 0.7}", "+  - lut: {file: looks/film.cube, amount: 0.8}"], "git diff printed:\n\(out)\(diff.stderr)")
    }

    @Test("git merge of branches editing neighbouring stages merges clean through the driver")
    func cleanMerge() throws {
        let repo = try Repository()
        defer { repo.remove() }
        try repo.branches(base: Self.base,
                          ours: Self.header + "  - exposure: {ev: 0.5}  # brighter\n  - sepia: 0.4\n  - vignette: 0.3\n",
                          theirs: Self.header + "  - exposure: 0.3  # brighter\n  - sepia: 0.6\n  - vignette: 0.3\n  - blur: 2px\n")

        // Line by line these edits touch neighbouring lines: git's own merge would conflict.
        let plain = try ExternalTool.run(repo.git, ["-C", repo.work.path, "merge-file", "-p", "--object-id", "main:look.recipe.yaml",
                                                   "main~1:look.recipe.yaml", "theirs:look.recipe.yaml"], environment: repo.environment)
        #expect(plain.status != 0, "git merge-file merged these lines by itself; the test proves nothing")

        let merge = try repo.run(["merge", "--no-edit", "theirs"], allowFailure: true)
        #expect(merge.status == 0, "git merge failed: \(String(decoding: merge.stdout, as: UTF8.self))\(merge.stderr)")
        let merged = try repo.read("look.recipe.yaml")
        // Ours' own text (`{ev: 0.5}` as ours wrote it) with theirs' two changes edited in.
        let expected = Self.header + "  - exposure: {ev: 0.5}  # brighter\n  - sepia: 0.6\n  - vignette: 0.3\n  - blur: 2px\n"
        #expect(merged == expected)
        let check = try ExternalTool.run(TestPaths.recipeBinary, ["check", repo.work.appendingPathComponent("look.recipe.yaml").path])
        #expect(check.status == 0, "\(check.stderr)")
    }

    @Test("a conflicting pair of branches: git merge fails, the file is valid YAML holding both values")
    func conflictingMerge() throws {
        let repo = try Repository()
        defer { repo.remove() }
        try repo.branches(base: Self.base,
                          ours: Self.base.replacingOccurrences(of: "exposure: 0.3", with: "exposure: 0.5"),
                          theirs: Self.base.replacingOccurrences(of: "exposure: 0.3", with: "exposure: 0.7"))

        let merge = try repo.run(["merge", "--no-edit", "theirs"], allowFailure: true)
        #expect(merge.status != 0)
        // The driver's message names the recipe, not git's temporary copy (.merge_file_XXXXXX).
        let said = String(decoding: merge.stdout, as: UTF8.self) + merge.stderr
        #expect(said.contains("look.recipe.yaml: 1 conflict marked") && !said.contains(".merge_file_"), "\(said)")
        let status = String(decoding: try repo.run(["status", "--porcelain"]).stdout, as: UTF8.self)
        #expect(status.contains("UU look.recipe.yaml"))
        let merged = try repo.read("look.recipe.yaml")
        // Only the conflicting value is replaced; its comment stays on its line.
        let expected = Self.header + "  - exposure: {conflict: {ours: 0.5, theirs: 0.7, base: 0.3}}  # brighter\n  - sepia: 0.4\n  - vignette: 0.3\n"
        #expect(merged == expected)
        #expect(!merged.contains("<<<<<<<"))
        // Valid YAML: check reads it and reports the conflict (R225), nothing else.
        let check = try ExternalTool.run(TestPaths.recipeBinary, ["check", "--format", "json", repo.work.appendingPathComponent("look.recipe.yaml").path])
        let lines = String(decoding: check.stdout, as: UTF8.self).split(separator: "\n")
        let codes = lines.map { $0.contains("\"code\":\"R225\"") }
        #expect(check.status == 2)
        #expect(codes == [true])
    }
}
