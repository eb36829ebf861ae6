import Foundation
import RecipeCodecs
import RecipeCore
import Testing
import TestSupport

/// HEIF and AVIF through libheif, against libvips' decode of the same files (libvips' heifload is
/// libheif too, so agreement checks what we do around it: the primary image, the transforms, the
/// bit depth, the rows) and against the reference encoder `heif-enc`.
@Suite("HEIF and AVIF")
struct HEIFTests {
    /// libvips' decode of `path` (`Vips.decode`: vips writes 16-bit PNGs for 10-bit HEIFs, the 10
    /// bits shifted up), or nil when vips is not installed.
    static func vipsDecode(_ path: String) throws -> NetpbmImage? {
        guard Vips.path != nil else { return nil }
        let dir = TestPaths.temporaryDirectory("heif-vips")
        defer { try? FileManager.default.removeItem(at: dir) }
        return try Vips.decode(path, in: dir)
    }

    /// Mean absolute difference in 8-bit codes (16-bit samples divided by 257).
    static func meanCodes(_ a: NetpbmImage, _ b: NetpbmImage) -> Double? {
        guard let m = a.meanDifference(to: b) else { return nil }
        return a.maxValue == 65535 ? m / 257 : m
    }

    static let heifFiles = TestPaths.corpusFiles("heif", extensions: ["heic", "heif", "avif"])

    @Test("every corpus HEIF/AVIF decodes upright, the size libvips gives, within 3 codes of its decode", Requirement.corpus, Requirement.tool("vips"))
    func corpusMatchesVips() throws {
        try #require(!Self.heifFiles.isEmpty, "no HEIF files in the corpus")
        let vips = try Requirement.path("vips")
        let dir = TestPaths.temporaryDirectory("heif-sweep")
        defer { try? FileManager.default.removeItem(at: dir) }
        var worst = 0.0
        for path in Self.heifFiles {
            let name = (path as NSString).lastPathComponent
            let decoder = try ImageDecoders.open(path)
            #expect(decoder.info.orientation == .up, "\(name): libheif applied the transforms; EXIF must not turn it again")
            // vips' decode as binary PPM (its colour bands only), read as bytes: a 16 MP photo is
            // compared in a second even in a debug build.
            let ppm = dir.appendingPathComponent("ref.ppm").path
            let args = decoder.format.colorModel.hasAlpha ? ["extract_band", path, ppm, "0", "--n", "3"] : ["copy", path, ppm]
            let r = try ExternalTool.run(vips, args)
            #expect(r.status == 0, "vips could not decode \(name): \(r.stderr)")
            guard r.status == 0 else { continue }
            let mean = try #require(try meanCodeDifference(decoder, ppm: try Data(contentsOf: URL(fileURLWithPath: ppm))),
                                    "\(name): size or depth differs from vips")
            #expect(mean <= 3, "\(name): mean difference \(mean) codes")
            worst = max(worst, mean)
        }
        testNote("HEIF corpus: \(Self.heifFiles.count) files, worst mean difference to vips \(worst) codes")
    }

    @Test("the iPhone photo keeps its Display P3 profile and EXIF; its 10-bit conformance file reads as 16-bit", Requirement.corpus)
    func iPhoneAndTenBit() throws {
        let iphone = try #require(Self.heifFiles.first(where: { $0.hasSuffix("IMG_5195.heic") }), "heif/IMG_5195.heic not in the corpus")
        let tenBit = try #require(Self.heifFiles.first(where: { $0.hasSuffix("nokia_MIAF002.heic") }), "heif/nokia_MIAF002.heic not in the corpus")
        let d = try ImageDecoders.open(iphone)
        #expect(d.info.format == .heif)
        #expect(d.info.metadata.exif != nil)
        let icc = try #require(d.info.metadata.icc)
        #expect(String(decoding: icc, as: UTF8.self).contains("Display P3") || icc.count > 400)
        let t = try ImageDecoders.open(tenBit)
        #expect(t.info.bitDepth == 10 && t.format.sampleType == .uint16)
    }

    @Test("heif-enc's HEIC and AVIF of a PNG decode as libvips decodes them, 8-bit and 10-bit", Requirement.tool("heif-enc", "vips"))
    func referenceEncoderRoundTrip() throws {
        let enc = try Requirement.path("heif-enc")
        let dir = TestPaths.temporaryDirectory("heif-enc")
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = TestPaths.fixture("png/basn2c08.png")
        let sixteen = TestPaths.fixture("png/basn2c16.png")
        for (input, args, name) in [(source, ["-q", "90"], "q90.heic"), (source, ["-A", "-q", "80"], "q80.avif"),
                                    (sixteen, ["-b", "10", "-q", "90"], "ten.heic")] {
            let out = dir.appendingPathComponent(name).path
            let r = try ExternalTool.run(enc, args + ["-o", out, input])
            #expect(r.status == 0, "heif-enc \(name): \(r.stderr)")
            guard r.status == 0 else { continue }
            let (ours, decoder) = try decodeAll(out)
            let reference = try #require(try Self.vipsDecode(out))
            let mean = try #require(Self.meanCodes(ours, reference))
            #expect(mean <= 0.5, "\(name): mean \(mean) codes from vips")
            #expect(decoder.info.format == (name.hasSuffix("avif") ? .avif : .heif))
            if name == "ten.heic" { #expect(decoder.format.sampleType == .uint16 && decoder.info.bitDepth == 10) }
        }
    }

    @Test("our HEIC and AVIF are read back by libvips: size, bands, depth, close to the input", Requirement.tool("vips", "vipsheader"))
    func ourFilesReadBack() throws {
        let vipsheader = try Requirement.path("vipsheader")
        let dir = TestPaths.temporaryDirectory("heif-write")
        defer { try? FileManager.default.removeItem(at: dir) }
        // A photograph (lossy codecs are judged on photos, not on PngSuite's synthetic gradients).
        let (input, _) = try decodeAll(TestPaths.fixture("jpeg/ljt_testorig.jpg"))
        for (codec, ext) in [(ImageFileFormat.heif, "heic"), (.avif, "avif")] {
            for sixteen in [false, true] {
                let path = dir.appendingPathComponent("out\(sixteen ? "16" : "8").\(ext)").path
                try write(input, to: path, codec: codec, sixteen: sixteen, quality: 90)
                let header = try ExternalTool.run(vipsheader, ["-a", path])
                let text = String(decoding: header.stdout, as: UTF8.self)
                #expect(header.status == 0 && text.contains("\(input.width)x\(input.height)"), "\(path): \(text)")
                // 10-bit AVIF is off: Debian's libheif 1.15 + aom 3.6 abort on it (see HEIFEncoder).
                #expect(text.contains("heif-bitdepth: \(sixteen && codec == .heif ? 10 : 8)"), "\(path): \(text)")
                let back = try #require(try Self.vipsDecode(path))
                let tenBit = sixteen && codec == .heif
                let mean = try #require(Self.meanCodes(back, tenBit ? input.scaled(to: 65535) : input))
                #expect(mean <= 3, "\(ext) \(sixteen ? 16 : 8)-bit at q90: mean \(mean) codes from the input")
            }
        }
    }

    /// Writes `image` (8-bit RGB) as HEIF/AVIF through our encoder, as 16-bit rows when asked.
    func write(_ image: NetpbmImage, to path: String, codec: ImageFileFormat, sixteen: Bool, quality: Int,
               metadata: ImageMetadata = ImageMetadata()) throws {
        let out = try AtomicOutputFile(path: path)
        let format = PixelFormat(.rgb, sixteen ? .uint16 : .uint8)
        let encoder = try HEIFEncoder(handle: out.handle, path: path, width: image.width, height: image.height, format: format,
                                      codec: codec, metadata: metadata, options: HEIFOptions(quality: quality))
        let strip = PixelBuffer(width: image.width, rowCapacity: 1, format: format)
        for y in 0..<image.height {
            let row = image.samples[(y * image.width * 3)..<((y + 1) * image.width * 3)]
            if sixteen {
                let s = strip.samples(0, as: UInt16.self)
                for (i, v) in row.enumerated() { s[i] = UInt16(v * 257) }
            } else {
                let s = strip.samples(0, as: UInt8.self)
                for (i, v) in row.enumerated() { s[i] = UInt8(v) }
            }
            strip.rowCount = 1
            strip.originY = y
            try encoder.writeRows(from: strip)
        }
        try encoder.finish()
        try out.commit()
    }

    @Test("an ICC profile, EXIF and XMP written into a HEIC come back from libheif byte for byte")
    func metadataRoundTrip() throws {
        let dir = TestPaths.temporaryDirectory("heif-meta")
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try ImageDecoders.open(TestPaths.fixture("heif/exif-samples_samplefilehub.heif"))
        let (input, _) = try decodeAll(TestPaths.fixture("png/basn2c08.png"))
        var meta = ImageMetadata()
        meta.icc = Self.tinyICC
        meta.exif = source.info.metadata.exif ?? Self.tinyEXIF
        meta.xmp = Array(#"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/></x:xmpmeta>"#.utf8)
        let path = dir.appendingPathComponent("meta.heic").path
        try write(input, to: path, codec: .heif, sixteen: false, quality: 80, metadata: meta)
        let back = try ImageDecoders.open(path)
        #expect(back.info.metadata.icc == meta.icc)
        #expect(back.info.metadata.exif == meta.exif)
        #expect(back.info.metadata.xmp == meta.xmp)
    }

    /// The smallest EXIF a decoder must keep: a TIFF header and an IFD with Orientation 6.
    static let tinyEXIF: [UInt8] = [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0]
    /// Any bytes stand in for a profile here: libheif carries the `prof` box verbatim.
    static let tinyICC: [UInt8] = Array(repeating: 7, count: 200)

    @Test("damaged HEIFs (libheif's fuzz crashers) fail with one clear line naming the file, never a crash")
    func brokenFiles() throws {
        var files = ["heif/libheif_github_15.heic", "heif/libheif_clusterfuzz-testcase-minimized-file-fuzzer-5662360964956160.heic"]
            .map(TestPaths.fixture)
        files += TestPaths.corpusFiles("heif/broken", extensions: ["heic", "heif", "avif"])
        for path in files {
            let start = Date()
            do {
                let (image, _) = try decodeAll(path)
                testNote("\((path as NSString).lastPathComponent) decoded to \(image.width)×\(image.height) (best effort)")
            } catch let error as ImageError {
                #expect(error.path == path)
                #expect(!error.reason.isEmpty && !error.reason.contains("\n"))
                #expect([.corrupt, .unsupported, .damaged, .tooLarge].contains(error.kind), "\(error)")
            }
            #expect(Date().timeIntervalSince(start) < 5, "\(path) took too long")
        }
        testNote("damaged HEIFs: \(files.count) files, each a clean error or a render")
    }

    @Test("a HEIF over the pixel limit is refused before it is decoded")
    func pixelLimit() throws {
        let error = #expect(throws: ImageError.self) {
            _ = try ImageDecoders.open(TestPaths.fixture("heif/exif-samples_samplefilehub.heif"), options: DecodeOptions(maxPixels: 100_000))
        }
        #expect(error?.kind == .tooLarge)
    }
}

extension NetpbmImage {
    /// The same picture with samples rescaled to `maxValue` (8-bit → 16-bit: × 257).
    func scaled(to maxValue: Int) -> NetpbmImage {
        NetpbmImage(width: width, height: height, channels: channels, maxValue: maxValue,
                    samples: samples.map { ($0 * maxValue + self.maxValue / 2) / self.maxValue })
    }
}

/// Mean absolute difference, in 8-bit codes, between a decoder's colour channels and a binary PPM
/// (P6, maxval 255 or 65535) of the same size; nil when the sizes or depths differ. Streams the
/// decoder's rows.
func meanCodeDifference(_ decoder: any ImageDecoder, ppm: Data) throws -> Double? {
    // Header: "P6", width, height, maxval, each after whitespace or `#` comment lines (vips
    // writes one), then one whitespace byte.
    var fields: [Int] = [], i = 2
    let bytes = [UInt8](ppm)
    guard bytes.starts(with: Array("P6".utf8)) else { return nil }
    while fields.count < 3 && i < bytes.count {
        while i < bytes.count, [0x20, 0x0A, 0x0D, 0x09, 0x23].contains(bytes[i]) {
            if bytes[i] == 0x23 { while i < bytes.count, bytes[i] != 0x0A { i += 1 } } else { i += 1 }
        }
        var v = 0
        while i < bytes.count, bytes[i] >= 0x30 && bytes[i] <= 0x39 { v = v * 10 + Int(bytes[i] - 0x30); i += 1 }
        fields.append(v)
    }
    i += 1
    guard fields.count == 3, fields[0] == decoder.width, fields[1] == decoder.height else { return nil }
    let wide = fields[2] > 255
    guard wide == (decoder.format.sampleType == .uint16) else { return nil }
    try decoder.start(scaleDenominator: 1)
    let strip = PixelBuffer(width: decoder.width, rowCapacity: 16, format: decoder.format)
    let channels = decoder.format.channels
    var total = 0, y = 0
    try bytes.withUnsafeBufferPointer { ref in
        while try decoder.readRows(into: strip) > 0 {
            for r in 0..<strip.rowCount {
                let rowStart = i + (y + r) * decoder.width * 3 * (wide ? 2 : 1)
                if wide {
                    let ours = strip.samples(r, as: UInt16.self)
                    for x in 0..<decoder.width {
                        for c in 0..<3 {
                            let k = rowStart + 2 * (3 * x + c)
                            total += abs(Int(ours[channels * x + c]) - (Int(ref[k]) << 8 | Int(ref[k + 1])))
                        }
                    }
                } else {
                    let ours = strip.samples(r, as: UInt8.self)
                    for x in 0..<decoder.width {
                        for c in 0..<3 { total += abs(Int(ours[channels * x + c]) - Int(ref[rowStart + 3 * x + c])) }
                    }
                }
            }
            y += strip.rowCount
        }
    }
    let mean = Double(total) / Double(decoder.width * decoder.height * 3)
    return wide ? mean / 257 : mean
}
