/// Which bench photo a row reads; ratios compare a row with the floor row of the same photo.
enum BenchImage: CaseIterable {
    /// `bench/photo24-baseline-q95.jpg`: 4000×6000 baseline JPEG, quality 95.
    case baseline
    /// `bench/photo24-progressive.jpg`: the same size, progressive.
    case progressive

    /// Both photos' frame headers and file sizes.
    typealias Inputs = (headers: [BenchImage: JPEGFrameHeader], sizes: [BenchImage: Int])

    /// The frame headers and sizes of both photos in `corpus`/bench, or the first that cannot be read.
    static func inputs(corpus: String) -> Result<Inputs, JPEGFrameHeader.Problem> {
        var read: Inputs = ([:], [:])
        for image in allCases {
            let path = FileSystem.join(corpus, "bench/" + image.fileName)
            switch JPEGFrameHeader.read(path: path) {
            case .failure(let problem): return .failure(problem)
            case .success(let header): read.headers[image] = header
            }
            read.sizes[image] = FileSystem.size(path) ?? 0
        }
        return .success(read)
    }

    /// The file name inside `corpus/bench/`.
    var fileName: String {
        switch self {
        case .baseline: return "photo24-baseline-q95.jpg"
        case .progressive: return "photo24-progressive.jpg"
        }
    }
}

/// The rows of the table, in order. The raw value is the row number shown in the table.
enum RowID: Int, CaseIterable {
    /// `djpeg IMG | cjpeg -quality 90 > out.jpg` on the baseline photo: the libjpeg-turbo floor.
    case floorBaseline = 1
    /// `recipe render IMG -o out.jpg` (identity recipe, full size, q90 4:2:0) on the baseline photo.
    case identityFull
    /// `recipe render IMG -o out.jpg --size display` on the baseline photo.
    case display
    /// The floor on the progressive photo.
    case floorProgressive
    /// `recipe render` full size on the progressive photo.
    case progressiveFull
    /// `djpeg -outfile /dev/null` alone on the progressive photo: libjpeg's coefficient buffer + a small process.
    case djpegProgressive
    /// `vips copy IMG 'out.jpg[Q=90,subsample-mode=on]'` on the baseline photo.
    case vipsCopy
    /// ImageMagick 6 `convert IMG -quality 90 -sampling-factor 2x2 out.jpg` on the baseline photo.
    case imageMagick

    /// The photo the row reads.
    var image: BenchImage {
        switch self {
        case .floorProgressive, .progressiveFull, .djpegProgressive: return .progressive
        default: return .baseline
        }
    }

    /// The row whose wall time this row's ratio divides by.
    var floor: RowID { image == .baseline ? .floorBaseline : .floorProgressive }

    /// The row's label in the table (Markdown; pipes escaped).
    var title: String {
        let photo = image == .baseline ? "baseline" : "progressive"
        switch self {
        case .floorBaseline, .floorProgressive: return "floor `djpeg \\| cjpeg -quality 90`, \(photo)"
        case .identityFull, .progressiveFull: return "recipe identity, full size, \(photo)"
        case .display: return "recipe identity, `--size display`, \(photo)"
        case .djpegProgressive: return "`djpeg` alone to /dev/null, \(photo)"
        case .vipsCopy: return "vips copy Q=90 4:2:0, \(photo)"
        case .imageMagick: return "ImageMagick convert q90 2x2 (Debian policy), \(photo)"
        }
    }
}

/// What to do for one row: run a command, or skip it because its tool is missing.
enum RowPlan {
    /// Measure this command.
    case run(Command)
    /// Do not measure; the string says why (e.g. "vips not on PATH").
    case skip(String)
}

/// The external tools the rows need, found before anything is measured.
///
/// ```swift
/// let tools = Toolbox.discover(runner: runner, scratch: scratch)
/// tools.vips          // "/usr/bin/vips", or nil when not on PATH
/// ```
struct Toolbox {
    /// `djpeg` on PATH.
    var djpeg: String?
    /// `cjpeg` on PATH.
    var cjpeg: String?
    /// `vips` on PATH.
    var vips: String?
    /// `/usr/bin/convert` when it is ImageMagick (`-version` says so), else nil.
    var imageMagick: String?
    /// Why `imageMagick` is nil.
    var imageMagickMissing = "/usr/bin/convert missing"

    /// Looks the tools up. `/usr/bin/convert` is run once with `-version` (stdout into the scratch
    /// directory), because other programs, or a stand-in script, may be installed under that name.
    static func discover(runner: ProcessRunner, scratch: ScratchDirectory) -> Toolbox {
        var tools = Toolbox()
        tools.djpeg = FileSystem.which("djpeg")
        tools.cjpeg = FileSystem.which("cjpeg")
        tools.vips = FileSystem.which("vips")
        let convert = imageMagickTool("/usr/bin/convert", runner: runner, scratch: scratch)
        tools.imageMagick = convert.path
        tools.imageMagickMissing = convert.missing
        return tools
    }

    /// `path` when it is an executable ImageMagick program (its `-version`, written into the
    /// scratch directory, starts `Version: ImageMagick`), else nil and why not: other programs, or
    /// a stand-in script, may be installed under that name.
    static func imageMagickTool(_ path: String, runner: ProcessRunner, scratch: ScratchDirectory)
        -> (path: String?, missing: String)
    {
        guard FileSystem.isExecutable(path) else { return (nil, "\(path) missing") }
        let versionFile = scratch.file(FileSystem.baseName(path) + "-version.txt")
        let probe = Command(executable: path, arguments: [FileSystem.baseName(path), "-version"])
        if case .success = runner.run(probe, stdoutPath: versionFile),
            let text = FileSystem.readText(versionFile), text.hasPrefix("Version: ImageMagick")
        {
            return (path, "")
        }
        return (nil, "\(path) is not ImageMagick")
    }

    /// The plan for every row: its command with outputs in `scratch`, or why it is skipped.
    func plans(recipe: String, corpus: String, scratch: ScratchDirectory) -> [RowID: RowPlan] {
        func photo(_ image: BenchImage) -> String { FileSystem.join(corpus, "bench/" + image.fileName) }
        let pipeMissing = [("djpeg", djpeg), ("cjpeg", cjpeg)].filter { $0.1 == nil }.map(\.0)
        var plans: [RowID: RowPlan] = [:]
        for row in RowID.allCases {
            let input = photo(row.image)
            let output = scratch.file("row\(row.rawValue).jpg")
            switch row {
            case .floorBaseline, .floorProgressive:
                if !pipeMissing.isEmpty {
                    plans[row] = .skip(pipeMissing.joined(separator: ", ") + " not on PATH")
                } else {
                    let script = "djpeg \(Shell.quote(input)) | cjpeg -quality 90 > \(Shell.quote(output))"
                    plans[row] = .run(.shell(script, output: output))
                }
            case .identityFull, .progressiveFull:
                plans[row] = .run(
                    Command(executable: recipe, arguments: ["recipe", "render", input, "-o", output],
                            expectedOutput: output))
            case .display:
                plans[row] = .run(
                    Command(executable: recipe,
                            arguments: ["recipe", "render", input, "-o", output, "--size", "display"],
                            expectedOutput: output))
            case .djpegProgressive:
                plans[row] = djpeg.map { .run(Command(executable: $0, arguments: ["djpeg", "-outfile", "/dev/null", input])) }
                    ?? .skip("djpeg not on PATH")
            case .vipsCopy:
                plans[row] = vips.map {
                    .run(Command(executable: $0, arguments: ["vips", "copy", input, output + "[Q=90,subsample-mode=on]"],
                                 expectedOutput: output))
                } ?? .skip("vips not on PATH")
            case .imageMagick:
                plans[row] = imageMagick.map {
                    .run(Command(executable: $0,
                                 arguments: ["convert", input, "-quality", "90", "-sampling-factor", "2x2", output],
                                 expectedOutput: output))
                } ?? .skip(imageMagickMissing)
            }
        }
        return plans
    }
}
