import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

/// Hummingbird's HTTP/1 channel with a websocket upgrade (configured with the preview's limits),
/// and `PreviewConnectionGuard` placed right after NIO's request decoder of each connection.
///
/// ```swift
/// let server = HTTPServerBuilder { responder in
///     PreviewChildChannel(inner: HTTP1WebSocketUpgradeChannel(responder: responder, configuration: c, shouldUpgrade: s),
///                         refuseUpgrade: { head in nil })
/// }
/// ```
struct PreviewChildChannel: ServerChildChannel {
    typealias Value = HTTP1WebSocketUpgradeChannel.Value

    let inner: HTTP1WebSocketUpgradeChannel
    let refuseUpgrade: @Sendable (HTTPRequestHead) -> PreviewAccess.Refusal?

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let refuseUpgrade = self.refuseUpgrade
        return inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandler(PreviewConnectionGuard(refuseUpgrade: refuseUpgrade), position: .after(decoder))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}
