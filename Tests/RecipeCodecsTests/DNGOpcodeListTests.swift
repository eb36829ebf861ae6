import Foundation
import RecipeCore
import RecipeKernels
import Testing
import TestSupport
@testable import RecipeCodecs

/// Opcode lists written byte by byte here (big-endian, as DNG 1.4 §7 lays them out), so that the
/// parser meets every malformation a stranger's file can hold: each is a clear message naming the
/// list, the opcode and the problem, and never a crash.
@Suite("DNG opcode lists")
struct DNGOpcodeListTests {
    /// Big-endian bytes.
    struct Writer {
        var bytes: [UInt8] = []
        mutating func u32(_ v: UInt32) { bytes += (0..<4).map { UInt8(v >> (24 - 8 * UInt32($0)) & 255) } }
        mutating func i32(_ v: Int32) { u32(UInt32(bitPattern: v)) }
        mutating func f64(_ v: Double) { let b = v.bitPattern; bytes += (0..<8).map { UInt8(b >> (56 - 8 * UInt64($0)) & 255) } }
        mutating func f32(_ v: Float) { u32(v.bitPattern) }
    }

    static func opcode(_ id: UInt32, flags: UInt32 = 1, _ params: [UInt8]) -> [UInt8] {
        var w = Writer()
        for v in [id, 0x0103_0000, flags, UInt32(params.count)] { w.u32(v) }
        return w.bytes + params
    }

    static func list(_ opcodes: [[UInt8]], count: UInt32? = nil) -> [UInt8] {
        var w = Writer()
        w.u32(count ?? UInt32(opcodes.count))
        return w.bytes + opcodes.flatMap { $0 }
    }

    static func warp(planes: [[Double]], cx: Double = 0.5, cy: Double = 0.5) -> [UInt8] {
        var w = Writer()
        w.u32(UInt32(planes.count))
        for p in planes { p.forEach { w.f64($0) } }
        w.f64(cx)
        w.f64(cy)
        return w.bytes
    }

    static func vignette(_ k: [Double], cx: Double = 0.5, cy: Double = 0.5) -> [UInt8] {
        var w = Writer()
        (k + [cx, cy]).forEach { w.f64($0) }
        return w.bytes
    }

    static func gainMap(points: (UInt32, UInt32), planes: UInt32 = 1, pitch: UInt32 = 2, gains: [Float]) -> [UInt8] {
        var w = Writer()
        [0, 1, 48, 64].forEach { w.i32($0) }
        [0, 1, pitch, pitch, points.0, points.1].forEach { w.u32($0) }
        [0.25, 1.0 / 6, 0, 0].forEach { w.f64($0) }
        w.u32(planes)
        gains.forEach { w.f32($0) }
        return w.bytes
    }

    static let plane = [1.0, -0.02, 0.004, -0.0005, 0.001, -0.0005]

    @Test("a well-formed list: every header field and every parameter read exactly")
    func wellFormed() throws {
        let gains = (0..<35).map { Float(1 + Double($0) / 64) }
        let bytes = Self.list([Self.opcode(1, Self.warp(planes: [Self.plane, Self.plane.map { $0 * 1.01 }, Self.plane], cx: 0.48, cy: 0.52)),
                               Self.opcode(3, flags: 3, Self.vignette([0.3, -0.1, 0.02, -0.004, 0.0005], cx: 0.51)),
                               Self.opcode(9, flags: 0, Self.gainMap(points: (5, 7), gains: gains)),
                               Self.opcode(5, flags: 1, [UInt8](repeating: 0, count: 12))])
        let list = DNGOpcodeList.parse(bytes, number: 3)
        #expect(list.problem == nil)
        #expect(list.opcodes.map(\.name) == ["WarpRectilinear", "FixVignetteRadial", "GainMap", "FixBadPixelsList"])
        #expect(list.opcodes.map(\.id) == [1, 3, 9, 5])
        #expect(list.opcodes.map(\.isOptional) == [true, true, false, true])
        #expect(list.opcodes.map(\.isPreviewOnly) == [false, true, false, false])
        #expect(list.opcodes.map(\.byteCount) == [4 + 3 * 48 + 16, 56, 76 + 35 * 4, 12])
        #expect(list.opcodes[0].versionText == "1.3.0.0")
        guard case .warpRectilinear(let planes, let cx, let cy) = list.opcodes[0].parameters else { Issue.record("not a warp"); return }
        #expect(planes.map { $0.kr + $0.kt } == [Self.plane, Self.plane.map { $0 * 1.01 }, Self.plane])
        #expect(cx == 0.48 && cy == 0.52)
        #expect(list.opcodes[1].parameters == .fixVignetteRadial(k: [0.3, -0.1, 0.02, -0.004, 0.0005], centerX: 0.51, centerY: 0.5))
        guard case .gainMap(let m) = list.opcodes[2].parameters else { Issue.record("not a gain map"); return }
        let integers: [Int] = [m.top, m.left, m.bottom, m.right, m.plane, m.planes, m.rowPitch, m.colPitch, m.pointsV, m.pointsH, m.mapPlanes]
        #expect(integers == [0, 1, 48, 64, 0, 1, 2, 2, 5, 7, 1])
        #expect([m.spacingV, m.spacingH, m.originV, m.originH] == [0.25, 1.0 / 6, 0, 0])
        #expect(m.gains == gains)
        #expect(list.opcodes[3].parameters == .other)
    }

    @Test("the list's framing broken: the whole list is refused with what is wrong, and nothing of it kept",
          arguments: [
            (list([], count: 0xFFFF_FFFF), "it says 4294967295 opcodes, but its 4 bytes hold at most 0 (recipe reads up to 1024)"),
            (list([opcode(3, vignette([0, 0, 0, 0, 0]))], count: 2), "opcode 2 of 2 starts at byte 76, but its 16-byte header runs past the end (76 bytes)"),
            (list([opcode(1, warp(planes: [plane]))]).dropLast(10).map { $0 }, "opcode 1 of 1 (WarpRectilinear) says 68 bytes of parameters, but 58 remain"),
            (list([opcode(3, vignette([0, 0, 0, 0, 0])), opcode(1, flags: 1, [])]).prefix(4 + 72 + 9).map { $0 },
             "opcode 2 of 2 starts at byte 76, but its 16-byte header runs past the end (85 bytes)"),
            ([0, 0, 1], "it is 3 bytes long, too short for its count of opcodes"),
            (list([opcode(99, [1, 2, 3, 4])], count: 1000), "it says 1000 opcodes, but its 24 bytes hold at most 1"),
            (list([opcode(9, [UInt8](repeating: 0, count: 4))] + [opcode(7, flags: 0xFFFF_FFFF, [1, 2, 3])]).map { $0 } + [0], nil),
          ] as [([UInt8], String?)])
    func framing(bytes: [UInt8], problem: String?) {
        let list = DNGOpcodeList.parse(bytes, number: 3)
        #expect(list.problem == problem)
        if problem != nil {
            #expect(list.opcodes.isEmpty)
            let opcodes = DNGOpcodes(lists: [list], imageWidth: 64, imageHeight: 48)
            #expect(opcodes.warnings == ["OpcodeList3 is malformed: \(problem!); none of its corrections are applied"])
            #expect(opcodes.lensCalibration == nil)
            #expect(opcodes.details.first?.value == "malformed: \(problem!)")
        }
    }

    @Test("one opcode's parameters malformed: that opcode is named with its problem and dropped, the others stand",
          arguments: [
            (opcode(1, warp(planes: [plane]) + [0]), "WarpRectilinear", "it has 69 bytes of parameters; 1 plane takes 68"),
            (opcode(1, warp(planes: Array(repeating: plane, count: 5))), "WarpRectilinear", "it has 5 planes (1 to 4)"),
            (opcode(1, warp(planes: [[1, .nan, 0, 0, 0, 0]])), "WarpRectilinear", "a coefficient is not a finite number"),
            (opcode(1, warp(planes: [plane], cx: 1.5)), "WarpRectilinear", "its optical centre (1.5, 0.5) is outside the image (0 to 1)"),
            (opcode(1, [0, 0]), "WarpRectilinear", "its 2 bytes of parameters hold no count of planes"),
            (opcode(3, Array(vignette([0, 0, 0, 0, 0]).dropLast(8))), "FixVignetteRadial", "it has 48 bytes of parameters; it takes 56"),
            (opcode(3, vignette([0, .infinity, 0, 0, 0])), "FixVignetteRadial", "a coefficient is not a finite number"),
            (opcode(9, gainMap(points: (0x10000, 0x10000), planes: 4, gains: [])), "GainMap", "its grid of 65536×65536×4 gains is over the limit of 4194304"),
            (opcode(9, gainMap(points: (0xFFFF_FFFF, 0xFFFF_FFFF), planes: 4, gains: [])), "GainMap", "its grid of 4294967295×4294967295×4 gains is over the limit of 4194304"),
            (opcode(9, gainMap(points: (2, 2), gains: [1, 1, 1])), "GainMap", "it has 88 bytes of parameters; 2×2×1 gains take 92"),
            (opcode(9, gainMap(points: (1, 2), gains: [1, .nan])), "GainMap", "gain 2 is not a finite number"),
            (opcode(9, gainMap(points: (1, 1), pitch: 0, gains: [1])), "GainMap", "its row and column pitch are 0 and 0 (at least 1)"),
            (opcode(9, gainMap(points: (1, 1), planes: 0, gains: [])), "GainMap", "it has 0 map planes (1 to 4)"),
            (opcode(9, [UInt8](repeating: 0, count: 40)), "GainMap", "it has 40 bytes of parameters, fewer than the 76 before its gains"),
          ] as [([UInt8], String, String)])
    func malformedOpcode(bytes: [UInt8], name: String, problem: String) {
        let list = DNGOpcodeList.parse(Self.list([bytes, Self.opcode(3, Self.vignette([0.2, 0, 0, 0, 0]))]), number: 3)
        #expect(list.problem == nil)
        #expect(list.opcodes.count == 2)
        #expect(list.opcodes[0].name == name)
        #expect(list.opcodes[0].problem == problem)
        let opcodes = DNGOpcodes(lists: [list], imageWidth: 64, imageHeight: 48)
        #expect(opcodes.warnings == ["OpcodeList3: opcode 1 of 2 (\(name)) is malformed: \(problem); not applied"])
        #expect(opcodes.lensCalibration?.vignetting == .dngRadial(k: [0.2, 0, 0, 0, 0], centerX: 0.5, centerY: 0.5), "the good opcode stands")
        #expect(opcodes.lensCalibration?.distortion == nil)
        #expect(opcodes.details[0].value.contains("\(name) (optional): malformed: \(problem)"))
    }

    @Test("an opcode recipe does not apply: listed by name; a warning only when the file says it may not be skipped")
    func unknownOpcodes() {
        let list = DNGOpcodeList.parse(Self.list([Self.opcode(99, flags: 1, [1, 2, 3]), Self.opcode(99, flags: 0, []),
                                                  Self.opcode(4, flags: 0, [UInt8](repeating: 0, count: 8))]), number: 2)
        #expect(list.problem == nil)
        #expect(list.opcodes.map(\.name) == ["unknown opcode 99", "unknown opcode 99", "FixBadPixelsConstant"])
        let opcodes = DNGOpcodes(lists: [list], imageWidth: 64, imageHeight: 48)
        #expect(opcodes.warnings == [
            "OpcodeList2: opcode 2 of 3 (unknown opcode 99) is not marked optional, but recipe does not apply it: the render may differ from the camera maker's",
            "OpcodeList2: opcode 3 of 3 (FixBadPixelsConstant) is not marked optional, but recipe does not apply it: the render may differ from the camera maker's",
        ])
        #expect(opcodes.details.map(\.value) == ["unknown opcode 99 (optional); unknown opcode 99; FixBadPixelsConstant"])
    }

    @Test("lens calibration: the first warp of 1 or 3 planes and the first vignette of OpcodeList3, in their order")
    func calibration() {
        let list = DNGOpcodeList.parse(Self.list([Self.opcode(3, Self.vignette([0.2, 0, 0, 0, 0], cx: 0.4)),
                                                  Self.opcode(1, Self.warp(planes: [Self.plane, Self.plane])),
                                                  Self.opcode(1, Self.warp(planes: [Self.plane], cx: 0.6)),
                                                  Self.opcode(3, Self.vignette([0.9, 0, 0, 0, 0]))]), number: 3)
        let opcodes = DNGOpcodes(lists: [list], imageWidth: 64, imageHeight: 48)
        let c = opcodes.lensCalibration
        #expect(c?.source == .camera("DNG OpcodeList3"))
        #expect(c?.distortion == .dngWarp(planes: [LensCalibration.DNGWarpPlane(kr: Array(Self.plane[0..<4]), kt: Array(Self.plane[4...]))],
                                          centerX: 0.6, centerY: 0.5), "a two-plane warp does not fit an RGB develop")
        #expect(c?.vignetting == .dngRadial(k: [0.2, 0, 0, 0, 0], centerX: 0.4, centerY: 0.5))
        #expect(opcodes.vignetteBeforeWarp)
        #expect(opcodes.warnings == [
            "OpcodeList3: opcode 2 of 4 (WarpRectilinear) has 2 planes, for an image of 2 colours; not applied to this RGB develop",
            "OpcodeList3: opcode 4 of 4 (FixVignetteRadial) is a second vignetting correction; only the first is applied",
        ])
        // A list 2 gain map is a gain map; list 3's lens opcodes in list 2 are not a lens calibration.
        let two = DNGOpcodes(lists: [DNGOpcodeList.parse(Self.list([Self.opcode(1, Self.warp(planes: [Self.plane]))]), number: 2)],
                             imageWidth: 64, imageHeight: 48)
        #expect(two.lensCalibration == nil)
    }

    /// A TIFF structure in `bigEndian` order: IFD0 (NewSubFileType 1, a preview) pointing at one
    /// SubIFD (NewSubFileType 0, the raw) through SubIFDs, with `raw` and `ifd0` extra entries
    /// (tag, type, values: bytes for UNDEFINED, numbers for SHORT/LONG).
    static func tiff(bigEndian: Bool, ifd0 extra0: [(UInt16, UInt16, [Int])], raw extraRaw: [(UInt16, UInt16, [Int])]) -> [UInt8] {
        func n(_ v: Int, _ size: Int) -> [UInt8] {
            let le = (0..<size).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) }
            return bigEndian ? le.reversed() : le
        }
        func ifd(_ entries: [(UInt16, UInt16, [Int])], at base: Int) -> [UInt8] {
            let sorted = entries.sorted { $0.0 < $1.0 }
            var table = n(sorted.count, 2), values: [UInt8] = []
            let valuesAt = base + 2 + 12 * sorted.count + 4
            for (tag, type, v) in sorted {
                let size = type == 3 ? 2 : type == 4 ? 4 : 1
                let bytes = v.flatMap { n($0, size) }
                table += n(Int(tag), 2) + n(Int(type), 2) + n(v.count, 4)
                if bytes.count <= 4 {
                    table += bytes + [UInt8](repeating: 0, count: 4 - bytes.count)
                } else {
                    table += n(valuesAt + values.count, 4)
                    values += bytes + (bytes.count % 2 == 1 ? [0] : [])
                }
            }
            return table + n(0, 4) + values
        }
        let head: [UInt8] = bigEndian ? [0x4D, 0x4D, 0, 42] + n(8, 4) : [0x49, 0x49, 42, 0] + n(8, 4)
        // IFD0's size does not depend on the SubIFD's offset: lay it out once to learn it.
        let entries0 = extra0 + [(254, 4, [1]), (330, 4, [0])]
        let size0 = ifd(entries0, at: 8).count
        let sub = 8 + size0 + (size0 % 2)
        let first = ifd(extra0 + [(254, 4, [1]), (330, 4, [sub])], at: 8)
        return head + first + (size0 % 2 == 1 ? [0] : []) + ifd(extraRaw + [(254, 4, [0]), (256, 4, [70]), (257, 4, [50])], at: sub)
    }

    @Test("the lists of the raw IFD in a SubIFD, in either byte order of the file (the lists themselves big-endian); IFD0's when only it has one")
    func rawIFD() throws {
        let list3 = Self.list([Self.opcode(1, Self.warp(planes: [Self.plane], cx: 0.25))]).map(Int.init)
        let list2 = Self.list([Self.opcode(99, [])]).map(Int.init)
        for big in [false, true] {
            let bytes = Self.tiff(bigEndian: big, ifd0: [(51009, 7, list2), (51022, 7, Self.list([]).map(Int.init))],
                                  raw: [(51022, 7, list3), (50829, 3, [2, 4, 46, 64])])
            let opcodes = try #require(DNGOpcodes.read(size: bytes.count) { at, count in
                at >= 0 && count >= 0 && at + count <= bytes.count ? Array(bytes[at..<(at + count)]) : nil
            })
            #expect(opcodes.lists.map(\.number) == [2, 3])
            #expect(opcodes.list(3)?.opcodes.map(\.name) == ["WarpRectilinear"], "the raw IFD's list 3, not IFD0's empty one")
            #expect(opcodes.list(2)?.opcodes.map(\.name) == ["unknown opcode 99"], "IFD0's list 2, the raw IFD having none")
            #expect((opcodes.imageWidth, opcodes.imageHeight) == (60, 44), "the raw IFD's ActiveArea")
            #expect(opcodes.lensCalibration?.distortion == .dngWarp(planes: [LensCalibration.DNGWarpPlane(kr: Array(Self.plane[0..<4]), kt: Array(Self.plane[4...]))],
                                                                    centerX: 0.25, centerY: 0.5))
            #expect(opcodes.problems.isEmpty)
        }
        // A list pointing past the end of the file: named, and nothing else lost.
        var cut = Self.tiff(bigEndian: false, ifd0: [], raw: [(51022, 7, list3)])
        cut = Array(cut.dropLast(10))
        let opcodes = try #require(DNGOpcodes.read(size: cut.count) { at, count in
            at >= 0 && count >= 0 && at + count <= cut.count ? Array(cut[at..<(at + count)]) : nil
        })
        #expect(opcodes.problems == ["OpcodeList3 (tag 0xC74E) points outside the file"])
        #expect(opcodes.warnings == ["OpcodeList3 (tag 0xC74E) points outside the file"])
        #expect(opcodes.lists.isEmpty)
    }

    @Test("every truncation and a thousand byte flips of a list: parsed or refused, never a crash")
    func hostileBytes() {
        let good = Self.list([Self.opcode(1, Self.warp(planes: [Self.plane, Self.plane, Self.plane])),
                              Self.opcode(9, Self.gainMap(points: (3, 3), gains: Array(repeating: 1.5, count: 9))),
                              Self.opcode(3, Self.vignette([0.3, 0, 0, 0, 0]))])
        for n in 0..<good.count {
            let list = DNGOpcodeList.parse(Array(good.prefix(n)), number: 3)
            #expect(list.problem != nil, "a list cut to \(n) bytes is refused")
        }
        var rng = SplitMix64(seed: 54)
        for _ in 0..<1000 {
            var bytes = good
            for _ in 0..<3 { bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next()) }
            let opcodes = DNGOpcodes(lists: [DNGOpcodeList.parse(bytes, number: 3)], imageWidth: 64, imageHeight: 48)
            _ = (opcodes.warnings, opcodes.details, opcodes.lensCalibration, opcodes.gainMaps)
        }
    }
}
