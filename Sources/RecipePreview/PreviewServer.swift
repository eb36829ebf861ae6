import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
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
/// Before anything else: a request with a body gets 413 and is closed (no route reads one:
/// everything travels in the query); then the Host and Origin rules (`PreviewAccess+Host.swift`:
/// 421, 403) and the token (403). Any other path is 404. Photos are named by their index in the
/// command line's list, never by a path; every number in a request is read by
/// `PreviewAccess.decimal` (a bad one is 400). Time and size limits: `PreviewLimits`.
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
        // Hummingbird logs every refused or malformed connection as an error ("Error handling
        // upgrade result"); here those are expected and answered. A failure to serve is thrown.
        logger.logLevel = .critical
        let access = self.access, session = self.session, host = self.host
        let decoder = HTTP1Channel.Configuration.DecoderConfiguration(
            maxHeaderFieldSize: PreviewLimits.headerField, maxHeaderListSize: PreviewLimits.headerList, maxHeaderFieldCount: PreviewLimits.headerCount)
        let channel = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: HTTP1Channel.Configuration(idleTimeout: PreviewLimits.idle, httpDecoderConfiguration: decoder))
        let server = HTTPServerBuilder { responder in
            PreviewChildChannel(
                inner: HTTP1WebSocketUpgradeChannel(responder: responder, configuration: channel) { request, _, _ in
                    // The connection guard has refused a bad upgrade already; the same rule again.
                    let hosts = Self.hosts(request.authority, request.headerFields)
                    guard Self.upgradeRefusal(uri: request.path ?? "/", hosts: hosts, origin: request.headerFields[.origin], access: access) == nil
                    else { return .dontUpgrade }
                    return .upgrade([:]) { inbound, outbound, _ in
                        let id = await session.connect { text in try? await outbound.write(.text(text)) }
                        defer { Task { await session.disconnect(id) } }
                        for try await message in inbound.messages(maxSize: PreviewLimits.websocketMessage) {
                            guard case .text(let text) = message else { continue }
                            let words = text.split(separator: " ")
                            if words.first == "view" {
                                await session.view(id, photo: words.count > 1 ? PreviewAccess.decimal(words[1], in: -1...Int(Int32.max)) : nil)
                            }
                        }
                    }
                },
                refuseUpgrade: { head in
                    Self.upgradeRefusal(uri: head.uri, hosts: head.headers["Host"], origin: head.headers["Origin"].first, access: access)
                })
        }
        let app = Application(
            responder: CallbackResponder { (request: Request, _: BasicRequestContext) in
                await Self.respond(to: request, session: session, access: access)
            },
            server: server,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "recipe-preview",
                                                    availableConnectionsDelegate: MaximumAvailableConnections(PreviewLimits.connections, logger: logger)),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                access.listening(on: bound)
                let shown = host.contains(":") ? "[\(host)]" : host
                started("http://\(shown):\(bound)/?token=\(access.token)")
            },
            logger: logger)
        try await app.runService()
    }

    /// Every Host value of a request: HTTP/1's first one becomes the request's authority, the
    /// others stay among its fields (two Host headers are refused).
    static func hosts(_ authority: String?, _ fields: HTTPFields) -> [String] {
        [authority].compactMap { $0 } + fields[values: .init("Host")!]
    }

    /// Why a websocket upgrade is refused: the access rules, then the path (only `/ws` upgrades).
    static func upgradeRefusal(uri: String, hosts: [String], origin: String?, access: PreviewAccess) -> PreviewAccess.Refusal? {
        let uri = URI(uri)
        if let refusal = access.refusal(hosts: hosts, origin: origin, token: uri.queryParameters["token"].map(String.init)) { return refusal }
        return uri.path == "/ws" ? nil : PreviewAccess.Refusal(status: 404, message: "404: only /ws takes a websocket\n")
    }

    /// The whole routing: a body, Host, Origin and token first, then a fixed set of paths.
    static func respond(to request: Request, session: PreviewSession, access: PreviewAccess) async -> Response {
        if request.headers[.transferEncoding] != nil || (request.headers[.contentLength].map { $0 != "0" } ?? false) {
            // Nothing is read of it: collecting it, even up to a limit, would let a client that
            // sends it slowly hold the connection. The connection guard closes after the answer.
            var r = text(.contentTooLarge, "413: this preview takes no request body (everything goes in the query)\n")
            r.headers[.connection] = "close"
            return r
        }
        let path = Substring(request.uri.path)
        // Hummingbird's query parser, which percent-decodes the values.
        let query = request.uri.queryParameters
        if let refusal = access.refusal(hosts: hosts(request.head.authority, request.headers), origin: request.headers[.origin], token: query["token"].map(String.init)) {
            return text(HTTPResponse.Status(code: refusal.status), refusal.message)
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
        case (.get, ["ws"]):
            return text(.badRequest, "400: /ws is the page's websocket: it takes an upgrade request\n")
        case (.get, ["api", "state"]):
            return json(await session.stateMessage())
        case (.get, let p) where p.count == 4 && p[0] == "api" && p[1] == "photo" && p[3].hasSuffix(".jpg"):
            // A photo that became a link out of the folder is not served (checked again at every open).
            guard let index = PreviewAccess.photoIndex(p[2], count: session.photos.count), session.servable(index) else { return notFound }
            switch PreviewPicture(p[3].dropLast(4)) {
            case nil:
                return notFound
            case .render:
                return picture(await session.frame(index))
            case .region:
                // Coordinates within ±2^31 and sizes up to 4096: their sums cannot overflow.
                func number(_ name: Substring, _ range: ClosedRange<Int>) -> Int? { query[name].flatMap { PreviewAccess.decimal($0, in: range) } }
                let coordinate = -Int(Int32.max)...Int(Int32.max), size = 1...4096
                guard let x = number("x", coordinate), let y = number("y", coordinate), let w = number("w", size), let h = number("h", size) else {
                    return text(.badRequest, "400: a region needs x and y (integers within ±2147483647) and w and h (1 to 4096)\n")
                }
                return picture(await session.region(index, Region(x: x, y: y, width: w, height: h)))
            case let what?:
                return picture(await session.picture(what, index))
            }
        case (.post, ["api", "params"]):
            var values: [String: String] = [:]
            for (name, value) in query where name != "token" { values[String(name)] = String(value) }
            do {
                try await session.setParams(values)
            } catch {
                return text(.badRequest, "400: \(error)\n")
            }
            return json(await session.stateMessage())
        case (.post, let p) where p.count == 3 && p[0] == "api" && p[1] == "stage":
            guard let k = PreviewAccess.decimal(p[2], in: 1...256) else { return notFound }
            guard let on = query["on"], on == "0" || on == "1" else { return text(.badRequest, "400: a stage toggle needs on=0 or on=1\n") }
            await session.setStage(k, on: on == "1")
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
