import Foundation
import RecipeCodecs
import RecipeCore
import Testing
import TestSupport

@Suite("PNG decoding")
struct PNGDecoderTests {
    static let fixturePNGs: [String] = (try? FileManager.default.contentsOfDirectory(atPath: TestPaths.fixture("png")))?
        .filter { $0.hasSuffix(".png") }.sorted() ?? []

    /// Every 32nd row (0, 32, …) of `image`: what a `.every32.pam` reference keeps (REFERENCES.md).
    static func every32thRow(_ image: NetpbmImage) -> NetpbmImage {
        let rowLength = image.width * image.channels
        let rows = Array(stride(from: 0, to: image.height, by: 32))
        return NetpbmImage(width: image.width, height: rows.count, channels: image.channels, maxValue: image.maxValue,
                           samples: rows.flatMap { image.samples[($0 * rowLength)..<(($0 + 1) * rowLength)] })
    }

    @Test("fixtures match pypng's committed decoding exactly (every 32nd row for pil_exif.png, whose full reference is large)", arguments: fixturePNGs)
    func matchesCommittedReference(name: String) throws {
        let stem = (name as NSString).deletingPathExtension
        let (decoded, _) = try decodeAll(TestPaths.fixture("png/\(name)"))
        let full = readNetpbm(TestPaths.fixture("png-ref/\(stem).pam"))
        let reference = try #require(full ?? readNetpbm(TestPaths.fixture("png-ref/\(stem).every32.pam")),
                                     "no committed pypng reference for \(name) in Tests/Fixtures/png-ref")
        let ours = full == nil ? Self.every32thRow(decoded) : decoded
        #expect(ours.maxDifference(to: reference) == 0, "\(name): max difference \(ours.maxDifference(to: reference).map(String.init) ?? "(size differs)")")
    }

    @Test("every fixture matches pypng live, whole", Requirement.python("png"), arguments: fixturePNGs)
    func matchesPypngLive(name: String) throws {
        let path = TestPaths.fixture("png/\(name)")
        let (ours, _) = try decodeAll(path)
        let reference = try #require(try pypngReference(path), "pypng failed on \(name)")
        #expect(ours.maxDifference(to: reference) == 0, "\(name): max difference \(ours.maxDifference(to: reference).map(String.init) ?? "(size differs)")")
    }

    @Test("every valid PngSuite file matches pypng live", Requirement.corpus, Requirement.python("png"))
    func pngSuiteSweep() throws {
        let files = TestPaths.corpusFiles("pngsuite", extensions: ["png"]).filter {
            !($0 as NSString).lastPathComponent.hasPrefix("x")
        }
        try #require(!files.isEmpty, "no PngSuite files in the corpus")
        var matched = 0, sixteen = 0, interlaced = 0
        for path in files {
            let (ours, decoder) = try decodeAll(path)
            let reference = try #require(try pypngReference(path), "pypng failed on \(path)")
            #expect(ours.maxDifference(to: reference) == 0, "\((path as NSString).lastPathComponent) differs: max \(ours.maxDifference(to: reference) ?? -1)")
            if ours == reference { matched += 1 }
            if decoder.format.sampleType == .uint16 { sixteen += 1 }
            if decoder.info.progressive { interlaced += 1 }
        }
        testNote("PngSuite sweep: \(matched)/\(files.count) valid files identical to pypng (\(sixteen) 16-bit, \(interlaced) interlaced)")
        #expect(matched == files.count)
    }

    @Test("16-bit stays 16-bit; palette and tRNS expand")
    func formats() throws {
        #expect(try PNGDecoder(path: TestPaths.fixture("png/basn2c16.png")).format == PixelFormat(.rgb, .uint16))
        #expect(try PNGDecoder(path: TestPaths.fixture("png/basn0g16.png")).format == PixelFormat(.gray, .uint16))
        #expect(try PNGDecoder(path: TestPaths.fixture("png/basn3p08.png")).format == PixelFormat(.rgb, .uint8))
        #expect(try PNGDecoder(path: TestPaths.fixture("png/tbbn3p08.png")).format == PixelFormat(.rgba, .uint8))
        #expect(try PNGDecoder(path: TestPaths.fixture("png/basn4a16.png")).format == PixelFormat(.grayAlpha, .uint16))
        #expect(try PNGDecoder(path: TestPaths.fixture("png/basi0g08.png")).info.progressive)
    }

    @Test("gAMA is reported and carried, not applied")
    func gamma() throws {
        let d = try PNGDecoder(path: TestPaths.fixture("png/g03n2c08.png"))
        let g = try #require(d.info.metadata.pngGamma)
        #expect(abs(g - 0.35) < 1e-4)
    }
}
