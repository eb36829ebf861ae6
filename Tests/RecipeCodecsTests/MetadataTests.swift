import Foundation
import RecipeCodecs
import RecipeCore
import Testing
import TestSupport

/// Decodes `input` and re-encodes it as `ext` (identity pixels; metadata under `policy`, all of
/// it by default), returning the re-decoded output.
func reencode(_ input: String, as ext: String, keepAt kept: String? = nil, policy: MetadataPolicy = MetadataPolicy()) throws
    -> (image: NetpbmImage, decoder: any ImageDecoder, source: any ImageDecoder)
{
    let dir = TestPaths.temporaryDirectory("meta")
    defer { try? FileManager.default.removeItem(at: dir) }
    let out = kept ?? dir.appendingPathComponent("out.\(ext)").path
    let source = try ImageDecoders.open(input)
    try source.start(scaleDenominator: 1)
    let meta = source.info.metadata.applying(policy).prepared(forOutputWidth: source.width, height: source.height)
    let file = try AtomicOutputFile(path: out)
    let sink: RowSink
    if ext == "png" {
        sink = try PNGEncoder(handle: file.handle, path: out, width: source.width, height: source.height, format: source.format, metadata: meta)
    } else {
        precondition(!source.format.colorModel.hasAlpha && source.format.sampleType == .uint8)
        sink = try JPEGEncoder(handle: file.handle, path: out, width: source.width, height: source.height,
                               colorModel: source.format.colorModel, metadata: meta, options: JPEGOptions(quality: 95))
    }
    let strip = PixelBuffer(width: source.width, rowCapacity: 16, format: source.format)
    while try source.readRows(into: strip) > 0 { try sink.writeRows(from: strip) }
    try sink.finish()
    try file.commit()
    let (image, decoder) = try decodeAll(out)
    return (image, decoder, source)
}

@Suite("Metadata")
struct MetadataTests {
    @Test("EXIF orientation is read, and reset to 1 in place on output")
    func orientation() throws {
        let d = try JPEGDecoder(path: TestPaths.samples.appendingPathComponent("Landscape_6.jpg").path)
        #expect(d.info.orientation == .right)
        let exif = try #require(d.info.metadata.exif)
        let out = try #require(d.info.metadata.prepared(forOutputWidth: 1800, height: 1200).exif)
        #expect(out.count == exif.count)
        #expect(EXIF(out)?.orientation == 1)
        // Only the two bytes of the value (and pixel dimensions, absent here) may change.
        #expect(zip(exif, out).filter { $0 != $1 }.count <= 2)
    }

    @Test("damaged EXIF is dropped with a warning naming the block")
    func damagedEXIF() throws {
        let d = try JPEGDecoder(path: TestPaths.fixture("broken/pil_invalid-exif.jpg"))
        #expect(d.info.metadata.exif == nil)
        #expect(d.warnings.contains { $0.message.contains("EXIF") })
    }

    @Test("ICC chunks: out of order repaired; duplicates, gaps and bad counts dropped")
    func iccAssembly() {
        var profile = [UInt8](repeating: 7, count: 300)
        profile[0...3] = [0, 0, 1, 44]  // declared size 300
        profile.replaceSubrange(36..<40, with: Array("acsp".utf8))
        profile.replaceSubrange(128..<132, with: [0, 0, 0, 0])  // empty tag table
        let parts = [profile[0..<100], profile[100..<200], profile[200..<300]]
        func chunks(_ order: [Int], count: Int = 3) -> [ICCProfile.Chunk] {
            order.map { ICCProfile.Chunk(sequence: $0, count: count, data: parts[(($0 - 1) % 3 + 3) % 3]) }
        }
        #expect(ICCProfile.assemble(chunks([1, 2, 3])).profile == profile)
        #expect(ICCProfile.assemble(chunks([1, 2, 3])).problem == nil)
        let shuffled = ICCProfile.assemble(chunks([3, 1, 2]))
        #expect(shuffled.profile == profile && shuffled.problem?.contains("reassembled") == true)
        #expect(ICCProfile.assemble(chunks([1, 1, 2])).profile == nil)
        #expect(ICCProfile.assemble(chunks([1, 2])).profile == nil)
        #expect(ICCProfile.assemble(chunks([0, 1, 2])).profile == nil)
        #expect(ICCProfile.assemble(chunks([1, 2, 3]) + [ICCProfile.Chunk(sequence: 1, count: 4, data: parts[0])]).profile == nil)
    }

    @Test("JPEG → JPEG keeps EXIF, ICC, XMP and IPTC verbatim")
    func jpegToJPEG() throws {
        var files = [TestPaths.fixture("jpeg/pil_iptc.jpg"), TestPaths.fixture("jpeg/moz_jpg-srgb-icc.jpg"),
                     TestPaths.fixture("jpeg/pil_exif-72dpi-int.jpg")]
        if let c = try Requirement.corpusIfPresent(for: "JPEG → JPEG metadata") {
            files += ["photos/pil_icc_profile_big.jpg", "photos/pil_xmp_test.jpg", "photos/exif-samples_42_IndexError.jpg"]
                .map { c.appendingPathComponent($0).path }
        }
        for path in files {
            let (_, out, src) = try reencode(path, as: "jpg")
            let a = src.info.metadata, b = out.info.metadata
            #expect(!a.blockNames.isEmpty, "\(path) has no metadata to carry")
            #expect(b.icc == a.icc, "ICC of \(path)")
            #expect(b.xmp == a.xmp, "XMP of \(path)")
            #expect(b.extendedXMP == a.extendedXMP)
            #expect(b.iptc == a.iptc, "IPTC of \(path)")
            #expect(b.exif?.count == a.exif?.count, "EXIF of \(path)")
            if let e = b.exif { #expect(EXIF(e)?.orientation ?? 1 == 1) }
        }
    }

    @Test("JPEG → PNG and PNG → JPEG carry ICC and EXIF across")
    func crossFormat() throws {
        let jpeg = TestPaths.fixture("jpeg/pil_exif-72dpi-int.jpg")
        let (_, png, src) = try reencode(jpeg, as: "png")
        #expect(png.info.metadata.exif == src.info.metadata.exif && png.info.metadata.exif != nil)
        let dir = TestPaths.temporaryDirectory("icc")
        defer { try? FileManager.default.removeItem(at: dir) }
        let viaJPEG = dir.appendingPathComponent("icc.jpg").path
        let iccPNG = TestPaths.fixture("png/ljt_vgl_5674_0098.png")
        let (_, j, s) = try reencode(iccPNG, as: "jpg", keepAt: viaJPEG)
        #expect(j.info.metadata.icc == s.info.metadata.icc && j.info.metadata.icc != nil)
        // …and that JPEG back to PNG (an RGB profile on an RGB image, which libpng accepts).
        let (_, backToPNG, fromJPEG) = try reencode(viaJPEG, as: "png")
        #expect(backToPNG.info.metadata.icc == fromJPEG.info.metadata.icc && backToPNG.info.metadata.icc != nil)
        let exifPNG = TestPaths.fixture("png/pil_exif.png")
        let (_, j2, s2) = try reencode(exifPNG, as: "jpg")
        #expect(j2.info.metadata.exif == s2.info.metadata.exif && j2.info.metadata.exif != nil)
    }

    @Test("PNG 8-bit and 16-bit files round-trip exactly through decode and encode")
    func pngRoundTrip() throws {
        for name in ["basn2c16.png", "basn0g16.png", "basn6a16.png", "basn2c08.png", "basn4a08.png", "basi0g08.png", "tbbn3p08.png"] {
            let path = TestPaths.fixture("png/\(name)")
            let (original, _) = try decodeAll(path)
            let (again, decoder, _) = try reencode(path, as: "png")
            #expect(again == original, "\(name)")
            #expect(decoder.info.bitDepth == (name.contains("16") ? 16 : 8))
        }
    }

    /// The chunk types of a PNG file in order, read from its bytes (length, type, data, CRC).
    static func chunkTypes(_ bytes: [UInt8]) -> [String] {
        var types: [String] = []
        var at = 8
        while at + 8 <= bytes.count {
            let length = bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
            types.append(String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self))
            at += 12 + length
        }
        return types
    }

    /// libpng 1.6.39 wrote the eXIf chunk a second time after IDAT; the PNG spec allows one, and
    /// exiftool warns about the second.
    @Test("a PNG written with EXIF has exactly one eXIf chunk, before the first IDAT (chunks read from the bytes)",
          arguments: ["jpeg/pil_exif-72dpi-int.jpg", "png/pil_exif.png"])
    func oneEXIfChunk(_ name: String) throws {
        let dir = TestPaths.temporaryDirectory("exif-once")
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.png").path
        let (_, png, source) = try reencode(TestPaths.fixture(name), as: "png", keepAt: out)
        #expect(png.info.metadata.exif == source.info.metadata.exif && png.info.metadata.exif != nil)
        let types = Self.chunkTypes([UInt8](try Data(contentsOf: URL(fileURLWithPath: out))))
        #expect(types.first == "IHDR" && types.last == "IEND", "\(types)")
        #expect(types.filter { $0 == "eXIf" }.count == 1, "\(name): chunks \(types)")
        let exif = try #require(types.firstIndex(of: "eXIf")), idat = try #require(types.firstIndex(of: "IDAT"))
        #expect(exif < idat, "\(name): eXIf after IDAT: \(types)")
    }
}
