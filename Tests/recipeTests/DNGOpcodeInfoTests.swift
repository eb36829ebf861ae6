import Foundation
import Testing
import TestSupport

/// `recipe info` and `render` on DNGs carrying opcode lists (Tests/Tools/make_opcode_dng.py).
@Suite("DNG opcodes on the command line")
struct DNGOpcodeInfoTests: CLITest {
    static let tool = TestPaths.packageRoot.appendingPathComponent("Tests/Tools/make_opcode_dng.py").path

    func make(_ dir: URL, _ arguments: [String]) throws -> String {
        let dng = dir.appendingPathComponent("o.dng").path
        let r = try ExternalTool.run("/usr/bin/env", ["python3", Self.tool, dng] + arguments)
        #expect(r.status == 0, "make_opcode_dng.py: \(r.stderr)")
        return dng
    }

    /// A DNG whose OpcodeList3 is one WarpRectilinear whose parameters claim 4096 bytes where 2
    /// follow, and the problem as recipe words it.
    func malformedDNG(_ dir: URL) throws -> (dng: String, problem: String) {
        let list = dir.appendingPathComponent("list3.bin")
        try Data([0, 0, 0, 1, 0, 0, 0, 1, 1, 3, 0, 0, 0, 0, 0, 1, 0, 0, 16, 0, 0, 0]).write(to: list)
        return (try make(dir, ["--list3-bytes", list.path]), "opcode 1 of 1 (WarpRectilinear) says 4096 bytes of parameters, but 2 remain")
    }

    @Test("`info` lists each list's opcodes: the lens ones with their parameters, the others by name",
          Requirement.python("numpy", "pidng"))
    func info() throws {
        let dir = TestPaths.temporaryDirectory("dng-opcode-info")
        defer { try? FileManager.default.removeItem(at: dir) }
        let dng = try make(dir, ["--warp", "1,-0.02,0.004,0,0,0", "--vignette", "0.3,-0.1,0,0,0", "--vignette-first",
                                 "--gain-map", "3x4", "--extra", "1:4:3:8"])
        let out = try ok(["info", dng])
        for line in ["OpcodeList1: FixBadPixelsConstant (optional, skipped in previews)",
                     "OpcodeList2: GainMap (optional): 3×4 points × 1 plane, gains 1.044444–1.8, plane 0, rows 0–48, columns 0–64, pitch 1×1",
                     "OpcodeList3: FixVignetteRadial (optional): k 0.3 -0.1 0 0 0, centre 0.5 0.5; WarpRectilinear (optional): 1 plane, kr 1 -0.02 0.004 0, kt 0 0, centre 0.5 0.5"] {
            #expect(out.contains(line), "no `\(line)` in:\n\(out)")
        }
    }

    @Test("`explain` shows the lens shading as a develop node before the white balance, holding a copy of the mosaic",
          Requirement.python("numpy", "pidng"))
    func explain() throws {
        let dir = TestPaths.temporaryDirectory("dng-opcode-explain")
        defer { try? FileManager.default.removeItem(at: dir) }
        let dng = try make(dir, ["--gain-map", "3x4", "--gain-map-phases"])
        let recipePath = dir.appendingPathComponent("r.recipe.yaml").path
        try write("format: dev.recipe.edit\nversion: 1.2\nstages:\n  - develop: {white-balance: as-shot}\n", recipePath)
        let out = try ok(["explain", recipePath, "--photo", dng])
        let shading = try #require(out.range(of: "#d2 lens shading"), "no lens shading node in:\n\(out)")
        let balance = try #require(out.range(of: "#d3 white balance"))
        #expect(shading.lowerBound < balance.lowerBound)
        #expect(out.contains("the DNG's OpcodeList2: 4 gain maps multiplied into a copy of the mosaic"), "\(out)")
    }

    @Test("a malformed list: `info` and `render` say what is wrong, exit 0, and the photo renders",
          Requirement.python("numpy", "pidng"))
    func malformed() throws {
        let dir = TestPaths.temporaryDirectory("dng-opcode-malformed")
        defer { try? FileManager.default.removeItem(at: dir) }
        let (dng, problem) = try malformedDNG(dir)
        let info = try recipe(["info", dng])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(String(decoding: info.stdout, as: UTF8.self).contains("OpcodeList3: malformed: \(problem)"))
        #expect(info.stderr.contains("OpcodeList3 is malformed: \(problem); none of its corrections are applied"), "\(info.stderr)")
        let output = dir.appendingPathComponent("o.png").path
        let render = try recipe(["render", dng, "-o", output])
        #expect(render.status == 0, "\(render.stderr)")
        #expect(render.stderr.contains("OpcodeList3 is malformed"), "\(render.stderr)")
        #expect(FileManager.default.fileExists(atPath: output))
    }
}
