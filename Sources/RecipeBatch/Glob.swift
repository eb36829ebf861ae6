/// A file-name pattern for `--include` and `--exclude`, with gitignore's reading: a pattern
/// without `/` matches a file's name in any folder; a pattern with `/` matches the path below the
/// folder given on the command line. `*` and `?` stay within one name, `**` spans folders,
/// `[a-z]` and `[!a]` are classes, `\` escapes the next character.
///
/// ```swift
/// Glob("*.jpg").matches("2024/rome/IMG_1.jpg")          // true (the name matches)
/// Glob("2024/**/raw/*").matches("2024/rome/raw/1.jpg")  // true
/// Glob("*.JPG", caseInsensitive: true).matches("a.jpg") // true
/// ```
///
/// Hand-written: fnmatch(3) has no `**`, and a pattern is matched against every file of a tree
/// that may hold a hundred thousand photos, so it works on bytes, backtracking only at stars.
public struct Glob: Sendable, CustomStringConvertible {
    public let pattern: String
    let bytes: [UInt8]
    let matchesName: Bool
    let caseInsensitive: Bool

    public init(_ pattern: String, caseInsensitive: Bool = false) {
        self.pattern = pattern
        var p = pattern.hasPrefix("./") ? String(pattern.dropFirst(2)) : pattern
        if p.hasPrefix("/") { p.removeFirst() }
        self.matchesName = !p.contains("/")
        self.caseInsensitive = caseInsensitive
        self.bytes = Array((caseInsensitive ? p.lowercased() : p).utf8)
    }

    public var description: String { pattern }

    /// Whether `relativePath` (folders separated by `/`, no leading `/`) matches.
    public func matches(_ relativePath: String) -> Bool {
        var path = caseInsensitive ? relativePath.lowercased() : relativePath
        if matchesName, let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) {
            path = String(path[path.utf8.index(after: slash)...])
        }
        let s = Array(path.utf8)
        return bytes.withUnsafeBufferPointer { p in s.withUnsafeBufferPointer { Self.match(p, 0, $0, 0) } }
    }

    private static let slash = UInt8(ascii: "/"), star = UInt8(ascii: "*"), question = UInt8(ascii: "?")
    private static let open = UInt8(ascii: "["), close = UInt8(ascii: "]"), bang = UInt8(ascii: "!")
    private static let caret = UInt8(ascii: "^"), dash = UInt8(ascii: "-"), backslash = UInt8(ascii: "\\")

    private static func match(_ p: UnsafeBufferPointer<UInt8>, _ pi: Int, _ s: UnsafeBufferPointer<UInt8>, _ si: Int) -> Bool {
        var pi = pi, si = si
        while pi < p.count {
            let c = p[pi]
            if c == star {
                if pi + 1 < p.count, p[pi + 1] == star {
                    // `**`: any number of whole folders (`a/**/b` also matches `a/b`).
                    var next = pi + 2
                    if next < p.count, p[next] == slash { next += 1 }
                    if next == p.count { return true }
                    var k = si
                    while k <= s.count {
                        if (k == si || s[k - 1] == slash), match(p, next, s, k) { return true }
                        k += 1
                    }
                    return false
                }
                var k = si
                while true {
                    if match(p, pi + 1, s, k) { return true }
                    if k == s.count || s[k] == slash { return false }
                    k += 1
                }
            }
            guard si < s.count else { return false }
            switch c {
            case question:
                guard s[si] != slash else { return false }
            case open:
                guard let (matched, end) = matchClass(p, pi, s[si]) else {
                    // An unclosed `[` is a literal.
                    guard s[si] == open else { return false }
                    break
                }
                guard matched, s[si] != slash else { return false }
                pi = end
            case backslash where pi + 1 < p.count:
                pi += 1
                guard s[si] == p[pi] else { return false }
            default:
                guard s[si] == c else { return false }
            }
            pi += 1
            si += 1
        }
        return si == s.count
    }

    /// `[…]` at `start`: whether `byte` is in it, and the index of its `]`; nil when unclosed.
    private static func matchClass(_ p: UnsafeBufferPointer<UInt8>, _ start: Int, _ byte: UInt8) -> (Bool, Int)? {
        var i = start + 1
        var negate = false
        if i < p.count, p[i] == bang || p[i] == caret {
            negate = true
            i += 1
        }
        var matched = false
        var first = true
        while i < p.count {
            let c = p[i]
            if c == close, !first { return (matched != negate, i) }
            first = false
            if i + 2 < p.count, p[i + 1] == dash, p[i + 2] != close {
                if c <= byte, byte <= p[i + 2] { matched = true }
                i += 3
            } else {
                if c == byte { matched = true }
                i += 1
            }
        }
        return nil
    }
}
