import Foundation
@testable import RecipeCodecs
import RecipeCore
import Testing
import TestSupport

@Suite("JPEG decoding")
struct JPEGDecoderTests {
    static let fixtureJPEGs = ["pil_hopper.jpg", "moz_jpg-gray.jpg", "jd_restarts.jpg", "moz_jpg-progressive.jpg",
                               "ljt_testimgari.jpg", "ljt_testorig.jpg", "moz_jpg-size-15x15.jpg", "pil_iptc.jpg"]

    /// Without djpeg this is skipped; `committedReferences` still checks a few against djpeg's
    /// committed outputs.
    @Test("matches djpeg bit for bit at every DCT scale", Requirement.tool("djpeg"), arguments: fixtureJPEGs, [1, 2, 4, 8])
    func matchesDjpeg(name: String, scale: Int) throws {
        let path = TestPaths.fixture("jpeg/\(name)")
        let (ours, _) = try decodeAll(path, scale: scale)
        let reference = try #require(try djpegReference(path, scale: scale), "djpeg failed on \(name)")
        #expect(ours.maxDifference(to: reference) == 0, "\(name) at 1/\(scale) differs from djpeg by up to \(ours.maxDifference(to: reference) ?? -1)")
    }

    @Test("committed djpeg outputs match (works without djpeg installed)")
    func committedReferences() throws {
        for (name, scale, ext) in [("pil_hopper", 1, "ppm"), ("pil_hopper", 2, "ppm"), ("pil_hopper", 4, "ppm"), ("pil_hopper", 8, "ppm"),
                                   ("moz_jpg-gray", 1, "pgm"), ("ljt_testimgari", 1, "ppm"), ("moz_jpg-progressive", 1, "ppm")] {
            let (ours, _) = try decodeAll(TestPaths.fixture("jpeg/\(name).jpg"), scale: scale)
            let reference = try #require(readNetpbm(TestPaths.fixture("jpeg-ref/\(name).s\(scale).\(ext)")))
            #expect(ours.maxDifference(to: reference) == 0, "\(name) at 1/\(scale)")
        }
    }

    @Test("header facts: progressive, arithmetic, gray, subsampling")
    func headerFacts() throws {
        let prog = try JPEGDecoder(path: TestPaths.fixture("jpeg/moz_jpg-progressive.jpg"))
        #expect(prog.info.progressive)
        let ari = try JPEGDecoder(path: TestPaths.fixture("jpeg/ljt_testimgari.jpg"))
        #expect(ari.info.details.contains { $0.label == "entropy coding" && $0.value == "arithmetic" })
        let gray = try JPEGDecoder(path: TestPaths.fixture("jpeg/moz_jpg-gray.jpg"))
        #expect(gray.info.colorModel == .gray && gray.format == PixelFormat(.gray, .uint8))
        let hopper = try JPEGDecoder(path: TestPaths.fixture("jpeg/pil_hopper.jpg"))
        #expect(hopper.info.width == 128 && hopper.info.height == 128 && !hopper.info.progressive)
    }

    @Test("a progressive file's coefficient buffer is found and advised for huge pages; pixels unchanged", Requirement.tool("djpeg"))
    func progressiveCoefficientBuffer() throws {
        // 1000×700 4:2:0: libjpeg's arrays are rounded up to whole MCUs, 126×88 luma blocks
        // (2 per MCU each way) and 63×44 per chroma component, 128 bytes per block.
        let (width, height) = (1000, 700)
        let dir = TestPaths.temporaryDirectory("progressive")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("p.jpg").path
        let strip = PixelBuffer(width: width, rowCapacity: height, format: PixelFormat(.rgb, .uint8))
        strip.rowCount = height
        for y in 0..<height {
            let row = strip.samples(y, as: UInt8.self)
            for x in 0..<width { row[3 * x] = UInt8(x & 255); row[3 * x + 1] = UInt8(y & 255); row[3 * x + 2] = UInt8((x ^ y) & 255) }
        }
        let file = try AtomicOutputFile(path: path)
        let sink = try JPEGEncoder(handle: file.handle, path: path, width: width, height: height, colorModel: .rgb,
                                   metadata: ImageMetadata(), options: JPEGOptions(quality: 90, progressive: true))
        try sink.writeRows(from: strip)
        try sink.finish()
        try file.commit()

        let decoder = try JPEGDecoder(path: path)
        try decoder.start(scaleDenominator: 1)
        let buffer = decoder.coefficientBufferBytes
        #expect(buffer.total == (126 * 88 + 2 * 63 * 44) * 128)
        #expect(buffer.hugePages <= buffer.total)
        if FileManager.default.fileExists(atPath: "/sys/kernel/mm/transparent_hugepage/enabled") {
            // Each array loses at most a page at either end to page alignment.
            #expect(buffer.hugePages >= buffer.total - 3 * 2 * 4096, "advised \(buffer.hugePages) of \(buffer.total) bytes")
        } else {
            testNote("no transparent huge pages on this kernel: the coefficient buffer stays in 4 KiB pages")
        }
        let baseline = try JPEGDecoder(path: TestPaths.fixture("jpeg/pil_hopper.jpg"))
        try baseline.start(scaleDenominator: 1)
        #expect(baseline.coefficientBufferBytes.total == 0)
        // The wrapped memory manager changes no pixel: the decode still equals djpeg's.
        for scale in [1, 2] {
            let reference = try #require(try djpegReference(path, scale: scale), "djpeg failed")
            let (ours, _) = try decodeAll(path, scale: scale)
            #expect(ours.maxDifference(to: reference) == 0, "at 1/\(scale)")
        }
    }

    @Test("DCT scaling gives libjpeg's sizes: ceil(size × 1/N)")
    func scaledSizes() throws {
        for scale in [1, 2, 4, 8] {
            let d = try JPEGDecoder(path: TestPaths.fixture("jpeg/moz_jpg-size-15x15.jpg"))
            try d.start(scaleDenominator: scale)
            #expect(d.width == (15 + scale - 1) / scale && d.height == (15 + scale - 1) / scale)
        }
    }

    @Test("CMYK (Adobe, inverted) decodes to RGB by the naive formula")
    func cmyk() throws {
        let (image, decoder) = try decodeAll(TestPaths.fixture("jpeg/moz_jpg-cmyk-1.jpg"))
        #expect(decoder.info.fileColorSpace.hasPrefix("CMYK"))
        #expect(image.channels == 3 && image.width == 32 && image.height == 32)
        // The kernel itself is checked against the formula in RecipeKernelsTests; here the image
        // must not be blank (an inverted-CMYK mistake gives a nearly black or white frame).
        let mean = Double(image.samples.reduce(0, +)) / Double(image.samples.count)
        #expect(mean > 20 && mean < 235, "mean sample \(mean)")
    }

    @Test("every JPEG of the corpus decodes like djpeg", Requirement.corpus, Requirement.tool("djpeg"))
    func corpusSweep() throws {
        let files = TestPaths.corpusFiles("photos", extensions: ["jpg", "jpeg"]) + TestPaths.corpusFiles("orientation", extensions: ["jpg"])
        try #require(!files.isEmpty, "no JPEGs in the corpus")
        var compared = 0, cmyk = 0, unsupported = 0
        for path in files {
            // (A `catch … where` pattern here crashes the Swift 6.3.1 compiler's ownership verifier.)
            let result = Result { try JPEGDecoder(path: path) }
            if case .failure(let e) = result, (e as? ImageError)?.kind == .unsupported {
                unsupported += 1  // 12-bit JPEG: libjpeg-turbo 2.1's 8-bit API refuses it cleanly
                continue
            }
            let decoder = try result.get()
            if decoder.info.fileColorSpace.contains("CMYK") || decoder.info.fileColorSpace.contains("YCCK") {
                cmyk += 1  // djpeg cannot write CMYK to PPM; covered by the CMYK test
                continue
            }
            let (ours, _) = try decodeAll(path)
            let reference = try #require(try djpegReference(path, scale: 1), "djpeg failed on \(path)")
            #expect(ours.maxDifference(to: reference) == 0, "\(path) differs from djpeg")
            compared += 1
        }
        testNote("JPEG corpus sweep: \(compared) files identical to djpeg, \(cmyk) CMYK/YCCK skipped, \(unsupported) unsupported (12-bit)")
        #expect(compared > 20)
    }

    @Test("a window decode gives the full decode's pixels, and decodes less, at full size and at 1/2 and 1/4",
          arguments: fixtureJPEGs.filter { $0 != "moz_jpg-size-15x15.jpg" }, [1, 2, 4])
    func windowDecode(name: String, scale: Int) throws {
        let path = TestPaths.fixture("jpeg/\(name)")
        let (full, _) = try decodeAll(path, scale: scale)
        let (w, h) = (full.width, full.height)
        let step = 64 / scale
        // Windows on and off the MCU grid, at the edges and inside, one pixel to most of the image.
        // (Scaled: four of them, the edges and a middle band, to keep the suite quick.)
        let windows = (scale == 1 ? [(0, 0, 40, 40), (16, 16, 16, 16), (17, 9, 30, 40), (1, 1, 5, 7), (w / 2, h / 2, 1, 1),
                                     (1, 0, w - 2, h - 1), (w - 9, h - 9, 9, 9), (w / 3, h / 4, w / 3, h / 2)]
                                  : [(17, 9, 30, 40), (1, 0, w - 2, h - 1), (w - 9, h - 9, 9, 9), (w / 3, h / 4, w / 3, h / 2)])
            .filter { $0.0 >= 0 && $0.1 >= 0 && $0.2 > 0 && $0.3 > 0 && $0.0 + $0.2 <= w && $0.1 + $0.3 <= h }
        for window in windows {
            let decoder = try JPEGDecoder(path: path)
            let covered = try decoder.start(window: window, scaleDenominator: scale)
            #expect(covered.x <= window.0 && covered.y <= window.1 && covered.x + covered.width >= window.0 + window.2
                    && covered.y + covered.height == window.1 + window.3, "\(name) \(window): covers \(covered)")
            #expect(decoder.width == covered.width && decoder.height == covered.height)
            if window.0 >= step || window.0 + window.2 <= w - step { #expect(covered.width < w, "\(name) \(window) 1/\(scale): no columns left out") }
            if window.1 >= step { #expect(covered.y > 0, "\(name) \(window) 1/\(scale): no rows skipped") }
            let strip = PixelBuffer(width: decoder.width, rowCapacity: 5, format: decoder.format)
            var row = 0, mismatches = 0
            let c = full.channels
            while try decoder.readRows(into: strip) > 0 {
                #expect(strip.originY == row)
                for r in 0..<strip.rowCount {
                    let y = covered.y + row + r
                    let samples = strip.samples(r, as: UInt8.self)
                    for x in max(window.0, covered.x)..<(window.0 + window.2) where y >= window.1 {
                        for k in 0..<c where Int(samples[(x - covered.x) * c + k]) != full.samples[(y * w + x) * c + k] { mismatches += 1 }
                    }
                }
                row += strip.rowCount
            }
            #expect(row == covered.height)
            #expect(mismatches == 0, "\(name) window \(window) 1/\(scale): \(mismatches) samples differ from the full decode")
        }
    }
}
