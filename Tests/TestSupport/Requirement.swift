import Foundation
import Testing

/// What a test needs from the machine beyond the package: a program on PATH, a Python module, or
/// ../shared/corpus. Declared as a trait, so a test whose reference is missing is reported as
/// *skipped* (counted in the run's summary) instead of passing having checked nothing:
///
/// ```swift
/// @Test("crop anchors equal vips gravity", Requirement.tool("vips"))
/// func anchors() throws { let vips = try Requirement.path("vips"); … }
/// ```
///
/// With `RECIPE_TEST_REQUIRE_ALL=1` in the environment (set by .ci/test, which installs every
/// tool and has the corpus) a missing requirement fails the test instead, so CI never skips.
public enum Requirement {
    /// Whether a missing requirement is a failure (CI) rather than a skip (a developer machine).
    public static let requireAll = ProcessInfo.processInfo.environment["RECIPE_TEST_REQUIRE_ALL"] == "1"

    /// What the failure says under `RECIPE_TEST_REQUIRE_ALL=1`.
    public struct Missing: Error, CustomStringConvertible {
        public var description: String
    }

    /// Enabled when `available()`; otherwise skipped with `reason`, or failed under
    /// `RECIPE_TEST_REQUIRE_ALL=1`.
    public static func condition(_ reason: String, _ available: @escaping @Sendable () -> Bool) -> ConditionTrait {
        .enabled(Comment(rawValue: reason)) {
            if available() { return true }
            if requireAll { throw Missing(description: "RECIPE_TEST_REQUIRE_ALL=1 and this test \(reason)") }
            return false
        }
    }

    /// Every program in `names` is on PATH.
    public static func tool(_ names: String...) -> ConditionTrait {
        condition("needs \(names.joined(separator: ", ")) on PATH") { names.allSatisfy { ExternalTool.find($0) != nil } }
    }

    /// python3 can import every module in `modules`.
    public static func python(_ modules: String...) -> ConditionTrait {
        condition("needs python3 with the modules \(modules.joined(separator: ", "))") {
            ExternalTool.find("python3") != nil && modules.allSatisfy { ExternalTool.pythonHas($0) }
        }
    }

    /// ImageMagick 6 at /usr/bin/convert (Debian's imagemagick; a `convert` elsewhere on PATH may
    /// be a stand-in, so the tests name this one).
    public static var imageMagick: ConditionTrait {
        condition("needs ImageMagick at /usr/bin/convert") { FileManager.default.isExecutableFile(atPath: "/usr/bin/convert") }
    }

    /// A file at `path` exists (a system profile, say).
    public static func file(_ path: String) -> ConditionTrait {
        condition("needs \(path)") { FileManager.default.fileExists(atPath: path) }
    }

    /// ../shared/corpus (or RECIPE_CORPUS) is present.
    public static var corpus: ConditionTrait {
        condition("needs ../shared/corpus (or RECIPE_CORPUS)") { TestPaths.corpus != nil }
    }

    /// The full path of `name`, for a test that declared `Requirement.tool(name)`: a thrown error
    /// (a failure, never a silent pass) if it is missing anyway.
    public static func path(_ name: String) throws -> String {
        guard let path = ExternalTool.find(name) else { throw Missing(description: "\(name) is not on PATH (declare Requirement.tool(\"\(name)\"))") }
        return path
    }

    /// The corpus when present, for a test that checks committed fixtures and adds corpus files
    /// when it can: nil (with a note) without it, a thrown error under `RECIPE_TEST_REQUIRE_ALL=1`.
    public static func corpusIfPresent(for what: String) throws -> URL? {
        if let corpus = TestPaths.corpus { return corpus }
        if requireAll { throw Missing(description: "RECIPE_TEST_REQUIRE_ALL=1 and \(what) needs ../shared/corpus") }
        testNote("\(what): ../shared/corpus not found, committed fixtures only")
        return nil
    }

    /// The corpus folder, for a test that declared `Requirement.corpus`: a thrown error if absent.
    public static func corpusURL() throws -> URL {
        guard let corpus = TestPaths.corpus else { throw Missing(description: "../shared/corpus is not present (declare Requirement.corpus)") }
        return corpus
    }
}
