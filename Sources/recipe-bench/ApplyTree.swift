import Glibc

/// The photo library `recipe-bench apply` works on: `files` copies of a few small real photos in
/// `folders` folders (`d000/IMG_00001.jpg` …), so that a batch's per-photo overhead (walk, stat,
/// manifest, hash) shows rather than decode and encode time.
///
/// ```swift
/// let tree = ApplyTree(root: scratch.file("tree"), files: 10_000, folders: 100)
/// tree.build(seeds: [bytesA, bytesB])   // 100 folders of 100 photos
/// tree.include(firstFiles: 2_000)        // (["d00*/**", "d01*/**"], 2000)
/// ```
struct ApplyTree {
    /// The folder holding the photo folders.
    let root: String
    /// Photos in all.
    let files: Int
    /// Folders they are spread over (at most 1,000: three-digit names).
    let folders: Int

    /// Photos per folder (the last folders may hold fewer).
    var perFolder: Int { (files + folders - 1) / folders }

    /// `d007`: the name of folder `index`.
    static func folderName(_ index: Int) -> String {
        "d" + Format.padded(index, 3)
    }

    /// The path of photo `index` (0-based): `root/d000/IMG_00001.jpg`.
    func path(_ index: Int) -> String {
        FileSystem.join(root, Self.folderName(index / perFolder) + "/IMG_" + Format.padded(index + 1, 5) + ".jpg")
    }

    /// Writes the tree: photo `i` is a copy of `seeds[i % seeds.count]`. False (errno set) on failure.
    func build(seeds: [[UInt8]]) -> Bool {
        guard !seeds.isEmpty, mkdir(root, 0o755) == 0 else { return false }
        for folder in 0..<folders where mkdir(FileSystem.join(root, Self.folderName(folder)), 0o755) != 0 { return false }
        for index in 0..<files where !FileSystem.writeFile(bytes: seeds[index % seeds.count], to: path(index)) {
            return false
        }
        return true
    }

    /// Sets every photo's modification time to now (`touch`), leaving its content; false on failure.
    func touchAll() -> Bool {
        (0..<files).allSatisfy { utimensat(AT_FDCWD, path($0), nil, 0) == 0 }
    }

    /// `--include` globs that select the first folders holding at least `firstFiles` photos (a
    /// glob per ten folders, `d01*/**`, and one per folder for the rest), and how many photos
    /// they select.
    func include(firstFiles: Int) -> (globs: [String], count: Int) {
        let count = min(folders, (firstFiles + perFolder - 1) / perFolder)
        var globs = (0..<count / 10).map { "d" + Format.padded($0, 2) + "*/**" }
        globs += (count / 10 * 10..<count).map { Self.folderName($0) + "/**" }
        return (globs, min(files, count * perFolder))
    }
}

/// The closing line `recipe apply` writes on stderr, read back:
/// `recipe: rendered 0, up to date 10,000, failed 0 in 0.4s`.
struct ApplySummary: Equatable {
    let rendered: Int
    let upToDate: Int
    let failed: Int
    /// The line without its `recipe: ` prefix.
    let text: String

    /// The last summary line in `log` (a run's stderr), or nil if there is none.
    init?(log: String) {
        guard let line = log.split(separator: "\n").last(where: { $0.hasPrefix("recipe: rendered ") }) else { return nil }
        let text = line.dropFirst("recipe: ".count)
        /// The number (with `,` grouping) after `label` in the line.
        func number(after label: String) -> Int? {
            guard let range = text.firstRange(of: label) else { return nil }
            return Int(String(text[range.upperBound...].prefix { $0.isNumber || $0 == "," }.filter(\.isNumber)))
        }
        guard let rendered = number(after: "rendered "), let upToDate = number(after: "up to date "),
            let failed = number(after: "failed ")
        else { return nil }
        self.rendered = rendered
        self.upToDate = upToDate
        self.failed = failed
        self.text = String(text)
    }
}

/// How a `recipe apply --json` run decided each photo, counted from its records.
struct ApplyReasons {
    /// Records with `"status":"rendered"`.
    var rendered = 0
    /// Skipped on the manifest's stat alone (`"reason":"up to date"`): no file was read.
    var statHits = 0
    /// Skipped after hashing the source (`"reason":"up to date (same content)"`).
    var rehashed = 0
    /// Any other record except the summary.
    var other = 0

    /// Counts the records in `text` (one JSON object per line).
    init(json text: String) {
        for line in text.split(separator: "\n") where !line.contains("\"status\":\"summary\"") {
            if line.contains("\"status\":\"rendered\"") {
                rendered += 1
            } else if line.contains("\"status\":\"skipped\""), line.contains("\"reason\":\"up to date (same content)\"") {
                rehashed += 1
            } else if line.contains("\"status\":\"skipped\""), line.contains("\"reason\":\"up to date\"") {
                statHits += 1
            } else {
                other += 1
            }
        }
    }
}

/// A process's resident set from `/proc/PID/status`.
enum ProcStatus {
    /// The value in KiB of `field` (`VmRSS`, `VmHWM`) of process `pid`, or nil once it has exited.
    static func kib(_ field: String, of pid: pid_t) -> Int? {
        guard let text = FileSystem.readText("/proc/\(pid)/status") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(String(line.dropFirst(field.count + 1).filter(\.isNumber)))
        }
        return nil
    }
}
