import Foundation
import Testing
import TestSupport
@testable import RecipePreview

/// Every connection ends: a malformed, oversized or unfinished request gets an answer and the
/// connection is closed within 10 s, without the token (raw sockets: no client library tidies
/// the request up).
@Suite("PreviewConnectionGuard: malformed and oversized requests are answered and closed")
struct PreviewConnectionGuardTests {
    /// One case: what is sent, and the status that must come back.
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var bytes: @Sendable (_ port: Int, _ token: String) -> [UInt8]
        var status: Int
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "a garbage request line", bytes: { _, _ in Array("GARBAGE \u{1}\u{2} nonsense\r\n\r\n".utf8) }, status: 400),
        Case(name: "a negative Content-Length", bytes: { port, _ in
            Array("POST /api/params HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: -5\r\n\r\n".utf8)
        }, status: 400),
        Case(name: "a 1 MB URL", bytes: { port, _ in
            Array("GET /api/state?x=\(String(repeating: "a", count: 1 << 20)) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8)
        }, status: 431),
        Case(name: "100 KB of headers", bytes: { port, _ in
            let headers = (0..<100).map { "X-Filler-\($0): \(String(repeating: "b", count: 1000))\r\n" }.joined()
            return Array("GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(headers)\r\n".utf8)
        }, status: 431),
        Case(name: "one header of 20 KB", bytes: { port, _ in
            Array("GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nCookie: \(String(repeating: "c", count: 20 << 10))\r\n\r\n".utf8)
        }, status: 431),
        Case(name: "a websocket upgrade whose body never comes", bytes: { port, _ in
            Array(("GET /ws HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                   + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nContent-Length: 5000\r\n\r\nzz").utf8)
        }, status: 413),
        Case(name: "a websocket upgrade without its key", bytes: { port, token in
            Array("GET /ws?token=\(token) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n".utf8)
        }, status: 400),
        Case(name: "a request line that never ends", bytes: { _, _ in Array("GET /api/state HTT".utf8) }, status: 408),
        Case(name: "headers that never end", bytes: { port, _ in Array("GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-A: b\r\n".utf8) }, status: 408),
    ]

    @Test("answered with the right status and closed within 10 s", arguments: cases)
    func answeredAndClosed(_ c: Case) throws {
        let server = try PreviewProcess.single("preview-guard")
        defer { server.stop() }
        let r = RawExchange.run(port: server.port, c.bytes(server.port, server.token))
        #expect(r.status == c.status, "\(String(decoding: r.response.prefix(120), as: UTF8.self))")
        let closed = try #require(r.closedAfter, "the connection is still open after 15 s")
        #expect(closed < 10, "closed after \(closed) s")
        testNote("\(c.name): \(r.status.map(String.init) ?? "no answer"), closed after \(String(format: "%.2f", closed)) s")
        #expect(server.serves, "the server is still there for a well-formed request")
    }

    @Test("a connection that sends nothing is closed within 10 s; 300 of them are all closed")
    func idleConnections() throws {
        let server = try PreviewProcess.single("preview-idle")
        defer { server.stop() }
        let closed = RawExchange.idle(port: server.port, connections: 300)
        #expect(closed.count == 300)
        #expect(closed.allSatisfy { ($0 ?? 99) < 10 }, "slowest: \(closed.map { $0 ?? 99 }.max() ?? 0) s")
        #expect(server.serves)
    }

    @Test("a kept-alive connection with no next request is closed after the idle time")
    func keepAliveIdle() throws {
        let server = try PreviewProcess.single("preview-keepalive")
        defer { server.stop() }
        let r = RawExchange.run(port: server.port, Array("GET /api/state?token=\(server.token) HTTP/1.1\r\nHost: \(server.host)\r\n\r\n".utf8))
        #expect(r.status == 200)
        let closed = try #require(r.closedAfter)
        #expect(closed < 10 && closed > 3, "closed after \(closed) s (idle time 5 s)")
    }
}
