import Foundation
import RecipeCodecs
import RecipeCore
import Testing
import TestSupport

/// The JPEG encoder against the IJG quality formula and against `cjpeg` at the same settings: the
/// same libjpeg-turbo given the same parameters writes the same file, so any setting we pass
/// differently (a quality off by one, a sampling factor, progressive or Huffman optimisation)
/// changes the bytes.
@Suite("JPEG encoding")
struct JPEGEncoderTests {
    /// The example tables of ITU-T T.81 Annex K (K.1 luminance, K.2 chrominance), in natural
    /// (row-major) order: what libjpeg scales by the quality.
    static let annexKLuma: [Int] = [
        16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55,
        14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62,
        18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
        49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
    ]
    static let annexKChroma: [Int] = [
        17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99,
        24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99,
    ] + Array(repeating: 99, count: 32)

    /// Position in natural order of each zig-zag index (T.81 figure A.6): DQT stores zig-zag order.
    static let zigzag: [Int] = [
        0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
        35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
    ]

    /// The IJG quality scaling (libjpeg `jpeg_quality_scaling` and `jpeg_add_quant_table` with
    /// baseline forced): 5000/q below 50, 200 − 2q from 50, each entry rounded and kept in 1…255.
    static func ijgTable(_ base: [Int], quality: Int) -> [Int] {
        let scale = quality < 50 ? 5000 / quality : 200 - 2 * quality
        return base.map { min(255, max(1, ($0 * scale + 50) / 100)) }
    }

    /// What a JPEG's headers say: its quantisation tables by slot (natural order) and, per
    /// component, the sampling factors and the table it uses.
    struct Header {
        var tables: [Int: [Int]] = [:]
        var components: [(h: Int, v: Int, table: Int)] = []
        var progressive = false
    }

    static func header(_ bytes: [UInt8]) throws -> Header {
        var h = Header()
        var i = 2
        try #require(bytes.count > 4 && bytes[0] == 0xFF && bytes[1] == 0xD8, "not a JPEG")
        while i + 4 <= bytes.count {
            try #require(bytes[i] == 0xFF, "marker expected at \(i)")
            let marker = bytes[i + 1]
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            let body = Array(bytes[(i + 4)..<min(bytes.count, i + 2 + length)])
            switch marker {
            case 0xDB:
                var j = 0
                while j < body.count {
                    let precision = Int(body[j] >> 4), slot = Int(body[j] & 15)
                    j += 1
                    var zig: [Int] = []
                    for _ in 0..<64 {
                        zig.append(precision == 0 ? Int(body[j]) : Int(body[j]) << 8 | Int(body[j + 1]))
                        j += precision == 0 ? 1 : 2
                    }
                    var natural = Array(repeating: 0, count: 64)
                    for (k, n) in zigzag.enumerated() { natural[n] = zig[k] }
                    h.tables[slot] = natural
                }
            case 0xC0, 0xC1, 0xC2:
                h.progressive = marker == 0xC2
                for c in 0..<Int(body[5]) {
                    let b = body[6 + 3 * c + 1]
                    h.components.append((Int(b >> 4), Int(b & 15), Int(body[6 + 3 * c + 2])))
                }
            case 0xDA:
                return h
            default:
                break
            }
            i += 2 + length
        }
        return h
    }

    /// hopper (128×128) cut to 101×67, so the edge blocks and MCUs are partial.
    static func source() throws -> NetpbmImage {
        let full = try #require(NetpbmImage(try Data(contentsOf: URL(fileURLWithPath: TestPaths.fixture("jpeg-ref/pil_hopper.s1.ppm")))))
        var samples: [Int] = []
        for y in 0..<67 { samples += full.samples[(y * 128 * 3)..<((y * 128 + 101) * 3)] }
        return NetpbmImage(width: 101, height: 67, channels: 3, maxValue: 255, samples: samples)
    }

    /// `image` written by our encoder with `options` and no metadata; the file's bytes.
    static func encode(_ image: NetpbmImage, _ options: JPEGOptions, in dir: URL) throws -> [UInt8] {
        let path = dir.appendingPathComponent("ours-\(UUID().uuidString).jpg").path
        let strip = PixelBuffer(width: image.width, rowCapacity: image.height, format: PixelFormat(.rgb, .uint8))
        strip.rowCount = image.height
        for y in 0..<image.height {
            let row = strip.samples(y, as: UInt8.self)
            for x in 0..<(image.width * 3) { row[x] = UInt8(image.samples[y * image.width * 3 + x]) }
        }
        let file = try AtomicOutputFile(path: path)
        let sink = try JPEGEncoder(handle: file.handle, path: path, width: image.width, height: image.height, colorModel: .rgb,
                                   metadata: ImageMetadata(), options: options)
        try sink.writeRows(from: strip)
        try sink.finish()
        try file.commit()
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    static func ppm(_ image: NetpbmImage) -> Data {
        var data = Data("P6\n\(image.width) \(image.height)\n255\n".utf8)
        data.append(contentsOf: image.samples.map { UInt8($0) })
        return data
    }

    @Test("the quantisation tables are the Annex K tables scaled by the IJG quality formula, and the sampling factors the ones asked for",
          arguments: [1, 10, 24, 25, 49, 50, 51, 75, 82, 90, 99, 100], JPEGOptions.Subsampling.allCases)
    func tablesFollowQuality(quality: Int, subsampling: JPEGOptions.Subsampling) throws {
        let dir = TestPaths.temporaryDirectory("jpeg-encode-tables")
        defer { try? FileManager.default.removeItem(at: dir) }
        let h = try Self.header(try Self.encode(try Self.source(), JPEGOptions(quality: quality, subsampling: subsampling), in: dir))
        #expect(h.tables[0] == Self.ijgTable(Self.annexKLuma, quality: quality), "luma table at quality \(quality)")
        #expect(h.tables[1] == Self.ijgTable(Self.annexKChroma, quality: quality), "chroma table at quality \(quality)")
        let luma: (Int, Int) = switch subsampling { case .s420: (2, 2); case .s422: (2, 1); case .s444: (1, 1) }
        try #require(h.components.count == 3)
        #expect(h.components[0].h == luma.0 && h.components[0].v == luma.1 && h.components[0].table == 0, "\(subsampling)")
        #expect(h.components[1...].allSatisfy { $0.h == 1 && $0.v == 1 && $0.table == 1 }, "\(subsampling)")
    }

    /// cjpeg's `-baseline` is our `force_baseline` (tables kept in 8 bits); without metadata both
    /// write a JFIF header, so the whole files agree.
    @Test("our JPEG is byte for byte cjpeg's at the same quality, sampling, progressive and Huffman options",
          Requirement.tool("cjpeg"),
          arguments: [(90, JPEGOptions.Subsampling.s420, false, false), (75, .s422, false, false), (50, .s444, false, false),
                      (12, .s420, false, false), (100, .s444, false, true), (82, .s420, true, false), (95, .s422, true, true)])
    func matchesCjpeg(quality: Int, subsampling: JPEGOptions.Subsampling, progressive: Bool, optimize: Bool) throws {
        let dir = TestPaths.temporaryDirectory("jpeg-encode-cjpeg")
        defer { try? FileManager.default.removeItem(at: dir) }
        let image = try Self.source()
        let ours = try Self.encode(image, JPEGOptions(quality: quality, subsampling: subsampling, progressive: progressive, optimizeCoding: optimize), in: dir)
        let input = dir.appendingPathComponent("in.ppm")
        try Self.ppm(image).write(to: input)
        let sample = switch subsampling { case .s420: "2x2"; case .s422: "2x1"; case .s444: "1x1" }
        let r = try ExternalTool.run(try Requirement.path("cjpeg"), ["-quality", "\(quality)", "-baseline", "-sample", sample]
            + (progressive ? ["-progressive"] : []) + (optimize ? ["-optimize"] : []) + [input.path])
        try #require(r.status == 0, "cjpeg: \(r.stderr)")
        let theirs = [UInt8](r.stdout)
        let (a, b) = (try Self.header(ours), try Self.header(theirs))
        #expect(a.tables == b.tables, "quantisation tables differ from cjpeg's at quality \(quality)")
        #expect(a.components.map { [$0.h, $0.v, $0.table] } == b.components.map { [$0.h, $0.v, $0.table] }, "sampling differs from cjpeg -sample \(sample)")
        #expect(a.progressive == progressive && b.progressive == progressive)
        let firstDifference = zip(ours, theirs).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(ours == theirs, "\(ours.count) bytes vs cjpeg's \(theirs.count), first difference at byte \(firstDifference.map(String.init) ?? "past the shorter")")
    }
}
