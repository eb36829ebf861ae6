import Foundation
import Testing
import TestSupport

/// The one exit-status table (README "Exit status", `recipe --help`): every subcommand run into
/// each case it can meet. 0 success or a yes; 1 a photo failed (a batch: some did) or a no;
/// 2 nothing done: a usage error, a missing file, a recipe with errors.
@Suite("exit status")
struct ExitStatusTests: CLITest {
    @Test("every subcommand exits 0, 1 or 2 as the table says")
    func table() throws {
        let dir = TestPaths.temporaryDirectory("exit-status")
        defer { try? FileManager.default.removeItem(at: dir) }
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
        let head = "format: dev.recipe.edit\nversion: 1.1\nstages:\n"
        try write(head + "  - exposure: 0.1\n", path("good.recipe.yaml"))
        try write(head + "  - exposre: 0.1\n", path("typo.recipe.yaml"))                 // a recipe error
        try write(head + "  - exposure: [0.1\n", path("syntax.recipe.yaml"))            // not even YAML
        try write(head + "  -   exposure:    0.1\n", path("loose.recipe.yaml"))         // valid, not canonical
        try write(head + "  - exposure: 0.3\n", path("other.recipe.yaml"))
        try write(head + "  - flip: vertical\n", path("whole.recipe.yaml"))          // holds the whole image: over 16 MiB
        let fm = FileManager.default
        for folder in ["photos", "mixed", "lifecycle"] { try fm.createDirectory(atPath: path(folder), withIntermediateDirectories: true) }
        let sample = TestPaths.samples.appendingPathComponent("Landscape_1.jpg").path
        try fm.copyItem(atPath: sample, toPath: path("photos/a.jpg"))
        try fm.copyItem(atPath: sample, toPath: path("mixed/a.jpg"))
        try fm.copyItem(atPath: sample, toPath: path("lifecycle/a.jpg"))
        try Data("this is not a JPEG".utf8).write(to: dir.appendingPathComponent("mixed/broken.jpg"))
        try Data("this is not a JPEG".utf8).write(to: dir.appendingPathComponent("broken.jpg"))
        let photo = path("photos/a.jpg"), lifecycle = path("lifecycle/a.jpg")

        let cases: [(args: [String], status: Int32)] = [
            // render: its photo failed → 1; its recipe has errors or is missing, or a bad option → 2
            (["render", photo, "--recipe", path("good.recipe.yaml"), "-o", path("r.jpg")], 0),
            (["render", path("broken.jpg"), "--recipe", path("good.recipe.yaml"), "-o", path("r.jpg")], 1),
            (["render", photo, "--recipe", path("typo.recipe.yaml"), "-o", path("r.jpg")], 2),
            (["render", photo, "--recipe", path("absent.recipe.yaml"), "-o", path("r.jpg")], 2),
            (["render", photo, "--no-such-option"], 2),
            (["render", photo, "--recipe", path("whole.recipe.yaml"), "-o", path("r.jpg"), "--max-memory", "16M"], 1),  // over the budget
            (["render", photo, "--recipe", path("good.recipe.yaml"), "-o", path("r.jpg"), "--max-memory", "lots"], 2),
            // a missing --profile file is a missing file named on the command line → 2
            (["render", photo, "--recipe", path("good.recipe.yaml"), "-o", path("r.jpg"), "--profile", path("absent.icc")], 2),
            // apply: some photos failed (the others done) → 1; the recipe or the folder → 2
            (["apply", path("good.recipe.yaml"), path("photos"), "--output", path("out1")], 0),
            (["apply", path("good.recipe.yaml"), path("mixed"), "--output", path("out2")], 1),
            (["apply", path("typo.recipe.yaml"), path("photos"), "--output", path("out3")], 2),
            (["apply", path("good.recipe.yaml"), path("absent-folder"), "--output", path("out4")], 2),
            (["apply", path("whole.recipe.yaml"), path("photos"), "--output", path("out5"), "--max-memory", "16M"], 1),
            (["apply", path("good.recipe.yaml"), path("photos"), "--output", path("out6"), "--profile", path("absent.icc")], 2),
            // check: errors found → 2
            (["check", path("good.recipe.yaml")], 0),
            (["check", path("typo.recipe.yaml")], 2),
            (["check", path("absent.recipe.yaml")], 2),
            // fmt --check: not canonical → 1; cannot be formatted → 2
            (["fmt", "--check", path("good.recipe.yaml")], 0),
            (["fmt", "--check", path("loose.recipe.yaml")], 1),
            (["fmt", "--check", path("syntax.recipe.yaml")], 2),
            // migrate --check: nothing older here → 0; errors → 2
            (["migrate", "--check", path("good.recipe.yaml")], 0),
            (["migrate", "--check", path("typo.recipe.yaml")], 2),
            // explain, ops
            (["explain", path("good.recipe.yaml")], 0),
            (["explain", path("typo.recipe.yaml")], 2),
            (["explain", path("good.recipe.yaml"), "--photo", photo, "--profile", path("absent.icc")], 2),
            (["ops", "exposure"], 0),
            (["ops", "exposre"], 2),
            // info: a photo it cannot read → 1
            (["info", photo], 0),
            (["info", path("broken.jpg")], 1),
            // diff: the same → 0, they differ → 1, not recipes → 2
            (["diff", path("good.recipe.yaml"), path("good.recipe.yaml")], 0),
            (["diff", path("good.recipe.yaml"), path("other.recipe.yaml")], 1),
            (["diff", path("good.recipe.yaml"), path("absent.recipe.yaml")], 2),
            // the edit lifecycle: a stage with a mistake → 2; a photo or an edit it cannot use → 1
            (["edit", lifecycle, "--stage", "exposure: 0.2"], 0),
            (["edit", lifecycle, "--stage", "exposure: 0.3", "--profile", path("absent.icc")], 2),
            (["edit", lifecycle, "--stage", "exposre: 0.2"], 2),
            // YAML that is no stage at all (an alias of itself): a usage error too, as any other --stage mistake
            (["edit", lifecycle, "--stage", "sepia: &a [*a]"], 2),
            (["edit", lifecycle, "--stage", "[1, 2"], 2),
            (["edit", path("broken.jpg"), "--stage", "exposure: 0.2"], 1),
            (["history", lifecycle], 0),
            (["revert", lifecycle, "--stage", "1"], 0),
            (["revert", lifecycle, "--stage", "7"], 1),  // no such stage: this photo's edit cannot be changed so
            (["edit", lifecycle, "--stage", "flip: vertical", "--max-memory", "16M"], 1),  // written, but its render is over the budget
        ]
        for (args, status) in cases {
            let r = try recipe(args)
            #expect(r.status == status, "recipe \(args.map { ($0 as NSString).lastPathComponent }.joined(separator: " ")): exit \(r.status), not \(status): \(r.stderr)")
        }
        // What the failures say: the missing profile by name; a file that is no image in plain words.
        let profile = try recipe(["render", photo, "-o", path("r.jpg"), "--profile", path("absent.icc")])
        #expect(profile.stderr.contains("\(path("absent.icc")): cannot read the output profile (--profile): no such file or directory"),
                "\(profile.stderr)")
        try write(String(repeating: "this is a text file, not a photo\n", count: 4), path("notes.jpg"))
        let notImage = try recipe(["info", path("notes.jpg")])
        #expect(notImage.stderr.contains("notes.jpg: not a JPEG, PNG, TIFF, WebP, HEIF, AVIF or camera raw file (it starts with 74 68 69 73)"),
                "\(notImage.stderr)")
        // The table is in --help.
        let help = String(decoding: try recipe(["--help"]).stdout, as: UTF8.self)
        #expect(help.contains("Exit status, the same for every subcommand:") && help.contains("2: nothing done"), "\(help)")
    }
}
