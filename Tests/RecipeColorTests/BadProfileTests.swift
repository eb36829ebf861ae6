import Foundation
import Testing
import TestSupport
@testable import RecipeColor

@Suite("Bad profiles")
struct BadProfileTests {
    /// The error's message, or nil when the bytes were accepted.
    static func refusal(_ bytes: [UInt8]) -> String? {
        do {
            _ = try ColorProfile(icc: bytes)
            return nil
        } catch {
            return error.message
        }
    }

    /// Offset of a tag's data in the tag table, and the table entry's own offset.
    static func tag(_ icc: [UInt8], _ signature: String) -> (entry: Int, data: Int)? {
        func u32(_ i: Int) -> Int { icc[i..<(i + 4)].reduce(0) { $0 << 8 | Int($1) } }
        let sig = Array(signature.utf8)
        for k in 0..<u32(128) {
            let e = 132 + 12 * k
            if Array(icc[e..<(e + 4)]) == sig { return (e, u32(e + 4)) }
        }
        return nil
    }

    @Test("empty, short, garbage and truncated bytes are refused with a message that names the problem")
    func unreadable() {
        let good = ColorFixtures.bytes("sRGB2014.icc")
        #expect(Self.refusal([]) == "ICC profile is empty")
        #expect(Self.refusal(Array(good.prefix(40)))?.contains("too short") == true)
        var rng = SplitMix64(seed: 3)
        let garbage = (0..<600).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let g = Self.refusal(garbage)
        #expect(g == "ICC profile could not be parsed: no 'acsp' signature, not an ICC profile", "\(g ?? "accepted")")
        // Garbage behind a valid signature and size gets as far as lcms2, which gives its reason.
        var sized = garbage
        sized.replaceSubrange(0..<4, with: [0, 0, 2, 0x58])
        sized.replaceSubrange(36..<40, with: Array("acsp".utf8))
        let s = Self.refusal(sized)
        #expect(s?.hasPrefix("ICC profile could not be parsed: ") == true, "\(s ?? "accepted")")
        let t = Self.refusal(Array(good.prefix(1000)))
        #expect(t == "ICC profile is truncated: its header declares 3024 bytes but 1000 are present", "\(t ?? "accepted")")
        testNote("garbage: \(g ?? "-"); sized garbage: \(s ?? "-")")
    }

    @Test("a valid profile relabelled as a device link, abstract or named-colour profile, or as Lab, is refused")
    func wrongKind() {
        let good = ColorFixtures.bytes("AdobeRGB1998.icc")
        func relabel(_ offset: Int, _ text: String) -> [UInt8] {
            var b = good
            b.replaceSubrange(offset..<(offset + 4), with: Array(text.utf8))
            return b
        }
        #expect(Self.refusal(relabel(12, "link")) == "ICC profile is a device link, not a colour space")
        #expect(Self.refusal(relabel(12, "abst")) == "ICC profile is an abstract profile, not a colour space")
        #expect(Self.refusal(relabel(12, "nmcl")) == "ICC profile is a named-colour list, not a colour space")
        #expect(Self.refusal(relabel(16, "Lab ")) == "ICC profile's colour space is Lab, not RGB, gray or CMYK")
        #expect(Self.refusal(relabel(16, "YCbr")) == "ICC profile's colour space is YCbr, not RGB, gray or CMYK")
        // Other display-ish classes are fine.
        #expect(Self.refusal(relabel(12, "spac")) == nil)
        #expect((try? ColorProfile(icc: relabel(12, "scnr")))?.deviceClass == "input")
    }

    @Test("a singular colorant matrix and a profile without its tone curves are refused")
    func unusable() throws {
        let good = ColorFixtures.bytes("AdobeRGB1998.icc")
        // Green's colorant made equal to red's: two equal columns.
        var singular = good
        let red = try #require(Self.tag(good, "rXYZ")), green = try #require(Self.tag(good, "gXYZ"))
        singular.replaceSubrange(green.data..<(green.data + 20), with: good[red.data..<(red.data + 20)])
        let s = Self.refusal(singular)
        #expect(s?.hasPrefix("ICC profile's colorant matrix is singular") == true, "\(s ?? "accepted")")
        // The red TRC's table entry renamed: no matrix-shaper, no table, nothing lcms2 can use.
        var noCurve = good
        let trc = try #require(Self.tag(good, "rTRC"))
        noCurve.replaceSubrange(trc.entry..<(trc.entry + 4), with: Array("zzzz".utf8))
        let n = Self.refusal(noCurve)
        #expect(n?.hasPrefix("ICC profile cannot be used as an input with the relative colorimetric intent") == true, "\(n ?? "accepted")")
        testNote("singular: \(s ?? "-"); no rTRC: \(n ?? "-")")
    }

    @Test("png_broken_iccp.png: the damage is in the zlib stream, not in the profile")
    func brokenICCP() throws {
        // The chunk's compressed bytes, as a decoder that forgot to inflate would pass them: refused.
        let raw = Self.refusal(ColorFixtures.bytes("broken_iccp.zlib"))
        #expect(raw == "ICC profile could not be parsed: no 'acsp' signature, not an ICC profile", "\(raw ?? "accepted")")
        // Inflated, the stream stops where its Adler-32 should be, having produced all 536 bytes the
        // header declares: a complete, valid Display P3 v4 profile, which is accepted.
        let p = try ColorProfile(icc: ColorFixtures.bytes("broken_iccp_inflated.icc"))
        #expect(p.description == "Display P3" && p.version == "4.0" && p.isWideGamut && !p.isSRGBEquivalent)
        testNote("broken_iccp compressed bytes: \(raw ?? "-")")
    }

    @Test("2000 randomly damaged profiles: each is refused or opens, and none crashes")
    func mutations() {
        let sources = [ColorFixtures.bytes("sRGB2014.icc"), ColorFixtures.bytes("AdobeRGB1998.icc"),
                       ColorFixtures.bytes("broken_iccp_inflated.icc")]
        var rng = SplitMix64(seed: 2024)
        var refused = 0, opened = 0
        for k in 0..<2000 {
            var b = sources[k % sources.count]
            for _ in 0..<Int.random(in: 1...8, using: &rng) {
                b[Int.random(in: 0..<b.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            if let p = try? ColorProfile(icc: b) {
                opened += 1
                // Whatever opened must also answer its questions and convert.
                _ = (p.isWideGamut, p.isSRGBEquivalent, p.matrixShaper(intent: .relative), p.description)
                if p.colorModel == .rgb, let t = try? ColorTransform(from: p, to: .sRGB, input: .rgb8, output: .rgb8, intent: .perceptual) {
                    _ = convert(t, bytes: [0, 0, 0, 128, 64, 32, 255, 255, 255], outChannels: 3, pixels: 3)
                }
            } else {
                refused += 1
            }
        }
        #expect(refused > 0 && opened > 0)
        testNote("damaged profiles: \(opened) opened, \(refused) refused")
    }
}
