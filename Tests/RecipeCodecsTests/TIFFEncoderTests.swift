import Foundation
@testable import RecipeCodecs
import RecipeCore
import Testing
import TestSupport

@Suite("TIFF encoding")
struct TIFFEncoderTests {
    @Test("every shape × compression reads back in vips with the same size, bands, depth and pixels", Requirement.tool("vips", "vipsheader"))
    func vipsReadsBack() throws {
        let folder = TestPaths.temporaryDirectory("tiff-encode")
        defer { try? FileManager.default.removeItem(at: folder) }
        let p = folder.path
        var sources = try TIFFDecoderTests.sources(in: folder)
        sources += [("grayalpha8", TestPaths.fixture("png/basn4a08.png")), ("rgba16", TestPaths.fixture("png/basn6a16.png"))]
        let icc = try #require(try JPEGDecoder(path: TestPaths.fixture("jpeg/moz_jpg-srgb-icc.jpg")).info.metadata.icc)
        var count = 0
        for source in sources {
            let image = try decodeAll(source.path).image
            for compression in TIFFOptions.Compression.allCases {
                let out = "\(p)/\(source.name)-\(compression.rawValue).tif"
                var meta = ImageMetadata()
                let rgb = image.channels >= 3
                if rgb { meta.icc = icc }
                let encoder = try encodeTIFF(image, to: out, metadata: meta, options: TIFFOptions(compression: compression))
                #expect(encoder.warnings.isEmpty, "\(out): \(encoder.warnings)")
                // "out.tif: 120x96 ushort, 3 bands, srgb, tiffload"
                let summary = try Vips.summary(of: out)
                let bands = "\(image.channels) band\(image.channels == 1 ? "," : "s,")"
                #expect(summary.contains(" \(image.width)x\(image.height) \(image.maxValue > 255 ? "ushort" : "uchar"), \(bands)"), "\(summary)")
                let back = try Vips.decode(out, in: folder)
                #expect(back == image, "\(out): max difference \(back.maxDifference(to: image) ?? -1)")
                // Our decoder reads the same pixels and the profile back.
                let (ours, decoder) = try decodeTIFF(out)
                #expect(ours == image, "\(out): our decoder differs by \(ours.maxDifference(to: image) ?? -1)")
                #expect(decoder.info.metadata.icc == meta.icc)
                if rgb && compression == .deflate {
                    let base64 = try Vips.field("icc-profile-data", of: out)
                    #expect(Data(base64Encoded: base64).map([UInt8].init) == icc, "\(out): ICC differs in vips")
                }
                // The tags, read with a reader of our own that is not the decoder's.
                let file = IFDReader(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: out))))
                let ifd = file.firstIFD
                #expect(file.value(of: 259, at: ifd) == [.none: 1, .lzw: 5, .deflate: 8][compression])
                #expect(file.value(of: 317, at: ifd) == (compression == .none ? nil : 2), "predictor")
                #expect(file.value(of: 274, at: ifd) == 1, "orientation")
                #expect(file.value(of: 338, at: ifd) == (image.channels % 2 == 0 ? 2 : nil), "unassociated alpha")
                let rowBytes = image.width * image.channels * (image.maxValue > 255 ? 2 : 1)
                #expect(file.value(of: 278, at: ifd) == max(1, 65536 / rowBytes), "64 KB strips")
                count += 1
            }
        }
        testNote("TIFF encoder: \(count) files read back identical by vips (8- and 16-bit gray, gray+alpha, RGB, RGBA × none, LZW, Deflate)")
    }

    /// A JPEG's IPTC (APP13: Photoshop's image resources, the IIM records in resource 0x0404)
    /// goes into a TIFF as Photoshop does it: the resources in tag 34377, the records alone in
    /// RichTIFFIPTC (33723) padded to whole words. The file is read back raw, not by our decoder,
    /// and then by our decoder, whose APP13 is the JPEG's again; a TIFF with RichTIFFIPTC alone (as
    /// libvips writes) gives the same records.
    @Test("IPTC is carried into TIFF (Photoshop and RichTIFFIPTC tags) and back")
    func iptcCarried() throws {
        let folder = TestPaths.temporaryDirectory("tiff-iptc")
        defer { try? FileManager.default.removeItem(at: folder) }
        let app13 = try #require(try JPEGDecoder(path: TestPaths.fixture("jpeg/pil_iptc.jpg")).info.metadata.iptc)
        let resources = try #require(PhotoshopResources.resources(fromAPP13: app13))
        let iim = try #require(PhotoshopResources.iim(in: resources))
        #expect(iim.first == 0x1C && PhotoshopResources.iimLength(iim) == iim.count, "the fixture's resource 0x0404 is IIM records")
        var meta = ImageMetadata()
        meta.iptc = app13
        let image = NetpbmImage(width: 5, height: 3, channels: 3, maxValue: 255, samples: (0..<45).map { $0 * 5 })
        let out = folder.appendingPathComponent("iptc.tif").path
        let encoder = try encodeTIFF(image, to: out, metadata: meta.prepared(forOutputWidth: 5, height: 3))
        #expect(encoder.warnings.isEmpty, "\(encoder.warnings)")
        let file = IFDReader(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: out))))
        let entries = file.entries(at: file.firstIFD)
        #expect(entries.first { $0.tag == 34377 }?.value == resources, "tag 34377 holds the resources")
        let rich = try #require(entries.first { $0.tag == 33723 }, "tag 33723 is there")
        #expect(rich.value.count % 4 == 0 && Array(rich.value.prefix(iim.count)) == iim && rich.value.dropFirst(iim.count).allSatisfy { $0 == 0 })
        let (_, decoder) = try decodeTIFF(out)
        #expect(decoder.info.metadata.iptc == app13, "read back as the JPEG's APP13")

        // RichTIFFIPTC alone: the same file with tag 34377 renumbered to a private 34378 (the
        // entries stay in order); the records come back as resource 0x0404.
        var bytes = file.bytes
        let count = file.u16(file.firstIFD)
        let entry = try #require((0..<count).map { file.firstIFD + 2 + 12 * $0 }.first { file.u16($0) == 34377 })
        bytes[entry + (file.bigEndian ? 1 : 0)] = UInt8(34378 & 0xFF)
        let recordsOnly = folder.appendingPathComponent("records-only.tif").path
        try Data(bytes).write(to: URL(fileURLWithPath: recordsOnly))
        let (_, second) = try decodeTIFF(recordsOnly)
        let carried = try #require(second.info.metadata.iptc)
        #expect(PhotoshopResources.resources(fromAPP13: carried).flatMap(PhotoshopResources.iim) == iim)
    }

    @Test("EXIF IFDs are copied entry for entry, in the block's byte order; XMP and pixels survive", Requirement.tool("vips"))
    func exifCarried() throws {
        let folder = TestPaths.temporaryDirectory("tiff-exif")
        defer { try? FileManager.default.removeItem(at: folder) }
        let camera = try #require(try JPEGDecoder(path: TestPaths.fixture("jpeg/pil_iptc.jpg")).info.metadata.exif)
        let xmp = Array("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"/></x:xmpmeta>".utf8)
        var rng = SplitMix64(seed: 4)
        let image = NetpbmImage(width: 23, height: 9, channels: 3, maxValue: 65535, samples: (0..<(23 * 9 * 3)).map { _ in Int(rng.next() % 65536) })
        for (label, block) in [("camera (II)", camera), ("hand-made (MM, GPS)", Self.bigEndianEXIF())] {
            var meta = ImageMetadata()
            meta.exif = block
            meta.xmp = xmp
            let out = folder.appendingPathComponent("exif.tif").path
            let prepared = meta.prepared(forOutputWidth: 23, height: 9)
            let encoder = try encodeTIFF(image, to: out, metadata: prepared)
            #expect(encoder.warnings.isEmpty, "\(label): \(encoder.warnings)")

            let source = IFDReader(bytes: prepared.exif!), file = IFDReader(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: out))))
            #expect(file.bigEndian == source.bigEndian, "\(label): the file takes the block's byte order")
            let sourceIFD0 = source.entries(at: source.firstIFD), fileIFD0 = file.entries(at: file.firstIFD)
            for tag in [0x010F, 0x0110] {  // Make, Model
                #expect(fileIFD0.first { $0.tag == tag }?.value == sourceIFD0.first { $0.tag == tag }?.value, "\(label): tag \(tag)")
            }
            for pointer in [0x8769, 0x8825] {
                guard let from = source.value(of: pointer, at: source.firstIFD) else { continue }
                let to = try #require(file.value(of: pointer, at: file.firstIFD), "\(label): pointer \(pointer) missing")
                #expect(Self.sameIFD(source, from, file, to), "\(label): IFD \(pointer) differs")
            }
            // Our decoder gives back a valid block with the same EXIF IFD, the XMP, and the pixels.
            let (back, decoder) = try decodeTIFF(out)
            #expect(back == image, "\(label): pixels")
            #expect(decoder.info.metadata.xmp == xmp)
            let exif = try #require(decoder.info.metadata.exif)
            #expect(EXIF.problem(in: exif) == nil)
            let again = IFDReader(bytes: exif)
            let exifIFD = try #require(again.value(of: 0x8769, at: again.firstIFD))
            #expect(Self.sameIFD(source, source.value(of: 0x8769, at: source.firstIFD)!, again, exifIFD))
            do {
                #expect(try Vips.decode(out, in: folder) == image, "\(label): vips reads the pixels")
            }
        }
    }

    @Test("a damaged EXIF block is left out with a warning, and the file is still written")
    func damagedEXIF() throws {
        let folder = TestPaths.temporaryDirectory("tiff-badexif")
        defer { try? FileManager.default.removeItem(at: folder) }
        var meta = ImageMetadata()
        meta.exif = [0x49, 0x49, 0x2A, 0, 0xFF, 0xFF, 0, 0]
        let image = NetpbmImage(width: 3, height: 2, channels: 1, maxValue: 255, samples: [0, 50, 100, 150, 200, 250])
        let out = folder.appendingPathComponent("bad.tif").path
        let encoder = try encodeTIFF(image, to: out, metadata: meta)
        #expect(encoder.warnings.contains { $0.contains("EXIF") })
        let (back, decoder) = try decodeTIFF(out)
        #expect(back == image && decoder.info.metadata.exif == nil)
    }

    @Test("an encoder abandoned mid-image after its output was discarded touches the closed FILE* no more")
    func abandoned() throws {
        let folder = TestPaths.temporaryDirectory("tiff-abandon")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("never.tif").path
        for compression in TIFFOptions.Compression.allCases {
            var out: AtomicOutputFile? = try AtomicOutputFile(path: path)
            var encoder: TIFFEncoder? = try TIFFEncoder(handle: out!.handle, path: path, width: 300, height: 200,
                                                        format: PixelFormat(.rgb, .uint16), metadata: ImageMetadata(),
                                                        options: TIFFOptions(compression: compression))
            let strip = PixelBuffer(width: 300, rowCapacity: 150, format: PixelFormat(.rgb, .uint16))
            strip.rowCount = 150
            try encoder!.writeRows(from: strip)
            out!.abort()  // fclose: the FILE* is gone before the encoder
            out = nil
            encoder = nil  // deinit must not flush through it (ASan builds catch a use after free)
            #expect(encoder == nil && !FileManager.default.fileExists(atPath: path))

            // With the FILE* still open, dropping the encoder adds not a byte (no directory, no strip).
            let keptPath = folder.appendingPathComponent("kept.tif").path
            let kept = try #require(fopen(keptPath, "wb"))
            encoder = try TIFFEncoder(handle: kept, path: keptPath, width: 300, height: 200, format: PixelFormat(.rgb, .uint16),
                                      metadata: ImageMetadata(), options: TIFFOptions(compression: compression))
            try encoder!.writeRows(from: strip)
            fflush(kept)
            let size = ftello(kept)
            encoder = nil
            fflush(kept)
            fseeko(kept, 0, SEEK_END)
            #expect(ftello(kept) == size, "\(compression): \(ftello(kept) - size) bytes written after the encoder was dropped")
            fclose(kept)
        }
    }

    /// Whether two IFDs hold the same entries, byte for byte, and the same interoperability IFD
    /// (whose pointer value moves).
    static func sameIFD(_ a: IFDReader, _ at: Int, _ b: IFDReader, _ bt: Int) -> Bool {
        let x = a.entries(at: at), y = b.entries(at: bt)
        guard x.count == y.count else { return false }
        for (e, f) in zip(x, y) {
            guard e.tag == f.tag, e.count == f.count else { return false }
            if e.tag == 0xA005 {
                guard sameIFD(a, a.value(of: 0xA005, at: at)!, b, b.value(of: 0xA005, at: bt)!) else { return false }
            } else if e.type != f.type || e.value != f.value {
                return false
            }
        }
        return true
    }

    /// A big-endian EXIF block: IFD0 (Make, Model, Orientation 6, EXIF and GPS pointers), an
    /// EXIF IFD (ExposureTime 1/250, DateTimeOriginal, an interoperability IFD) and a GPS IFD.
    static func bigEndianEXIF() -> [UInt8] {
        var b: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8]
        func u16(_ v: Int) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
        // Offsets: IFD0 at 8 (5 entries: 2 + 60 + 4 = 66) → 74; EXIF IFD at 74 (3 entries: 42) → 116;
        // interop at 116 (1 entry: 18) → 134; GPS at 134 (2 entries: 30) → 164; values from 164.
        let make = Array("Recipe Camera Co\0".utf8), model = Array("RC1\0".utf8), date = Array("2024:05:01 12:34:56\0".utf8)
        let makeAt = 164, dateAt = makeAt + make.count + 1, exposureAt = dateAt + date.count, latAt = exposureAt + 8
        b += u16(5)
        b += u16(0x010F) + u16(2) + u32(make.count) + u32(makeAt)
        b += u16(0x0110) + u16(2) + u32(model.count) + model
        b += u16(0x0112) + u16(3) + u32(1) + u16(6) + [0, 0]
        b += u16(0x8769) + u16(4) + u32(1) + u32(74)
        b += u16(0x8825) + u16(4) + u32(1) + u32(134)
        b += u32(0)
        b += u16(3)
        b += u16(0x829A) + u16(5) + u32(1) + u32(exposureAt)
        b += u16(0x9003) + u16(2) + u32(date.count) + u32(dateAt)
        b += u16(0xA005) + u16(4) + u32(1) + u32(116)
        b += u32(0)
        b += u16(1) + u16(0x0001) + u16(2) + u32(4) + Array("R98\0".utf8) + u32(0)
        b += u16(2)
        b += u16(0x0001) + u16(2) + u32(2) + Array("N\0".utf8) + [0, 0]
        b += u16(0x0002) + u16(5) + u32(3) + u32(latAt)
        b += u32(0)
        precondition(b.count == makeAt)
        b += make + [0] + date + u32(1) + u32(250) + u32(48) + u32(1) + u32(51) + u32(1) + u32(3012) + u32(100)
        return b
    }
}
