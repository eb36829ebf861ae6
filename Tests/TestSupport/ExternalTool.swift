import Foundation

/// Runs an external program (djpeg, python3, the recipe binary) and captures its output.
public struct ToolResult: Sendable {
    public var status: Int32
    public var stdout: Data
    public var stderr: String
}

public enum ExternalTool {
    /// Full path of `name` on PATH, or nil.
    public static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs `executable` with `arguments`; stdout is captured whole, stderr as text.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> ToolResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes concurrently so neither fills up and blocks the child.
        nonisolated(unsafe) var errData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return ToolResult(status: process.terminationStatus, stdout: outData, stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Whether python3 can import `module`.
    public static func pythonHas(_ module: String) -> Bool {
        guard let py = find("python3"), let r = try? run(py, ["-c", "import \(module)"]) else { return false }
        return r.status == 0
    }
}
