import CDemosaic
import Foundation
import RecipeCore
import Testing
import TestSupport
@testable import RecipeCodecs

/// The directional demosaic's vector widths (`Sources/CDemosaic`, one source compiled plain, for
/// AVX2 and for AVX-512, picked at run time): each forced in turn on real mosaics and held to the
/// plain build exactly, every output sample and every float of the demosaic's working planes, and
/// every sample of the half size. A
/// width this CPU lacks is not run here (the test says so in its name's trait).
@Suite("The demosaic's vector widths against the plain build")
struct DemosaicISATests {
    /// The bundled Bayer DNG (768×512, from kodim03) and the shared ColorChecker DNG when the
    /// corpus is there.
    static var mosaics: [String] {
        [TestPaths.samples.appendingPathComponent("kodim03-bayer.dng").path, TestPaths.fixture("raw/kodim03-crop.dng")]
            + TestPaths.corpusFiles("raw", extensions: ["dng"])
    }

    /// `path`'s decoder, started, and its mosaic (valid while the decoder lives).
    static func mosaic(_ path: String) throws -> (RawDecoder, RawMosaic) {
        let decoder = try RawDecoder(path: path, options: DecodeOptions())
        try decoder.start(scaleDenominator: 1)
        return (decoder, try #require(decoder.undeveloped?.mosaic, "\(path): not developed by the demosaic stage"))
    }

    /// The demosaic's view of `mosaic`, with multipliers above 1 for red and blue, so that bright
    /// samples clip as they do in a develop.
    static func bayer(_ mosaic: RawMosaic) -> rcp_bayer {
        var b = rcp_bayer()
        b.raw = mosaic.samples
        b.raw_pitch = Int32(mosaic.pitch)
        (b.top, b.left, b.width, b.height) = (Int32(mosaic.top), Int32(mosaic.left), Int32(mosaic.width), Int32(mosaic.height))
        let p = mosaic.pattern.map(Int32.init), black = mosaic.black
        b.pattern = (p[0], p[1], p[2], p[3])
        b.black = (black[0], black[1], black[2], black[3])
        let m: [Float] = [2.1, 1, 1.6]
        let s = (0..<4).map { m[mosaic.pattern[$0]] / (mosaic.maximum - black[$0]) }
        b.scale = (s[0], s[1], s[2], s[3])
        return b
    }

    /// The rows of `path`'s mosaic demosaiced by the passes of `isa` in blocks of `rows`, and the
    /// demosaic's scratch (zeroed first) as the last block left it; nil when the CPU lacks `isa`.
    static func develop(_ path: String, isa: Int32, rows: Int) throws -> (out: [UInt16], scratch: [Float])? {
        let (decoder, mosaic) = try Self.mosaic(path)
        var b = Self.bayer(mosaic)
        let (width, height) = (mosaic.width, mosaic.height)
        let count = rcp_bayer_scratch(Int32(width), Int32(rows))
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: count)
        let out = UnsafeMutablePointer<UInt16>.allocate(capacity: width * height * 3)
        defer {
            scratch.deallocate()
            out.deallocate()
        }
        scratch.initialize(repeating: 0, count: count)
        out.initialize(repeating: 0, count: width * height * 3)
        var y = 0
        while y < height {
            let end = min(height, y + rows)
            guard rcp_bayer_rows_isa(&b, Int32(y), Int32(end), out + y * width * 3, width * 6, scratch, isa) == isa else { return nil }
            y = end
        }
        #expect(rcp_demosaic_last_isa() == isa, "the passes run were not the ones asked for")
        withExtendedLifetime(decoder) {}
        return (Array(UnsafeBufferPointer(start: out, count: width * height * 3)), Array(UnsafeBufferPointer(start: scratch, count: count)))
    }

    /// The half size of `path`'s mosaic on the loops of `isa`, in blocks of 37 rows.
    static func half(_ path: String, isa: Int32) throws -> [UInt16] {
        let (decoder, mosaic) = try Self.mosaic(path)
        var b = Self.bayer(mosaic)
        let (width, height) = ((mosaic.width + 1) / 2, (mosaic.height + 1) / 2)
        var out = [UInt16](repeating: 0, count: width * height * 3)
        var y = 0
        while y < height {
            let end = min(height, y + 37)
            let done = out.withUnsafeMutableBufferPointer { o in
                rcp_bayer_half_rows_isa(&b, Int32(y), Int32(end), o.baseAddress! + y * width * 3, width * 6, isa)
            }
            #expect(done == isa)
            y = end
        }
        withExtendedLifetime(decoder) {}
        return out
    }

    func compare(_ isa: Int32, _ name: String) throws {
        for path in Self.mosaics {
            let halfPlain = try Self.half(path, isa: Int32(RCP_ISA_PLAIN)), halfWide = try Self.half(path, isa: isa)
            let halfDiffering = zip(halfPlain, halfWide).filter { $0 != $1 }.count
            #expect(halfDiffering == 0, "\(path), \(name), half size: \(halfDiffering) samples differ from the plain build")
            for rows in [96, 37] {
                let plain = try #require(try Self.develop(path, isa: Int32(RCP_ISA_PLAIN), rows: rows))
                let wide = try #require(try Self.develop(path, isa: isa, rows: rows), "\(name) not run")
                let samples = zip(plain.out, wide.out).filter { $0 != $1 }.count
                let floats = zip(plain.scratch, wide.scratch).filter { $0.bitPattern != $1.bitPattern }.count
                #expect(samples == 0, "\(path), \(name), blocks of \(rows): \(samples) of \(plain.out.count) samples differ from the plain build")
                #expect(floats == 0, "\(path), \(name), blocks of \(rows): \(floats) of \(plain.scratch.count) working floats differ from the plain build")
                #expect(plain.out.contains { $0 != 0 && $0 != 65535 }, "\(path): the develop made nothing to compare")
            }
        }
    }

    @Test("AVX2 gives the plain build's samples and floats exactly", .enabled(if: rcp_demosaic_isa_supported(Int32(RCP_ISA_AVX2)) == 1))
    func avx2() throws { try compare(Int32(RCP_ISA_AVX2), "AVX2") }

    @Test("AVX-512 gives the plain build's samples and floats exactly", .enabled(if: rcp_demosaic_isa_supported(Int32(RCP_ISA_AVX512)) == 1))
    func avx512() throws { try compare(Int32(RCP_ISA_AVX512), "AVX-512") }

    @Test("the median of every 3 × 3 window is the fifth of its nine values sorted, at every width the CPU has")
    func median() throws {
        let (width, height) = (67, 23)
        // Ties, both zeros and a spread of values, from a fixed sequence.
        var random = SplitMix64(seed: 57)
        let choices: [Float] = [-1, -0.0, 0, 0.25, 0.25, 1, 3]
        let src = (0..<width * height).map { _ in
            let r = random.next()
            return r % 3 == 0 ? choices[Int((r >> 8) % UInt64(choices.count))] : Float(r >> 40) / Float(1 << 24) - 0.5
        }
        for isa in [RCP_ISA_PLAIN, RCP_ISA_AVX2, RCP_ISA_AVX512].map(Int32.init) where rcp_demosaic_isa_supported(isa) == 1 {
            var dst = [Float](repeating: .nan, count: width * height)
            #expect(rcp_median3x3_isa(src, &dst, Int32(width), Int32(height), isa) == isa)
            var wrong = 0
            for y in 0..<height {
                for x in 0..<width {
                    let inside = y > 0 && y < height - 1 && x > 0 && x < width - 1
                    let expected = inside ? (-1...1).flatMap { dy in (-1...1).map { src[(y + dy) * width + x + $0] } }.sorted()[4] : src[y * width + x]
                    if dst[y * width + x] != expected { wrong += 1 }
                }
            }
            #expect(wrong == 0, "ISA \(isa): \(wrong) of \(width * height) samples are not their window's median")
        }
    }

    @Test("a width the CPU lacks is refused, nothing written; the chosen one is the widest it has")
    func refused() {
        for isa in [RCP_ISA_PLAIN, RCP_ISA_AVX2, RCP_ISA_AVX512].map(Int32.init) where rcp_demosaic_isa_supported(isa) == 0 {
            var b = rcp_bayer()
            #expect(rcp_bayer_rows_isa(&b, 0, 0, nil, 0, nil, isa) == -1)
        }
        let chosen = rcp_demosaic_isa()
        #expect(rcp_demosaic_isa_supported(chosen) == 1)
        if ProcessInfo.processInfo.environment["RECIPE_DEMOSAIC_ISA"] == nil {
            #expect(chosen == 2 || rcp_demosaic_isa_supported(chosen + 1) == 0, "the widest the CPU has")
        }
    }
}
