import Foundation
import RecipeCodecs
import RecipeCore
import Testing
import TestSupport

@Suite("WebP decoding")
struct WebPDecoderTests {
    /// A photo (odd size, so chroma edges are exercised), and a Kodak image when the corpus is there.
    static func photos() throws -> [String] {
        var list = [TestPaths.fixture("jpeg/ljt_testorig.jpg")]
        if let corpus = try Requirement.corpusIfPresent(for: "WebP decoding of a Kodak photo") { list.append(corpus.appendingPathComponent("kodak/kodim03.png").path) }
        return list
    }

    @Test("cwebp files (lossy, lossless, lossy with alpha, lossless with alpha) decode exactly as dwebp decodes them", Requirement.tool("cwebp", "dwebp"))
    func matchesDwebp() throws {
        let tools = try WebPTools.require(["cwebp", "dwebp"])
        let dir = TestPaths.temporaryDirectory("webp-decode")
        defer { try? FileManager.default.removeItem(at: dir) }
        let rgba = TestPaths.fixture("png/basn6a08.png")
        var cases: [(source: String, flags: [String], alpha: Bool, lossless: Bool)] = []
        let photos = try Self.photos()
        for photo in photos { cases.append((photo, ["-q", "90"], false, false)) }
        cases.append((photos[0], ["-lossless"], false, true))
        cases.append((rgba, ["-q", "90", "-alpha_q", "100"], true, false))
        cases.append((rgba, ["-lossless"], true, true))
        for (i, c) in cases.enumerated() {
            let webp = dir.appendingPathComponent("\(i).webp").path
            try WebPTools.run(tools["cwebp"]!, ["-quiet"] + c.flags + [c.source, "-o", webp])
            let (ours, decoder) = try decodeWebP(webp)
            let reference = try WebPTools.dwebp(webp, tools: tools)
            let name = "\((c.source as NSString).lastPathComponent) \(c.flags.joined(separator: " "))"
            #expect(decoder.format == PixelFormat(c.alpha ? .rgba : .rgb, .uint8), "\(name): \(decoder.format)")
            let expected = reference.channels(decoder.format.channels)
            let maxDiff = ours.maxDifference(to: expected), mean = ours.meanDifference(to: expected)
            // Same library, same default (fancy) upsampling: every sample must agree.
            #expect(maxDiff == 0, "\(name): max \(maxDiff ?? -1), mean \(mean ?? -1)")
            testNote("WebP vs dwebp, \(name): \(ours.width)×\(ours.height)×\(ours.channels), max \(maxDiff ?? -1), mean \(mean ?? -1)")
            #expect(decoder.info.format == .webp && decoder.info.bitDepth == 8 && !decoder.info.progressive)
            #expect(decoder.info.fileColorSpace == (c.lossless ? "RGB (VP8L, lossless)" : "YUV 4:2:0 (VP8, lossy)"))
            #expect(decoder.info.details.contains { $0.label == "compression" && $0.value == (c.lossless ? "lossless" : "lossy") })
            #expect(decoder.info.details.contains { $0.label == "alpha" && $0.value == (c.alpha ? "yes" : "no") })
            #expect(decoder.warnings.isEmpty, "\(name): \(decoder.warnings)")
        }
    }

    @Test("ICCP, EXIF and XMP chunks set with webpmux come back byte for byte, with the EXIF orientation", Requirement.tool("cwebp", "webpmux"))
    func metadataChunks() throws {
        let tools = try WebPTools.require(["cwebp", "webpmux"])
        let dir = TestPaths.temporaryDirectory("webp-meta")
        defer { try? FileManager.default.removeItem(at: dir) }
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
        let icc = try WebPTestMetadata.icc()
        try writeBytes(icc, to: path("x.icc"))
        try writeBytes(WebPTestMetadata.exifOrientation6, to: path("x.exif"))
        try writeBytes(WebPTestMetadata.xmp, to: path("x.xmp"))
        try WebPTools.run(tools["cwebp"]!, ["-quiet", "-q", "80", TestPaths.fixture("jpeg/ljt_testorig.jpg"), "-o", path("0.webp")])
        try WebPTools.run(tools["webpmux"]!, ["-set", "icc", path("x.icc"), path("0.webp"), "-o", path("1.webp")])
        try WebPTools.run(tools["webpmux"]!, ["-set", "exif", path("x.exif"), path("1.webp"), "-o", path("2.webp")])
        try WebPTools.run(tools["webpmux"]!, ["-set", "xmp", path("x.xmp"), path("2.webp"), "-o", path("3.webp")])

        let d = try WebPDecoder(path: path("3.webp"))
        #expect(d.info.metadata.icc == icc)
        #expect(d.info.metadata.exif == WebPTestMetadata.exifOrientation6)
        #expect(d.info.metadata.xmp == WebPTestMetadata.xmp)
        #expect(d.info.orientation == .right)
        #expect(d.info.uprightSize == (width: 149, height: 227))
        #expect(d.warnings.isEmpty, "\(d.warnings)")
        // No metadata in a plain file.
        let plain = try WebPDecoder(path: path("0.webp")).info.metadata
        #expect(plain.icc == nil && plain.exif == nil && plain.xmp == nil && plain.orientation == .up)

        // A writer that kept JPEG's "Exif\0\0" prefix: the TIFF structure is what we keep.
        try writeBytes(Array("Exif\0\0".utf8) + WebPTestMetadata.exifOrientation6, to: path("prefixed.exif"))
        try WebPTools.run(tools["webpmux"]!, ["-set", "exif", path("prefixed.exif"), path("0.webp"), "-o", path("4.webp")])
        let p = try WebPDecoder(path: path("4.webp"))
        #expect(p.info.metadata.exif == WebPTestMetadata.exifOrientation6)
        #expect(p.info.orientation == .right)

        // A broken EXIF block is a warning; the image still decodes.
        try writeBytes(Array("not a TIFF header at all".utf8), to: path("bad.exif"))
        try WebPTools.run(tools["webpmux"]!, ["-set", "exif", path("bad.exif"), path("0.webp"), "-o", path("5.webp")])
        let (_, bad) = try decodeWebP(path("5.webp"))
        #expect(bad.info.metadata.exif == nil && bad.info.orientation == .up)
        #expect(bad.warnings.contains { $0.message.contains("EXIF dropped") }, "\(bad.warnings)")
    }

    @Test("cwebp -metadata all carries a JPEG's EXIF and ICC; we read what our JPEG decoder reads", Requirement.tool("cwebp"))
    func cwebpMetadataFromJPEG() throws {
        let tools = try WebPTools.require(["cwebp"])
        let dir = TestPaths.temporaryDirectory("webp-meta-jpeg")
        defer { try? FileManager.default.removeItem(at: dir) }
        var sources = [TestPaths.fixture("jpeg/pil_exif-72dpi-int.jpg"), TestPaths.fixture("jpeg/moz_jpg-srgb-icc.jpg")]
        if let corpus = try Requirement.corpusIfPresent(for: "cwebp -metadata") { sources.append(corpus.appendingPathComponent("photos/pil_icc_profile_big.jpg").path) }
        for source in sources {
            let out = dir.appendingPathComponent((source as NSString).lastPathComponent + ".webp").path
            try WebPTools.run(tools["cwebp"]!, ["-quiet", "-metadata", "all", source, "-o", out])
            let jpeg = try JPEGDecoder(path: source).info.metadata
            let webp = try WebPDecoder(path: out).info.metadata
            #expect(jpeg.exif != nil || jpeg.icc != nil, "\(source) has no metadata to carry")
            #expect(webp.exif == jpeg.exif, "EXIF of \(source)")
            #expect(webp.icc == jpeg.icc, "ICC of \(source)")
            #expect(webp.orientation == jpeg.orientation)
        }
    }

    @Test("an animation decodes its first frame, with a warning and the frame count", Requirement.tool("cwebp", "dwebp", "webpmux", "vips"))
    func animation() throws {
        let tools = try WebPTools.require(["cwebp", "dwebp", "webpmux", "vips"])
        let dir = TestPaths.temporaryDirectory("webp-anim")
        defer { try? FileManager.default.removeItem(at: dir) }
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
        try WebPTools.run(tools["cwebp"]!, ["-quiet", "-q", "90", TestPaths.fixture("jpeg/ljt_testorig.jpg"), "-o", path("a.webp")])
        try WebPTools.run(tools["cwebp"]!, ["-quiet", "-q", "20", TestPaths.fixture("jpeg/ljt_testorig.jpg"), "-o", path("b.webp")])
        // Canvas-sized frames: three of them, the first is the still image a.webp.
        try WebPTools.run(tools["webpmux"]!, ["-frame", path("a.webp"), "+100", "-frame", path("b.webp"), "+100",
                                              "-frame", path("a.webp"), "+100", "-loop", "0", "-o", path("anim.webp")])
        let (ours, d) = try decodeWebP(path("anim.webp"))
        let first = try WebPTools.dwebp(path("a.webp"), tools: tools)
        #expect(d.format == PixelFormat(.rgb, .uint8))
        #expect(ours.maxDifference(to: first.channels(3)) == 0, "first frame differs: max \(ours.maxDifference(to: first.channels(3)) ?? -1)")
        #expect(d.info.details.contains { $0.label == "frames" && $0.value == "3 (first shown)" }, "\(d.info.details)")
        #expect(d.warnings.contains { $0.message.contains("animated") && $0.message.contains("first") }, "\(d.warnings)")

        // A first frame smaller than the canvas, at an offset: transparent around it, as vips
        // (libwebp's demuxer and its own compositing) shows the first page.
        try WebPTools.run(tools["cwebp"]!, ["-quiet", "-lossless", "-crop", "0", "0", "64", "48",
                                            TestPaths.fixture("jpeg/ljt_testorig.jpg"), "-o", path("small.webp")])
        try WebPTools.run(tools["webpmux"]!, ["-frame", path("small.webp"), "+100+20+10", "-frame", path("a.webp"), "+100",
                                              "-o", path("offset.webp")])
        let (placed, pd) = try decodeWebP(path("offset.webp"))
        #expect(pd.format == PixelFormat(.rgba, .uint8) && pd.width == 227 && pd.height == 149)
        try WebPTools.run(tools["vips"]!, ["copy", path("offset.webp"), path("offset.png")])
        let (reference, _) = try decodePNG(try PNGDecoder(path: path("offset.png")))
        #expect(placed.maxDifference(to: reference) == 0, "offset frame differs from vips: max \(placed.maxDifference(to: reference) ?? -1)")
        let alpha = placed.channel(3)
        #expect(alpha.filter { $0 == 255 }.count == 64 * 48 && alpha.filter { $0 == 0 }.count == 227 * 149 - 64 * 48)
    }
}

/// A PNG's pixels through recipe's PNG decoder (itself checked against pypng).
func decodePNG(_ decoder: PNGDecoder) throws -> (NetpbmImage, PNGDecoder) {
    try decoder.start(scaleDenominator: 1)
    let strip = PixelBuffer(width: decoder.width, rowCapacity: 16, format: decoder.format)
    var samples: [Int] = []
    while try decoder.readRows(into: strip) > 0 {
        for r in 0..<strip.rowCount { samples.append(contentsOf: strip.samples(r, as: UInt8.self).map(Int.init)) }
    }
    return (NetpbmImage(width: decoder.width, height: decoder.height, channels: decoder.format.channels, maxValue: 255, samples: samples), decoder)
}
