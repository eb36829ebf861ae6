import Foundation
import RecipeCodecs
import RecipeCore
import Testing
import TestSupport

/// libwebp's command-line tools, the references the WebP tests compare against.
enum WebPTools {
    /// Full paths of the named tools, for a test that declared them with `Requirement.tool`
    /// (apt install webp): a failure, not a silent pass, if one is missing anyway.
    static func require(_ names: [String]) throws -> [String: String] {
        var found: [String: String] = [:]
        for name in names { found[name] = try Requirement.path(name) }
        return found
    }

    /// Runs a tool and requires it to succeed.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> ToolResult {
        let r = try ExternalTool.run(tool, arguments)
        try #require(r.status == 0, "\((tool as NSString).lastPathComponent) \(arguments.joined(separator: " ")) failed: \(r.stderr)")
        return r
    }

    /// dwebp's decoding of a file as RGBA (its PAM output always has four channels).
    static func dwebp(_ path: String, tools: [String: String]) throws -> NetpbmImage {
        let out = path + ".dwebp.pam"
        defer { try? FileManager.default.removeItem(atPath: out) }
        try run(tools["dwebp"]!, [path, "-pam", "-o", out])
        return try #require(readNetpbm(out), "dwebp wrote no readable PAM for \(path)")
    }
}

/// Decodes a whole WebP with recipe's decoder, in strips of an odd height, as `decodeAll` does
/// for the formats `ImageDecoders.open` already reads.
func decodeWebP(_ path: String, options: DecodeOptions = DecodeOptions()) throws -> (image: NetpbmImage, decoder: WebPDecoder) {
    let decoder = try WebPDecoder(path: path, options: options)
    return (try readAll(decoder), decoder)
}

/// What decoding a WebP gives: the same outcomes the broken-input policy names for JPEG and PNG.
func webpOutcome(_ path: String, options: DecodeOptions = DecodeOptions()) -> (Outcome, String) {
    do {
        let (_, decoder) = try decodeWebP(path, options: options)
        return decoder.warnings.isEmpty ? (.renders, "") : (.rendersWithWarning, decoder.warnings.map(\.message).joined(separator: "; "))
    } catch let e as ImageError {
        return (.fails(e.kind), e.description)
    } catch {
        return (.fails(.corrupt), "unexpected error type: \(error)")
    }
}

extension NetpbmImage {
    /// The first `count` channels of every pixel (RGB of an RGBA image).
    func channels(_ count: Int) -> NetpbmImage {
        guard count < channels else { return self }
        var out: [Int] = []
        out.reserveCapacity(width * height * count)
        for p in 0..<(width * height) { out.append(contentsOf: samples[(p * channels)..<(p * channels + count)]) }
        return NetpbmImage(width: width, height: height, channels: count, maxValue: maxValue, samples: out)
    }

    /// Channel `index` of every pixel.
    func channel(_ index: Int) -> [Int] { stride(from: index, to: samples.count, by: channels).map { samples[$0] } }

    /// Rows `range` only.
    func rows(_ range: Range<Int>) -> NetpbmImage {
        let rowSamples = width * channels
        return NetpbmImage(width: width, height: range.count, channels: channels, maxValue: maxValue,
                           samples: Array(samples[(range.lowerBound * rowSamples)..<(range.upperBound * rowSamples)]))
    }
}

/// Metadata blocks made in the test: an ICC profile from a fixture, an EXIF block saying
/// orientation 6, a small XMP packet.
enum WebPTestMetadata {
    /// A big-endian TIFF structure with one IFD0 entry: Orientation (0x0112) = 6.
    static let exifOrientation6: [UInt8] = [
        0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08,  // MM, 42, IFD0 at 8
        0x00, 0x01,  // one entry
        0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x06, 0x00, 0x00,  // Orientation SHORT 1 = 6
        0x00, 0x00, 0x00, 0x00,  // no next IFD
    ]

    static let xmp: [UInt8] = Array(("<?xpacket begin=\"\u{FEFF}\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>"
        + "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">"
        + "<rdf:Description xmlns:dc=\"http://purl.org/dc/elements/1.1/\" dc:format=\"image/webp\"/></rdf:RDF></x:xmpmeta>"
        + "<?xpacket end=\"w\"?>").utf8)

    /// The 3024-byte profile of a committed PNG fixture.
    static func icc() throws -> [UInt8] {
        try #require(try PNGDecoder(path: TestPaths.fixture("png/ljt_vgl_5674_0098.png")).info.metadata.icc)
    }
}

func writeBytes(_ bytes: [UInt8], to path: String) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

func readBytes(_ path: String) throws -> [UInt8] {
    [UInt8](try #require(FileManager.default.contents(atPath: path), "cannot read \(path)"))
}
