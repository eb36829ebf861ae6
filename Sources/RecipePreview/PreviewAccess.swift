import RecipeCore
#if canImport(Glibc)
import Glibc
#endif

/// Who may ask the preview server for what: a request must carry the run's token (Jupyter's
/// model: the URL printed at start holds it), and a photo is named only by its place in the list
/// the command line made. No part of a request's path ever reaches the file system, so `..`, an
/// absolute path or a symlink cannot name a file; the list itself holds only regular files, and
/// in folder mode only those whose real path lies inside the folder (a link out is left out).
///
/// ```swift
/// let access = PreviewAccess(token: PreviewAccess.randomToken())
/// access.allows(token: "abc")                 // false: 403
/// PreviewAccess.photoIndex("3", count: 10)    // 3;  "../x", "/etc/passwd", "03" → nil: 404
/// ```
package struct PreviewAccess: Sendable {
    package let token: String

    package init(token: String) { self.token = token }

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
        guard !segment.isEmpty, segment.count <= 9, segment.allSatisfy({ $0 >= "0" && $0 <= "9" }),
              segment == "0" || segment.first != "0", let n = Int(segment), n < count else { return nil }
        return n
    }

    /// The photos a folder holds that may be served: regular files (or links to them) whose real
    /// path is inside the folder's real path. A link that leads out is refused with a reason.
    package static func insideFolder(_ paths: [String], folder: String) -> (kept: [String], refused: [(path: String, reason: String)]) {
        guard let root = realPath(folder) else { return ([], paths.map { ($0, "the folder cannot be resolved") }) }
        var kept: [String] = [], refused: [(String, String)] = []
        for path in paths {
            guard let real = realPath(path) else { refused.append((path, "cannot be resolved")); continue }
            if real.hasPrefix(root == "/" ? "/" : root + "/") { kept.append(path) } else { refused.append((path, "a link to \(real), outside \(folder)")) }
        }
        return (kept, refused)
    }

    /// The canonical absolute path (links resolved), or nil.
    package static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }
}
