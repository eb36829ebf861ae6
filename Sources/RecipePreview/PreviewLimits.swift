import NIOCore

/// How long the preview server waits for a client and how much of a request it reads: every
/// connection either sends a well-formed request promptly or is answered and closed, so a
/// client that holds connections open (a garbage request line, a request that never ends, a
/// 1 MB URL) cannot hold the server's file descriptors. The page on a browser on this machine
/// sends each request in one packet within milliseconds; each value is far above what it needs
/// and far below what lets a few hundred idle connections pile up.
package enum PreviewLimits {
    /// A new connection must have sent its whole request head (request line and headers) within
    /// this time, or it gets 408 and is closed (Hummingbird starts its idle timer only after the
    /// first head on a connection that may upgrade to a websocket). 5 s: a browser sends the
    /// head at once; this leaves half of the 10 s in which every bad connection must be gone for
    /// the lingering close below.
    package static let firstHead: TimeAmount = .seconds(5)

    /// A kept-alive connection with no request in progress is closed after this long
    /// (Hummingbird's `idleTimeout`, which also ends a later request whose head stops coming).
    /// 5 s, as Node's HTTP server keeps idle connections: browsers open a new one when they find
    /// it closed, and a render in progress is never cut (the timer waits while a response is due).
    package static let idle: TimeAmount = .seconds(5)

    /// After an error answer the server stops sending and reads (and drops) what the client is
    /// still sending for at most this long, then closes. Closing at once with unread bytes would
    /// reset the connection and the client could lose the answer (a 1 MB URL is still arriving
    /// when the first 16 KiB are refused). 2 s on top of `firstHead` stays under 10 s.
    package static let linger: TimeAmount = .seconds(2)

    /// The longest request line or single header, in bytes (NIO's decoder counts the URL as a
    /// field). 16 KiB: the page's longest URL is a params change with every param of a recipe,
    /// a few hundred bytes; Node refuses heads over 16 KiB, nginx lines over 8 KiB.
    package static let headerField = 16 * 1024

    /// The request line and all headers together, in bytes. 64 KiB: a browser also sends the
    /// cookies that other local servers set for `localhost` (cookies ignore the port), and a
    /// developer's jar can be a few tens of KiB.
    package static let headerList = 64 * 1024

    /// The most header fields in one request. 100, Apache's LimitRequestFields: browsers send
    /// about 15.
    package static let headerCount = 100

    /// The most connections open at once; more wait in the kernel's backlog until one closes.
    /// 512: a browser opens at most 6 connections to one host and one websocket per tab, and half
    /// of the usual limit of 1024 file descriptors stays for photos, renders and the watcher.
    package static let connections = 512

    /// The largest websocket message the page may send (it sends `view N`).
    package static let websocketMessage = 1 << 16
}
