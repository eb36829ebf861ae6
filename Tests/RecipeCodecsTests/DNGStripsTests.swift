import CRawLoader
import Foundation
import RecipeCore
import Testing
import TestSupport
@testable import RecipeCodecs

/// A DNG's mosaic read from its strips (`Sources/CRawLoader/DNGStrips.c`) instead of LibRaw's
/// unpack, which reads uncompressed DNGs a sample at a time: held to LibRaw's own unpack of the
/// same file (its `raw_image`), every sample of the frame including the margins outside the
/// visible image, and the levels, pattern and crop, with no tolerance; and damaged files, which
/// the strip reader must leave to LibRaw (and so to its clear errors) without reading outside them.
@Suite("A DNG's mosaic from its strips against LibRaw's unpack")
struct DNGStripsTests {
    /// The test DNGs: 16 bits (three orientations and patterns, one with a JPEG preview), packed
    /// 10 bits (rows of 312.5 bytes), 12 and 14 bits, the bundled one, and the shared corpus's
    /// (the ColorChecker: 14 bits packed, margins of 26 rows and 152 columns).
    static var dngs: [String] {
        ["kodim03-crop.dng", "kodim03-crop-o6.dng", "kodim03-crop-preview.dng", "kodim03-crop-10bit.dng", "kodim03-crop-12bit.dng",
         "kodim03-crop-14bit.dng"].map { TestPaths.fixture("raw/" + $0) }
            + [TestPaths.samples.appendingPathComponent("kodim03-bayer.dng").path] + TestPaths.corpusFiles("raw", extensions: ["dng"])
    }

    /// What an unpack gives: the whole frame, and what the develop takes from LibRaw's header.
    struct Frame: Equatable {
        var samples: [UInt16] = []
        var frame = (0, 0), crop = [Int](), pattern = [Int32](), black = [Float](), maximum: Float = 0
        var reader: Int32 = 0

        static func == (a: Frame, b: Frame) -> Bool {
            a.samples == b.samples && a.frame == b.frame && a.crop == b.crop && a.pattern == b.pattern && a.black == b.black
                && a.maximum == b.maximum
        }
    }

    /// `path` unpacked by `reader`; nil when that reader does not take the file (status 1).
    static func unpack(_ path: String, reader: Int32) throws -> Frame? {
        var info = rcp_raw_info()
        var code: Int32 = 0
        let raw = try #require(rcp_raw_open(path, &info, &code), "\(path): LibRaw cannot open it (\(code))")
        defer { rcp_raw_close(raw) }
        var m = rcp_raw_mosaic()
        var problems = rcp_raw_problems()
        let status = rcp_raw_unpack_mosaic_by(raw, 0, reader, &m, &problems)
        guard status == 0 else { return nil }
        var f = Frame()
        let (width, height) = (Int(m.frame_width), Int(m.frame_height))
        f.frame = (width, height)
        for y in 0..<height {
            f.samples += UnsafeBufferPointer(start: m.raw + y * Int(m.raw_pitch), count: width)
        }
        f.crop = [m.top, m.left, m.width, m.height].map(Int.init)
        f.pattern = [m.pattern.0, m.pattern.1, m.pattern.2, m.pattern.3]
        f.black = [m.black.0, m.black.1, m.black.2, m.black.3]
        f.maximum = m.maximum
        f.reader = m.reader
        return f
    }

    @Test("every sample of the frame, margins included, and the levels, pattern and crop are LibRaw's", arguments: dngs)
    func sameAsLibRaw(path: String) throws {
        let libRaw = try #require(try Self.unpack(path, reader: Int32(RCP_RAW_READER_LIBRAW)))
        let strips = try #require(try Self.unpack(path, reader: Int32(RCP_RAW_READER_STRIPS)), "\(path): not read from its strips")
        #expect(libRaw.reader == Int32(RCP_RAW_READER_LIBRAW) && strips.reader == Int32(RCP_RAW_READER_STRIPS))
        #expect(strips.samples.count == libRaw.frame.0 * libRaw.frame.1 && libRaw.samples.contains { $0 != 0 })
        let differing = zip(strips.samples, libRaw.samples).filter { $0 != $1 }.count
        #expect(differing == 0, "\(path): \(differing) of \(libRaw.samples.count) samples differ from LibRaw's unpack")
        #expect(strips.frame == libRaw.frame && strips.crop == libRaw.crop, "\(path): frame \(strips.frame) crop \(strips.crop) against LibRaw's \(libRaw.frame) \(libRaw.crop)")
        #expect(strips.black == libRaw.black && strips.maximum == libRaw.maximum && strips.pattern == libRaw.pattern,
                "\(path): levels \(strips.black) \(strips.maximum) against LibRaw's \(libRaw.black) \(libRaw.maximum)")
    }

    @Test("a render reads these DNGs from their strips, and other raws through LibRaw")
    func chosen() throws {
        try #require(ProcessInfo.processInfo.environment["RECIPE_RAW_UNPACK"] == nil)
        for (path, expected) in [(TestPaths.fixture("raw/kodim03-crop.dng"), RCP_RAW_READER_STRIPS),
                                 (TestPaths.fixture("raw/kodim03-crop-12bit.dng"), RCP_RAW_READER_STRIPS)]
            + TestPaths.corpusFiles("raw", extensions: ["kdc", "qtk"]).map({ ($0, RCP_RAW_READER_LIBRAW) }) {
            var info = rcp_raw_info()
            var code: Int32 = 0
            let raw = try #require(rcp_raw_open(path, &info, &code))
            defer { rcp_raw_close(raw) }
            var m = rcp_raw_mosaic()
            var problems = rcp_raw_problems()
            if rcp_raw_unpack_mosaic(raw, 0, &m, &problems) == 0 {
                #expect(m.reader == Int32(expected), "\(path)")
            } else {
                #expect(expected == RCP_RAW_READER_LIBRAW, "\(path): a DNG of the strip reader's not unpacked")
            }
        }
    }

    /// A copy of kodim03-crop.dng (little-endian, IFD0 the raw image, one strip) with `change`
    /// made to its bytes, in `folder`.
    static func damaged(_ name: String, in folder: URL, _ change: (inout Data, _ entry: (UInt16) -> Int) -> Void) throws -> String {
        var data = try Data(contentsOf: URL(fileURLWithPath: TestPaths.fixture("raw/kodim03-crop.dng")))
        let ifd = Int(data[4]) | Int(data[5]) << 8 | Int(data[6]) << 16 | Int(data[7]) << 24
        let count = Int(data[ifd]) | Int(data[ifd + 1]) << 8
        // The byte offset of each of IFD0's entries, by tag.
        var entries: [UInt16: Int] = [:]
        for at in (0..<count).map({ ifd + 2 + 12 * $0 }) { entries[UInt16(data[at]) | UInt16(data[at + 1]) << 8] = at }
        change(&data) { entries[$0] ?? -1 }
        let url = folder.appendingPathComponent(name + ".dng")
        try data.write(to: url)
        return url.path
    }

    static func put32(_ data: inout Data, _ at: Int, _ v: UInt32) {
        for k in 0..<4 { data[at + k] = UInt8(truncatingIfNeeded: v >> (8 * UInt32(k))) }
    }

    @Test("damaged DNGs are left to LibRaw: strips past the end or short, a cut file, IFDs outside the file or in a loop, absurd counts")
    func damaged() throws {
        let folder = TestPaths.temporaryDirectory("dng-strips")
        defer { try? FileManager.default.removeItem(at: folder) }
        let size = try Data(contentsOf: URL(fileURLWithPath: TestPaths.fixture("raw/kodim03-crop.dng"))).count
        // (name, the change, the strip reader's answer, whether LibRaw may be asked: a file whose
        // IFDs loop is only for the strip reader's walk)
        let cases: [(String, (inout Data, (UInt16) -> Int) -> Void, Int32, Bool)] = [
            ("strip-past-end", { d, e in Self.put32(&d, e(273) + 8, UInt32(size + 1000)) }, 6, true),
            ("strip-runs-past-end", { d, e in Self.put32(&d, e(273) + 8, UInt32(size - 100)) }, 6, true),
            ("cut", { d, _ in d = d.prefix(size / 2) }, 6, true),
            ("short-strip", { d, e in Self.put32(&d, e(279) + 8, 100) }, 5, true),
            ("huge-strip-count", { d, e in Self.put32(&d, e(273) + 4, 0x4000_0000); Self.put32(&d, e(279) + 4, 0x4000_0000) }, 5, true),
            ("ifd-past-end", { d, _ in Self.put32(&d, 4, 0x7fff_fff0) }, 1, false),
            ("ifd-loop", { d, _ in
                let ifd = Int(d[4]) | Int(d[5]) << 8 | Int(d[6]) << 16 | Int(d[7]) << 24
                let n = Int(d[ifd]) | Int(d[ifd + 1]) << 8
                Self.put32(&d, ifd + 2 + 12 * n, UInt32(ifd)) }, 0, false),
            ("absurd-size", { d, e in Self.put32(&d, e(256) + 8, 65000); Self.put32(&d, e(257) + 8, 65000) }, 4, true),
            ("not-tiff", { d, _ in d[2] = 0x2B }, 1, false),
            // DateTime's entry retagged MaskedAreas: LibRaw would measure black there, so it is LibRaw's
            ("masked-areas", { d, e in d[e(306)] = 0x8E; d[e(306) + 1] = 0xC6 }, 3, false),
        ]
        for (name, change, reason, libRaw) in cases {
            let path = try Self.damaged(name, in: folder, change)
            var bits: Int32 = 0
            #expect(rcp_raw_strips_layout(path, 256, 192, &bits) == reason, "\(name)")
            guard libRaw else { continue }
            // Through the decoder: a clear error, or a develop LibRaw made.
            do {
                let decoder = try RawDecoder(path: path, options: DecodeOptions())
                try decoder.start(scaleDenominator: 1)
                var info = rcp_raw_info()
                var code: Int32 = 0
                if let raw = rcp_raw_open(path, &info, &code) {
                    var m = rcp_raw_mosaic()
                    var problems = rcp_raw_problems()
                    if rcp_raw_unpack_mosaic(raw, 0, &m, &problems) == 0 {
                        #expect(m.reader == Int32(RCP_RAW_READER_LIBRAW), "\(name): read from its strips")
                    }
                    rcp_raw_close(raw)
                }
            } catch {
                #expect(!error.description.isEmpty && !error.description.contains("\n"), "\(name): \(error)")
            }
        }
    }
}
