import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import RecipeCore
import RecipeSession
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `recipe preview`'s web server: one page (embedded in the binary, no build step, no CDN) and the
/// few routes it uses, every one behind the run's token, on 127.0.0.1 unless told otherwise.
///
/// ```
/// GET  /?token=T                                   the page (preview.js and preview.css beside it)
/// GET  /api/state?token=T                          photos, stages, params, diagnostics (JSON)
/// GET  /api/photo/N/render.jpg?token=T             the last good render of photo N
/// GET  /api/photo/N/(before|thumb|stage-K|upto-K).jpg?token=T
/// GET  /api/photo/N/region.jpg?token=T&x=&y=&w=&h= the 1:1 view of a region, at full size
/// POST /api/params?token=T&NAME=VALUE              the page's param values ("" resets one)
/// POST /api/stage/K?token=T&on=0|1                 a stage off or on (the file is untouched)
/// POST /api/write-params?token=T                   the page's values into the file as defaults
/// WS   /ws?token=T                                 pushes state and frames; reads "view N"
/// ```
/// A request without the token gets 403 before anything else is looked at; any other path 404.
/// Photos are named by their index in the command line's list, never by a path.
package struct PreviewServer: Sendable {
    package let session: PreviewSession
    package let access: PreviewAccess
    package let host: String
    package let port: Int

    package init(session: PreviewSession, access: PreviewAccess, host: String, port: Int) {
        self.session = session
        self.access = access
        self.host = host
        self.port = port
    }

    /// Serves until the process is stopped (SIGINT/SIGTERM). `started` gets the URL once the
    /// socket listens (with `--port 0`, the port the system picked).
    package func run(started: @escaping @Sendable (String) -> Void) async throws {
        var logger = Logger(label: "recipe-preview")
        logger.logLevel = .error
        let access = self.access, session = self.session, host = self.host
        let app = Application(
            responder: CallbackResponder { (request: Request, _: BasicRequestContext) in
                await Self.respond(to: request, session: session, access: access)
            },
            server: .http1WebSocketUpgrade { request, _, _ in
                let uri = URI(request.path ?? "/")
                guard uri.path == "/ws", access.allows(token: uri.queryParameters["token"].map(String.init)) else { return .dontUpgrade }
                return .upgrade([:]) { inbound, outbound, _ in
                    let id = await session.connect { text in try? await outbound.write(.text(text)) }
                    defer { Task { await session.disconnect(id) } }
                    for try await message in inbound.messages(maxSize: 1 << 16) {
                        guard case .text(let text) = message else { continue }
                        let words = text.split(separator: " ")
                        if words.first == "view" {
                            await session.view(id, photo: words.count > 1 ? Int(words[1]) : nil)
                        }
                    }
                }
            },
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "recipe-preview"),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                let shown = host.contains(":") ? "[\(host)]" : host
                started("http://\(shown):\(bound)/?token=\(access.token)")
            },
            logger: logger)
        try await app.runService()
    }

    /// The whole routing: token first, then a fixed set of paths.
    static func respond(to request: Request, session: PreviewSession, access: PreviewAccess) async -> Response {
        let path = Substring(request.uri.path)
        // Hummingbird's query parser, which percent-decodes the values.
        let query = request.uri.queryParameters
        guard access.allows(token: query["token"].map(String.init)) else {
            return text(.forbidden, "403: this preview needs the token printed when it started\n")
        }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        let method = request.method
        switch (method, Array(parts)) {
        case (.get, [""]), (.get, ["index.html"]):
            // The page's own script and style sheet need the token too: it is written into their URLs.
            let page = String(decoding: PackageResources.index_html, as: UTF8.self).replacing("?token=TOKEN", with: "?token=\(access.token)")
            return asset(Array(page.utf8), type: "text/html; charset=utf-8")
        case (.get, ["preview.js"]):
            return asset(PackageResources.preview_js, type: "text/javascript; charset=utf-8")
        case (.get, ["preview.css"]):
            return asset(PackageResources.preview_css, type: "text/css; charset=utf-8")
        case (.get, ["api", "state"]):
            return json(await session.stateMessage())
        case (.get, let p) where p.count == 4 && p[0] == "api" && p[1] == "photo" && p[3].hasSuffix(".jpg"):
            guard let index = PreviewAccess.photoIndex(p[2], count: session.photos.count) else { return notFound }
            let what = p[3].dropLast(4)
            switch what {
            case "render": return picture(await session.frame(index))
            case "region":
                func number(_ name: Substring) -> Int? { query[name].flatMap { Int($0) } }
                guard let x = number("x"), let y = number("y"), let w = number("w"), let h = number("h"),
                      w > 0, h > 0, w <= 4096, h <= 4096 else { return text(.badRequest, "region needs x, y, w, h (w, h at most 4096)\n") }
                return picture(await session.region(index, Region(x: x, y: y, width: w, height: h)))
            default:
                return picture(await session.picture(String(what), index))
            }
        case (.post, ["api", "params"]):
            var values: [String: String] = [:]
            for (name, value) in query where name != "token" { values[String(name)] = String(value) }
            await session.setParams(values)
            return json(await session.stateMessage())
        case (.post, let p) where p.count == 3 && p[0] == "api" && p[1] == "stage":
            guard let k = Int(p[2]), k >= 1, k <= 256 else { return notFound }
            await session.setStage(k, on: query["on"] == "1")
            return json(await session.stateMessage())
        case (.post, ["api", "write-params"]):
            do {
                let written = try await session.writeParams()
                return json(.object([("written", .array(written.map { .string($0) }))]))
            } catch {
                return text(.conflict, "\(error)\n")
            }
        default:
            return notFound
        }
    }

    static var notFound: Response { text(.notFound, "404: not something this preview serves\n") }

    static func text(_ status: HTTPResponse.Status, _ body: String) -> Response {
        response(status, Array(body.utf8), type: "text/plain; charset=utf-8")
    }

    static func json(_ value: JSONValue) -> Response {
        response(.ok, Array(value.compact.utf8), type: "application/json")
    }

    static func asset(_ bytes: [UInt8], type: String) -> Response { response(.ok, bytes, type: type) }

    /// A render as a JPEG; recipe errors as 409 with the diagnostics, a failure as 422 with why.
    static func picture(_ result: PreviewResult) -> Response {
        switch result {
        case .image(let image):
            var r = response(.ok, image.jpeg, type: "image/jpeg")
            r.headers[.init("X-Render-Milliseconds")!] = String(Int(image.milliseconds))
            if let note = image.note { r.headers[.init("X-Render-Note")!] = note }
            return r
        case .diagnostics(let d): return text(.conflict, d + "\n")
        case .failed(let message): return text(.unprocessableContent, message + "\n")
        case .cancelled: return text(.serviceUnavailable, "superseded by a newer render\n")
        }
    }

    static func response(_ status: HTTPResponse.Status, _ bytes: [UInt8], type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "no-store"
        // The token is in the page's URL: never send it on as a referrer, never frame the page.
        headers[.init("Referrer-Policy")!] = "no-referrer"
        headers[.init("X-Content-Type-Options")!] = "nosniff"
        headers[.init("X-Frame-Options")!] = "DENY"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
