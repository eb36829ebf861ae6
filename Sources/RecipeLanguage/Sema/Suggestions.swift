/// "Did you mean …?" for near-miss names: the closest candidate by edit distance, after
/// normalising the spellings people reach for (`white_balance`, `whiteBalance`, `WB`…).
public enum Suggestions {
    /// The best candidate for `word`, or nil when nothing is close enough to be a useful guess.
    /// Candidates beyond this many get no guess: the guess costs an edit distance per candidate,
    /// and a hostile recipe with thousands of ids must not turn each mistake into seconds of work.
    static let maxCandidates = 256

    public static func closest(to word: String, in candidates: some Collection<String>) -> String? {
        guard candidates.count <= maxCandidates, word.utf8.count <= 64 else { return nil }
        let normal = normalise(word)
        var best: (String, Int)?
        for candidate in candidates {
            if normalise(candidate) == normal { return candidate }
            let d = distance(Array(normal.utf8), Array(candidate.utf8))
            if d <= max(1, min(3, candidate.count / 3)), d < (best?.1 ?? .max) { best = (candidate, d) }
        }
        return best?.0
    }

    /// kebab-case from snake_case and camelCase, lower case.
    static func normalise(_ word: String) -> String {
        var out = ""
        for (i, ch) in word.enumerated() {
            if ch == "_" || ch == " " { out.append("-"); continue }
            if ch.isUppercase, i > 0, !out.hasSuffix("-") { out.append("-") }
            out.append(contentsOf: ch.lowercased())
        }
        return out
    }

    /// Damerau–Levenshtein (optimal string alignment) distance over UTF-8 bytes; names are ASCII.
    static func distance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var v = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { v = min(v, previous2[j - 2] + 1) }
                current[j] = v
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }

    /// `a`, `b` or `c` — a list of names for a note.
    static func list(_ names: [String], conjunction: String = "or", limit: Int = .max) -> String {
        if names.count > limit {
            return names.prefix(limit).map { "`\($0)`" }.joined(separator: ", ") + " \(conjunction) \(names.count - limit) more"
        }
        let quoted = names.map { "`\($0)`" }
        if quoted.count <= 2 { return quoted.joined(separator: " \(conjunction) ") }
        return quoted.dropLast().joined(separator: ", ") + " \(conjunction) " + quoted.last!
    }
}
