import Foundation
import Testing
import TestSupport

/// `recipe --version`: the release, the commit it was built from, and the C libraries it runs on,
/// each checked against the library's own version as its -dev package states it
/// (`pkg-config --modversion`), an answer recipe's code plays no part in.
@Suite("recipe --version")
struct VersionTests: CLITest {
    /// The report's lines by label: "  libpng         1.6.39" → ["libpng": "1.6.39"].
    func libraries(_ report: String) -> [String: String] {
        var result: [String: String] = [:]
        for line in report.split(separator: "\n").dropFirst() {
            let text = line.trimmingCharacters(in: .whitespaces)
            // Labels may hold one space ("Little CMS"); two or more separate the label from the version.
            guard let gap = text.range(of: "  ") else { continue }
            result[String(text[..<gap.lowerBound])] = text[gap.upperBound...].trimmingCharacters(in: .whitespaces)
        }
        return result
    }

    @Test("the first line names the release and the commit")
    func header() throws {
        let report = try ok(["--version"])
        let first = report.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.wholeMatch(of: /recipe \d+\.\d+\.\d+ \(commit [0-9A-Za-z.+-]+\)/) != nil, "first line: \(first)")
        // Built by `swift test`, without RECIPE_COMMIT unless the environment gave it one.
        if let commit = ProcessInfo.processInfo.environment["RECIPE_COMMIT"] {
            testNote("RECIPE_COMMIT=\(commit) in the test's environment; the build may or may not have had it")
        } else {
            #expect(first.hasSuffix("(commit unknown)"), "a build without RECIPE_COMMIT: \(first)")
        }
    }

    @Test("each library's line says the version pkg-config gives for it", Requirement.tool("pkg-config"))
    func versionsMatchPkgConfig() throws {
        let reported = libraries(try ok(["--version"]))
        let pkgConfig = try Requirement.path("pkg-config")
        // The label in the report, the pkg-config name.
        let libraries = [("libjpeg-turbo", "libjpeg"), ("libpng", "libpng"), ("libyaml", "yaml-0.1"), ("Little CMS", "lcms2"),
                         ("libwebp", "libwebp"), ("libheif", "libheif"), ("libtiff", "libtiff-4"), ("LibRaw", "libraw_r"),
                         ("libxml2", "libxml-2.0")]
        #expect(Set(reported.keys) == Set(libraries.map(\.0)), "the report's libraries: \(reported.keys.sorted())")
        for (label, module) in libraries {
            let answer = try ExternalTool.run(pkgConfig, ["--modversion", module])
            guard answer.status == 0 else {
                testNote("pkg-config knows no \(module): \(label)'s line is not checked")
                continue
            }
            let expected = String(decoding: answer.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            let line = reported[label] ?? "(missing)"
            switch label {
            case "libjpeg-turbo":
                // The libjpeg API cannot say its version at run time: the header's, and says so.
                #expect(line == "\(expected) (built with)", "\(label): \(line), pkg-config \(expected)")
            case "LibRaw":
                // libraw_version() adds the release kind: "0.20.2-Release".
                #expect(line.hasPrefix(expected + "-") || line == expected, "\(label): \(line), pkg-config \(expected)")
            default:
                #expect(line == expected, "\(label): \(line), pkg-config \(expected)")
            }
        }
    }
}
