import Foundation
import RecipeBatch
import RecipeHistory
import Testing
import TestSupport

/// `recipe apply` as a user runs it, on trees made in the test from real photos (downscaled so a
/// debug build renders hundreds quickly) with the broken files of Tests/Fixtures/broken mixed in.
@Suite("recipe apply: batches")
struct ApplyTests: CLITest {


    /// One `--json` run: its records by status, and its exit status.
    struct Run {
        var status: Int32
        var stderr: String
        var records: [[String: Any]]
        func with(_ status: String) -> [[String: Any]] { records.filter { $0["status"] as? String == status } }
        func count(_ status: String) -> Int { with(status).count }
        func sources(_ status: String) -> Set<String> { Set(with(status).compactMap { $0["source"] as? String }) }
        func outputs(_ status: String) -> Set<String> { Set(with(status).compactMap { $0["output"] as? String }) }
        var summary: [String: Any]? { records.last { $0["status"] as? String == "summary" } }
    }

    func apply(_ args: [String]) throws -> Run {
        let r = try recipe(["apply", "--json"] + args)
        let records = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
        return Run(status: r.status, stderr: r.stderr, records: records)
    }

    /// Three real photos downscaled to about 96 px: a landscape and a portrait JPEG, a PNG.
    static let smallPhotos: [String] = {
        let dir = TestPaths.temporaryDirectory("apply-small").path
        var made: [String] = []
        for (name, out) in [("Landscape_1.jpg", "land.jpg"), ("Portrait_8.jpg", "port.jpg"), ("kodim03.png", "kodim.png")] {
            let path = dir + "/" + out
            _ = try? ExternalTool.run(TestPaths.recipeBinary, ["render", TestPaths.samples.appendingPathComponent(name).path, "-o", path, "--size", "96"])
            made.append(path)
        }
        return made
    }()

    static let broken = ["jd_empty.jpg", "jd_max_size.jpg", "jd_missing-sof.jpg", "jd_null_height.jpg", "jd_progressive-missing-dc.jpg",
                         "pil_truncated_jpeg.jpg", "png_x_unexpected_eof.png", "xcrn0g04.png", "xcsn0g01.png", "xhdn0g08.png"]
    static let damagedButUsable = ["jd_extraneous-data.jpg", "jd_icc_chunk_count_mismatch.jpeg", "jd_icc_chunk_order.jpeg", "pil_invalid-exif.jpg"]

    /// `count` good photos in `folders` folders (some nested), plus every broken fixture when asked.
    func tree(_ label: String, count: Int, folders: Int = 10, broken: Bool = false) throws -> (root: String, good: [String]) {
        let root = TestPaths.temporaryDirectory(label).path + "/photos"
        var good: [String] = []
        let fm = FileManager.default
        for i in 0..<count {
            let photo = Self.smallPhotos[i % Self.smallPhotos.count]
            let ext = photo.hasSuffix(".png") ? "png" : (i % 7 == 0 ? "JPG" : "jpg")
            let folder = root + "/day\(i % folders)" + (i % 4 == 3 ? "/picks" : "")
            try fm.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let path = folder + "/IMG_\(1000 + i).\(ext)"
            try fm.copyItem(atPath: photo, toPath: path)
            good.append(path)
        }
        if broken {
            try fm.createDirectory(atPath: root + "/broken", withIntermediateDirectories: true)
            for name in Self.broken + Self.damagedButUsable {
                try fm.copyItem(atPath: TestPaths.fixture("broken/" + name), toPath: root + "/broken/" + name)
            }
        }
        try write("not a photo", root + "/notes.txt")
        return (root, good)
    }

    func recipeFile(_ dir: String, ev: String = "0.3", extra: String = "") throws -> String {
        let path = dir + "/look.recipe.yaml"
        try write("format: dev.recipe.edit\nversion: 1.1\nparams:\n  lift: \(ev)\nstages:\n  - exposure: $lift\n  - saturation: 1.2\n" + extra, path)
        return path
    }

    @Test("a tree of a few hundred photos with broken files: each good one rendered once, each bad one reported; re-runs render exactly what changed")
    func incremental() throws {
        let (root, good) = try tree("apply-tree", count: 300, broken: true)
        let dir = (root as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/out"
        let look = try recipeFile(dir)
        let originals = try good.prefix(5).map { try ContentHash.file($0).sha256 }

        let first = try apply([look, root, "-o", out, "--jobs", "2"])
        #expect(first.status == 1, "some failed, so exit 1: \(first.stderr)")
        let usable = good.count + Self.damagedButUsable.count
        #expect(first.count("rendered") == usable)
        #expect(first.sources("failed") == Set(Self.broken.map { root + "/broken/" + $0 }))
        let errorsNamed = first.with("failed").allSatisfy { ($0["error"] as? String)?.isEmpty == false }
        #expect(errorsNamed)
        let warned = first.with("rendered").filter { ($0["warnings"] as? [String])?.isEmpty == false }.compactMap { $0["source"] as? String }
        #expect(Set(warned) == Set(Self.damagedButUsable.map { root + "/broken/" + $0 }))
        #expect(first.sources("rendered").count == usable, "each rendered once")
        #expect(first.stderr.contains("failed 10"))
        for name in Self.broken { #expect(first.stderr.contains(name), "the summary lists \(name)") }
        // Outputs mirror the tree; the text file is not a photo.
        #expect(FileManager.default.fileExists(atPath: out + "/day3/picks/IMG_1003.jpg"))
        #expect(!FileManager.default.fileExists(atPath: out + "/notes.txt"))
        // The same bytes as a single render of the same recipe.
        _ = try ok(["render", good[3], "--recipe", look, "-o", dir + "/single.jpg"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/single.jpg")) == Data(contentsOf: URL(fileURLWithPath: out + "/day3/picks/IMG_1003.jpg")))

        let second = try apply([look, root, "-o", out, "--jobs", "2"])
        #expect(second.count("rendered") == 0)
        #expect(second.count("skipped") == usable)
        #expect(second.count("failed") == Self.broken.count, "bad files are tried again, and fail again")

        // Touched without a change: still up to date. Changed bytes: exactly that one.
        let touched = good[10], changed = good[11]
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: touched)
        try FileManager.default.removeItem(atPath: changed)
        try FileManager.default.copyItem(atPath: Self.smallPhotos[(11 + 1) % 3], toPath: changed)
        let third = try apply([look, root, "-o", out])
        #expect(third.sources("rendered") == [changed])
        #expect(third.with("rendered").first?["reason"] as? String == "the source changed")
        func reason(_ run: Run, _ source: String) -> String? { run.records.first { $0["source"] as? String == source }?["reason"] as? String }
        #expect(reason(third, touched) == "up to date (same content)")
        // The touched photo's record took its new stat: the next run needs no hash.
        #expect(reason(try apply([look, root, "-o", out]), touched) == "up to date")

        // Reformatting the recipe changes nothing; a parameter renders everything again.
        try write("# the look\nformat: dev.recipe.edit\nversion: 1.1\nparams: {lift: 0.30}\nstages:\n- exposure: $lift   # brighter\n- {saturation: 1.2}\n", look)
        #expect(try apply([look, root, "-o", out]).count("rendered") == 0)
        let fourth = try apply([look, root, "-o", out, "--set", "lift=0.4"])
        #expect(fourth.count("rendered") == usable)
        #expect(try apply([look, root, "-o", out, "--set", "lift=0.4"]).count("rendered") == 0)

        // A deleted output is rendered again; --force renders all.
        try FileManager.default.removeItem(atPath: out + "/day4/IMG_1004.jpg")
        let fifth = try apply([look, root, "-o", out, "--set", "lift=0.4"])
        #expect(fifth.outputs("rendered") == [out + "/day4/IMG_1004.jpg"])
        #expect(try apply([look, root, "-o", out, "--set", "lift=0.4", "--force"]).count("rendered") == usable)
        // Originals were only read.
        #expect(try good.prefix(5).map { try ContentHash.file($0).sha256 } == originals)
    }

    @Test("recipes of 10,000 and 1,000 stages, and a chain of 2 × 200, are refused before planning (R108), nothing written")
    func stageBound() throws {
        let dir = TestPaths.temporaryDirectory("apply-stages").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let header = "format: dev.recipe.edit\nversion: 1.1\nstages:\n"
        for (name, count) in [("many", 10_000), ("thousand", 1_000), ("half", 200)] {
            try write(header + String(repeating: "  - blur: 5%\n", count: count), dir + "/\(name).recipe.yaml")
        }
        let photo = Self.smallPhotos[0]
        for name in ["many", "thousand"] {
            let r = try recipe(["apply", dir + "/\(name).recipe.yaml", photo, "-o", dir + "/out"])
            #expect(r.status == 2 && r.stderr.contains("R108"), "\(r.stderr)")
        }
        let chain = try recipe(["apply", dir + "/half.recipe.yaml", dir + "/half.recipe.yaml", photo, "-o", dir + "/out"])
        #expect(chain.status == 2 && chain.stderr.contains("400 stages together"), "\(chain.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/out/land.jpg"))
    }

    @Test("apply never writes through a link below the output folder: out/sub -> ../elsewhere fails that photo, naming the link; elsewhere untouched")
    func linkInsideOutput() throws {
        let dir = TestPaths.temporaryDirectory("apply-link").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir + "/in/sub", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: dir + "/elsewhere", withIntermediateDirectories: true)
        try fm.copyItem(atPath: Self.smallPhotos[0], toPath: dir + "/in/sub/p.jpg")
        try fm.copyItem(atPath: Self.smallPhotos[1], toPath: dir + "/in/q.jpg")
        try fm.createSymbolicLink(atPath: dir + "/out/sub", withDestinationPath: "../elsewhere")
        try write("format: dev.recipe.edit\nversion: 1.1\nstages:\n  - exposure: 0.2\n", dir + "/look.recipe.yaml")
        let run = try apply([dir + "/look.recipe.yaml", dir + "/in", "-o", dir + "/out"])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.count("failed") == 1 && run.count("rendered") == 1, "\(run.records)")
        let error = run.with("failed").first?["error"] as? String ?? ""
        #expect(error.contains("out/sub: is a link") && error.contains("never through a link"), "\(error)")
        #expect(try fm.contentsOfDirectory(atPath: dir + "/elsewhere").isEmpty, "written through the link")
        #expect(fm.fileExists(atPath: dir + "/out/q.jpg"))
    }

    @Test("output bytes do not depend on --jobs")
    func jobs() throws {
        let (root, _) = try tree("apply-jobs", count: 12)
        let dir = (root as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let look = try recipeFile(dir, extra: "  - sharpen: 0.5\n")
        var digests: [[String: String]] = []
        for jobs in ["1", "3"] {
            let out = dir + "/out" + jobs
            #expect(try apply([look, root, "-o", out, "--jobs", jobs]).count("rendered") == 12)
            var map: [String: String] = [:]
            for sub in try FileManager.default.subpathsOfDirectory(atPath: out) where sub.hasSuffix("jpg") || sub.hasSuffix("JPG") || sub.hasSuffix("png") {
                map[sub] = try ContentHash.file(out + "/" + sub).sha256
            }
            digests.append(map)
        }
        #expect(digests[0].count == 12)
        let same = digests[0] == digests[1]
        #expect(same)
    }

    @Test("a batch killed with SIGKILL leaves no torn output; the re-run renders only what is missing")
    func killAndResume() throws {
        let (root, good) = try tree("apply-kill", count: 60)
        let dir = (root as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/out"
        let look = try recipeFile(dir, extra: "  - sharpen: 0.5\n")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestPaths.recipeBinary)
        process.arguments = ["apply", look, root, "-o", out, "--jobs", "1", "--progress", "none"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let manifest = out + "/" + Manifest.fileName
        var waited = 0
        while waited < 60_000, ((try? String(contentsOfFile: manifest, encoding: .utf8))?.split(separator: "\n").count ?? 0) < 10 {
            usleep(10_000)
            waited += 10
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let done = try Manifest.load(folder: out).records.count
        #expect(done >= 10 && done < 60, "killed part-way: \(done) of 60 recorded")
        // Whatever is on disk decodes whole.
        for sub in try FileManager.default.subpathsOfDirectory(atPath: out) where !sub.hasPrefix(".") && (sub.hasSuffix("jpg") || sub.hasSuffix("JPG") || sub.hasSuffix("png")) {
            #expect(throws: Never.self) { _ = try decodedPixels(out + "/" + sub) }
        }
        let resumed = try apply([look, root, "-o", out])
        #expect(resumed.status == 0)
        #expect(resumed.count("skipped") >= done)
        #expect(resumed.count("rendered") + resumed.count("skipped") == good.count)
        #expect(try apply([look, root, "-o", out]).count("rendered") == 0)
        let litter = try FileManager.default.subpathsOfDirectory(atPath: out).filter { $0.contains(".recipe-tmp-") }
        #expect(litter.isEmpty, "temporaries of the killed run are gone: \(litter)")
    }

    @Test("shards 1..N cover every photo exactly once; their manifests merge")
    func shards() throws {
        let (root, good) = try tree("apply-shards", count: 40)
        let dir = (root as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/out"
        let look = try recipeFile(dir)
        var seen: [String] = []
        for k in 1...3 {
            let run = try apply([look, root, "-o", out, "--shard", "\(k)/3"])
            #expect(run.status == 0)
            #expect(run.count("rendered") > 0, "shard \(k) has work")
            seen += run.with("rendered").compactMap { $0["source"] as? String }
        }
        #expect(seen.count == good.count)
        #expect(Set(seen) == Set(good))
        let names = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasPrefix(".recipe-manifest") }.sorted()
        #expect(names == (1...3).map { ".recipe-manifest.shard-\($0)-of-3.jsonl" })
        // A shard run again has nothing to do; a run without --shard finds all done and folds the manifests into one.
        #expect(try apply([look, root, "-o", out, "--shard", "2/3"]).count("rendered") == 0)
        let whole = try apply([look, root, "-o", out])
        #expect(whole.count("rendered") == 0)
        #expect(whole.count("skipped") == good.count)
        let after = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasPrefix(".recipe-manifest") }
        #expect(after == [Manifest.fileName])
        #expect(try Manifest.load(folder: out).records.count == good.count)
    }

    @Test("--shard auto: the tasks of a Slurm array 5-7 render what shards 1/3…3/3 would, a pod with the same index the same; told nothing, apply refuses (exit 2)")
    func shardAuto() throws {
        let (root, good) = try tree("apply-shard-auto", count: 12)
        let dir = (root as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/out"
        let look = try recipeFile(dir)
        var base = ProcessInfo.processInfo.environment
        for name in Shard.environmentVariables { base[name] = nil }
        func auto(_ env: [String: String], _ shard: String = "auto", _ extra: [String] = []) throws -> Run {
            let r = try ExternalTool.run(TestPaths.recipeBinary, ["apply", "--json", look, root, "-o", out, "--shard", shard] + extra,
                                         environment: base.merging(env) { $1 })
            let records = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
            }
            return Run(status: r.status, stderr: r.stderr, records: records)
        }
        func slurm(_ id: Int, min: Int = 5, max: Int = 7, count: Int = 3) -> [String: String] {
            ["SLURM_ARRAY_TASK_ID": "\(id)", "SLURM_ARRAY_TASK_MIN": "\(min)", "SLURM_ARRAY_TASK_MAX": "\(max)",
             "SLURM_ARRAY_TASK_STEP": "1", "SLURM_ARRAY_TASK_COUNT": "\(count)"]
        }

        let none = try auto([:])
        #expect(none.status == 2)
        for name in ["SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "PARALLEL_SEQ", "RECIPE_SHARD_COUNT"] {
            #expect(none.stderr.contains(name), "\(none.stderr)")
        }
        #expect(try auto(slurm(3, min: 1, max: 9)).status == 2)        // --array=1,3,9
        #expect(try auto(["JOB_COMPLETION_INDEX": "0"]).status == 2)  // no count
        #expect(!FileManager.default.fileExists(atPath: out))

        // A pod with index 1 of 3 would render what Slurm's task 6 of 5-7 renders.
        let pod = try auto(["JOB_COMPLETION_INDEX": "1", "RECIPE_SHARD_COUNT": "3"], "auto", ["--dry-run"])
        #expect(pod.status == 0 && pod.stderr.contains("shard 2/3 (JOB_COMPLETION_INDEX=1, 3 shards)"), "\(pod.stderr)")
        var seen: [String] = []
        for id in 5...7 {
            let run = try auto(slurm(id))
            #expect(run.status == 0)
            #expect(run.stderr.contains("shard \(id - 4)/3 (SLURM_ARRAY_TASK_ID=\(id) of the array 5-7)"), "\(run.stderr)")
            seen += run.with("rendered").compactMap { $0["source"] as? String }
            if id == 6 { #expect(run.sources("rendered") == pod.sources("would-render")) }
        }
        #expect(seen.count == good.count)
        #expect(Set(seen) == Set(good))
        let names = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasPrefix(".recipe-manifest") }.sorted()
        #expect(names == (1...3).map { ".recipe-manifest.shard-\($0)-of-3.jsonl" })
        // An explicit K/N ignores the environment.
        let explicit = try auto(slurm(5), "2/3")
        #expect(explicit.status == 0 && explicit.count("rendered") == 0 && !explicit.stderr.contains("SLURM"))
    }

    @Test("several recipes apply in order; --with-sidecars puts each photo's own edit first; --only-edited; templates and --format")
    func chains() throws {
        let (root, good) = try tree("apply-chain", count: 6, folders: 2)
        let dir = (root as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try write("format: dev.recipe.edit\nversion: 1.1\nstages:\n  - exposure: 0.3\n  - crop: {aspect: \"1:1\"}\n", dir + "/base.recipe.yaml")
        try write("format: dev.recipe.edit\nversion: 1.1\nstages:\n  - sepia: 0.5\n  - vignette: 0.4\n", dir + "/style.recipe.yaml")
        try write("format: dev.recipe.edit\nversion: 1.1\nstages:\n  - exposure: 0.3\n  - crop: {aspect: \"1:1\"}\n  - sepia: 0.5\n  - vignette: 0.4\n", dir + "/both.recipe.yaml")
        let out = dir + "/out"
        let run = try apply([dir + "/base.recipe.yaml", dir + "/style.recipe.yaml", root, "-o", out, "--format", "png",
                             "--name", "{recipe}/{dir}/{stem}.{ext}"])
        #expect(run.status == 0, "\(run.stderr)")
        let photo = good[1]
        let relative = String(photo.dropFirst(root.count + 1))
        let chained = out + "/base+style/" + (relative as NSString).deletingPathExtension + ".png"
        #expect(run.outputs("rendered").contains(chained))
        // Independent expectation: one recipe holding both recipes' stages.
        _ = try ok(["render", photo, "--recipe", dir + "/both.recipe.yaml", "-o", dir + "/both.png"])
        let a = try decodedPixels(chained), b = try decodedPixels(dir + "/both.png")
        #expect(a.count == b.count)
        let worst = zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 255
        #expect(worst <= 1, "chained vs combined: max difference \(worst)")

        // A sidecar on one photo: --only-edited --with-sidecars renders just it, its edit first.
        _ = try ok(["edit", photo, "--stage", "contrast: 1.3", "--no-render"])
        try write("format: dev.recipe.edit\nversion: 1.1\nstages:\n  - contrast: 1.3\n  - sepia: 0.5\n  - vignette: 0.4\n", dir + "/edited.recipe.yaml")
        let edited = try apply([dir + "/style.recipe.yaml", root, "-o", dir + "/out2", "--only-edited", "--with-sidecars", "--format", "png"])
        #expect(edited.sources("rendered") == [photo])
        #expect(edited.count("skipped") + edited.count("failed") == 0)
        _ = try ok(["render", photo, "--recipe", dir + "/edited.recipe.yaml", "-o", dir + "/edited.png"])
        let c = try decodedPixels(dir + "/out2/" + (relative as NSString).deletingPathExtension + ".png"), d = try decodedPixels(dir + "/edited.png")
        let worst2 = c.count == d.count ? (zip(c, d).map { abs(Int($0) - Int($1)) }.max() ?? 255) : 255
        #expect(worst2 <= 1, "sidecar + style vs combined: max difference \(worst2)")
        // The sidecar's edit is part of the key: changing it renders that photo again.
        _ = try ok(["edit", photo, "--stage", "exposure: 0.1", "--no-render"])
        #expect(try apply([dir + "/style.recipe.yaml", root, "-o", dir + "/out2", "--only-edited", "--with-sidecars", "--format", "png"]).sources("rendered") == [photo])

        // Two photos that would get one name both fail, naming each other; the rest render.
        try FileManager.default.copyItem(atPath: Self.smallPhotos[2], toPath: (photo as NSString).deletingPathExtension + ".png")
        #expect(photo.hasSuffix(".jpg"))
        let clash = try apply([dir + "/style.recipe.yaml", root, "-o", dir + "/out3", "--format", "png"])
        #expect(clash.status == 1)
        #expect(clash.count("failed") == 2)
        let clashNamed = clash.with("failed").allSatisfy { ($0["error"] as? String)?.contains("also the output of") == true }
        #expect(clashNamed)
        #expect(clash.count("rendered") == good.count - 1)
    }

    @Test("usage errors exit 2 before anything is written; --dry-run writes nothing and says why")
    func usage() throws {
        let (root, good) = try tree("apply-usage", count: 4)
        let dir = (root as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let look = try recipeFile(dir)
        try write("format: dev.recipe.edit\nversion: 1.1\nstages:\n  - exposur: 0.3\n", dir + "/bad.recipe.yaml")
        let out = dir + "/out"
        let cases: [[String]] = [
            [look, root + "/missing", "-o", out],
            [dir + "/bad.recipe.yaml", root, "-o", out],
            [look, root, "-o", out, "--shard", "4/3"],
            [look, root, "-o", out, "--name", "{dir}/{stm}.jpg"],
            [look, root, "-o", out, "--set", "nope=1"],
            [look, root, "-o", root],
            [root, "-o", out],
            [look, "-o", out],
        ]
        for args in cases {
            let r = try recipe(["apply"] + args)
            #expect(r.status == 2, "\(args): \(r.stderr)")
            #expect(!r.stderr.isEmpty)
        }
        #expect(!FileManager.default.fileExists(atPath: out))
        let dry = try apply([look, root, "-o", out, "--dry-run"])
        #expect(dry.status == 0)
        #expect(dry.count("would-render") == good.count)
        #expect(dry.with("would-render").allSatisfy { $0["reason"] as? String == "new" })
        #expect(!FileManager.default.fileExists(atPath: out))
        _ = try apply([look, root, "-o", out])
        let again = try apply([look, root, "-o", out, "--dry-run", "--set", "lift=0.5"])
        #expect(again.with("would-render").allSatisfy { $0["reason"] as? String == "the recipe or the settings changed" })
        // Without a terminal and without --json: a plain line per photo.
        let plain = try recipe(["apply", look, root, "-o", out])
        let lines = String(decoding: plain.stdout, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == good.count)
        #expect(lines.allSatisfy { $0.hasPrefix("skipped ") && $0.contains(" (up to date") })
    }
}
