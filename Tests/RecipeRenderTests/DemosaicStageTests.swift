import Foundation
import RecipeCodecs
import RecipeCore
import RecipeRender
import Testing
import TestSupport

/// The demosaic stage over a kept mosaic (what the preview keeps of a raw) gives the rows it gives
/// over the file's own unpack for that develop, byte for byte: the directional demosaic and half
/// size, the white balance as shot and by temperature, a half-size develop.
@Suite("DemosaicStage: a develop from the file's mosaic and from a kept one")
struct DemosaicStageTests {
    static let dng = TestPaths.fixture("raw/kodim03-crop.dng")

    static func rows(_ decoder: any ImageDecoder, scale: Int) throws -> [UInt16] {
        try decoder.start(scaleDenominator: scale)
        let stage = DemosaicStage.rows(of: decoder)
        #expect(stage is DemosaicStage, "recipe's own develop runs as the demosaic stage")
        let strip = PixelBuffer(width: stage.width, rowCapacity: 40, format: stage.format)
        var out: [UInt16] = []
        while try stage.readRows(into: strip) > 0 {
            for r in 0..<strip.rowCount { out += strip.samples(r, as: UInt16.self) }
        }
        return out
    }

    @Test("each develop of recipe's own from the kept copy equals the file's develop",
          arguments: [("white-balance as shot", RawDevelop(), 1), ("half size at 1/2", RawDevelop(), 2),
                      ("3200 K", { var d = RawDevelop(); d.whiteBalance = .temperature(3200, tint: 5); return d }(), 1),
                      ("tungsten at 1/2", { var d = RawDevelop(); d.whiteBalance = .preset("tungsten"); return d }(), 2),
                      ("develop half-size", { var d = RawDevelop(); d.demosaic = .halfSize; return d }(), 1)])
    func sameRows(_ name: String, _ develop: RawDevelop, _ scale: Int) throws {
        // The mosaic is copied from a decoder of another develop: the unpack does not depend on it.
        let first = try RawDecoder(path: Self.dng, options: DecodeOptions())
        try first.start(scaleDenominator: 1)
        let kept = try #require(first.undeveloped?.mosaic.copy(), "no mosaic: not recipe's own develop")
        #expect(kept.bytes == kept.width * kept.height * 2)
        let file = try RawDecoder(path: Self.dng, options: DecodeOptions(develop: develop))
        #expect(MosaicDecoder.develops(file.info.raw!, develop, scaleDenominator: scale))
        let fromFile = try Self.rows(file, scale: scale)
        let fromKept = try Self.rows(MosaicDecoder(mosaic: kept, info: file.info, develop: develop, path: Self.dng), scale: scale)
        #expect(fromKept.count == fromFile.count && fromKept.count > 0)
        // Compared as a whole, not by #expect(a == b): on a failure that would diff 147,456 samples.
        let differs = fromKept.indices.first { fromKept[$0] != fromFile[$0] }
        #expect(differs == nil, "\(name): the kept mosaic's develop differs from the file's, first at sample \(differs ?? -1)")
    }

    @Test("LibRaw's develops (AHD, highlights kept) cannot run from a kept mosaic and say so")
    func libRawDevelops() throws {
        let file = try RawDecoder(path: Self.dng, options: DecodeOptions())
        try file.start(scaleDenominator: 1)
        let kept = try #require(file.undeveloped?.mosaic.copy())
        var ahd = RawDevelop()
        ahd.demosaic = .ahd
        #expect(!MosaicDecoder.develops(file.info.raw!, ahd, scaleDenominator: 1))
        #expect(throws: ImageError.self) { try MosaicDecoder(mosaic: kept, info: file.info, develop: ahd, path: Self.dng).start(scaleDenominator: 1) }
    }
}
