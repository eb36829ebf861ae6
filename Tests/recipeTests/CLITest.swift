import Foundation
import RecipeHistory
import Testing
import TestSupport

/// Running the built `recipe` binary from a test, as a user would.
protocol CLITest {}

extension CLITest {
    /// Runs `recipe args`, and checks that every photo named on the command line (other than
    /// the `-o` output) has the same bytes afterwards: originals are only ever read.
    func recipe(_ args: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> ToolResult {
        let outputs = Set(zip(args, args.dropFirst()).filter { $0.0 == "-o" || $0.0 == "--output" }.map(\.1))
        let photos = args.filter { arg in
            !outputs.contains(arg) && [".jpg", ".jpeg", ".png", ".tif", ".tiff", ".webp", ".heic", ".heif", ".avif"]
                .contains { arg.lowercased().hasSuffix($0) }
                && FileManager.default.fileExists(atPath: arg)
        }
        let before = photos.map { try? ContentHash.file($0).sha256 }
        let result = try ExternalTool.run(TestPaths.recipeBinary, args)
        for (photo, digest) in zip(photos, before) {
            let after = try? ContentHash.file(photo).sha256
            #expect(after == digest, "recipe \(args.joined(separator: " ")) changed \(photo)", sourceLocation: sourceLocation)
        }
        return result
    }

    /// Runs `recipe args`, expects exit 0, returns stdout.
    func ok(_ args: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let r = try recipe(args)
        #expect(r.status == 0, "recipe \(args.joined(separator: " ")): \(r.stderr)", sourceLocation: sourceLocation)
        return String(decoding: r.stdout, as: UTF8.self)
    }

    func write(_ text: String, _ path: String) throws { try text.write(toFile: path, atomically: true, encoding: .utf8) }
}
