import Foundation
import Testing
import TestSupport

/// Running the built `recipe` binary from a test, as a user would.
protocol CLITest {}

extension CLITest {
    func recipe(_ args: [String]) throws -> ToolResult { try ExternalTool.run(TestPaths.recipeBinary, args) }

    /// Runs `recipe args`, expects exit 0, returns stdout.
    func ok(_ args: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let r = try recipe(args)
        #expect(r.status == 0, "recipe \(args.joined(separator: " ")): \(r.stderr)", sourceLocation: sourceLocation)
        return String(decoding: r.stdout, as: UTF8.self)
    }

    func write(_ text: String, _ path: String) throws { try text.write(toFile: path, atomically: true, encoding: .utf8) }
}
