import Foundation
import TestSupport
@testable import RecipeColor

/// Profiles and helpers shared by the colour tests.
enum ColorFixtures {
    static let folder = TestPaths.packageRoot.appendingPathComponent("Tests/RecipeColorTests/Fixtures")

    static func bytes(_ name: String) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) else {
            fatalError("missing fixture \(name)")
        }
        return [UInt8](data)
    }

    /// sRGB2014 from the iCCP chunk of libjpeg-turbo's testimages/monkey16.png (3024 bytes, v2, 1024-entry TRCs).
    static var sRGB2014: ColorProfile { try! ColorProfile(icc: bytes("sRGB2014.icc")) }
    /// Adobe RGB (1998) from the APP2 segment of Pillow's Tests/images/xmp_test.jpg (560 bytes, v2.1).
    static var adobeRGB1998: ColorProfile { try! ColorProfile(icc: bytes("AdobeRGB1998.icc")) }

    /// The ICC profile assembled from a JPEG's APP2 ICC_PROFILE segments, in sequence order.
    static func jpegICC(_ path: String) -> [UInt8]? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let b = [UInt8](data)
        var i = 2, chunks: [Int: [UInt8]] = [:]
        let tag = Array("ICC_PROFILE\0".utf8)
        while i + 4 <= b.count, b[i] == 0xFF, b[i + 1] != 0xDA {
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            let body = Array(b[(i + 4)..<min(b.count, i + 2 + length)])
            if b[i + 1] == 0xE2, body.count > 14, Array(body[0..<12]) == tag { chunks[Int(body[12])] = Array(body[14...]) }
            i += 2 + length
        }
        return chunks.isEmpty ? nil : chunks.keys.sorted().flatMap { chunks[$0]! }
    }

    /// The SWOP CMYK profile of the corpus's photos/jd_ycck.jpg (557 KB, too big to commit), or nil.
    static var swop: ColorProfile? {
        guard let corpus = TestPaths.corpus,
              let icc = jpegICC(corpus.appendingPathComponent("photos/jd_ycck.jpg").path) else { return nil }
        return try? ColorProfile(icc: icc)
    }
}

/// Runs a transform over a Float array (three or one channels a pixel).
func convert(_ t: ColorTransform, floats: [Float], outChannels: Int, pixels: Int) -> [Float] {
    var out = [Float](repeating: 0, count: pixels * outChannels)
    floats.withUnsafeBytes { src in out.withUnsafeMutableBytes { t.convert(src.baseAddress!, $0.baseAddress!, pixels: pixels) } }
    return out
}

/// Runs a transform over bytes.
func convert(_ t: ColorTransform, bytes: [UInt8], outChannels: Int, pixels: Int) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: pixels * outChannels)
    bytes.withUnsafeBytes { src in out.withUnsafeMutableBytes { t.convert(src.baseAddress!, $0.baseAddress!, pixels: pixels) } }
    return out
}

/// `transicc` from liblcms2-utils, the independent reference: lcms2's own demo tool, run on the
/// profiles' bytes in a separate process, computing in double precision.
enum Transicc {
    static let path = ExternalTool.find("transicc")

    /// Converts `values` (RGB and gray 0…255, CMYK 0…100 %, as transicc reads them) from the
    /// profile bytes `input` to `output` with intent 0…3; nil when transicc is missing or failed.
    static func run(_ input: [UInt8], _ output: [UInt8], intent: Int, values: [[Double]]) throws -> [[Double]]? {
        guard let path else { return nil }
        let dir = TestPaths.temporaryDirectory("transicc")
        defer { try? FileManager.default.removeItem(at: dir) }
        let inICC = dir.appendingPathComponent("in.icc").path, outICC = dir.appendingPathComponent("out.icc").path
        let list = dir.appendingPathComponent("values.txt").path
        try Data(input).write(to: URL(fileURLWithPath: inICC))
        try Data(output).write(to: URL(fileURLWithPath: outICC))
        try values.map { $0.map { String($0) }.joined(separator: " ") }.joined(separator: "\n").appending("\n")
            .write(toFile: list, atomically: true, encoding: .utf8)
        // transicc reads its values from stdin; -n: terse output, one line a colour.
        let r = try ExternalTool.run("/bin/sh", ["-c", "exec \"$0\" -n -t\(intent) -i\"$1\" -o\"$2\" < \"$3\"", path, inICC, outICC, list])
        guard r.status == 0 else {
            testNote("transicc failed (\(r.status)): \(r.stderr)")
            return nil
        }
        let lines = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        return lines.map { $0.split(separator: " ").compactMap { Double($0) } }
    }
}
