import RecipeCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Who may ask the preview server for what: a request must carry the run's token (Jupyter's
/// model: the URL printed at start holds it), and a photo is named only by its place in the list
/// the command line made. No part of a request's path ever reaches the file system, so `..`, an
/// absolute path or a symlink cannot name a file; the list itself holds only regular files, and
/// in folder mode only those whose real path lies inside the folder (a link out is left out),
/// checked again at every open. Host and Origin rules: `PreviewAccess+Host.swift`.
///
/// ```swift
/// let access = PreviewAccess(token: PreviewAccess.randomToken())
/// access.allows(token: "abc")                 // false: 403
/// PreviewAccess.photoIndex("3", count: 10)    // 3;  "../x", "/etc/passwd", "03" → nil: 404
/// ```
package struct PreviewAccess: Sendable {
    package let token: String
    /// The address the server listens on (`--host`), as given.
    package let address: String
    /// The port it listens on, once bound (`--port 0` lets the system pick it); 0 before.
    private let bound = BoundPort()

    package init(token: String, address: String = "127.0.0.1") {
        self.token = token
        self.address = address
    }

    /// Called once the socket listens: requests must name this port in their Host header.
    package func listening(on port: Int) { bound.port.store(port, ordering: .releasing) }

    package var port: Int { bound.port.load(ordering: .acquiring) }

    private final class BoundPort: Sendable {
        let port = Atomic<Int>(0)
    }

    /// 32 hex digits from the kernel's random source.
    package static func randomToken() -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        let fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        precondition(fd >= 0, "cannot open /dev/urandom: \(errnoText())")
        defer { close(fd) }
        var filled = 0
        while filled < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if n > 0 { filled += n } else { precondition(errno == EINTR, "cannot read /dev/urandom: \(errnoText())") }
        }
        return bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// Whether `given` is the token: compared in constant time, so its length and bytes cannot be
    /// found one at a time by timing.
    package func allows(token given: String?) -> Bool {
        guard let given else { return false }
        let a = Array(given.utf8), b = Array(token.utf8)
        var difference = a.count ^ b.count
        for i in 0..<b.count { difference |= Int((i < a.count ? a[i] : 0) ^ b[i]) }
        return difference == 0
    }

    /// A photo's index from a path segment: decimal digits only, no leading zero, below `count`.
    package static func photoIndex(_ segment: Substring, count: Int) -> Int? {
        guard segment == "0" || segment.first != "0", segment.first != "-", let n = decimal(segment, in: 0...Int(Int32.max)), n < count else { return nil }
        return n
    }

    /// A number a request sends (a query value, a path segment): an optional `-` and 1 to 10
    /// decimal digits, within `range`; nil for anything else. Ten digits cannot overflow an `Int`,
    /// and `Int("+5")`, `Int("٣")` or 20 digits never reach the arithmetic after it.
    ///
    /// ```swift
    /// PreviewAccess.decimal("42", in: 0...4096)                    // 42
    /// PreviewAccess.decimal("9223372036854775807", in: 0...4096)   // nil: 400
    /// ```
    package static func decimal(_ text: Substring, in range: ClosedRange<Int>) -> Int? {
        let digits = text.utf8.first == UInt8(ascii: "-") ? text.utf8.dropFirst() : text.utf8[...]
        guard (1...10).contains(digits.count), digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let n = Int(text), range.contains(n) else { return nil }
        return n
    }

    /// The photos a folder holds that may be served: regular files (or links to them) whose real
    /// path is inside the folder's real path. A link that leads out is refused with a reason.
    package static func insideFolder(_ paths: [String], folder: String) -> (kept: [String], refused: [(path: String, reason: String)]) {
        guard let root = realPath(folder) else { return ([], paths.map { ($0, "the folder cannot be resolved") }) }
        var kept: [String] = [], refused: [(String, String)] = []
        for path in paths {
            switch contained(path, root: root) {
            case .success: kept.append(path)
            case .failure(let reason): refused.append((path, reason.description))
            }
        }
        return (kept, refused)
    }

    /// `path`'s real path when it lies inside `root` (a real path itself), else why not. Asked at
    /// every open of a photo in folder mode, not only at start: a photo replaced by a link out of
    /// the folder while the preview runs is refused from then on.
    package static func contained(_ path: String, root: String) -> Result<String, PreviewError> {
        guard let real = realPath(path) else { return .failure(PreviewError("cannot be resolved")) }
        guard real.hasPrefix(root == "/" ? "/" : root + "/") else { return .failure(PreviewError("a link to \(real), outside the folder")) }
        return .success(real)
    }

    /// The canonical absolute path (links resolved), or nil.
    package static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }
}
