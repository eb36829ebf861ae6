import Foundation
import Testing
import TestSupport
@testable import RecipePreview

/// The preview server as a client meets it: a real `recipe-preview` process, spoken to over raw
/// sockets so that a request is sent exactly as a hostile or broken client would send it.
@Suite("PreviewServer: numbers, containment, Host and Origin")
struct PreviewServerTests {
    @Test("a region at Int.max answers 400 and the server stays up; a region and a picture within range are served")
    func overflowingRegion() throws {
        let server = try PreviewProcess.single("preview-overflow")
        defer { server.stop() }
        for query in ["x=9223372036854775807&y=0&w=1&h=1", "x=0&y=9223372036854775807&w=1&h=1", "x=0&y=0&w=9223372036854775807&h=1",
                      "x=-9223372036854775808&y=0&w=1&h=1", "x=99999999999&y=0&w=1&h=1", "x=%2B5&y=0&w=1&h=1", "x=1e3&y=0&w=1&h=1",
                      "x=0&y=0&w=0&h=1", "x=0&y=0&w=4097&h=1", "x=&y=0&w=1&h=1", "y=0&w=1&h=1"] {
            let r = server.request("/api/photo/0/region.jpg?" + query)
            #expect(r.status == 400, "\(query): \(r.body)")
            #expect(r.body.contains("x and y"), "\(query)")
        }
        #expect(server.serves, "the server is still running and answers")
        let region = server.request("/api/photo/0/region.jpg?x=2147483647&y=0&w=4096&h=4096")
        #expect(region.status == 422, "a region outside the render is refused in words: \(region.body)")
        #expect(server.request("/api/photo/0/region.jpg?x=10&y=10&w=20&h=20").status == 200)
        // The other numbers of the routes: indices and stage numbers out of range are 404.
        for path in ["/api/photo/9223372036854775807/render.jpg", "/api/photo/1/render.jpg", "/api/photo/0/stage-9223372036854775807.jpg",
                     "/api/photo/0/upto-257.jpg", "/api/photo/0/stage--1.jpg", "/api/photo/0/stage-+1.jpg"] {
            #expect(server.request(path).status == 404, "\(path)")
        }
        #expect(server.request("/api/stage/9223372036854775807?on=1", method: "POST").status == 404)
        #expect(server.request("/api/stage/1?on=yes", method: "POST").status == 400)
        #expect(server.request("/api/photo/0/stage-1.jpg").status == 200)
    }

    @Test("recipe preview --max-memory: a render over it is answered with the refusal, naming the budget; the server stays up")
    func budget() throws {
        let folder = try PreviewProcess.scratch("preview-budget")
        // A quarter turn and a blur of 20% of the short side: at full size they hold the photo and
        // many rows of floats, well over 16 MiB with the process; the live render at 64 px fits.
        try "format: dev.recipe.edit\nversion: 1.1\nstages:\n  - rotate: 90\n  - blur: {sigma: 20%}\n"
            .write(to: folder.appendingPathComponent("look.recipe.yaml"), atomically: false, encoding: .utf8)
        try FileManager.default.removeItem(at: folder.appendingPathComponent("photo.jpg"))
        try FileManager.default.copyItem(atPath: TestPaths.samples.appendingPathComponent("Landscape_1.jpg").path,
                                         toPath: folder.appendingPathComponent("photo.jpg").path)
        let server = try PreviewProcess(["photo.jpg", "look.recipe.yaml", "--max-memory", "16M"], in: folder)
        defer { server.stop() }
        // The whole photo as a region: the full-size render, cut.
        let refused = server.request("/api/photo/0/region.jpg?x=0&y=0&w=4096&h=4096")
        #expect(refused.status == 422, "\(refused.status): \(refused.body)")
        #expect(refused.body.contains("16 MiB") && refused.body.contains("--max-memory"), "\(refused.body)")
        #expect(server.serves, "the server is still running and answers")
    }

    @Test("a photo replaced by a link out of the folder after start is 404 on every route; back in place it is served again")
    func symlinkSwapAfterStart() throws {
        let folder = try PreviewProcess.scratch("preview-swap")
        let shoot = folder.appendingPathComponent("shoot"), outside = folder.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: shoot, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        let photo = TestPaths.fixture("jpeg/pil_hopper.jpg"), secret = TestPaths.fixture("jpeg/ljt_testorig.jpg")
        for name in ["a.jpg", "b.jpg"] { try FileManager.default.copyItem(atPath: photo, toPath: shoot.appendingPathComponent(name).path) }
        try FileManager.default.copyItem(atPath: secret, toPath: outside.appendingPathComponent("secret.jpg").path)
        let server = try PreviewProcess(["look.recipe.yaml", "shoot"], in: folder)
        defer { server.stop() }
        // Photo 0 is opened and kept before the swap; photo 1 is first asked for after it.
        #expect(server.request("/api/photo/0/render.jpg").status == 200)
        for name in ["a.jpg", "b.jpg"] {
            let path = shoot.appendingPathComponent(name).path
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: outside.appendingPathComponent("secret.jpg").path)
        }
        for index in 0..<2 {
            for picture in ["render", "before", "thumb", "stage-1", "upto-1"] {
                let r = server.request("/api/photo/\(index)/\(picture).jpg")
                #expect(r.status == 404, "photo \(index) \(picture): \(r.status.map(String.init) ?? "no answer")")
                #expect(r.body.hasPrefix("404: "), "a refusal in words, no picture")
            }
            #expect(server.request("/api/photo/\(index)/region.jpg?x=0&y=0&w=16&h=16").status == 404)
        }
        // Put back as a regular file: served again.
        let path = shoot.appendingPathComponent("b.jpg").path
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: photo, toPath: path)
        #expect(server.request("/api/photo/1/thumb.jpg").status == 200)
    }

    @Test("a foreign Origin is refused on the websocket and on the write-back POST; the page's own origin is accepted")
    func foreignOrigin() throws {
        let server = try PreviewProcess.single("preview-origin")
        defer { server.stop() }
        let recipe = server.folder.appendingPathComponent("look.recipe.yaml")
        for origin in ["http://evil.example", "null", "http://127.0.0.1:\(server.port + 1)", "https://127.0.0.1:\(server.port)"] {
            let ws = server.upgrade(origin: origin)
            #expect(ws.status == 403, "\(origin): \(String(decoding: ws.response.prefix(80), as: UTF8.self))")
            #expect(ws.body.contains("another site"), "\(origin)")
        }
        let own = server.upgrade(origin: server.origin)
        #expect(own.status == 101, "\(String(decoding: own.response.prefix(80), as: UTF8.self))")
        let localhost = server.upgrade(host: "localhost:\(server.port)", origin: "http://localhost:\(server.port)")
        #expect(localhost.status == 101)

        #expect(server.request("/api/params?lift=0.7", method: "POST", origin: server.origin).status == 200)
        // Values the param cannot take are refused, with the checker's reason, and change nothing
        // (each was answered 200 and kept).
        for bad in ["nan", "inf", "1e400", "0x1", "-.inf", "%27a%27"] {
            let r = server.request("/api/params?lift=\(bad)", method: "POST", origin: server.origin)
            #expect(r.status == 400 && r.body.contains("lift"), "lift=\(bad): \(r.status) \(r.body)")
        }
        let before = try String(contentsOf: recipe, encoding: .utf8)
        let refused = server.request("/api/write-params", method: "POST", origin: "http://evil.example")
        #expect(refused.status == 403)
        #expect(try String(contentsOf: recipe, encoding: .utf8) == before, "the recipe file is untouched")
        #expect(server.request("/api/params?lift=0.9", method: "POST", origin: "http://evil.example").status == 403)
        let written = server.request("/api/write-params", method: "POST", origin: server.origin)
        #expect(written.status == 200, "\(written.body)")
        #expect(try String(contentsOf: recipe, encoding: .utf8).contains("default: 0.7"), "the page's value, not the refused 0.9")
        // Without an Origin (a script, a same-origin GET) the token is enough.
        #expect(server.request("/api/state").status == 200)
    }

    @Test("a Host that does not name this server is refused with 421, the websocket too; localhost and [::1] with the port pass")
    func wrongHost() throws {
        let server = try PreviewProcess.single("preview-host")
        defer { server.stop() }
        for host in ["evil.example:\(server.port)", "evil.example", "127.0.0.1", "127.0.0.1:\(server.port + 1)", "localhost.evil.example:\(server.port)",
                     "127.0.0.2:\(server.port)"] {
            let r = server.request("/api/state", host: host)
            #expect(r.status == 421, "\(host)")
            #expect(r.body.contains("Host header"), "\(host)")
            #expect(server.upgrade(host: host, origin: nil).status == 421, "\(host)")
        }
        for host in ["127.0.0.1:\(server.port)", "localhost:\(server.port)", "LOCALHOST:\(server.port)", "[::1]:\(server.port)"] {
            #expect(server.request("/api/state", host: host).status == 200, "\(host)")
        }
        // HTTP/1.0 without a Host, and two Host headers: 400.
        let noHost = RawExchange.run(port: server.port, Array("GET /api/state?token=\(server.token) HTTP/1.0\r\n\r\n".utf8))
        #expect(noHost.status == 400)
        #expect(server.request("/api/state", extra: ["Host: evil.example"]).status == 400)
    }

    @Test("a request with a body gets 413 and the connection is closed at once")
    func requestBody() throws {
        let server = try PreviewProcess.single("preview-body")
        defer { server.stop() }
        let head = "POST /api/params?token=\(server.token)&lift=0.5 HTTP/1.1\r\nHost: \(server.host)\r\nContent-Length: 1000000\r\n\r\n"
        let r = RawExchange.run(port: server.port, Array(head.utf8) + [UInt8](repeating: 0x41, count: 1000))
        #expect(r.status == 413)
        #expect((r.closedAfter ?? 99) < 10, "closed after \(r.closedAfter ?? -1) s")
        let chunked = "POST /api/params?token=\(server.token) HTTP/1.1\r\nHost: \(server.host)\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n"
        #expect(RawExchange.run(port: server.port, Array(chunked.utf8)).status == 413)
        #expect(server.serves)
    }
}
