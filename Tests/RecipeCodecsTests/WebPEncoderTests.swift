import Foundation
import RecipeCodecs
import RecipeCore
import Testing
import TestSupport

/// Rows to encode: every row of a decoder, kept whole.
struct SourceImage {
    var pixels: NetpbmImage
    var format: PixelFormat

    /// A JPEG photo through recipe's JPEG decoder, or a PNG through its PNG decoder.
    init(_ path: String) throws {
        let decoder: any ImageDecoder = path.hasSuffix(".png") ? try PNGDecoder(path: path) : try JPEGDecoder(path: path)
        try decoder.start(scaleDenominator: 1)
        precondition(decoder.format.sampleType == .uint8)
        let strip = PixelBuffer(width: decoder.width, rowCapacity: 16, format: decoder.format)
        var samples: [Int] = []
        while try decoder.readRows(into: strip) > 0 {
            for r in 0..<strip.rowCount { samples.append(contentsOf: strip.samples(r, as: UInt8.self).map(Int.init)) }
        }
        pixels = NetpbmImage(width: decoder.width, height: decoder.height, channels: decoder.format.channels, maxValue: 255, samples: samples)
        format = decoder.format
    }

    /// Writes the pixels as a PNG without colour chunks.
    func writePNG(to path: String) throws {
        let out = try AtomicOutputFile(path: path)
        try write(into: try PNGEncoder(handle: out.handle, path: path, width: pixels.width, height: pixels.height, format: format,
                                       metadata: ImageMetadata()))
        try out.commit()
    }

    private func write(into sink: RowSink) throws {
        let strip = PixelBuffer(width: pixels.width, rowCapacity: 5, format: format)
        let rowSamples = pixels.width * pixels.channels
        var y = 0
        while y < pixels.height {
            let n = min(5, pixels.height - y)
            for r in 0..<n {
                let row = strip.samples(r, as: UInt8.self)
                for i in 0..<rowSamples { row[i] = UInt8(pixels.samples[(y + r) * rowSamples + i]) }
            }
            strip.rowCount = n
            strip.originY = y
            try sink.writeRows(from: strip)
            y += n
        }
        try sink.finish()
    }

    /// Writes the image through `WebPEncoder` in strips of 5 rows; returns the encoder.
    @discardableResult
    func encode(to path: String, metadata: ImageMetadata = ImageMetadata(), options: WebPOptions) throws -> WebPEncoder {
        let out = try AtomicOutputFile(path: path)
        let encoder = try WebPEncoder(handle: out.handle, path: path, width: pixels.width, height: pixels.height, format: format,
                                      metadata: metadata, options: options)
        try write(into: encoder)
        try out.commit()
        return encoder
    }
}

@Suite("WebP encoding")
struct WebPEncoderTests {
    static var metadata: ImageMetadata {
        get throws {
            var m = ImageMetadata()
            m.icc = try WebPTestMetadata.icc()
            m.exif = WebPTestMetadata.exifOrientation6
            m.xmp = WebPTestMetadata.xmp
            return m
        }
    }

    @Test("lossy and lossless, RGB and RGBA, with ICC, EXIF and XMP: libwebp's tools read back what we wrote", Requirement.tool("dwebp", "webpmux"))
    func encodeAndInspect() throws {
        let tools = try WebPTools.require(["dwebp", "webpmux"])
        let dir = TestPaths.temporaryDirectory("webp-encode")
        defer { try? FileManager.default.removeItem(at: dir) }
        let meta = try Self.metadata
        let photo = try SourceImage(TestPaths.fixture("jpeg/ljt_testorig.jpg"))
        let rgba = try SourceImage(TestPaths.fixture("png/basn6a08.png"))
        #expect(photo.format == PixelFormat(.rgb, .uint8) && rgba.format == PixelFormat(.rgba, .uint8))
        for (name, source) in [("rgb", photo), ("rgba", rgba)] {
            for lossless in [false, true] {
                let label = "\(name) \(lossless ? "lossless" : "lossy q90")"
                let path = dir.appendingPathComponent("\(name)-\(lossless).webp").path
                let encoder = try source.encode(to: path, metadata: meta, options: WebPOptions(quality: 90, lossless: lossless))
                #expect(encoder.warnings.isEmpty, "\(label): \(encoder.warnings)")

                let info = String(decoding: try WebPTools.run(tools["webpmux"]!, ["-info", path]).stdout, as: UTF8.self)
                #expect(info.contains("Canvas size: \(source.pixels.width) x \(source.pixels.height)"), "\(label): \(info)")
                for feature in ["ICC profile", "EXIF metadata", "XMP metadata"] {
                    #expect(info.contains(feature), "\(label): webpmux -info does not list \(feature):\n\(info)")
                }
                #expect(info.contains("transparency") == (name == "rgba"), "\(label): \(info)")
                for (what, bytes) in [("icc", meta.icc!), ("exif", meta.exif!), ("xmp", meta.xmp!)] {
                    let got = dir.appendingPathComponent("got.\(what)").path
                    try WebPTools.run(tools["webpmux"]!, ["-get", what, path, "-o", got])
                    #expect(try readBytes(got) == bytes, "\(label): webpmux -get \(what) differs")
                }

                let decoded = try WebPTools.dwebp(path, tools: tools)
                #expect(decoded.width == source.pixels.width && decoded.height == source.pixels.height)
                let back = decoded.channels(source.pixels.channels)
                if lossless {
                    #expect(back.maxDifference(to: source.pixels) == 0, "\(label): lossless is not exact (max \(back.maxDifference(to: source.pixels) ?? -1))")
                } else if name == "rgb" {
                    let mean = try #require(back.meanDifference(to: source.pixels))
                    #expect(mean <= 3, "\(label): mean abs difference \(mean) > 3")
                    testNote("WebP encoder, \(label) of ljt_testorig.jpg: mean abs \(String(format: "%.3f", mean)), max \(back.maxDifference(to: source.pixels)!)")
                } else {
                    // Lossy with alpha: the alpha plane is lossless (alpha quality 100); colour is
                    // compared where a pixel is visible (libwebp may rewrite the colour under alpha 0).
                    #expect(back.channel(3) == source.pixels.channel(3), "\(label): alpha changed")
                    var total = 0, count = 0
                    for p in 0..<(back.width * back.height) where source.pixels.samples[p * 4 + 3] > 0 {
                        for c in 0..<3 { total += abs(back.samples[p * 4 + c] - source.pixels.samples[p * 4 + c]) }
                        count += 3
                    }
                    let mean = Double(total) / Double(max(count, 1))
                    #expect(mean <= 3, "\(label): mean abs difference \(mean) on visible pixels")
                    testNote("WebP encoder, \(label) of basn6a08.png: visible-pixel mean abs \(String(format: "%.3f", mean))")
                }
            }
        }
    }

    @Test("a Kodak photo encodes within 3 codes mean at q90", Requirement.corpus, Requirement.tool("dwebp"))
    func kodak() throws {
        let corpus = try Requirement.corpusURL()
        let tools = try WebPTools.require(["dwebp"])
        let dir = TestPaths.temporaryDirectory("webp-kodak")
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try SourceImage(corpus.appendingPathComponent("kodak/kodim03.png").path)
        let path = dir.appendingPathComponent("k.webp").path
        try source.encode(to: path, options: WebPOptions(quality: 90))
        let back = try WebPTools.dwebp(path, tools: tools).channels(3)
        let mean = try #require(back.meanDifference(to: source.pixels))
        #expect(mean <= 3)
        testNote("WebP encoder, kodim03 q90: mean abs \(String(format: "%.3f", mean)), \(try readBytes(path).count) bytes")
    }

    @Test("quality changes the output: q50 is smaller than q95; without metadata or alpha the file is a plain VP8")
    func qualityChangesSize() throws {
        let dir = TestPaths.temporaryDirectory("webp-quality")
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = try SourceImage(TestPaths.fixture("jpeg/ljt_testorig.jpg"))
        var sizes: [Int: Int] = [:]
        for q in [50, 95] {
            let path = dir.appendingPathComponent("q\(q).webp").path
            try photo.encode(to: path, options: WebPOptions(quality: q))
            let bytes = try readBytes(path)
            sizes[q] = bytes.count
            // RIFF size field = file size - 8, and no VP8X when there is no metadata or alpha.
            let riff = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
            #expect(riff == bytes.count - 8 && bytes[12..<16].elementsEqual("VP8 ".utf8))
        }
        #expect(sizes[50]! < sizes[95]!, "\(sizes)")
        testNote("WebP sizes of ljt_testorig 227×149: q50 \(sizes[50]!), q95 \(sizes[95]!) bytes")
    }

    @Test("given the same pixels and settings, our files are cwebp's byte for byte (quality, lossless, effort mapping)", Requirement.tool("cwebp"))
    func sameBytesAsCwebp() throws {
        let tools = try WebPTools.require(["cwebp"])
        let dir = TestPaths.temporaryDirectory("webp-cwebp")
        defer { try? FileManager.default.removeItem(at: dir) }
        let cases: [(png: String, ours: WebPOptions, cwebp: [String])] = [
            ("pil_exif.png", WebPOptions(quality: 90), ["-q", "90", "-m", "4"]),
            ("pil_exif.png", WebPOptions(quality: 40, effort: 6), ["-q", "40", "-m", "6"]),
            ("pil_exif.png", WebPOptions(lossless: true), ["-lossless"]),
            ("basn6a08.png", WebPOptions(quality: 75, effort: 2), ["-q", "75", "-m", "2"]),
            // Lossless keeps the colour under alpha 0 ("exact"); effort 0 and 6 are cwebp's -z 0 and -z 9.
            ("basn6a08.png", WebPOptions(lossless: true, effort: 0), ["-lossless", "-exact", "-z", "0"]),
            ("basn6a08.png", WebPOptions(lossless: true, effort: 6), ["-lossless", "-exact", "-z", "9"]),
        ]
        // PngSuite files carry gAMA 1.0, which cwebp applies and recipe does not: hand cwebp the
        // same pixels in a PNG without it.
        let plainRGBA = dir.appendingPathComponent("basn6a08.png").path
        try SourceImage(TestPaths.fixture("png/basn6a08.png")).writePNG(to: plainRGBA)
        for (i, c) in cases.enumerated() {
            let png = c.png == "basn6a08.png" ? plainRGBA : TestPaths.fixture("png/\(c.png)")
            let ours = dir.appendingPathComponent("ours\(i).webp").path, theirs = dir.appendingPathComponent("cwebp\(i).webp").path
            try SourceImage(png).encode(to: ours, options: c.ours)
            try WebPTools.run(tools["cwebp"]!, ["-quiet"] + c.cwebp + [png, "-o", theirs])
            let (a, b) = (try readBytes(ours), try readBytes(theirs))
            #expect(a == b, "\(c.png) \(c.ours) vs cwebp \(c.cwebp.joined(separator: " ")): \(a.count) vs \(b.count) bytes")
        }
    }

    @Test("our encoder's output decodes through our decoder with the same metadata")
    func throughOurDecoder() throws {
        let dir = TestPaths.temporaryDirectory("webp-ours")
        defer { try? FileManager.default.removeItem(at: dir) }
        let meta = try Self.metadata
        let rgba = try SourceImage(TestPaths.fixture("png/basn6a08.png"))
        let path = dir.appendingPathComponent("a.webp").path
        try rgba.encode(to: path, metadata: meta, options: WebPOptions(lossless: true))
        let (image, decoder) = try decodeWebP(path)
        #expect(image == rgba.pixels)
        #expect(decoder.info.metadata.icc == meta.icc && decoder.info.metadata.exif == meta.exif && decoder.info.metadata.xmp == meta.xmp)
        #expect(decoder.info.orientation == .right)
    }

    @Test("a picture over 16383 pixels a side is refused when the encoder is made, naming libwebp's code")
    func tooBig() throws {
        let dir = TestPaths.temporaryDirectory("webp-big")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("big.webp").path
        let out = try AtomicOutputFile(path: path)
        defer { out.abort() }
        #expect {
            _ = try WebPEncoder(handle: out.handle, path: path, width: 20000, height: 10, format: PixelFormat(.rgb, .uint8), metadata: ImageMetadata())
        } throws: { e in
            guard let e = e as? ImageError else { return false }
            return e.kind == .writeFailed && e.path == path && e.reason.contains("picture too big") && e.reason.contains("VP8_ENC_ERROR_BAD_DIMENSION")
        }
    }
}
