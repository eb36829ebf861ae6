import Foundation
import RecipeCore
import RecipeKernels
import Testing
import TestSupport
@testable import RecipeCodecs

/// DNGs carrying opcode lists, written by Tests/Tools/make_opcode_dng.py as the specification
/// lays the lists out: read back through the file's raw IFD with every number exact, the lens
/// shading multiplied into the mosaic as the tool's own reading of the specification expects,
/// and a malformed list a warning on a photo that still develops.
@Suite("DNG opcode files")
struct DNGOpcodeFileTests {
    static let tool = TestPaths.packageRoot.appendingPathComponent("Tests/Tools/make_opcode_dng.py").path

    /// Runs the tool with `arguments` into a fresh folder; returns the DNG's path and the folder.
    static func make(_ arguments: [String], name: String = "o.dng") throws -> (dng: String, dir: URL) {
        let dir = TestPaths.temporaryDirectory("dng-opcodes")
        let dng = dir.appendingPathComponent(name).path
        let r = try ExternalTool.run("/usr/bin/env", ["python3", tool, dng] + arguments.map {
            $0.replacingOccurrences(of: "DIR/", with: dir.path + "/")
        })
        #expect(r.status == 0, "make_opcode_dng.py: \(r.stderr)")
        return (dng, dir)
    }

    static let warp = "1.0012,-0.0213,0.0042,-0.0007,0.0011,-0.0006;1,-0.02,0.004,-0.0005,0.001,-0.0005;0.9991,-0.0188,0.0037,-0.0003,0.0009,-0.0004"
    static let warpPlanes: [[Double]] = warp.split(separator: ";").map { $0.split(separator: ",").map { Double($0)! } }

    @Test("the lists read back from the raw IFD: every header and parameter exact, as the tool wrote them",
          Requirement.python("numpy", "pidng"))
    func readBack() throws {
        let (dng, dir) = try Self.make(["--warp", Self.warp, "--warp-centre", "0.47,0.53", "--vignette", "0.31,-0.12,0.021,-0.0035,0.00041",
                                        "--vignette-centre", "0.5,0.45", "--gain-map", "5x7", "--gain-map-phases",
                                        "--extra", "1:4:1:8", "--extra", "3:99:0:16"])
        defer { try? FileManager.default.removeItem(at: dir) }
        let decoder = try RawDecoder(path: dng, options: DecodeOptions())
        let opcodes = try #require(decoder.info.raw?.opcodes)
        #expect(opcodes == DNGOpcodes.read(path: dng))
        #expect(opcodes.lists.map(\.number) == [1, 2, 3])
        #expect((opcodes.imageWidth, opcodes.imageHeight) == (64, 48))
        #expect(opcodes.list(1)?.opcodes.map(\.name) == ["FixBadPixelsConstant"])
        #expect(opcodes.list(2)?.opcodes.map(\.name) == Array(repeating: "GainMap", count: 4))
        #expect(opcodes.list(3)?.opcodes.map(\.name) == ["WarpRectilinear", "FixVignetteRadial", "unknown opcode 99"])
        #expect(opcodes.lists.flatMap(\.opcodes).allSatisfy { $0.versionText == "1.3.0.0" })
        #expect(opcodes.list(3)?.opcodes.map(\.isOptional) == [true, true, false])
        let c = try #require(opcodes.lensCalibration)
        #expect(c.distortion == .dngWarp(planes: Self.warpPlanes.map { LensCalibration.DNGWarpPlane(kr: Array($0[0..<4]), kt: Array($0[4...])) },
                                         centerX: 0.47, centerY: 0.53))
        #expect(c.vignetting == .dngRadial(k: [0.31, -0.12, 0.021, -0.0035, 0.00041], centerX: 0.5, centerY: 0.45))
        #expect(opcodes.vignetteBeforeWarp == false)
        let maps = opcodes.gainMaps
        #expect(maps.map { [$0.top, $0.left, $0.bottom, $0.right, $0.rowPitch, $0.colPitch] }
                == [[0, 0, 48, 64, 2, 2], [0, 1, 48, 64, 2, 2], [1, 0, 48, 64, 2, 2], [1, 1, 48, 64, 2, 2]])
        #expect(maps.allSatisfy { [$0.pointsV, $0.pointsH, $0.mapPlanes] == [5, 7, 1] && [$0.spacingV, $0.spacingH] == [0.25, 1.0 / 6] })
        // The tool's gains: 1 + 0.8·r² at the grid points (r = 1 at a corner), times 1 + 0.03·phase, as float32.
        for (phase, map) in maps.enumerated() {
            let want = (0..<35).map { n -> Float in
                let (v, h) = (Double(n / 7) / 4 - 0.5, Double(n % 7) / 6 - 0.5)
                return Float((1 + 0.8 * (v * v + h * h) / 0.5) * (1 + 0.03 * Double(phase)))
            }
            #expect(zip(map.gains, want).allSatisfy { abs($0 - $1) <= 1e-6 * $1 }, "phase \(phase)")
        }
        // The non-optional unknown opcode is the render's one warning.
        #expect(decoder.warnings.map(\.message) == [
            "OpcodeList3: opcode 3 of 3 (unknown opcode 99) is not marked optional, but recipe does not apply it: the render may differ from the camera maker's",
        ])
        let lines = Dictionary(uniqueKeysWithValues: decoder.info.details.map { ($0.label, $0.value) })
        #expect(lines["OpcodeList1"] == "FixBadPixelsConstant (optional)")
        #expect(lines["OpcodeList3"]?.hasPrefix("WarpRectilinear (optional): 3 planes, plane 0: kr 1.0012 -0.0213 0.0042 -0.0007, kt 0.0011 -0.0006; ") == true)
        #expect(lines["OpcodeList3"]?.hasSuffix("centre 0.47 0.53; FixVignetteRadial (optional): k 0.31 -0.12 0.021 -0.0035 0.00041, centre 0.5 0.45; unknown opcode 99") == true)
    }

    @Test("exiftool names the tool's opcodes as recipe does (the serialisation checked by another reader)",
          Requirement.python("numpy", "pidng"), Requirement.tool("exiftool"))
    func exiftoolAgrees() throws {
        let (dng, dir) = try Self.make(["--warp", Self.warp, "--vignette", "0.3,0,0,0,0", "--gain-map", "3x3", "--gain-map-phases", "--extra", "1:5:1:8"])
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try ExternalTool.run(try Requirement.path("exiftool"), ["-s", "-s", "-s", "-OpcodeList1", "-OpcodeList2", "-OpcodeList3", dng])
        let theirs = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
        let ours = try #require(DNGOpcodes.read(path: dng)).lists.map { $0.opcodes.map(\.name).joined(separator: ", ") }
        #expect(theirs == ours)
    }

    @Test("the GainMaps multiplied into the mosaic before the demosaic, sample for sample as the specification reads (numpy)",
          Requirement.python("numpy", "pidng"),
          arguments: [["--gain-map", "5x7", "--gain-map-phases"], ["--gain-map", "4x6", "--ramp", "--active-area", "2,4,46,64", "--size", "70x50"],
                      ["--gain-map", "1x1", "--cfa", "GBRG"]])
    func gainMapApplied(arguments: [String]) throws {
        let (dng, dir) = try Self.make(arguments + ["--expect-mosaic", "DIR/expected.u16"])
        defer { try? FileManager.default.removeItem(at: dir) }
        let decoder = try RawDecoder(path: dng, options: DecodeOptions())
        try decoder.start(scaleDenominator: 1)
        let mosaic = try #require(decoder.undeveloped?.mosaic)
        let expected = try Data(contentsOf: dir.appendingPathComponent("expected.u16")).withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }
        #expect(expected.count == mosaic.width * mosaic.height)
        var differ = 0
        for y in 0..<mosaic.height {
            for x in 0..<mosaic.width where mosaic.samples[(y + mosaic.top) * mosaic.pitch + mosaic.left + x] != expected[y * mosaic.width + x] {
                differ += 1
            }
        }
        #expect(differ == 0, "\(differ) samples differ from the specification's reading")
        #expect(decoder.warnings.count == 0)
    }

    @Test("a malformed opcode list: a warning naming the list and the problem, and the photo still renders uncorrected",
          Requirement.python("numpy", "pidng"),
          arguments: [([0xFF, 0xFF, 0xFF, 0xFF, 0, 0], "OpcodeList3 is malformed: it says 4294967295 opcodes, but its 6 bytes hold at most 0 (recipe reads up to 1024); none of its corrections are applied"),
                      ([0, 0, 0, 1, 0, 0, 0, 1, 1, 3, 0, 0, 0, 0, 0, 1, 0, 0, 16, 0, 0, 0],
                       "OpcodeList3 is malformed: opcode 1 of 1 (WarpRectilinear) says 4096 bytes of parameters, but 2 remain; none of its corrections are applied")]
                      as [([UInt8], String)])
    func malformedFile(list: [UInt8], message: String) throws {
        let dir0 = TestPaths.temporaryDirectory("dng-opcodes-bytes")
        defer { try? FileManager.default.removeItem(at: dir0) }
        let bytes = dir0.appendingPathComponent("list3.bin")
        try Data(list).write(to: bytes)
        let (dng, dir) = try Self.make(["--gain-map", "3x3", "--list3-bytes", bytes.path])
        defer { try? FileManager.default.removeItem(at: dir) }
        let decoder = try RawDecoder(path: dng, options: DecodeOptions())
        #expect(decoder.warnings.map(\.message) == [message])
        #expect(decoder.info.raw?.opcodes?.lensCalibration == nil)
        #expect(decoder.info.raw?.opcodes?.gainMaps.count == 1, "OpcodeList2 stands")
        // It develops (recipe's demosaic stage then renders it: DNGOpcodeInfoTests).
        try decoder.start(scaleDenominator: 2)
        #expect(decoder.undeveloped?.mosaic.width == 64)
    }

    @Test("a DNG without opcode lists has none; a photo that is not a DNG is not asked")
    func noLists() throws {
        #expect(DNGOpcodes.read(path: TestPaths.fixture("raw/kodim03-crop.dng")) == nil)
        #expect(try RawDecoder(path: TestPaths.fixture("raw/kodim03-crop.dng"), options: DecodeOptions()).info.raw?.opcodes == nil)
        #expect(DNGOpcodes.read(path: TestPaths.fixture("jpeg/pil_hopper.jpg")) == nil)
    }
}
