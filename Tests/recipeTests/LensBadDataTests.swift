import Foundation
import Testing
import TestSupport

/// Damaged or absurd lens data through `render`, as a user meets it: an EXIF focal length no lens
/// has, a lensfun profile whose distortion folds back, a malformed DNG opcode list. Each gives a
/// message naming the photo and the problem, and the photo rendered uncorrected (or, where the
/// recipe requires the correction, exit 1 and no output); never a crash. And a DNG's own
/// WarpRectilinear and FixVignetteRadial against numpy's reading of the specification.
@Suite("bad lens data through render, and a DNG's own corrections against numpy")
struct LensBadDataTests: CLITest {
    static let makeDNG = TestPaths.packageRoot.appendingPathComponent("Tests/Tools/make_opcode_dng.py").path
    static let renderReference = TestPaths.packageRoot.appendingPathComponent("Tests/Tools/dng_opcode_render_reference.py").path

    /// The grid photo of LensCommandTests tagged as a Canon EOS 5D Mark II with the EF 24-70mm
    /// f/2.8L USM (a lens lensfun has) at `focal` mm, f/8.
    func canonPhoto(in dir: URL, focal: String) throws -> String {
        let photo = try LensCommandTests().base(in: dir)
        try LensCommandTests().tag(photo, ("Canon", "Canon EOS 5D Mark II", "EF24-70mm f/2.8L USM", focal, true))
        return photo
    }

    /// `recipe render photo` with a recipe of `stages`, into `output`.
    func render(_ photo: String, _ stages: String, _ output: String, in dir: URL, environment: [String: String]? = nil) throws -> ToolResult {
        let recipePath = dir.appendingPathComponent("r-\(UUID().uuidString.prefix(8)).recipe.yaml").path
        try write("format: dev.recipe.edit\nversion: 1.3\nstages:\n" + stages, recipePath)
        let args = ["render", photo, "--recipe", recipePath, "-o", output]
        guard let environment else { return try recipe(args) }
        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        return try ExternalTool.run(TestPaths.recipeBinary, args, environment: merged)
    }

    @Test("an EXIF focal length of 0 or 10,000 mm: exit 0, a warning naming the photo and the problem, the photo as without the stage; required: exit 1, no output",
          Requirement.tool("exiftool"), Requirement.imageMagick,
          arguments: [("0", "the photo gives no focal length"), ("10000", "a focal length of 10000 mm is not a photo's")])
    func absurdFocalLength(focal: String, problem: String) throws {
        let dir = TestPaths.temporaryDirectory("lens-focal-\(focal)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = try canonPhoto(in: dir, focal: focal)
        let plain = dir.appendingPathComponent("plain.png").path, lens = dir.appendingPathComponent("lens.png").path
        _ = try ok(["render", photo, "-o", plain])
        let r = try render(photo, "  - lens: auto\n", lens, in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("grid.jpg") && r.stderr.contains(problem) && r.stderr.contains("rendered without lens correction"), "\(r.stderr)")
        #expect(try decodedPixels(lens) == decodedPixels(plain), "the uncorrected photo differs from the photo rendered without the stage")

        let refused = dir.appendingPathComponent("refused.png").path
        let failed = try render(photo, "  - lens: {required: true}\n", refused, in: dir)
        #expect(failed.status == 1, "\(failed.stderr)")
        #expect(failed.stderr.contains("grid.jpg") && failed.stderr.contains(problem) && failed.stderr.contains("requires the correction"), "\(failed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: refused))
    }

    /// A lensfun database of one camera and one lens whose poly3 distortion at 24 mm
    /// (k1 = −0.9: r_d = r(1.9 − 0.9 r²), which turns back at r = 0.84) folds back inside the
    /// frame, with a real vignetting; the structure of lensfun's own slr-canon.xml.
    static let foldingDatabase = """
        <lensdatabase version="1">
            <mount>
                <name>Canon EF</name>
                <compat>Generic</compat>
            </mount>
            <camera>
                <maker>Canon</maker>
                <model>Canon EOS 5D Mark II</model>
                <mount>Canon EF</mount>
                <cropfactor>1</cropfactor>
            </camera>
            <lens>
                <maker>Canon</maker>
                <model>Canon EF 24-70mm f/2.8L USM</model>
                <mount>Canon EF</mount>
                <cropfactor>1</cropfactor>
                <calibration>
                    <distortion model="poly3" focal="24" k1="-0.9"/>
                    <distortion model="poly3" focal="70" k1="-0.9"/>
                    <vignetting model="pa" focal="24" aperture="8" distance="1000" k1="-0.4941" k2="0.1835" k3="-0.1135"/>
                    <vignetting model="pa" focal="70" aperture="8" distance="1000" k1="-0.4941" k2="0.1835" k3="-0.1135"/>
                </calibration>
            </lens>
        </lensdatabase>

        """

    @Test("a profile whose distortion folds back (RECIPE_LENSFUN_DATA): a warning, distortion left as it is, vignetting applied; required: true renders the same, matched or named",
          Requirement.tool("exiftool"), Requirement.imageMagick)
    func foldingProfile() throws {
        let dir = TestPaths.temporaryDirectory("lens-fold")
        defer { try? FileManager.default.removeItem(at: dir) }
        let data = dir.appendingPathComponent("lensfun")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        try write(Self.foldingDatabase, data.appendingPathComponent("folding.xml").path)
        let env = ["RECIPE_LENSFUN_DATA": data.path]
        let photo = try canonPhoto(in: dir, focal: "24")
        func out(_ name: String) -> String { dir.appendingPathComponent(name + ".png").path }

        let r = try render(photo, "  - lens: auto\n", out("auto"), in: dir, environment: env)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("grid.jpg") && r.stderr.contains("Canon EF 24-70mm f/2.8L USM's profile at 24 mm is not usable: its distortion folds back")
                && r.stderr.contains("distortion and TCA not corrected"), "\(r.stderr)")
        // What is left: the vignetting alone, as asked for outright; the grid is not moved.
        let vignettingOnly = try render(photo, "  - lens: {distortion: false, tca: false}\n", out("vignetting"), in: dir, environment: env)
        #expect(vignettingOnly.status == 0, "\(vignettingOnly.stderr)")
        _ = try ok(["render", photo, "-o", out("plain")])
        let auto = try decodedPixels(out("auto")), plain = try decodedPixels(out("plain"))
        let vignetting = try decodedPixels(out("vignetting"))
        #expect(auto == vignetting, "the folded profile's render is not its vignetting alone")
        #expect(auto != plain, "the vignetting was not applied")
        #expect(Self.darkColumns(auto, width: 240, row: 50) == Self.darkColumns(plain, width: 240, row: 50), "the grid moved")
        // With the vignetting off as well nothing is left: the photo as it is, and no resampling in the plan.
        let nothing = try render(photo, "  - lens: {vignetting: false}\n", out("nothing"), in: dir, environment: env)
        #expect(nothing.status == 0, "\(nothing.stderr)")
        #expect(try decodedPixels(out("nothing")) == plain, "vignetting: false still changed the photo")
        let explainRecipe = dir.appendingPathComponent("explain.recipe.yaml").path
        try write("format: dev.recipe.edit\nversion: 1.3\nstages:\n  - lens: auto\n", explainRecipe)
        let explained = try ExternalTool.run(TestPaths.recipeBinary, ["explain", explainRecipe, "--photo", photo],
                                             environment: ProcessInfo.processInfo.environment.merging(env) { $1 })
        let plan = String(decoding: explained.stdout, as: UTF8.self)
        #expect(explained.status == 0 && plan.contains("vignetting") && !plan.contains("lens correction ("), "\(plan)")
        // The system's database (its real profile) corrects the distortion: the folder was what was read.
        let system = try render(photo, "  - lens: auto\n", out("system"), in: dir)
        #expect(system.status == 0 && !system.stderr.contains("folds back"), "\(system.stderr)")
        let corrected = try decodedPixels(out("system"))
        #expect(corrected != auto, "the system's profile corrected nothing")
        // The fold drops distortion only: a required correction still renders, matched or named.
        for stages in ["  - lens: {required: true}\n", "  - lens: {profile: \"Canon EF 24-70mm f/2.8L USM\", required: true}\n"] {
            let required = try render(photo, stages, out("required"), in: dir, environment: env)
            #expect(required.status == 0 && required.stderr.contains("folds back"), "\(stages): \(required.stderr)")
            #expect(try decodedPixels(out("required")) == auto, "\(stages)")
        }
    }

    /// The columns of row `row` at the core of a dark line (far darker than the pale ground,
    /// whatever the vignetting does to it, and than their neighbours): the grid's lines.
    static func darkColumns(_ rgb: [UInt8], width: Int, row: Int) -> [Int] {
        let luma = (0..<width).map { x in (0..<3).reduce(0) { $0 + Int(rgb[(row * width + x) * 3 + $1]) } }
        return (1..<width - 1).filter { x in luma[x] < 3 * 100 && luma[x] <= luma[x - 1] && luma[x] < luma[x + 1] }
    }

    @Test("a malformed opcode list: lens: auto renders with a warning; profile: camera with required: true fails (exit 1) naming the problem",
          Requirement.python("numpy", "pidng"))
    func malformedOpcodeList() throws {
        let dir = TestPaths.temporaryDirectory("lens-opcodes-malformed")
        defer { try? FileManager.default.removeItem(at: dir) }
        let (dng, problem) = try DNGOpcodeInfoTests().malformedDNG(dir)

        let output = dir.appendingPathComponent("auto.png").path
        let r = try render(dng, "  - lens: auto\n", output, in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("o.dng") && r.stderr.contains(problem) && r.stderr.contains("rendered without lens correction"), "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: output))

        let refused = dir.appendingPathComponent("camera.png").path
        let failed = try render(dng, "  - lens: {profile: camera, required: true}\n", refused, in: dir)
        #expect(failed.status == 1, "\(failed.stderr)")
        #expect(failed.stderr.contains("o.dng") && failed.stderr.contains(problem) && failed.stderr.contains("requires the correction"), "\(failed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: refused))
    }

    /// Three planes (red, green, blue) of a WarpRectilinear that pulls the frame inwards (a
    /// pincushion's correction, every source position inside the picture) with a little
    /// tangential term and colour fringes, off-centre; a FixVignetteRadial lifting the corners.
    static let warp = "1,-0.035,0.006,0,0.0015,-0.001;1,-0.03,0.005,0,0.0015,-0.001;1,-0.025,0.004,0,0.0015,-0.001"
    static let warpCentre = "0.52,0.47"
    static let vignette = "0.3,0.1,0,0,0"
    static let vignetteCentre = "0.48,0.53"

    @Test("lens: camera on a DNG's WarpRectilinear and FixVignetteRadial against numpy (the specification's formulas, Catmull-Rom in linear light, on the render without the stage): ≤ 2/65535 mean, ≤ 0.0025 max",
          Requirement.python("numpy", "pidng", "png"), arguments: [false, true])
    func cameraCorrectionAgainstNumpy(vignetteFirst: Bool) throws {
        let dir = TestPaths.temporaryDirectory("lens-opcodes-reference")
        defer { try? FileManager.default.removeItem(at: dir) }
        let dng = dir.appendingPathComponent("waves.dng").path
        let opcodes = ["--warp", Self.warp, "--warp-centre", Self.warpCentre, "--vignette", Self.vignette, "--vignette-centre", Self.vignetteCentre]
            + (vignetteFirst ? ["--vignette-first"] : [])
        let made = try ExternalTool.run("/usr/bin/env", ["python3", Self.makeDNG, dng, "--size", "192x128", "--waves", "16"] + opcodes)
        try #require(made.status == 0, "make_opcode_dng.py: \(made.stderr)")
        let develop = "  - develop: {white-balance: as-shot, highlights: clip}\n"
        let plain = dir.appendingPathComponent("plain.png").path, lens = dir.appendingPathComponent("lens.png").path
        let reference = dir.appendingPathComponent("reference.png").path
        let p = try render(dng, develop, plain, in: dir)
        try #require(p.status == 0, "\(p.stderr)")
        let l = try render(dng, develop + "  - lens: camera\n", lens, in: dir)
        try #require(l.status == 0, "\(l.stderr)")
        let ref = try ExternalTool.run("/usr/bin/env", ["python3", Self.renderReference, plain, reference] + opcodes)
        try #require(ref.status == 0, "dng_opcode_render_reference.py: \(ref.stderr)")

        let got = try decodedSamples(lens), want = try decodedSamples(reference), uncorrected = try decodedSamples(plain)
        try #require(got.bits == 16 && want.bits == 16 && got.values.count == want.values.count && got.channels == 3, "\(got.bits)-bit, \(got.channels) channels")
        func difference(_ a: [Int], _ b: [Int]) -> (mean: Double, max: Int) {
            let d = zip(a, b).map { abs($0 - $1) }
            return (Double(d.reduce(0, +)) / Double(d.count), d.max() ?? 0)
        }
        let (mean, worst) = difference(got.values, want.values)
        let (before, _) = difference(uncorrected.values, want.values)
        testNote("lens: camera against numpy (vignetting \(vignetteFirst ? "before" : "after") the warp): mean \(String(format: "%.2f", mean))/65535, max \(worst)/65535; the render without it: mean \(String(format: "%.1f", before))/65535")
        #expect(before >= 100, "the correction hardly shows: \(before)/65535 without it")
        // The list's order holds: a list that warps first wants the gain at the output's
        // positions (applied before the warp regardless, it was mean 31/65535, max 407/65535).
        #expect(mean <= 2, "mean difference \(mean)/65535")
        #expect(Double(worst) <= 0.0025 * 65535, "largest difference \(worst)/65535")
    }
}
