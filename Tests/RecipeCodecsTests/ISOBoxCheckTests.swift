import Foundation
import RecipeCodecs
import RecipeCore
import Testing
import TestSupport

/// A CR3 whose boxes do not fit together is refused before LibRaw reads it (LibRaw 0.20 kept
/// reading one such file for ever).
@Suite("CR3 box tree checked before LibRaw")
struct ISOBoxCheckTests {
    /// A box: 32-bit size, type, content.
    static func box(_ type: String, _ content: [UInt8], size: Int? = nil) -> [UInt8] {
        let n = size ?? 8 + content.count
        return [UInt8(n >> 24 & 255), UInt8(n >> 16 & 255), UInt8(n >> 8 & 255), UInt8(n & 255)] + Array(type.utf8) + content
    }

    /// ftyp crx, then moov holding Canon's uuid (a CNCV) and a trak holding a tkhd of 92 bytes
    /// (or one that says `tkhdSize`) and an mdia.
    static func cr3(tkhdSize: Int = 92) -> [UInt8] {
        let canon: [UInt8] = [0x85, 0xc0, 0xb6, 0x87, 0x82, 0x0f, 0x11, 0xe0, 0x81, 0x11, 0xf4, 0xce, 0x46, 0x2b, 0x6a, 0x48]
        let trak = box("trak", box("tkhd", [UInt8](repeating: 0x1c, count: 84), size: tkhdSize) + box("mdia", box("mdhd", [UInt8](repeating: 0, count: 24))))
        return box("ftyp", Array("crx ".utf8) + [0, 0, 0, 1]) + box("moov", box("uuid", canon + box("CNCV", Array("CanonCR3_001/00.09.00/00.00.00".utf8))) + trak)
    }

    func file(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = TestPaths.temporaryDirectory("isobox").appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("a tree that fits passes; a box smaller than its header, one past its parent's end, and a container whose children overrun it are each named")
    func tree() throws {
        #expect(ISOBoxCheck.problem(try file(Self.cr3(), "good.cr3")) == nil)
        let short = try #require(ISOBoxCheck.problem(try file(Self.cr3(tkhdSize: 28), "short.cr3")))
        #expect(short.contains("inside") == false && short.contains("box at offset"), "\(short)")
        let long = try #require(ISOBoxCheck.problem(try file(Self.cr3(tkhdSize: 4000), "long.cr3")))
        #expect(long.contains("`tkhd`") && long.contains("past the end of `trak`"), "\(long)")
        let tiny = try #require(ISOBoxCheck.problem(try file(Self.cr3(tkhdSize: 4), "tiny.cr3")))
        #expect(tiny.contains("`tkhd`") && tiny.contains("less than its header"), "\(tiny)")
        let cut = Array(Self.cr3().prefix(70))
        #expect(ISOBoxCheck.problem(try file(cut, "cut.cr3")) != nil, "a truncated file")
    }

    @Test("the corpus CR3 with its tkhd size 92 → 28 (one bit) is refused as damaged at once; the CR3s LibRaw reads still open",
          Requirement.corpus)
    func corpusMutation() throws {
        let corpus = try Requirement.corpusURL()
        let original = corpus.appendingPathComponent("raw/broken/exiftool_CanonRaw.cr3").path
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: original)))
        try #require(bytes.count > 9391 && bytes[9391] == 0x5c, "the corpus file changed")
        bytes[9391] = 0x1c
        let mutated = try file(bytes, "tkhd-28.cr3")
        let started = Date()
        do {
            _ = try ImageDecoders.open(mutated)
            Issue.record("opened a CR3 whose boxes do not fit")
        } catch {
            #expect(error.kind == .corrupt && error.description.contains("is damaged"), "\(error)")
        }
        #expect(Date().timeIntervalSince(started) < 5)
        let decoder = try ImageDecoders.open(original)
        #expect(decoder.info.format == .raw)
    }
}
