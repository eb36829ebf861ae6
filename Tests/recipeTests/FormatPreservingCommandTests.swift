import Foundation
import Testing
import TestSupport

/// The commands that write into a recipe a person keeps change only what they mean to change:
/// `merge-file`, `edit --stage`, `revert`, `migrate`, run as a user runs them.
@Suite("format-preserving writes: merge-file, edit, revert, migrate")
struct FormatPreservingCommandTests: CLITest {
    /// The lines only `a` has and the lines only `b` has.
    static func changed(_ a: String, _ b: String) -> (removed: [String], added: [String]) {
        let x = a.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let y = b.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var prefix = 0
        while prefix < min(x.count, y.count), x[prefix] == y[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < min(x.count, y.count) - prefix, x[x.count - 1 - suffix] == y[y.count - 1 - suffix] { suffix += 1 }
        return (Array(x[prefix..<(x.count - suffix)]), Array(y[prefix..<(y.count - suffix)]))
    }

    static let base = """
        # A look, formatted by hand.
        format: dev.recipe.edit
        version: 1.2
        params:
            warmth: {default: 5200, doc: "colour temperature"}

        stages:
            - exposure: 0.30            # stops
            - white-balance: {temp: $warmth}
            - saturation:
                  amount: 0.90          # punchy
            - vignette: {amount: 0.2, radius: 1.2}

        """

    /// Writes `base`, ours and theirs into `dir` and runs `recipe merge-file` on them.
    func mergeFile(in dir: String, base: String = Self.base, ours: String, theirs: String, options: [String] = []) throws -> ToolResult {
        try write(base, dir + "/base.recipe.yaml")
        try write(ours, dir + "/ours.recipe.yaml")
        try write(theirs, dir + "/theirs.recipe.yaml")
        return try recipe(["merge-file"] + options + [dir + "/base.recipe.yaml", dir + "/ours.recipe.yaml", dir + "/theirs.recipe.yaml"])
    }

    @Test("merge-file on a hand-formatted recipe: ours changed one exposure, theirs one saturation; the result is ours with one line changed")
    func mergeKeepsOursText() throws {
        let dir = TestPaths.temporaryDirectory("fmt-merge").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let ours = Self.base.replacingOccurrences(of: "exposure: 0.30 ", with: "exposure: 0.45 ")
        let theirs = Self.base.replacingOccurrences(of: "amount: 0.90", with: "amount: 0.8")
        let r = try mergeFile(in: dir, ours: ours, theirs: theirs)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.isEmpty, "no warning: \(r.stderr)")
        let merged = try String(contentsOfFile: dir + "/ours.recipe.yaml", encoding: .utf8)
        #expect(merged == ours.replacingOccurrences(of: "amount: 0.90", with: "amount: 0.8"), "\(merged)")
        let diff = Self.changed(ours, merged)
        #expect(diff.removed == ["          amount: 0.90          # punchy"] && diff.added == ["          amount: 0.8          # punchy"], "\(diff)")
        _ = try ok(["check", dir + "/ours.recipe.yaml"])
    }

    @Test("fmt, migrate and merge-file write a recipe that is a symbolic link through to its file: the link stays a link (it was replaced by a plain file)")
    func linkedRecipesWrittenThrough() throws {
        let dir = TestPaths.temporaryDirectory("fmt-link").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir + "/looks", withIntermediateDirectories: true)
        func isLink(_ path: String) -> Bool { (try? fm.destinationOfSymbolicLink(atPath: path)) != nil }
        // fmt
        try write(Self.base, dir + "/looks/look.recipe.yaml")
        try fm.createSymbolicLink(atPath: dir + "/look.recipe.yaml", withDestinationPath: "looks/look.recipe.yaml")
        _ = try ok(["fmt", dir + "/look.recipe.yaml"])
        #expect(isLink(dir + "/look.recipe.yaml"), "fmt replaced the link")
        let formatted = try String(contentsOfFile: dir + "/looks/look.recipe.yaml", encoding: .utf8)
        #expect(formatted != Self.base, "fmt did not write the link's file")
        _ = try ok(["fmt", "--check", dir + "/looks/look.recipe.yaml"])
        // migrate (a 1.0 recipe)
        try write("format: dev.recipe.edit\nversion: 1.0\nstages:\n  - vignette: {intensity: 0.8}\n", dir + "/looks/old.recipe.yaml")
        try fm.createSymbolicLink(atPath: dir + "/old.recipe.yaml", withDestinationPath: dir + "/looks/old.recipe.yaml")
        _ = try ok(["migrate", dir + "/old.recipe.yaml"])
        #expect(isLink(dir + "/old.recipe.yaml"), "migrate replaced the link")
        #expect(!(try String(contentsOfFile: dir + "/looks/old.recipe.yaml", encoding: .utf8)).contains("version: 1.0"))
        // merge-file into a linked ours
        let ours = Self.base.replacingOccurrences(of: "exposure: 0.30 ", with: "exposure: 0.45 ")
        try write(Self.base, dir + "/base.recipe.yaml")
        try write(ours, dir + "/looks/ours.recipe.yaml")
        try fm.createSymbolicLink(atPath: dir + "/ours.recipe.yaml", withDestinationPath: "looks/ours.recipe.yaml")
        try write(Self.base.replacingOccurrences(of: "amount: 0.90", with: "amount: 0.8"), dir + "/theirs.recipe.yaml")
        let r = try recipe(["merge-file", dir + "/base.recipe.yaml", dir + "/ours.recipe.yaml", dir + "/theirs.recipe.yaml"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(isLink(dir + "/ours.recipe.yaml"), "merge-file replaced the link")
        #expect((try String(contentsOfFile: dir + "/looks/ours.recipe.yaml", encoding: .utf8)).contains("amount: 0.8"))
        // A link to nothing is refused, and stays as it was.
        try fm.createSymbolicLink(atPath: dir + "/dangling.recipe.yaml", withDestinationPath: "looks/absent.recipe.yaml")
        #expect(try recipe(["fmt", dir + "/dangling.recipe.yaml"]).status != 0)
        #expect(isLink(dir + "/dangling.recipe.yaml"))
    }

    @Test("merge-file carries THEIRS' comments on a stage neither side changed the meaning of (they were dropped without a word), and names a comment it cannot carry (the file's opening comment)")
    func mergeCarriesTheirComments() throws {
        let dir = TestPaths.temporaryDirectory("fmt-merge-comments").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let ours = Self.base.replacingOccurrences(of: "exposure: 0.30 ", with: "exposure: 0.45 ")
        let theirs = Self.base.replacingOccurrences(of: "amount: 0.90          # punchy", with: "amount: 0.90          # punchy, for the caps")
            .replacingOccurrences(of: "    - vignette:", with: "    # the corners\n    - vignette:")
            .replacingOccurrences(of: "# A look, formatted by hand.", with: "# A look, formatted by hand; theirs.")
        let r = try mergeFile(in: dir, ours: ours, theirs: theirs)
        #expect(r.status == 0, "\(r.stderr)")
        let merged = try String(contentsOfFile: dir + "/ours.recipe.yaml", encoding: .utf8)
        // THEIRS' stages as they wrote them (in fmt's form), ours' change and lines elsewhere as ours wrote them.
        #expect(merged.contains("# punchy, for the caps") && merged.contains("    # the corners\n    - vignette: {amount: 0.2, radius: 1.2}"), "\(merged)")
        #expect(merged.contains("    - exposure: 0.45            # stops\n") && merged.contains("    - white-balance: {temp: $warmth}\n"), "\(merged)")
        #expect(!r.stderr.contains("punchy, for the caps") && !r.stderr.contains("the corners"), "a carried comment is not named: \(r.stderr)")
        #expect(r.stderr.contains("its comment `A look, formatted by hand; theirs.` is not in the merge"), "\(r.stderr)")
        #expect(!merged.contains("theirs."), "\(merged)")
    }

    @Test("a note written as a literal block stays one: merged from THEIRS (it became a quoted string) and in fmt's form")
    func literalBlockNote() throws {
        let dir = TestPaths.temporaryDirectory("fmt-merge-literal").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let base = "format: dev.recipe.edit\nversion: 1.2\nnote: |\n  line one\n  line two\nstages:\n  - exposure: 0.3\n"
        let ours = base.replacingOccurrences(of: "exposure: 0.3", with: "exposure: 0.5")
        let theirs = base.replacingOccurrences(of: "line two", with: "line three") + "  - sepia: 0.2\n"
        let r = try mergeFile(in: dir, base: base, ours: ours, theirs: theirs)
        #expect(r.status == 0, "\(r.stderr)")
        let merged = try String(contentsOfFile: dir + "/ours.recipe.yaml", encoding: .utf8)
        #expect(merged == "format: dev.recipe.edit\nversion: 1.2\nnote: |\n  line one\n  line three\nstages:\n  - exposure: 0.5\n  - sepia: 0.2\n", "\(merged)")
        // fmt writes a note of several lines as a literal block, at the top and in a stage.
        try write("format: dev.recipe.edit\nversion: 1.2\nnote: \"a\\nb\\n\"\nstages:\n  - exposure: 0.3\n    note: \"x\\ny\"\n", dir + "/q.recipe.yaml")
        let formatted = try ok(["fmt", "--stdout", dir + "/q.recipe.yaml"])
        #expect(formatted == "format: dev.recipe.edit\nversion: 1.2\nnote: |\n  a\n  b\nstages:\n  - exposure: 0.3\n    note: |-\n      x\n      y\n", "\(formatted)")
    }

    @Test("merge-file refuses a side that is not a valid recipe (`x: 1` at the top of THEIRS was merged in, exit 0): exit 2, OURS as it was")
    func mergeRefusesInvalidSide() throws {
        let dir = TestPaths.temporaryDirectory("fmt-merge-invalid").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let ours = Self.base.replacingOccurrences(of: "exposure: 0.30 ", with: "exposure: 0.45 ")
        let theirs = Self.base.replacingOccurrences(of: "stages:\n", with: "x: 1\nstages:\n")
        let r = try mergeFile(in: dir, ours: ours, theirs: theirs)
        #expect(r.status == 2, "exit \(r.status): \(r.stderr)")
        #expect(r.stderr.contains("theirs.recipe.yaml: not a valid recipe") && r.stderr.contains("unknown key `x`"), "\(r.stderr)")
        #expect(try String(contentsOfFile: dir + "/ours.recipe.yaml", encoding: .utf8) == ours)
    }

    @Test("merge-file with a true conflict marks only that value and leaves the rest of ours' text")
    func conflictMarksOneValue() throws {
        let dir = TestPaths.temporaryDirectory("fmt-conflict").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let ours = Self.base.replacingOccurrences(of: "radius: 1.2}", with: "radius: 1.5}")
        let theirs = Self.base.replacingOccurrences(of: "radius: 1.2}", with: "radius: 0.9}")
        let r = try mergeFile(in: dir, ours: ours, theirs: theirs, options: ["-p"])
        #expect(r.status == 1, "conflicts exit 1: \(r.stderr)")
        let merged = String(decoding: r.stdout, as: UTF8.self)
        let diff = Self.changed(ours, merged)
        #expect(diff.removed == ["    - vignette: {amount: 0.2, radius: 1.5}"], "\(merged)")
        #expect(diff.added == ["    - vignette: {amount: 0.2, radius: {conflict: {ours: 1.5, theirs: 0.9, base: 1.2}}}"], "\(merged)")
    }

    @Test("edit --stage on a hand-edited sidecar adds lines and changes none; revert removes them again; relink changes only `original:`")
    func editAndRevertKeepTheSidecarsText() throws {
        let dir = TestPaths.temporaryDirectory("fmt-edit").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let photo = dir + "/p.jpg", current = dir + "/c.png", sidecar = photo + ".recipe.yaml"
        try FileManager.default.copyItem(atPath: TestPaths.fixture("jpeg/pil_hopper.jpg"), toPath: photo)
        _ = try ok(["edit", photo, "--stage", "exposure: 0.3", "-o", current])
        // A person edits it: four-space indents, a comment in a column, another on its own line.
        let written = try String(contentsOfFile: sidecar, encoding: .utf8)
        var inStages = false
        var lines: [String] = ["# My edit of p.jpg."]
        for line in written.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if inStages, !line.isEmpty { lines.append("  " + line.replacingOccurrences(of: "exposure: 0.3", with: "exposure: 0.30        # brighter")) } else { lines.append(line) }
            if line.hasPrefix("stages:") { inStages = true; lines.append("    # the light") }
        }
        let hand = lines.joined(separator: "\n")
        try write(hand, sidecar)
        _ = try ok(["check", sidecar])
        _ = try ok(["edit", photo, "--stage", "sepia: 0.4", "-o", current])
        let edited = try String(contentsOfFile: sidecar, encoding: .utf8)
        let diff = Self.changed(hand, edited)
        #expect(diff.removed.isEmpty, "no line changed: \(diff.removed)")
        #expect(diff.added == ["    - id: sepia", "      sepia: 0.4"], "\(edited)")
        _ = try ok(["revert", photo, "--stage", "sepia", "-o", current])
        #expect(try String(contentsOfFile: sidecar, encoding: .utf8) == hand, "revert gives the hand-edited text back")
        _ = try ok(["revert", photo, "--stage", "exposure", "--disable", "-o", current])
        let disabled = try String(contentsOfFile: sidecar, encoding: .utf8)
        let off = Self.changed(hand, disabled)
        #expect(off.removed.isEmpty && off.added == ["      enabled: false"], "\(disabled)")

        // relink after a move, then of a replaced original: at most the `original:` line changes.
        try FileManager.default.createDirectory(atPath: dir + "/new", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: photo, toPath: dir + "/new/q.jpg")
        _ = try ok(["relink", dir + "/new/q.jpg", "--search", dir])
        let moved = try String(contentsOfFile: dir + "/new/q.jpg.recipe.yaml", encoding: .utf8)
        let relinked = Self.changed(disabled, moved)
        #expect(relinked.removed.count <= 1 && (relinked.removed + relinked.added).allSatisfy { $0.hasPrefix("original:") }, "\(moved)")
        try FileManager.default.removeItem(atPath: dir + "/new/q.jpg")
        try FileManager.default.copyItem(atPath: TestPaths.fixture("jpeg/pil_iptc.jpg"), toPath: dir + "/new/q.jpg")
        _ = try ok(["relink", dir + "/new/q.jpg", "--accept"])
        let accepted = Self.changed(moved, try String(contentsOfFile: dir + "/new/q.jpg.recipe.yaml", encoding: .utf8))
        #expect(accepted.removed.count == 1 && accepted.added.count == 1 && accepted.added[0].hasPrefix("original: {"), "\(accepted)")
    }

    @Test("a stage edit adds is written in its neighbours' style: parameters in block form when they write theirs so, in flow form when they use `{…}`")
    func newStageTakesTheNeighboursParamStyle() throws {
        let dir = TestPaths.temporaryDirectory("fmt-edit-style").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for block in [true, false] {
            let photo = dir + "/p\(block).jpg", current = dir + "/c.png", sidecar = photo + ".recipe.yaml"
            try FileManager.default.copyItem(atPath: TestPaths.fixture("jpeg/pil_hopper.jpg"), toPath: photo)
            _ = try ok(["edit", photo, "--stage", "white-balance: {temp: 5200, tint: 8}", "-o", current])
            var hand = try String(contentsOfFile: sidecar, encoding: .utf8)
            let line = try #require(hand.split(separator: "\n").first { $0.contains("white-balance: {temp: 5200, tint: 8}") })
            let indent = String(line.prefix { $0 == " " })
            if block {
                // A person writes the parameters as a block mapping.
                hand = hand.replacingOccurrences(of: String(line), with: "\(indent)white-balance:\n\(indent)  temp: 5200\n\(indent)  tint: 8")
                try write(hand, sidecar)
                _ = try ok(["check", sidecar])
            }
            _ = try ok(["edit", photo, "--stage", "vignette: {amount: 0.4, radius: 0.9}", "-o", current])
            let diff = Self.changed(hand, try String(contentsOfFile: sidecar, encoding: .utf8))
            #expect(diff.removed.isEmpty, "no line changed: \(diff.removed)")
            let expected = block
                ? ["  - id: vignette", "    vignette:", "      amount: 0.4", "      radius: 0.9"]
                : ["  - id: vignette", "    vignette: {amount: 0.4, radius: 0.9}"]
            #expect(diff.added == expected, "block \(block): \(diff.added)")
        }
    }

    @Test("migrate of a hand-formatted 1.0 recipe changes the version and the renamed key, nothing else")
    func migrateChangesOnlyMigratedSpans() throws {
        let dir = TestPaths.temporaryDirectory("fmt-migrate").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let old = "format: dev.recipe.edit\nversion: 1.0   # old\nstages:\n    - exposure: 0.30       # stops\n    - vignette:\n          intensity: 0.80  # corners\n\n    - sepia: .5\n"
        try write(old, dir + "/old.recipe.yaml")
        _ = try ok(["migrate", dir + "/old.recipe.yaml"])
        let migrated = try String(contentsOfFile: dir + "/old.recipe.yaml", encoding: .utf8)
        #expect(migrated == old.replacingOccurrences(of: "version: 1.0", with: "version: 1.5").replacingOccurrences(of: "intensity:", with: "amount:"))
        _ = try ok(["check", dir + "/old.recipe.yaml"])
    }
}
