import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A real `recipe-preview` server for a test: started on port 0 in a scratch folder, its URL read
/// from the first line of stdout, stopped (SIGTERM) by `stop()`.
final class PreviewProcess {
    let folder: URL
    let process = Process()
    let url: String
    let port: Int
    let token: String

    /// `recipe-preview` beside the `recipe` binary the tests were built with.
    static var binary: String {
        URL(fileURLWithPath: TestPaths.recipeBinary).deletingLastPathComponent().appendingPathComponent("recipe-preview").path
    }

    /// A recipe with one param (`lift`), so write-back has something to write.
    static let recipe = """
        format: dev.recipe.edit
        version: 1.1
        params:
          lift: {default: 0.2, doc: exposure in stops}
        stages:
          - exposure: $lift
          - saturation: 1.3

        """

    /// Starts the server on `arguments` (relative to `folder`, which must hold them).
    init(_ arguments: [String], in folder: URL) throws {
        self.folder = folder
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments + ["--port", "0", "--size", "64"]
        process.currentDirectoryURL = folder
        let out = Pipe()
        process.standardOutput = out
        process.standardError = try FileHandle(forWritingTo: Self.emptyFile(folder.appendingPathComponent("server.log")))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        url = String(decoding: line, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        guard url.hasPrefix("http://127.0.0.1:"), let parts = url.split(separator: "/").dropFirst().first?.split(separator: ":"),
              let port = Int(parts.last ?? ""), let token = url.components(separatedBy: "?token=").last else {
            process.terminate()
            throw PreviewProcessError("no URL on stdout: \(url); log: \((try? String(contentsOf: folder.appendingPathComponent("server.log"), encoding: .utf8)) ?? "")")
        }
        self.port = port
        self.token = token
    }

    /// A server on `photo.jpg` and `look.recipe.yaml` in a new scratch folder.
    static func single(_ label: String) throws -> PreviewProcess {
        try PreviewProcess(["photo.jpg", "look.recipe.yaml"], in: try scratch(label))
    }

    /// A scratch folder with `look.recipe.yaml` and a small photo `photo.jpg`.
    static func scratch(_ label: String) throws -> URL {
        let folder = TestPaths.temporaryDirectory(label)
        try recipe.write(to: folder.appendingPathComponent("look.recipe.yaml"), atomically: false, encoding: .utf8)
        try FileManager.default.copyItem(atPath: TestPaths.fixture("jpeg/pil_hopper.jpg"), toPath: folder.appendingPathComponent("photo.jpg").path)
        return folder
    }

    private static func emptyFile(_ url: URL) throws -> URL {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        return url
    }

    var isRunning: Bool { process.isRunning }

    /// Whether the process still runs and answers a well-formed request with 200.
    var serves: Bool { process.isRunning && request("/api/state").status == 200 }

    /// This server's own Host value and page origin.
    var host: String { "127.0.0.1:\(port)" }
    var origin: String { "http://127.0.0.1:\(port)" }

    /// A request as a browser on the page sends it (Host, and Origin when given), answered by a
    /// raw exchange; `target` gets the token appended.
    func request(_ target: String, method: String = "GET", host: String? = nil, origin: String? = nil,
                 extra: [String] = []) -> RawExchange {
        let separator = target.contains("?") ? "&" : "?"
        var lines = ["\(method) \(target)\(separator)token=\(token) HTTP/1.1", "Host: \(host ?? self.host)", "Connection: close"]
        if let origin { lines.append("Origin: \(origin)") }
        if method == "POST" { lines.append("Content-Length: 0") }
        lines += extra
        return RawExchange.run(port: port, Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8))
    }

    /// A websocket upgrade request for `/ws` (the page's), with `host` and `origin`.
    func upgrade(host: String? = nil, origin: String?) -> RawExchange {
        var lines = ["GET /ws?token=\(token) HTTP/1.1", "Host: \(host ?? self.host)", "Upgrade: websocket", "Connection: Upgrade",
                     "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13"]
        if let origin { lines.append("Origin: \(origin)") }
        return RawExchange.run(port: port, Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8), until: "\r\n\r\n")
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: folder)
    }
}

struct PreviewProcessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// One connection to a server over a plain socket: bytes sent exactly as given (no client
/// library to fix a bad request up), what came back, and when the server closed.
struct RawExchange {
    /// Every byte the server sent.
    var response: [UInt8] = []
    /// Seconds from connecting until the server closed (nil: still open when reading stopped).
    var closedAfter: Double?

    /// The status code of the response's first line (nil when there is none).
    var status: Int? {
        let line = response.prefix { $0 != UInt8(ascii: "\r") }
        let words = line.split(separator: UInt8(ascii: " "))
        guard words.count >= 2, words[0].starts(with: Array("HTTP/1.".utf8)) else { return nil }
        return Int(String(decoding: words[1], as: UTF8.self))
    }

    var body: String {
        let text = String(decoding: response, as: UTF8.self)
        return text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
    }

    /// Opens `connections` connections at once, sends nothing, and returns for each the seconds
    /// until the server closed it (nil: open after `limit` seconds).
    static func idle(port: Int, connections: Int, limit: Double = 15) -> [Double?] {
        let start = Date()
        var fds = (0..<connections).map { _ in connected(port) }
        defer { for fd in fds where fd >= 0 { close(fd) } }
        var closed = [Double?](repeating: nil, count: connections)
        var byte: UInt8 = 0
        while Date().timeIntervalSince(start) < limit, fds.contains(where: { $0 >= 0 }) {
            var polls = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard Glibc.poll(&polls, nfds_t(polls.count), 100) >= 0 else { break }
            for (i, p) in polls.enumerated() where p.fd >= 0 && p.revents != 0 {
                // An answer (408) may come first; the close is what is timed.
                while recv(p.fd, &byte, 1, Int32(MSG_DONTWAIT)) > 0 {}
                if recv(p.fd, &byte, 1, Int32(MSG_DONTWAIT)) == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) {
                    closed[i] = Date().timeIntervalSince(start)
                    close(p.fd)
                    fds[i] = -1
                }
            }
        }
        return closed
    }

    /// A socket connected to 127.0.0.1:`port`, or -1.
    static func connected(_ port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if status != 0 {
            close(fd)
            return -1
        }
        return fd
    }

    /// Connects to 127.0.0.1:`port`, sends `bytes` and reads until the server closes, `until`
    /// has arrived, or `limit` seconds have passed.
    static func run(port: Int, _ bytes: [UInt8], until marker: String? = nil, limit: Double = 15) -> RawExchange {
        var result = RawExchange()
        let fd = connected(port)
        guard fd >= 0 else { return result }
        defer { close(fd) }
        let start = Date()
        // Sending and reading interleaved: a server may answer (and stop reading) before a 1 MB
        // request is all sent.
        var sent = 0
        var buffer = [UInt8](repeating: 0, count: 65536)
        while Date().timeIntervalSince(start) < limit {
            var poll = pollfd(fd: fd, events: Int16(POLLIN) | (sent < bytes.count ? Int16(POLLOUT) : 0), revents: 0)
            guard Glibc.poll(&poll, 1, 100) >= 0 else { break }
            if poll.revents & Int16(POLLIN) != 0 || poll.revents & Int16(POLLHUP) != 0 || poll.revents & Int16(POLLERR) != 0 {
                let n = recv(fd, &buffer, buffer.count, 0)
                if n <= 0 {
                    result.closedAfter = Date().timeIntervalSince(start)
                    break
                }
                result.response += buffer[..<n]
                if let marker, String(decoding: result.response, as: UTF8.self).contains(marker) { break }
                continue
            }
            if sent < bytes.count, poll.revents & Int16(POLLOUT) != 0 {
                let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, min($0.count, 65536), Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
                if n > 0 { sent += n } else if errno != EAGAIN && errno != EINTR { sent = bytes.count }
            }
        }
        return result
    }
}
