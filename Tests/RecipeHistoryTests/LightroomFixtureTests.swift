import Foundation
import RecipeHistory
import Testing
import TestSupport

/// The XMP files in Tests/Fixtures/lightroom/ (presets and sidecars from public repositories, see
/// SOURCES.md there): every one read and translated without a crash, the share of the keys set
/// that translate, exiftool's reading of the same files as the reference, 1,000 mutated files,
/// and the time one sidecar takes.
@Suite("Lightroom: the gathered XMP files")
struct LightroomFixtureTests {
    static let folder = TestPaths.fixture("lightroom")

    static var files: [String] {
        let root = URL(fileURLWithPath: folder)
        let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        return (walker?.allObjects as? [URL] ?? []).map(\.path).filter { $0.hasSuffix(".xmp") }.sorted()
    }

    @Test("every gathered file is read and translated; the share of set keys translated is reported")
    func coverage() throws {
        let files = Self.files
        #expect(files.count >= 100, "\(files.count) files")
        var translated = 0, neutral = 0, informational = 0, untranslated = 0, refused: [String] = []
        var missing: [String: Int] = [:]
        for file in files {
            do {
                let t = try LightroomTranslation(try CameraRawSettings.read(file))
                let c = t.counts
                translated += c.translated; neutral += c.neutral; informational += c.informational; untranslated += c.untranslated
                for u in t.untranslated { missing[u.key, default: 0] += 1 }
                _ = try LightroomImport.lookRecipe(t, path: "fixture.recipe.yaml")
            } catch let error as HistoryError {
                // Refused files must say which file and which key or line.
                #expect(error.file == file && (error.message.contains("line") || error.message.contains("(")), "\(error)")
                refused.append(error.message)
            }
        }
        print("Lightroom fixtures refused with a message: \(refused.count) of \(files.count), e.g. \(refused.first ?? "none")")
        let rendered = translated + neutral, set = rendered + untranslated
        let share = Double(rendered) / Double(max(1, set))
        print("Lightroom coverage over \(files.count) files: \(set) keys set (besides \(informational) descriptive), "
              + "\(translated) translated into stages, \(neutral) at no effect, \(untranslated) not translated: "
              + "\(String(format: "%.1f", share * 100)) % handled; stages alone \(String(format: "%.1f", Double(translated) / Double(max(1, translated + untranslated)) * 100)) % of the keys with an effect")
        print("most often not translated: " + missing.sorted { $0.value > $1.value }.prefix(12).map { "\($0.key) ×\($0.value)" }.joined(separator: ", "))
        #expect(refused.count * 5 < files.count)
        #expect(share >= 0.9)
    }

    /// exiftool reads the same files: every scalar `crs:` value we read that it reports under the
    /// same name must be the same number or text.
    @Test("our reading agrees with exiftool's", Requirement.tool("exiftool"))
    func exiftoolAgrees() throws {
        let files = Self.files
        let result = try ExternalTool.run(try Requirement.path("exiftool"), ["-j", "-n", "-XMP-crs:all", "-XMP-tiff:Orientation"] + files)
        guard let records = try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [[String: Any]] else {
            Issue.record("exiftool gave no JSON: \(result.stderr)")
            return
        }
        var compared = 0, agreed = 0, differences: [String] = []
        for record in records {
            // A file we refuse (a value outside Camera Raw's ranges) has nothing to compare.
            guard let file = record["SourceFile"] as? String, let ours = try? CameraRawSettings.read(file) else { continue }
            for property in ours.document.properties {
                guard let text = property.value.text, let theirs = record[property.key.replacing("tiff:", with: "")] else { continue }
                compared += 1
                let same: Bool
                if ["true", "false"].contains(text.lowercased()), let b = theirs as? NSNumber {
                    same = b.boolValue == (text.lowercased() == "true")
                } else if let n = theirs as? NSNumber, let v = Double(text.hasPrefix("+") ? String(text.dropFirst()) : text) {
                    same = abs(n.doubleValue - v) < 1e-6
                } else {
                    same = "\(theirs)".lowercased() == text.lowercased() || (theirs as? NSNumber).map { "\($0)" == text } == true
                }
                if same { agreed += 1 } else if differences.count < 8 { differences.append("\(file) \(property.key): ours \(text), exiftool \(theirs)") }
            }
        }
        print("exiftool agreement: \(agreed) of \(compared) scalar values over \(records.count) files")
        #expect(compared > 1000)
        #expect(Double(agreed) / Double(max(1, compared)) > 0.99, "\(differences)")
    }

    @Test("1,000 mutated files (byte flips, truncations, deep nesting, entity bombs) never crash or hang")
    func mutations() throws {
        let seeds = Self.files.prefix(40).map { Array((try? Data(contentsOf: URL(fileURLWithPath: $0))) ?? Data()) }
        var random = SplitMix64(seed: 58)
        var refused = 0, read = 0, slowest = 0.0
        for i in 0..<1000 {
            var bytes = seeds[i % seeds.count]
            switch i % 6 {
            case 0: bytes[Int(random.next() % UInt64(bytes.count))] = random.byte()
            case 1: bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count))))
            case 2:
                // Deep nesting, closed, inside the RDF: refused past 64 levels, read below.
                let depth = 1 + Int(random.next() % 200)
                let close = Array("</rdf:RDF>".utf8)
                if let at = bytes.indices.first(where: { bytes[$0...].starts(with: close) }) {
                    let nest = String(repeating: "<crs:a>", count: depth) + String(repeating: "</crs:a>", count: depth)
                    bytes.insert(contentsOf: Array(nest.utf8), at: at)
                }
            case 3:
                let entity = "<!DOCTYPE x [<!ENTITY a \"\(String(repeating: "A", count: 100))\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;\">]>"
                bytes = Array(entity.utf8) + bytes
            case 4:
                // One digit becomes another: the XML stays well formed, a value may leave its range.
                let digits = bytes.indices.filter { bytes[$0] >= 0x30 && bytes[$0] <= 0x39 }
                if !digits.isEmpty { bytes[digits[Int(random.next() % UInt64(digits.count))]] = 0x30 + UInt8(random.next() % 10) }
            default:
                // A value's sign flipped or a letter put in a number.
                let quotes = bytes.indices.filter { bytes[$0] == 0x22 && $0 + 1 < bytes.count && (bytes[$0 + 1] == 0x2B || bytes[$0 + 1] == 0x2D) }
                if !quotes.isEmpty { bytes[quotes[Int(random.next() % UInt64(quotes.count))] + 1] = random.next() % 2 == 0 ? 0x2D : 0x78 }
            }
            let start = Date()
            do {
                let t = try LightroomTranslation(try CameraRawSettings.parse(bytes, path: "mutant-\(i).xmp"))
                _ = try? LightroomImport.lookRecipe(t, path: "mutant.recipe.yaml")
                read += 1
            } catch is HistoryError {
                refused += 1
            }
            slowest = max(slowest, Date().timeIntervalSince(start))
        }
        print("mutated XMP: \(read) read, \(refused) refused with a message, slowest \(String(format: "%.1f", slowest * 1000)) ms")
        #expect(read + refused == 1000)
        #expect(read > 100 && refused > 100)
        #expect(slowest < 2)
    }

    @Test("the time to read and translate one sidecar is reported")
    func timing() throws {
        let file = TestPaths.fixture("lightroom/photoprism/canon_eos_6d.xmp")
        _ = try LightroomTranslation(try CameraRawSettings.read(file))
        var reading: [Double] = [], translating: [Double] = [], checking: [Double] = []
        for _ in 0..<50 {
            let start = Date()
            let settings = try CameraRawSettings.read(file)
            reading.append(Date().timeIntervalSince(start))
            let t = try LightroomTranslation(settings, options: .init(photo: .raw))
            let translated = Date()
            _ = try LightroomImport.lookRecipe(t, path: "timing.recipe.yaml")
            translating.append(translated.timeIntervalSince(start))
            checking.append(Date().timeIntervalSince(translated))
        }
        func median(_ v: [Double]) -> String { String(format: "%.2f", v.sorted()[v.count / 2] * 1000) }
        print("one sidecar (\(file.split(separator: "/").last!)): read and translated in \(median(translating)) ms (median of 50; the XMP read alone \(median(reading)) ms), "
              + "its recipe checked and formatted in \(median(checking)) ms more (this build's optimisation as built)")
    }
}
