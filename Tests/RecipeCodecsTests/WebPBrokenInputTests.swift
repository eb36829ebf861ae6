import Foundation
import RecipeCodecs
import RecipeCore
import Testing
import TestSupport

@Suite("WebP broken and hostile input")
struct WebPBrokenInputTests {
    /// "RIFF", the size field (little-endian), "WEBP", then `body`.
    static func riff(_ body: [UInt8], declaredSize: UInt32? = nil) -> [UInt8] {
        let size = declaredSize ?? UInt32(4 + body.count)
        return Array("RIFF".utf8) + withUnsafeBytes(of: size.littleEndian, Array.init) + Array("WEBP".utf8) + body
    }

    static func expectFailure(_ path: String, _ kind: ImageError.Kind, containing text: String? = nil,
                              options: DecodeOptions = DecodeOptions(), sourceLocation: Testing.SourceLocation = #_sourceLocation)
    {
        let (got, message) = webpOutcome(path, options: options)
        #expect(got == .fails(kind), "\((path as NSString).lastPathComponent): \(got) (\(message)), expected \(kind)",
                sourceLocation: sourceLocation)
        #expect(message.hasPrefix(path + ": "), "error must name the file: \(message)", sourceLocation: sourceLocation)
        if let text { #expect(message.contains(text), "\(message)", sourceLocation: sourceLocation) }
    }

    @Test("a truncated file is damaged, naming the file; allow-damaged renders the rows before the cut and grey after", Requirement.tool("cwebp", "dwebp"))
    func truncated() throws {
        let tools = try WebPTools.require(["cwebp", "dwebp"])
        let dir = TestPaths.temporaryDirectory("webp-cut")
        defer { try? FileManager.default.removeItem(at: dir) }
        for flags in [["-q", "90"], ["-lossless"]] {
            let full = dir.appendingPathComponent("full.webp").path
            try WebPTools.run(tools["cwebp"]!, ["-quiet"] + flags + [TestPaths.fixture("jpeg/ljt_testorig.jpg"), "-o", full])
            let bytes = try readBytes(full)
            let cut = dir.appendingPathComponent("cut\(flags[0]).webp").path
            try writeBytes(Array(bytes.prefix(bytes.count * 6 / 10)), to: cut)
            Self.expectFailure(cut, .damaged, containing: "allow-damaged")

            let (image, decoder) = try decodeWebP(cut, options: DecodeOptions(allowDamaged: true))
            let warning = try #require(decoder.warnings.first { $0.message.contains("rows decoded") }, "\(decoder.warnings)").message
            #expect(warning.contains("allow-damaged"))
            // "…: 57 of 149 rows decoded; …": the rows before the cut are libwebp's, the rest grey.
            let count = try #require(warning.components(separatedBy: " of 149 rows").first?.split(separator: " ").last.flatMap { Int($0) },
                                     "no row count in: \(warning)")
            #expect(count > 0 && count < 149, "\(flags): \(count) rows decoded from 60% of the file")
            let reference = try WebPTools.dwebp(full, tools: tools).channels(3)
            #expect(image.rows(0..<count).maxDifference(to: reference.rows(0..<count)) == 0, "\(flags): rows before the cut differ")
            #expect(image.rows(count..<149).samples.allSatisfy { $0 == 128 }, "\(flags): rows after the cut are not grey")
            testNote("truncated WebP (\(flags.joined(separator: " ")), 60% of \(bytes.count) bytes): \(count) of 149 rows decoded")
        }

        // Cut inside the headers: nothing to render, even with allow-damaged.
        let full = try readBytes(dir.appendingPathComponent("full.webp").path)
        for length in [4, 11, 16, 24] {
            let path = dir.appendingPathComponent("head\(length).webp").path
            try writeBytes(Array(full.prefix(length)), to: path)
            Self.expectFailure(path, .damaged)
            Self.expectFailure(path, .damaged, options: DecodeOptions(allowDamaged: true))
        }
    }

    @Test("garbage after a RIFF/WEBP header is corrupt; a RIFF size past the end of the file is not trusted")
    func garbage() throws {
        let dir = TestPaths.temporaryDirectory("webp-garbage")
        defer { try? FileManager.default.removeItem(at: dir) }
        func file(_ name: String, _ bytes: [UInt8]) throws -> String {
            let path = dir.appendingPathComponent(name).path
            try writeBytes(bytes, to: path)
            return path
        }
        var rng = SplitMix64(seed: 21)
        var noise = (0..<400).map { _ in rng.byte() }
        noise[0] = 0x11  // neither a VP8L signature (0x2F) nor a chunk name libwebp knows
        Self.expectFailure(try file("noise.webp", Self.riff(noise)), .corrupt, containing: "damaged WebP: bitstream error (VP8_STATUS_BITSTREAM_ERROR)")
        // A "VP8 " chunk whose payload is not a VP8 frame.
        let vp8 = Array("VP8 ".utf8) + [200, 0, 0, 0] + noise.prefix(200)
        Self.expectFailure(try file("vp8noise.webp", Self.riff(vp8)), .corrupt, containing: "VP8_STATUS_BITSTREAM_ERROR")
        // Sizes that lie: RIFF much larger than the file, RIFF smaller than its own header, a chunk past the end.
        let (huge, hugeMessage) = webpOutcome(try file("huge.webp", Self.riff(vp8, declaredSize: 0xFFFF_FFF0)))
        #expect(huge == .fails(.corrupt) || huge == .fails(.damaged), "\(huge): \(hugeMessage)")
        Self.expectFailure(try file("tiny.webp", Self.riff(vp8, declaredSize: 2)), .corrupt)
        let longChunk = Array("VP8L".utf8) + [0xF0, 0xFF, 0xFF, 0x7F] + [0x2F] + noise.prefix(50)
        let (long, longMessage) = webpOutcome(try file("longchunk.webp", Self.riff(longChunk)))
        #expect(long == .fails(.corrupt) || long == .fails(.damaged), "\(long): \(longMessage)")
        // Not a WebP at all.
        Self.expectFailure(try file("text.webp", Array("just some text, long enough".utf8)), .corrupt, containing: "not a WebP file")
    }

    @Test("bytes after the RIFF are ignored with a warning; a file cut after its image loses only the chunks after it", Requirement.tool("cwebp", "dwebp", "webpmux"))
    func containerSizes() throws {
        let tools = try WebPTools.require(["cwebp", "dwebp", "webpmux"])
        let dir = TestPaths.temporaryDirectory("webp-sizes")
        defer { try? FileManager.default.removeItem(at: dir) }
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
        try WebPTools.run(tools["cwebp"]!, ["-quiet", "-q", "80", TestPaths.fixture("jpeg/ljt_testorig.jpg"), "-o", path("a.webp")])
        let reference = try WebPTools.dwebp(path("a.webp"), tools: tools).channels(3)

        try writeBytes(try readBytes(path("a.webp")) + [UInt8](repeating: 0xAB, count: 100), to: path("tail.webp"))
        let (tail, t) = try decodeWebP(path("tail.webp"))
        #expect(tail == reference)
        #expect(t.warnings.map(\.message) == ["100 bytes after the end of the WebP data ignored"])

        // webpmux puts XMP after the image data; cut into it and the image is still whole.
        try writeBytes(WebPTestMetadata.xmp, to: path("x.xmp"))
        try WebPTools.run(tools["webpmux"]!, ["-set", "xmp", path("x.xmp"), path("a.webp"), "-o", path("xmp.webp")])
        let full = try readBytes(path("xmp.webp"))
        try writeBytes(Array(full.dropLast(60)), to: path("cut-xmp.webp"))
        let (cut, c) = try decodeWebP(path("cut-xmp.webp"))
        #expect(cut == reference)
        #expect(c.info.metadata.xmp == nil)
        #expect(c.warnings.contains { $0.message.contains("shorter than its RIFF header declares") }, "\(c.warnings)")
    }

    @Test("a VP8X header declaring 16383×16383 is refused by --max-pixels before anything is allocated")
    func headerBomb() throws {
        let dir = TestPaths.temporaryDirectory("webp-bomb")
        defer { try? FileManager.default.removeItem(at: dir) }
        let side: [UInt8] = [0xFE, 0x3F, 0x00]  // 16383 - 1, 24-bit little-endian
        let vp8x = Array("VP8X".utf8) + [10, 0, 0, 0] + [0, 0, 0, 0] + side + side
        let path = dir.appendingPathComponent("bomb.webp").path
        try writeBytes(Self.riff(vp8x), to: path)
        Self.expectFailure(path, .tooLarge, containing: "16383×16383", options: DecodeOptions(maxPixels: 1_000_000))
        // Under the default limit (268 MP) it is a header with no image: damaged, and refused
        // before the 800 MB canvas is allocated.
        Self.expectFailure(path, .damaged, containing: "before the image data")
    }

    @Test("mutated WebP files: no crash, no hang, every failure names the file", Requirement.tool("cwebp", "webpmux"))
    func mutations() throws {
        let tools = try WebPTools.require(["cwebp", "webpmux"])
        let dir = TestPaths.temporaryDirectory("webp-mutate")
        defer { try? FileManager.default.removeItem(at: dir) }
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
        try WebPTools.run(tools["cwebp"]!, ["-quiet", "-q", "70", "-resize", "64", "48", TestPaths.fixture("jpeg/ljt_testorig.jpg"), "-o", path("lossy.webp")])
        try WebPTools.run(tools["cwebp"]!, ["-quiet", "-lossless", TestPaths.fixture("png/basn6a08.png"), "-o", path("lossless.webp")])
        try WebPTools.run(tools["cwebp"]!, ["-quiet", "-q", "70", TestPaths.fixture("png/basn6a08.png"), "-o", path("alpha.webp")])
        try writeBytes(WebPTestMetadata.exifOrientation6, to: path("x.exif"))
        try WebPTools.run(tools["webpmux"]!, ["-set", "exif", path("x.exif"), path("lossy.webp"), "-o", path("meta.webp")])
        var rng = SplitMix64(seed: 5)
        var counts: [String: Int] = [:]
        let start = Date()
        for name in ["lossy.webp", "lossless.webp", "alpha.webp", "meta.webp"] {
            let original = try readBytes(path(name))
            for i in 0..<25 {
                var bytes = original
                for _ in 0...(i % 4) {
                    // Mostly the headers and first bytes of the bitstream, where a flip changes sizes and flags.
                    let at = 12 + Int(rng.next() % UInt64(min(bytes.count - 12, i < 12 ? 48 : bytes.count - 12)))
                    bytes[at] ^= UInt8(1) << (rng.next() % 8)
                }
                let mutated = path("m-\(i)-\(name)")
                try writeBytes(bytes, to: mutated)
                for allowDamaged in [false, true] {
                    let (got, message) = webpOutcome(mutated, options: DecodeOptions(maxPixels: 4_000_000, allowDamaged: allowDamaged))
                    counts[got.description, default: 0] += 1
                    if case .fails = got { #expect(message.hasPrefix(mutated + ": "), "error must name the file: \(message)") }
                }
            }
        }
        let seconds = Date().timeIntervalSince(start)
        testNote("mutated WebP sweep, 200 decodes in \(String(format: "%.2f", seconds)) s: \(counts.sorted { $0.key < $1.key })")
        #expect(seconds < 20)
    }
}
