#if canImport(Glibc)
import Glibc
#endif

/// Which page may talk to the preview: the token alone does not stop another site's page from
/// using a token it got (a link, a log), nor a site whose name was made to point at 127.0.0.1
/// (DNS rebinding) from reading the answers. So every request, the websocket upgrade and the
/// write-back POST included, must name this server in its Host header, and a browser's Origin,
/// when it sends one, must be the page's own.
///
/// - Host: `localhost`, `127.0.0.1` or `[::1]`, or the address given to `--host`, each with the
///   port the server listens on. With `--host 0.0.0.0` (or `::`) any literal IP address with
///   that port is this server: a literal address cannot be rebound by DNS.
/// - Origin: absent (a same-origin GET, a script), or `http://` and the request's own Host.
///
/// ```swift
/// let access = PreviewAccess(token: t)        // then access.listening(on: 8080)
/// access.refusal(hosts: ["localhost:8080"], origin: "http://localhost:8080", token: t)   // nil: allowed
/// access.refusal(hosts: ["evil.example:8080"], origin: nil, token: t)?.status            // 421
/// access.refusal(hosts: ["127.0.0.1:8080"], origin: "http://evil.example", token: t)?.status  // 403
/// ```
extension PreviewAccess {
    /// A request refused before anything else is looked at: its status and a line saying why.
    package struct Refusal: Sendable, Equatable {
        package var status: Int
        package var message: String
    }

    /// Why a request with these Host values (all of them, normally one), Origin and token is
    /// refused, or nil when it may go on.
    package func refusal(hosts: [String], origin: String?, token given: String?) -> Refusal? {
        guard hosts.count == 1 else { return Refusal(status: 400, message: "400: a request needs exactly one Host header\n") }
        guard allows(host: hosts[0]) else {
            let port = self.port
            return Refusal(status: 421, message: "421: the Host header must name this preview (localhost:\(port), 127.0.0.1:\(port) or [::1]:\(port)); "
                           + "a page on another name cannot use it\n")
        }
        if let origin, !allows(origin: origin, host: hosts[0]) {
            return Refusal(status: 403, message: "403: refused: the request comes from another site's page (its Origin is not this preview's)\n")
        }
        guard allows(token: given) else { return Refusal(status: 403, message: "403: this preview needs the token printed when it started\n") }
        return nil
    }

    /// Whether a Host header names this server (see the type's rules).
    package func allows(host authority: String) -> Bool {
        let port = self.port
        guard port > 0, let (name, given) = Self.split(authority), (given ?? 80) == port else { return false }
        if name == "localhost" || name == "127.0.0.1" || name == "[::1]" { return true }
        let own = address.lowercased()
        if name == (own.contains(":") && !own.hasPrefix("[") ? "[\(own)]" : own) { return true }
        let wildcard = own == "0.0.0.0" || own == "::" || own == "[::]"
        return wildcard && Self.isAddressLiteral(name)
    }

    /// Whether an Origin header is the page's own: `http://` and the same host and port as `host`.
    package func allows(origin: String, host: String) -> Bool {
        guard origin.hasPrefix("http://"), let o = Self.split(String(origin.dropFirst(7))), let h = Self.split(host) else { return false }
        return o.name == h.name && (o.port ?? 80) == (h.port ?? 80)
    }

    /// A Host value (or an origin without its scheme) as a lower-case name and an optional port:
    /// `name`, `name:port`, `[v6]` or `[v6]:port`; nil for anything else (a path, two colons
    /// outside brackets, a port that is not 1 to 65535).
    static func split(_ authority: String) -> (name: String, port: Int?)? {
        let text = authority.lowercased()
        var name = Substring(text), rest: Substring = ""
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            name = text[...close]
            rest = text[text.index(after: close)...]
        } else if let colon = text.firstIndex(of: ":") {
            name = text[..<colon]
            rest = text[colon...]
        }
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-.[]:".contains($0)) }) else { return nil }
        guard !rest.isEmpty else { return (String(name), nil) }
        guard rest.first == ":", rest.dropFirst().first != "-", let port = decimal(rest.dropFirst(), in: 1...65535) else { return nil }
        return (String(name), port)
    }

    /// Whether `name` is a literal IPv4 address or a bracketed IPv6 one.
    static func isAddressLiteral(_ name: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        if name.hasPrefix("[") && name.hasSuffix("]") {
            return inet_pton(AF_INET6, String(name.dropFirst().dropLast()), &buffer) == 1
        }
        return inet_pton(AF_INET, name, &buffer) == 1
    }
}
