import Foundation
import RecipeCodecs
import RecipeCore
import Testing
import TestSupport

/// What decoding a file gives under the default policy (ISSUE 2 §7).
enum Outcome: Equatable, CustomStringConvertible {
    case renders
    case rendersWithWarning
    case fails(ImageError.Kind)

    var description: String {
        switch self {
        case .renders: "renders"
        case .rendersWithWarning: "renders with a warning"
        case .fails(let k): "fails (\(k.rawValue))"
        }
    }
}

func outcome(of path: String, options: DecodeOptions = DecodeOptions()) -> (Outcome, String) {
    do {
        let (_, decoder) = try decodeAll(path, options: options)
        return decoder.warnings.isEmpty ? (.renders, "") : (.rendersWithWarning, decoder.warnings.map(\.message).joined(separator: "; "))
    } catch let e as ImageError {
        return (.fails(e.kind), e.description)
    } catch {
        return (.fails(.corrupt), "unexpected error type: \(error)")
    }
}

@Suite("Broken and hostile input")
struct BrokenInputTests {
    /// The policy, file by file, for the committed fixtures.
    static let expected: [(String, Outcome)] = [
        ("jd_empty.jpg", .fails(.corrupt)),                      // zero bytes
        ("jd_max_size.jpg", .fails(.tooLarge)),                  // 65535×65535 header bomb
        ("jd_missing-sof.jpg", .fails(.corrupt)),
        ("jd_null_height.jpg", .fails(.corrupt)),
        ("pil_truncated_jpeg.jpg", .fails(.damaged)),            // premature end of data
        ("jd_progressive-missing-dc.jpg", .fails(.damaged)),     // scans missing
        ("png_x_unexpected_eof.png", .fails(.corrupt)),
        ("xcrn0g04.png", .fails(.corrupt)),                      // signature mangled by CR/LF conversion
        ("xhdn0g08.png", .fails(.corrupt)),                      // bad CRC in IHDR (critical)
        ("xcsn0g01.png", .fails(.damaged)),                      // bad CRC in IDAT: pixel data lost
        ("jd_extraneous-data.jpg", .rendersWithWarning),         // recoverable stream damage
        ("jd_icc_chunk_order.jpeg", .rendersWithWarning),        // metadata damage never stops a render
        ("jd_icc_chunk_count_mismatch.jpeg", .rendersWithWarning),
        ("pil_invalid-exif.jpg", .rendersWithWarning),
    ]

    @Test("each committed broken file gets the outcome the policy gives it", arguments: expected.map(\.0))
    func policy(name: String) {
        let want = Self.expected.first { $0.0 == name }!.1
        let path = TestPaths.fixture("broken/\(name)")
        let (got, message) = outcome(of: path)
        #expect(got == want, "\(name): \(got) (\(message)), expected \(want)")
        if case .fails = got { #expect(message.hasPrefix(path), "error must name the file: \(message)") }
    }

    @Test("a JPEG whose first marker after SOI is damaged is called a damaged JPEG, with the bytes found")
    func damagedJPEGHeader() throws {
        let dir = TestPaths.temporaryDirectory("damaged-header")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("x.jpg").path
        // imagetestsuite's damage: FF D8 then FE E0 (the FF of APP0 lost).
        try Data([0xFF, 0xD8, 0xFE, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01]).write(to: URL(fileURLWithPath: path))
        let (result, message) = outcome(of: path)
        #expect(result == .fails(.corrupt))
        #expect(message.contains("damaged JPEG") && message.contains("byte 2") && message.contains("FE E0"), "\(message)")
    }

    @Test("the header bomb is refused before any allocation, with the dimensions in the message")
    func headerBomb() throws {
        let path = TestPaths.fixture("broken/jd_max_size.jpg")
        #expect { try JPEGDecoder(path: path) } throws: { e in
            (e as? ImageError)?.kind == .tooLarge && (e as? ImageError)!.reason.contains("65535×65535")
        }
    }

    @Test("--max-pixels refuses a valid photo over the limit")
    func pixelLimit() throws {
        #expect { try JPEGDecoder(path: TestPaths.fixture("jpeg/pil_hopper.jpg"), options: DecodeOptions(maxPixels: 100 * 100)) } throws: { e in
            (e as? ImageError)?.kind == .tooLarge
        }
    }

    @Test("allow-damaged renders truncated files with a warning")
    func allowDamaged() {
        for name in ["pil_truncated_jpeg.jpg", "jd_progressive-missing-dc.jpg", "xcsn0g01.png"] {
            let (got, message) = outcome(of: TestPaths.fixture("broken/\(name)"), options: DecodeOptions(allowDamaged: true))
            #expect(got == .rendersWithWarning, "\(name): \(got)")
            #expect(message.contains("allow-damaged"))
        }
    }

    @Test("the whole broken corpus and PngSuite's x-files: no crash, hang or unnamed error", Requirement.corpus)
    func corpusSweep() throws {
        let files = TestPaths.corpusFiles("broken", extensions: ["jpg", "jpeg", "png"])
            + TestPaths.corpusFiles("broken/imagetestsuite", extensions: ["jpg"])
            + TestPaths.corpusFiles("pngsuite", extensions: ["png"]).filter { ($0 as NSString).lastPathComponent.hasPrefix("x") }
        try #require(!files.isEmpty, "no broken files in the corpus")
        var counts: [String: Int] = [:]
        var table: [String] = []
        for path in files {
            let start = Date()
            let (got, message) = outcome(of: path)
            let seconds = Date().timeIntervalSince(start)
            #expect(seconds < 10, "\(path) took \(seconds) s")
            if case .fails = got { #expect(message.hasPrefix(path), "error must name the file: \(message)") }
            counts[got.description, default: 0] += 1
            table.append("  \((path as NSString).lastPathComponent): \(got)\(message.isEmpty ? "" : " — \(message.replacingOccurrences(of: path + ": ", with: ""))")")
        }
        // The tool's own bomb and truncation policy on known corpus files.
        let corpus = try Requirement.corpusURL()
        #expect(outcome(of: corpus.appendingPathComponent("broken/jd_max_size.jpg").path).0 == .fails(.tooLarge))
        #expect(outcome(of: corpus.appendingPathComponent("broken/pil_truncated_image.png").path).0 == .fails(.damaged))
        #expect(outcome(of: corpus.appendingPathComponent("broken/jd_multiple-0xff-before-eoi.jpg").path).0 == .renders)
        testNote("broken corpus: \(files.count) files — " + counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))
        print(table.joined(separator: "\n"))
    }
}
