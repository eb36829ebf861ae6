import Foundation
@testable import RecipeCodecs
import RecipeCore
import Testing
import TestSupport

@Suite("TIFF decoding")
struct TIFFDecoderTests {
    static let photo = TestPaths.fixture("png/ljt_vgl_5674_0098.png")  // 120×96 RGB photo crop

    @Test("every corpus TIFF matches libvips' decoding (mean ≤ 3 codes)", Requirement.tool("vips"), Requirement.corpus)
    func corpusSweep() throws {
        let files = TestPaths.corpusFiles("tiff", extensions: ["tif", "tiff"])
        try #require(!files.isEmpty, "no TIFFs in ../shared/corpus/tiff")
        let folder = TestPaths.temporaryDirectory("tiff-corpus")
        defer { try? FileManager.default.removeItem(at: folder) }
        var lines: [String] = []
        for path in files {
            let name = (path as NSString).lastPathComponent
            let (ours, decoder) = try decodeTIFF(path)
            let reference = try Vips.decode(path, in: folder)
            #expect(ours.width == reference.width && ours.height == reference.height, "\(name): size differs")
            #expect(ours.channels <= reference.channels, "\(name): \(ours.channels) channels, vips \(reference.channels)")
            let d = try #require(difference(ours, reference), "\(name): not comparable")
            #expect(d.mean <= 3, "\(name): mean difference \(d.mean)")
            #expect(decoder.info.format == .tiff)
            lines.append("\(name) \(ours.width)×\(ours.height) \(decoder.format) \(decoder.info.fileColorSpace), "
                + decoder.info.details.map { "\($0.label) \($0.value)" }.joined(separator: ", ")
                + ": max \(d.max), mean \(String(format: "%.4f", d.mean))")
        }
        testNote("TIFF corpus vs vips, \(files.count) files:\n  " + lines.joined(separator: "\n  "))
    }

    /// The test images: the photo in gray and RGB, 8 and 16 bits (16-bit blurred so the low byte
    /// carries data), and PngSuite's alpha images.
    static func sources(in folder: URL) throws -> [(name: String, path: String)] {
        let p = folder.path
        try Vips.run(["colourspace", photo, "\(p)/gray8.png", "b-w"])
        try Vips.run(["colourspace", photo, "\(p)/rgb16.v", "rgb16"])
        try Vips.run(["gaussblur", "\(p)/rgb16.v", "\(p)/rgb16.png", "0.7"])
        try Vips.run(["colourspace", "\(p)/rgb16.png", "\(p)/gray16.png", "grey16"])
        return [("gray8", "\(p)/gray8.png"), ("rgb8", photo), ("rgba8", TestPaths.fixture("png/basn6a08.png")),
                ("gray16", "\(p)/gray16.png"), ("rgb16", "\(p)/rgb16.png"), ("grayalpha16", TestPaths.fixture("png/basn4a16.png"))]
    }

    @Test("vips-written TIFFs: every compression, strips and tiles, 8 and 16 bits match vips' decoding", Requirement.tool("vips"))
    func vipsRoundTrips() throws {
        let folder = TestPaths.temporaryDirectory("tiff-vips")
        defer { try? FileManager.default.removeItem(at: folder) }
        var count = 0, worstJPEG = 0.0
        // Every compression × strips and tiles × 8 and 16 bits × gray and RGB (JPEG: 8-bit only),
        // and the alpha images with the two predictor codecs; PackBits once.
        var cases: [(source: (name: String, path: String), compression: String, tiled: Bool)] = []
        for source in try Self.sources(in: folder) {
            let alpha = source.name.contains("alpha") || source.name == "rgba8"
            let compressions = alpha ? ["lzw", "deflate"] : source.name.hasSuffix("8") ? ["none", "lzw", "deflate", "jpeg"] : ["none", "lzw", "deflate"]
            for compression in compressions {
                for tiled in [false, true] { cases.append((source, compression, alpha ? compression == "lzw" : tiled)) }
            }
            if source.name == "rgb8" { cases.append((source, "packbits", false)) }
        }
        for (source, compression, tiled) in cases {
            let tif = folder.appendingPathComponent("\(source.name)-\(compression)-\(tiled ? "tiled" : "strips")-\(count).tif").path
            var args = ["tiffsave", source.path, tif, "--compression", compression]
            if tiled { args += ["--tile", "--tile-width", "32", "--tile-height", "48"] }
            try Vips.run(args)
            let (ours, decoder) = try decodeTIFF(tif)
            let reference = try Vips.decode(tif, in: folder)
            let d = try #require(difference(ours, reference), "\(tif): size or channels differ")
            #expect(ours.channels == reference.channels, "\(tif)")
            #expect(ours.maxValue == reference.maxValue, "\(tif): depth differs")
            if compression == "jpeg" {
                #expect(d.mean <= 1, "\(tif): mean \(d.mean)")
                worstJPEG = max(worstJPEG, d.mean)
            } else {
                #expect(ours == reference, "\(tif): max difference \(d.max)")
            }
            #expect(decoder.info.details.contains { $0.label == (tiled ? "tiles" : "strips") })
            count += 1
        }
        testNote("vips round trips: \(count) files, lossless identical, JPEG worst mean \(worstJPEG)")
    }

    @Test("layouts vips does not write: palette, 1/2/4-bit, min-is-white, planar strips and tiles, big-endian 16-bit, associated alpha", Requirement.tool("vips"))
    func handMadeLayouts() throws {
        let folder = TestPaths.temporaryDirectory("tiff-layouts")
        defer { try? FileManager.default.removeItem(at: folder) }
        var rng = SplitMix64(seed: 21)
        let (w, h) = (37, 13)  // odd width: sub-byte rows end mid-byte

        // 1-, 2- and 4-bit gray, both polarities: v × 255 / (2^bits − 1), inverted for min-is-white.
        for bits in [1, 2, 4] {
            for photometric: UInt16 in [0, 1] {
                let v = (0..<(w * h)).map { _ in Int(rng.next() % UInt64(1 << bits)) }
                let tiff = TinyTIFF(width: w, height: h, bitsPerSample: bits, photometric: photometric, rowsPerStrip: 5, samples: v)
                let path = try tiff.write(to: folder, "gray\(bits)-\(photometric).tif")
                let (ours, decoder) = try decodeTIFF(path)
                let want: [Int] = v.map { (x: Int) -> Int in
                    let s = x * 255 / ((1 << bits) - 1)
                    return photometric == 0 ? 255 - s : s
                }
                #expect(decoder.format == PixelFormat(.gray, .uint8))
                #expect(ours.samples == want, "\(bits)-bit photometric \(photometric)")
                try compareWithVips(path, ours, folder: folder, tolerance: 0)
            }
        }

        // Palettes of 4 and 8 bits with 16-bit colour maps: entry × 255 / 65535.
        for bits in [4, 8] {
            let n = 1 << bits
            let map = (0..<(3 * n)).map { _ in Int(rng.next() % 65536) }
            let v = (0..<(w * h)).map { _ in Int(rng.next() % UInt64(n)) }
            let tiff = TinyTIFF(width: w, height: h, bitsPerSample: bits, photometric: 3, colorMap: map.map { UInt16($0) }, samples: v)
            let path = try tiff.write(to: folder, "palette\(bits).tif")
            let (ours, decoder) = try decodeTIFF(path)
            var want: [Int] = []
            for i in v { for c in 0..<3 { want.append((map[c * n + i] * 255 + 32767) / 65535) } }
            #expect(decoder.format == PixelFormat(.rgb, .uint8) && decoder.info.fileColorSpace == "palette")
            #expect(ours.samples == want, "\(bits)-bit palette")
            try compareWithVips(path, ours, folder: folder, tolerance: 1)
        }

        // Planar (separate) RGB, 8- and 16-bit, big-endian 16-bit included: plane after plane.
        for (bits, big) in [(8, false), (16, false), (16, true)] {
            let planes = (0..<(3 * w * h)).map { _ in Int(rng.next() % UInt64(1 << bits)) }
            let tiff = TinyTIFF(width: w, height: h, bitsPerSample: bits, samplesPerPixel: 3, photometric: 2, planar: 2,
                                rowsPerStrip: 4, bigEndian: big, samples: planes)
            let path = try tiff.write(to: folder, "planar\(bits)\(big ? "be" : "").tif")
            let (ours, decoder) = try decodeTIFF(path)
            var want: [Int] = []
            for p in 0..<(w * h) { for c in 0..<3 { want.append(planes[c * w * h + p]) } }
            #expect(decoder.format == PixelFormat(.rgb, bits == 16 ? .uint16 : .uint8))
            #expect(ours.samples == want, "planar \(bits)-bit \(big ? "big" : "little")-endian")
            #expect(decoder.info.details.contains { $0 == ("planar configuration", "separate") })
            try compareWithVips(path, ours, folder: folder, tolerance: 0)
        }

        // Tiles: planar RGB 16-bit, contiguous gray+alpha 8-bit and 1-bit gray, with partial edge tiles.
        for (spp, bits, planar) in [(3, 16, UInt16(2)), (2, 8, UInt16(1)), (1, 1, UInt16(1))] {
            let v = (0..<(spp * w * h)).map { _ in Int(rng.next() % UInt64(1 << bits)) }
            let tiff = TinyTIFF(width: w, height: h, bitsPerSample: bits, samplesPerPixel: spp, photometric: spp == 3 ? 2 : 1,
                                planar: planar, extraSamples: spp == 2 ? [2] : [], tileSize: (16, 16), samples: v)
            let path = try tiff.write(to: folder, "tiled\(spp)-\(bits).tif")
            let (ours, decoder) = try decodeTIFF(path)
            var want: [Int] = []
            if planar == 2 {
                for p in 0..<(w * h) { for c in 0..<spp { want.append(v[c * w * h + p]) } }
            } else {
                want = bits == 1 ? v.map { $0 * 255 } : v
            }
            #expect(ours.samples == want, "tiled \(spp) samples of \(bits) bits")
            #expect(decoder.info.details.contains { $0 == ("tiles", "3×1 of 16×16 pixels") }, "\(decoder.info.details)")
            // vips 8.14 refuses tiled separate planes ("not supported"): the formula alone for those.
            if planar == 1 { try compareWithVips(path, ours, folder: folder, tolerance: 0) }
        }

        // 8-bit min-is-white gray with an unspecified extra sample (dropped, not taken as alpha).
        let pairs = (0..<(2 * w * h)).map { _ in Int(rng.byte()) }
        let white = TinyTIFF(width: w, height: h, samplesPerPixel: 2, photometric: 0, extraSamples: [0], samples: pairs)
        let (inverted, decoder) = try decodeTIFF(try white.write(to: folder, "miniswhite.tif"))
        #expect(decoder.format == PixelFormat(.gray, .uint8))
        #expect(inverted.samples == stride(from: 0, to: pairs.count, by: 2).map { 255 - pairs[$0] })

        // Associated (premultiplied) alpha is divided out: c × 255 / a, as vips does.
        var rgba: [Int] = []
        for _ in 0..<(w * h) {
            let a = Int(rng.byte())
            for _ in 0..<3 { rgba.append(a == 0 ? 0 : Int(rng.next() % UInt64(a + 1))) }
            rgba.append(a)
        }
        let premultiplied = TinyTIFF(width: w, height: h, samplesPerPixel: 4, photometric: 2, extraSamples: [1], samples: rgba)
        let path = try premultiplied.write(to: folder, "associated.tif")
        let (straight, d2) = try decodeTIFF(path)
        #expect(d2.format == PixelFormat(.rgba, .uint8))
        var want: [Int] = []
        for p in 0..<(w * h) {
            let a = rgba[4 * p + 3]
            for c in 0..<3 { want.append(a == 0 ? 0 : min(255, (rgba[4 * p + c] * 255 + a / 2) / a)) }
            want.append(a)
        }
        #expect(straight.samples == want)
        try compareWithVips(path, straight, folder: folder, tolerance: 1)
    }

    /// vips' decoding of `path` within `tolerance` codes everywhere (the test declares vips).
    func compareWithVips(_ path: String, _ ours: NetpbmImage, folder: URL, tolerance: Double) throws {
        let reference = try Vips.decode(path, in: folder)
        let d = try #require(difference(ours, reference), "\(path): size differs from vips")
        #expect(d.max <= tolerance, "\(path): max difference to vips \(d.max)")
    }

    @Test("CMYK: the device formula, or the colour module's converter into 16-bit RGB")
    func cmyk() throws {
        let folder = TestPaths.temporaryDirectory("tiff-cmyk")
        defer { try? FileManager.default.removeItem(at: folder) }
        var rng = SplitMix64(seed: 5)
        let (w, h) = (19, 7)
        let v = (0..<(4 * w * h)).map { _ in Int(rng.byte()) }
        let path = try TinyTIFF(width: w, height: h, samplesPerPixel: 4, photometric: 5, inkSet: 1, samples: v).write(to: folder, "cmyk.tif")
        let (ours, decoder) = try decodeTIFF(path)
        #expect(decoder.storesCMYK && decoder.info.fileColorSpace == "CMYK")
        var want: [Int] = []
        for p in 0..<(w * h) {
            let k = 255 - v[4 * p + 3]
            for c in 0..<3 { want.append(((255 - v[4 * p + c]) * k + 127) / 255) }
        }
        #expect(ours.samples == want)
        // With a converter the rows become 16-bit RGB of its making (here: K alone, ×257).
        let (converted, d2) = try decodeTIFF(path, converter: { cmyk, inverted, rgb, pixels in
            precondition(!inverted)
            for x in 0..<pixels { for c in 0..<3 { rgb[3 * x + c] = UInt16(cmyk[4 * x + 3]) * 257 } }
        })
        #expect(d2.format == PixelFormat(.rgb, .uint16))
        var kOnly: [Int] = []
        for p in 0..<(w * h) { kOnly += [Int](repeating: v[4 * p + 3] * 257, count: 3) }
        #expect(converted.samples == kOnly)
    }

    @Test("uncompressed YCbCr goes through libtiff's RGBA interface: the BT.601 formula within 2 codes")
    func ycbcrThroughRGBA() throws {
        let folder = TestPaths.temporaryDirectory("tiff-ycbcr")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (w, h) = (16, 8)
        var v: [Int] = []
        for y in 0..<h { for x in 0..<w { v += [40 + 10 * x, 128 + 6 * (y - 4), 128 - 5 * (x - 8)] } }
        let path = try TinyTIFF(width: w, height: h, samplesPerPixel: 3, photometric: 6, ycbcrSubsampling: [1, 1], samples: v)
            .write(to: folder, "ycbcr.tif")
        let (ours, decoder) = try decodeTIFF(path)
        #expect(decoder.format == PixelFormat(.rgb, .uint8))
        #expect(decoder.info.details.contains { $0.label == "decoded through" })
        var want: [Int] = []
        for p in 0..<(w * h) {
            let y = Double(v[3 * p]), cb = Double(v[3 * p + 1]) - 128, cr = Double(v[3 * p + 2]) - 128
            let rgb: [Double] = [y + 1.402 * cr, y - 0.344136 * cb - 0.714136 * cr, y + 1.772 * cb]
            for x in rgb { want.append(Int(min(255, max(0, x.rounded())))) }
        }
        let d = try #require(difference(ours, NetpbmImage(width: w, height: h, channels: 3, maxValue: 255, samples: want)))
        #expect(d.max <= 2, "max difference to the formula \(d.max)")
    }

    @Test("metadata: ICC, orientation as stored, pages counted, only IFD 0 decoded", Requirement.tool("vips"))
    func metadataAndPages() throws {
        let folder = TestPaths.temporaryDirectory("tiff-meta")
        defer { try? FileManager.default.removeItem(at: folder) }
        var rng = SplitMix64(seed: 9)
        let v = (0..<(3 * 6 * 4)).map { _ in Int(rng.byte()) }
        let rotated = try TinyTIFF(width: 6, height: 4, samplesPerPixel: 3, photometric: 2, orientation: 6, samples: v)
            .write(to: folder, "rotated.tif")
        let (image, decoder) = try decodeTIFF(rotated)
        #expect(decoder.info.metadata.orientation == .right)
        #expect(decoder.info.uprightSize == (4, 6))
        #expect(image.samples == v, "rows come out as stored; the engine rotates")

        let icc = try #require(try JPEGDecoder(path: TestPaths.fixture("jpeg/moz_jpg-srgb-icc.jpg")).info.metadata.icc)
        let iccPath = folder.appendingPathComponent("profile.icc")
        try Data(icc).write(to: iccPath)
        let p = folder.path
        try Vips.run(["flip", Self.photo, "\(p)/flipped.v", "vertical"])
        try Vips.run(["join", Self.photo, "\(p)/flipped.v", "\(p)/two.v", "vertical"])
        try Vips.run(["join", "\(p)/two.v", Self.photo, "\(p)/pages.v", "vertical"])
        try Vips.run(["tiffsave", "\(p)/pages.v", "\(p)/pages.tif", "--page-height", "96", "--profile", iccPath.path, "--compression", "lzw"])
        let (first, paged) = try decodeTIFF("\(p)/pages.tif")
        #expect(paged.info.details.contains { $0 == ("pages", "3") }, "\(paged.info.details)")
        let photo = try decodeAll(Self.photo).image
        #expect(first.height == 96 && first == photo, "page 1 is the photo")
        #expect(paged.info.metadata.icc == icc, "ICC comes back byte-identical")
        #expect(paged.info.metadata.exif == nil)
    }

    @Test("damage: truncation, strips past the end, garbage, header bombs — typed errors naming the file", Requirement.tool("vips"))
    func damagedInput() throws {
        let folder = TestPaths.temporaryDirectory("tiff-damage")
        defer { try? FileManager.default.removeItem(at: folder) }
        var rng = SplitMix64(seed: 77)

        // The IFD first, pixels after: half the strips are cut off.
        let v = (0..<(3 * 64 * 64)).map { _ in Int(rng.byte()) }
        let whole = TinyTIFF(width: 64, height: 64, samplesPerPixel: 3, photometric: 2, rowsPerStrip: 8, directoryFirst: true, samples: v).bytes()
        let cutPath = folder.appendingPathComponent("cut.tif").path
        try Data(whole.prefix(whole.count / 2)).write(to: URL(fileURLWithPath: cutPath))
        #expect { try decodeTIFF(cutPath) } throws: { e in
            guard let e = e as? ImageError else { return false }
            return e.kind == .damaged && e.path == cutPath && e.reason.contains("rows ") && e.reason.contains("allow-damaged")
        }
        let (partial, lenient) = try decodeTIFF(cutPath, options: DecodeOptions(allowDamaged: true))
        #expect(lenient.warnings.count >= 1 && lenient.warnings[0].message.contains("allow-damaged"), "\(lenient.warnings)")
        let intactRows = 24  // strips 0–2 lie wholly in the first half
        #expect(Array(partial.samples.prefix(intactRows * 64 * 3)) == Array(v.prefix(intactRows * 64 * 3)))
        #expect(partial.samples.suffix(8 * 64 * 3).allSatisfy { $0 == 0 }, "lost strips are black")

        // libtiff's own layout (IFD last) cut in half: the directory is gone.
        do {
            let lzw = folder.appendingPathComponent("lzw.tif").path
            try Vips.run(["tiffsave", Self.photo, lzw, "--compression", "lzw"])
            let bytes = try Data(contentsOf: URL(fileURLWithPath: lzw))
            try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: lzw))
            #expect { try TIFFDecoder(path: lzw) } throws: { e in
                guard let e = e as? ImageError else { return false }
                return (e.kind == .corrupt || e.kind == .damaged) && e.path == lzw && e.reason.contains("truncated")
            }
        }

        // 100000×100000 declared in a few hundred bytes: refused before anything is allocated.
        let bomb = try TinyTIFF(width: 100_000, height: 100_000, rowsPerStrip: 10_000, headerOnly: true).write(to: folder, "bomb.tif")
        #expect { try TIFFDecoder(path: bomb) } throws: { e in
            (e as? ImageError)?.kind == .tooLarge && (e as? ImageError)!.reason.contains("100000×100000")
        }

        // Garbage after a valid header, and a valid header with garbage IFD offsets: any outcome but
        // a crash, every error typed and naming the file.
        var outcomes: [String: Int] = [:]
        for i in 0..<60 {
            var bytes: [UInt8] = [0x49, 0x49, 0x2A, 0x00]
            bytes += i % 3 == 0 ? [8, 0, 0, 0] : [rng.byte(), rng.byte() & 0x0F, 0, 0]
            bytes += (0..<(64 + Int(rng.next() % 2000))).map { _ in rng.byte() }
            let path = folder.appendingPathComponent("garbage\(i).tif").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            do {
                _ = try decodeTIFF(path)
                outcomes["renders", default: 0] += 1
            } catch let e as ImageError {
                #expect(e.path == path && !e.reason.isEmpty)
                outcomes[e.kind.rawValue, default: 0] += 1
            }
        }
        // Failing opens and decodes give their file descriptors back (other tests run alongside,
        // hence the margin: a leak would show as one descriptor per attempt).
        let open = { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0 }
        let before = open()
        for i in 0..<300 {
            _ = try? TIFFDecoder(path: folder.appendingPathComponent("garbage\(i % 60).tif").path)
            _ = try? decodeTIFF(cutPath)
        }
        #expect(open() - before < 100, "\(open() - before) more descriptors open after 600 failed decodes")
        testNote("TIFF garbage: " + outcomes.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))

        // Floating-point samples are refused by name.
        do {
            let float = folder.appendingPathComponent("float.tif").path
            try Vips.run(["linear", Self.photo, float, "0.5", "0"])
            #expect { try TIFFDecoder(path: float) } throws: { e in
                (e as? ImageError)?.kind == .unsupported && (e as? ImageError)!.reason.contains("floating-point")
            }
        }
    }

    @Test("the broken corpus: every file that sniffs as TIFF fails cleanly or renders", Requirement.corpus)
    func brokenCorpus() throws {
        let corpus = try Requirement.corpusURL()
        let root = corpus.appendingPathComponent("broken")
        let all = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
        var tiffs = 0
        for name in all {
            let path = root.appendingPathComponent(name).path
            guard let head = try? InputFile.prefix(path, count: ImageFileFormat.sniffLength), ImageFileFormat.sniff(head) == .tiff else { continue }
            tiffs += 1
            do { _ = try decodeTIFF(path) } catch let e as ImageError { #expect(e.path == path) }
        }
        testNote("broken corpus: \(all.count) files, \(tiffs) sniff as TIFF")
    }

    @Test("a 6144×4096 striped TIFF streams: the decoder holds one strip, not the image", Requirement.tool("vips"))
    func streaming() throws {
        let folder = TestPaths.temporaryDirectory("tiff-stream")
        defer { try? FileManager.default.removeItem(at: folder) }
        let p = folder.path
        // A 256×256 tile of (x, y, x) replicated to 6144×4096, LZW, striped as vips writes it.
        try Vips.run(["xyz", "\(p)/xy.v", "256", "256"])
        try Vips.run(["extract_band", "\(p)/xy.v", "\(p)/x.v", "0"])
        try Vips.run(["bandjoin", "\(p)/xy.v \(p)/x.v", "\(p)/xyx.v"])
        try Vips.run(["cast", "\(p)/xyx.v", "\(p)/tile.v", "uchar"])
        try Vips.run(["replicate", "\(p)/tile.v", "\(p)/big.tif[compression=lzw]", "24", "16"])
        let decoder = try TIFFDecoder(path: "\(p)/big.tif")
        let strip = PixelBuffer(width: decoder.width, rowCapacity: 64, format: decoder.format)
        var rows = 0, largest = 0, wrong = 0
        while try decoder.readRows(into: strip) > 0 {
            largest = max(largest, decoder.bufferedBytes)
            for r in [0, strip.rowCount - 1] {
                let s = strip.samples(r, as: UInt8.self), y = strip.originY + r
                if Int(s[3 * 6000]) != 6000 % 256 || Int(s[3 * 4321 + 1]) != y % 256 || Int(s[3 * 4321 + 2]) != 4321 % 256 { wrong += 1 }
            }
            rows += strip.rowCount
        }
        #expect(rows == 4096 && decoder.width == 6144)
        let image = 6144 * 4096 * 3
        let strips = try #require(decoder.info.details.first { $0.label == "strips" }?.value.split(separator: " "))
        let rowsPerStrip = try #require(Int(strips[2]))
        #expect(largest <= rowsPerStrip * 6144 * 3 + 64 * 1024, "decoder holds \(largest) bytes for strips of \(rowsPerStrip) rows")
        #expect(largest * 20 < image, "decoder holds \(largest) of \(image) bytes")
        #expect(wrong == 0, "\(wrong) sampled rows differ from x, y mod 256")
        testNote("streaming: 6144×4096 RGB, strips of \(rowsPerStrip) rows, decoder held at most \(largest) bytes (image \(image))")

        // A single compressed strip of 4.5 MB (as old scanners write; libtiff itself cuts up an
        // uncompressed one) is read a scanline at a time.
        var rng = SplitMix64(seed: 1)
        let v = (0..<(1500 * 1000 * 3)).map { _ in Int(rng.byte() & 0xF0) }
        let single = try TinyTIFF(width: 1500, height: 1000, samplesPerPixel: 3, photometric: 2, packBits: true, samples: v)
            .write(to: folder, "single.tif")
        let (image2, d2) = try decodeTIFF(single)
        #expect(d2.readingMode == .scanlines)
        #expect(d2.bufferedBytes <= 16 * 1500 * 3)
        #expect(image2.samples == v)
    }

    @Test("decoders on several threads keep their own libtiff messages")
    func concurrentDecoders() throws {
        let folder = TestPaths.temporaryDirectory("tiff-threads")
        defer { try? FileManager.default.removeItem(at: folder) }
        var rng = SplitMix64(seed: 3)
        let v = (0..<(3 * 32 * 32)).map { _ in Int(rng.byte()) }
        let whole = TinyTIFF(width: 32, height: 32, samplesPerPixel: 3, photometric: 2, rowsPerStrip: 4, directoryFirst: true, samples: v)
        let good = try whole.write(to: folder, "good.tif")
        let bytes = whole.bytes()
        let cut = folder.appendingPathComponent("cut.tif").path
        try Data(bytes.prefix(bytes.count - 700)).write(to: URL(fileURLWithPath: cut))
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 16) { i in
            let path = i % 2 == 0 ? good : cut
            do {
                let (image, decoder) = try decodeTIFF(path)
                results.add(i, image.samples == v && decoder.warnings.isEmpty ? "ok" : "wrong")
            } catch let e as ImageError {
                results.add(i, e.path == cut && e.kind == .damaged ? "damaged" : "wrong: \(e)")
            } catch {
                results.add(i, "wrong: \(error)")
            }
        }
        for (i, r) in results.all { #expect(r == (i % 2 == 0 ? "ok" : "damaged"), "decode \(i): \(r)") }
    }
}

private final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Int: String] = [:]
    func add(_ i: Int, _ s: String) { lock.withLock { values[i] = s } }
    var all: [(Int, String)] { lock.withLock { values.sorted { $0.key < $1.key } } }
}
