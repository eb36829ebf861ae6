import Foundation
import RecipeCodecs
import RecipeCore
import Testing
import TestSupport

@Suite("PNG decoding")
struct PNGDecoderTests {
    static let fixturePNGs: [String] = (try? FileManager.default.contentsOfDirectory(atPath: TestPaths.fixture("png")))?
        .filter { $0.hasSuffix(".png") }.sorted() ?? []

    @Test("fixtures match pypng's committed decoding exactly", arguments: fixturePNGs)
    func matchesCommittedReference(name: String) throws {
        let stem = (name as NSString).deletingPathExtension
        guard let reference = readNetpbm(TestPaths.fixture("png-ref/\(stem).pam")) else { return }
        let (ours, _) = try decodeAll(TestPaths.fixture("png/\(name)"))
        #expect(ours.maxDifference(to: reference) == 0, "\(name): max difference \(ours.maxDifference(to: reference) ?? -1)")
    }

    @Test("every valid PngSuite file matches pypng live (skips without corpus or pypng)")
    func pngSuiteSweep() throws {
        let files = TestPaths.corpusFiles("pngsuite", extensions: ["png"]).filter {
            !($0 as NSString).lastPathComponent.hasPrefix("x")
        }
        guard !files.isEmpty, ExternalTool.pythonHas("png") else {
            testNote("PngSuite sweep skipped: \(files.isEmpty ? "../shared/corpus not found" : "python3 module png (pypng) not installed")")
            return
        }
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
