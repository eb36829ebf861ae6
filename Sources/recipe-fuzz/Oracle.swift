import RecipeCore
import RecipeLanguage

/// What must hold for every input: checking never crashes or hangs (the watchdog catches those),
/// and a recipe without errors survives `recipe fmt`:
///
/// 1. it has a graph;
/// 2. `RecipePrinter.format` returns text;
/// 3. that text checks with no errors;
/// 4. to a graph with the same `signature`;
/// 5. and formatting it again gives the same text.
///
/// ```swift
/// let oracle = Oracle()
/// let verdict = oracle.judge(Array("format: dev.recipe.edit\n".utf8))
/// verdict.hasErrors        // true (no version, no stages)
/// verdict.violation        // nil
/// ```
struct Oracle {
    /// The path the input is checked under (file references resolve beside it).
    static let path = "fuzz.recipe.yaml"

    var options: CheckOptions = {
        var o = CheckOptions()
        // Deterministic whatever the current folder holds: LUT paths are checked for shape and
        // containment, not existence.
        o.checkFilesExist = false
        return o
    }()

    /// A broken property, with what was seen.
    struct Violation {
        /// `no-graph`, `fmt-nil`, `fmt-errors`, `fmt-signature`, `fmt-unstable`.
        let kind: String
        /// The specifics (the first diagnostic, both signatures, both texts).
        let detail: String
        /// Groups findings that are the same bug: the kind and, for `fmt-errors`, the code and
        /// the message without quoted text and digits.
        let key: String
    }

    /// The outcome for one input.
    struct Verdict {
        let hasErrors: Bool
        let violation: Violation?
        /// Cheap coverage features (diagnostic kinds, graph node shapes) for corpus growth.
        let features: [UInt64]
    }

    func judge(_ input: [UInt8], wantFeatures: Bool = true) -> Verdict {
        let checked = RecipeChecker.check(SourceFile(path: Self.path, bytes: input), options: options)
        let features = wantFeatures ? Self.features(of: checked) : []
        guard !checked.hasErrors else { return Verdict(hasErrors: true, violation: nil, features: features) }
        return Verdict(hasErrors: false, violation: roundTrip(checked), features: features)
    }

    func roundTrip(_ checked: CheckedRecipe) -> Violation? {
        guard let graph = checked.graph else {
            return Violation(kind: "no-graph", detail: "no error diagnostics, but no graph", key: "no-graph")
        }
        guard let text = RecipePrinter.format(checked) else {
            return Violation(kind: "fmt-nil", detail: "RecipePrinter.format returned nil for a recipe without errors", key: "fmt-nil")
        }
        let again = RecipeChecker.check(SourceFile(path: Self.path, text: text), options: options)
        if again.hasErrors {
            let first = again.diagnostics.first { $0.severity == .error }!
            return Violation(kind: "fmt-errors",
                             detail: "the formatted text has errors: \(first)\n--- formatted text:\n\(text)",
                             key: "fmt-errors " + first.code.rawValue + " " + Self.skeleton(first.message))
        }
        let signature = graph.signature, signatureAgain = again.graph?.signature ?? "(no graph)"
        if signature != signatureAgain {
            return Violation(kind: "fmt-signature",
                             detail: "the formatted text means something else:\n--- original graph:\n\(signature)--- formatted graph:\n\(signatureAgain)--- formatted text:\n\(text)",
                             key: "fmt-signature " + Self.signatureDifference(signature, signatureAgain))
        }
        guard let text2 = RecipePrinter.format(again) else {
            return Violation(kind: "fmt-nil", detail: "RecipePrinter.format returned nil for its own output", key: "fmt-nil-again")
        }
        if text2 != text {
            return Violation(kind: "fmt-unstable",
                             detail: "formatting the formatted text changes it:\n--- first:\n\(text)--- second:\n\(text2)",
                             key: "fmt-unstable " + Self.textDifference(text, text2))
        }
        return nil
    }

    /// What differs between two graph signatures, without the values: the op of the first
    /// differing node line and the names of its differing `name=value` fields (`vignette amount`).
    static func signatureDifference(_ a: String, _ b: String) -> String {
        let la = a.split(separator: "\n"), lb = b.split(separator: "\n")
        if la.count != lb.count { return "node count" }
        for (x, y) in zip(la, lb) where x != y {
            let tx = x.split(separator: " "), ty = y.split(separator: " ")
            let op = tx.count > 1 ? String(tx[1]) : "?"
            let fields = Set(tx).symmetricDifference(Set(ty)).map { $0.split(separator: "=").first.map(String.init) ?? "" }
            return op + " " + Set(fields).sorted().joined(separator: ",")
        }
        return "?"
    }

    /// Whether two printed texts differ only in comment lines (`comments`) or also in others (`text`).
    static func textDifference(_ a: String, _ b: String) -> String {
        func code(_ s: String) -> [Substring] {
            s.split(separator: "\n").map { line in
                if let hash = line.firstIndex(of: "#") { return line[..<hash].drop { $0 == " " } } else { return line }
            }.map { line in Substring(String(line.reversed().drop { $0 == " " }.reversed())) }.filter { !$0.isEmpty }
        }
        return code(a) == code(b) ? "comments" : "text"
    }

    // MARK: - features

    static func features(of checked: CheckedRecipe) -> [UInt64] {
        var out: [UInt64] = []
        for d in checked.diagnostics {
            var h = FNV()
            h.add(d.code.rawValue)
            h.add(skeleton(d.message))
            out.append(h.value)
        }
        if let graph = checked.graph {
            for node in graph.nodes {
                var h = FNV()
                h.add("node")
                h.add(node.op)
                h.add(node.mask?.kind ?? "-")
                h.add(String(node.inputs.count))
                h.add(node.bindings.isEmpty ? "" : "bound")
                h.add(node.stageID == nil ? "" : "id")
                out.append(h.value)
            }
            var h = FNV()
            h.add("migrated \(checked.migrations.count) stages \(min(checked.stages.count, 8))")
            out.append(h.value)
        }
        return out
    }

    /// `message` without backquoted text and digits: the same mistake on other values reads the same.
    static func skeleton(_ message: String) -> String {
        var out = ""
        var quoted = false
        for u in message.unicodeScalars {
            if u == "`" { quoted.toggle(); continue }
            if quoted || (u.value >= 48 && u.value <= 57) { continue }
            out.unicodeScalars.append(u)
        }
        return out
    }
}

/// 64-bit FNV-1a.
struct FNV {
    var value: UInt64 = 0xcbf2_9ce4_8422_2325
    mutating func add(_ s: String) {
        for b in s.utf8 {
            value ^= UInt64(b)
            value &*= 0x100_0000_01b3
        }
        value ^= 0xFF
        value &*= 0x100_0000_01b3
    }
}

/// Shrinks an input while a predicate keeps holding: whole lines first, then byte runs of halving
/// length, then single bytes simplified to spaces. Bounded by `budget` predicate calls.
///
/// ```swift
/// let small = Minimizer.minimize(input, budget: 20_000) { oracle.judge($0).violation?.key == key }
/// ```
enum Minimizer {
    static func minimize(_ input: [UInt8], budget: Int, _ holds: ([UInt8]) -> Bool) -> [UInt8] {
        var best = input
        var calls = 0
        func attempt(_ candidate: [UInt8]) -> Bool {
            guard calls < budget else { return false }
            calls += 1
            Watchdog.begin(candidate)
            if holds(candidate) { best = candidate; return true }
            return false
        }
        var changed = true
        while changed && calls < budget {
            changed = false
            // Lines, last first.
            var starts = [0] + best.indices.filter { best[$0] == UInt8(ascii: "\n") }.map { $0 + 1 }
            starts = starts.filter { $0 < best.count }
            for start in starts.reversed() {
                guard start < best.count else { continue }
                var end = start
                while end < best.count, best[end] != UInt8(ascii: "\n") { end += 1 }
                end = min(best.count, end + 1)
                var candidate = best
                candidate.removeSubrange(start..<end)
                if attempt(candidate) { changed = true }
            }
            // Whitespace-separated words (a tag, an anchor, a flow entry), with the blank after them.
            var w = 0
            while w < best.count && calls < budget {
                let isBlank = { (b: UInt8) in b == UInt8(ascii: " ") || b == UInt8(ascii: "\n") }
                guard !isBlank(best[w]), w == 0 || isBlank(best[w - 1]) else { w += 1; continue }
                var end = w
                while end < best.count, !isBlank(best[end]) { end += 1 }
                if end < best.count, best[end] == UInt8(ascii: " ") { end += 1 }
                var candidate = best
                candidate.removeSubrange(w..<end)
                if attempt(candidate) { changed = true } else { w = end }
            }
            // Byte runs.
            var size = max(1, best.count / 2)
            while size >= 1 && calls < budget {
                var i = 0
                while i < best.count && calls < budget {
                    let end = min(best.count, i + size)
                    var candidate = best
                    candidate.removeSubrange(i..<end)
                    if attempt(candidate) { changed = true } else { i += size }
                }
                size /= 2
            }
        }
        return best
    }
}
