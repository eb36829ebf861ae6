import NIOCore
import NIOHTTP1

/// What the preview adds to each connection's pipeline (right after NIO's request decoder) so
/// that every connection ends: Hummingbird's websocket-capable channel reads the first request of
/// a connection with no timer and, when NIO's decoder rejects it (a garbage request line, a
/// negative `Content-Length`, a 1 MB URL, 100 KB of headers), neither answers nor closes. This
/// handler fills exactly those gaps and leaves the rest to Hummingbird (its idle timer and its
/// own 400 on later requests):
///
/// - the first request head must arrive within `PreviewLimits.firstHead`, else 408;
/// - a decoder error while no response is due is answered (400, or 431 for a head over the
///   limits) instead of being dropped;
/// - a websocket upgrade that the access rules refuse gets their 403/421 and a reason
///   (Hummingbird's own refusal is an empty 400), one that declares a body gets 413 (NIO would
///   wait for the body before upgrading, with no timer), one NIO's upgrader cannot complete (no
///   key, a version other than 13) gets 400 (NIO's error would close it without an answer);
/// - a response that says `Connection: close` (the server's 413 to a request with a body) closes.
///
/// Each answer is followed by a lingering close: output shut, input read and dropped for
/// `PreviewLimits.linger`, then closed, so the client reads the answer instead of a reset.
/// After a websocket upgrade (a 101 passes) it lets everything through untouched.
final class PreviewConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    // `Any`: HTTP parts before an upgrade, websocket bytes after it; only HTTP parts are read.
    typealias InboundIn = Any
    typealias OutboundIn = Any
    typealias OutboundOut = Any

    private enum Phase { case firstHead, http, upgraded, closing }

    private var phase = Phase.firstHead
    /// Request heads passed on minus responses finished: a decoder error with none due is ours to answer.
    private var responsesDue = 0
    private var closeAfterResponse = false
    private var timer: Scheduled<Void>?
    private let refuseUpgrade: @Sendable (HTTPRequestHead) -> PreviewAccess.Refusal?

    /// `refuseUpgrade` says why a websocket upgrade request is refused (nil: it goes on).
    init(refuseUpgrade: @escaping @Sendable (HTTPRequestHead) -> PreviewAccess.Refusal?) {
        self.refuseUpgrade = refuseUpgrade
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { startFirstHeadTimer(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        startFirstHeadTimer(context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    private func startFirstHeadTimer(_ context: ChannelHandlerContext) {
        guard phase == .firstHead, timer == nil else { return }
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: PreviewLimits.firstHead) {
            self.timer = nil
            guard self.phase == .firstHead else { return }
            self.answer(context, 408, "408: the request did not arrive within \(PreviewLimits.firstHead.nanoseconds / 1_000_000_000) s\n")
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch phase {
        case .closing:
            return  // read and dropped while the answer lingers
        case .upgraded:
            context.fireChannelRead(data)
            return
        case .firstHead, .http:
            break
        }
        if case .head(let head)? = unwrapInboundIn(data) as? HTTPServerRequestPart {
            if phase == .firstHead {
                timer?.cancel()
                timer = nil
                if Self.isWebSocketUpgrade(head) {
                    if Self.declaresBody(head) {
                        answer(context, 413, "413: a websocket upgrade takes no request body\n")
                        return
                    }
                    if let refusal = refuseUpgrade(head) {
                        answer(context, refusal.status, refusal.message)
                        return
                    }
                    if head.headers[canonicalForm: "sec-websocket-key"].count != 1 || head.headers[canonicalForm: "sec-websocket-version"] != ["13"] {
                        answer(context, 400, "400: a websocket upgrade needs one Sec-WebSocket-Key and Sec-WebSocket-Version: 13\n")
                        return
                    }
                }
                phase = .http
            }
            responsesDue += 1
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard phase == .http || phase == .firstHead, let part = unwrapOutboundIn(data) as? HTTPServerResponsePart else {
            context.write(data, promise: promise)
            return
        }
        switch part {
        case .head(let head):
            if head.status == .switchingProtocols { phase = .upgraded }
            if head.headers[canonicalForm: "connection"].contains(where: { $0.lowercased() == "close" }) { closeAfterResponse = true }
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            responsesDue -= 1
            context.write(data, promise: promise)
            if closeAfterResponse {
                context.flush()
                lingeringClose(context)
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch phase {
        case .closing:
            return
        case .firstHead, .http:
            if let error = error as? HTTPParserError, phase == .firstHead || responsesDue == 0 {
                if error == .headerOverflow {
                    answer(context, 431, "431: the request line or a header is longer than \(PreviewLimits.headerField / 1024) KiB, "
                           + "or the headers together longer than \(PreviewLimits.headerList / 1024) KiB or \(PreviewLimits.headerCount) fields\n")
                } else {
                    answer(context, 400, "400: not a well-formed HTTP/1.1 request (\(error))\n")
                }
                return
            }
        case .upgraded:
            break
        }
        context.fireErrorCaught(error)
    }

    /// Whether `head` asks for a websocket (other upgrades, such as curl's `h2c`, are plain
    /// HTTP/1.1 requests to the server).
    static func isWebSocketUpgrade(_ head: HTTPRequestHead) -> Bool {
        head.headers["upgrade"].contains { $0.split(separator: ",").contains { $0.filter { $0 != " " && $0 != "\t" }.lowercased() == "websocket" } }
    }

    /// Whether `head` says a body follows.
    static func declaresBody(_ head: HTTPRequestHead) -> Bool {
        !head.headers["transfer-encoding"].isEmpty || head.headers["content-length"].contains { $0 != "0" }
    }

    /// Writes a short plain-text answer and closes the connection after it.
    private func answer(_ context: ChannelHandlerContext, _ status: Int, _ message: String) {
        timer?.cancel()
        timer = nil
        let body = ByteBuffer(string: message)
        let headers = HTTPHeaders([("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", String(body.readableBytes)),
                                   ("Connection", "close"), ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff")])
        let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: headers)
        context.write(NIOAny(HTTPServerResponsePart.head(head)), promise: nil)
        context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)), promise: nil)
        lingeringClose(context)
    }

    /// Shuts the output once what was written is sent, drops what still comes in, and closes
    /// after `PreviewLimits.linger` (sooner when the client closes).
    private func lingeringClose(_ context: ChannelHandlerContext) {
        phase = .closing
        context.close(mode: .output, promise: nil)
        timer?.cancel()
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: PreviewLimits.linger) {
            self.timer = nil
            context.close(promise: nil)
        }
    }
}

@available(*, unavailable)
extension PreviewConnectionGuard: Sendable {}
