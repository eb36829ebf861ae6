import Foundation
import RecipeCore
import RecipeKernels
import RecipeRender
import Testing
import TestSupport

/// Every byte pair: the backdrop is the row index, the source the column index (all channels),
/// so pixel (x, y) of a blend is the result for (Cb, Cs) = (y, x).
private let pairSide = 256
private let pairBackdrop: [UInt8] = (0..<(3 * pairSide * pairSide)).map { UInt8($0 / (3 * pairSide)) }
private let pairSource: [UInt8] = (0..<(3 * pairSide * pairSide)).map { UInt8(($0 / 3) % pairSide) }

/// Runs a blend stage over `pairBackdrop` and `pairSource`, the two streams cut into different strips.
private func blended(_ mode: BlendMode, opacity: Float) throws -> [UInt8] {
    let stage = BlendStage(base: floatRows(MemoryImage(pairBackdrop, width: pairSide, height: pairSide, chunk: 7), in: .encoded),
                           top: floatRows(MemoryImage(pairSource, width: pairSide, height: pairSide, chunk: 5), in: .encoded),
                           mode: mode, opacity: opacity)
    return try readCodes(stage, from: .encoded, capacity: 16)
}

/// W3C Compositing and Blending Level 1 §10, written out in double precision.
private func reference(_ mode: BlendMode, _ cb: Double, _ cs: Double) -> Double {
    func multiply(_ b: Double, _ s: Double) -> Double { b * s }
    func screen(_ b: Double, _ s: Double) -> Double { b + s - b * s }
    func hardLight(_ b: Double, _ s: Double) -> Double { s <= 0.5 ? multiply(b, 2 * s) : screen(b, 2 * s - 1) }
    switch mode {
    case .normal: return cs
    case .multiply: return multiply(cb, cs)
    case .screen: return screen(cb, cs)
    case .overlay: return hardLight(cs, cb)
    case .softLight:
        if cs <= 0.5 { return cb - (1 - 2 * cs) * cb * (1 - cb) }
        let d = cb <= 0.25 ? ((16 * cb - 12) * cb + 4) * cb : cb.squareRoot()
        return cb + (2 * cs - 1) * (d - cb)
    }
}

/// The nearest byte to the formula in double precision, and whether the exact value lies within
/// 1e-4 of a half code (where the stage's float arithmetic may round the other way).
private func referenceByte(_ mode: BlendMode, _ b: Int, _ s: Int, opacity: Double) -> (byte: Int, tie: Bool) {
    let cb = Double(b) / 255, cs = Double(s) / 255
    let v = min(max(cb + opacity * (reference(mode, cb, cs) - cb), 0), 1) * 255
    return (Int(v.rounded()), abs(v - v.rounded(.down) - 0.5) < 1e-4)
}

private func writePPM(_ bytes: [UInt8], width: Int, height: Int, to path: String) throws {
    var data = Data("P6\n\(width) \(height)\n255\n".utf8)
    data.append(contentsOf: bytes)
    try data.write(to: URL(fileURLWithPath: path))
}

@Suite("Blend stage")
struct BlendStageTests {
    @Test("the formula matches the W3C definitions, in float and in double precision")
    func formula() {
        for mode in BlendMode.allCases {
            var worstFloat = 0.0, worstDouble = 0.0
            for b in 0...64 { for s in 0...64 {
                let (cb, cs) = (Double(b) / 64, Double(s) / 64)
                worstFloat = max(worstFloat, abs(Double(mode.blend(Float(cb), Float(cs))) - reference(mode, cb, cs)))
                worstDouble = max(worstDouble, abs(mode.blend(cb, cs) - reference(mode, cb, cs)))
            } }
            #expect(worstFloat < 1e-6 && worstDouble < 1e-15, "\(mode): \(worstFloat), \(worstDouble)")
        }
        #expect(BlendMode(rawValue: "soft-light") == .softLight)
    }

    /// Exact for every mode and opacity away from half-code ties (normal at 0.5 with Cb + Cs odd
    /// is one): the stage blends floats, which may round a tie either way.
    @Test("every byte pair through the stage matches the double-precision formula", arguments: BlendMode.allCases, [Float(1), 0.5, 0.3, 0.85])
    func allPairs(mode: BlendMode, opacity: Float) throws {
        let out = try blended(mode, opacity: opacity)
        var worst = 0, worstAtTies = 0, differing = 0
        for b in 0..<pairSide { for s in 0..<pairSide {
            let (expected, tie) = referenceByte(mode, b, s, opacity: Double(opacity))
            for c in 0..<3 {
                let d = abs(Int(out[(b * pairSide + s) * 3 + c]) - expected)
                if tie { worstAtTies = max(worstAtTies, d) } else { worst = max(worst, d) }
                if d != 0 && c == 0 { differing += 1 }
            }
        } }
        if differing > 0 { testNote("blend \(mode.rawValue) opacity \(opacity): \(differing) of 65536 pairs off, at ties by \(worstAtTies)") }
        #expect(worst == 0 && worstAtTies <= 1)
    }

    @Test("opacity 0 gives the backdrop bytes; normal at opacity 1 gives the source bytes")
    func endpoints() throws {
        for mode in BlendMode.allCases { #expect(try blended(mode, opacity: 0) == pairBackdrop, "\(mode)") }
        #expect(try blended(.normal, opacity: 1) == pairSource)
    }

    /// ImageMagick 6.9 (`/usr/bin/convert`; /usr/local/bin/convert is a stand-in, not IM) composes
    /// the second image onto the first: `convert backdrop source -compose M -composite`. Its
    /// Multiply, Screen, Overlay and SoftLight follow the W3C formulas: IM 6.9.11 gives the exact
    /// value rounded on all 65536 byte pairs (checked against the formula in double precision).
    @Test("agrees with ImageMagick -compose on every byte pair", Requirement.imageMagick, arguments: [
        (BlendMode.normal, "Over"), (.multiply, "Multiply"), (.screen, "Screen"), (.overlay, "Overlay"), (.softLight, "SoftLight"),
    ])
    func imageMagickOracle(mode: BlendMode, composeOperator: String) throws {
        let convert = "/usr/bin/convert"
        let dir = TestPaths.temporaryDirectory("blend-im")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = { (name: String) in dir.appendingPathComponent(name).path }
        try writePPM(pairBackdrop, width: pairSide, height: pairSide, to: path("backdrop.ppm"))
        try writePPM(pairSource, width: pairSide, height: pairSide, to: path("source.ppm"))
        let r = try ExternalTool.run(convert, [path("backdrop.ppm"), path("source.ppm"), "-compose", composeOperator, "-composite", path("out.ppm")])
        try #require(r.status == 0, "convert failed: \(r.stderr)")
        let oracle = try #require(NetpbmImage(Data(contentsOf: URL(fileURLWithPath: path("out.ppm")))))
        try #require(oracle.width == pairSide && oracle.height == pairSide && oracle.channels == 3 && oracle.maxValue == 255)
        let out = try blended(mode, opacity: 1)
        // IM rounds the formula's exact value; the stage blends floats, which may round a value
        // within 1e-4 of a half code the other way (soft light has such pairs): 1 there, 0 elsewhere.
        var worst = 0, worstAtTies = 0, atTies = 0
        for (i, (ours, theirs)) in zip(out, oracle.samples).enumerated() {
            let pixel = i / 3
            let d = abs(Int(ours) - Int(theirs))
            if referenceByte(mode, pixel / pairSide, pixel % pairSide, opacity: 1).tie {
                worstAtTies = max(worstAtTies, d)
                if d != 0 { atTies += 1 }
            } else {
                worst = max(worst, d)
            }
        }
        if atTies > 0 { testNote("blend \(mode.rawValue) vs IM \(composeOperator): \(atTies) samples off by \(worstAtTies), at half-code ties") }
        #expect(worst == 0 && worstAtTies <= 1, "\(mode) vs IM \(composeOperator): max difference \(worst), at ties \(worstAtTies)")
    }
}
