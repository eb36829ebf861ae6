import RecipeOps

/// Turns one corpus entry into a new input by stacking one to a few mutations: byte-level ones
/// (flips, random runs, deletions, duplications), YAML-aware ones (tokens that mean something to a
/// YAML reader, line moves, indentation changes, duplicate keys), recipe-aware ones (op, key and
/// param names swapped, numbers replaced by boundary values), splices of two entries, and
/// generators of hostile shapes (alias bombs, deep nesting, huge repeats).
///
/// ```swift
/// var mutator = Mutator(maxLength: 4096)
/// let input = mutator.mutate(seed, other: anotherSeed, random: &random)
/// ```
struct Mutator {
    let maxLength: Int

    /// The kinds of mutation, each with its weight in `pickKind`.
    enum Kind: CaseIterable {
        case flipBit, setByte, insertRandom, deleteRun, duplicateRun, splice, insertToken, replaceNumber,
             swapWord, duplicateKey, lineEdit, indent, replaceScalar, hugeRepeat, deepNesting, aliasBomb
    }

    static let weights: [(Kind, Int)] = [
        (.flipBit, 4), (.setByte, 4), (.insertRandom, 3), (.deleteRun, 6), (.duplicateRun, 4), (.splice, 5),
        (.insertToken, 12), (.replaceNumber, 10), (.swapWord, 10), (.duplicateKey, 4), (.lineEdit, 8),
        (.indent, 5), (.replaceScalar, 10), (.hugeRepeat, 1), (.deepNesting, 1), (.aliasBomb, 1),
    ]
    static let totalWeight = weights.reduce(0) { $0 + $1.1 }

    /// Tokens a YAML reader treats specially, and values at the edges of what a recipe accepts.
    static let tokens: [[UInt8]] = [
        "{", "}", "[", "]", ": ", ":", "- ", "-", "#", " #", "# c", "&a ", "*a", "&b ", "*b", "!!str ", "!!int ",
        "!!float ", "!!map ", "!!seq ", "!!null ", "!!bool ", "!!binary ", "!foo ", "!<tag:yaml.org,2002:str> ", "---\n", "--- ",
        "...\n", "...", "\"", "'", "|", "|-\n", ">", ">+\n", "\t", "\n", "\r\n", "\r", " ", "  ", "$", "$warmth", "$lift",
        "? ", ",", ", ", "%", "%YAML 1.2\n", "%TAG ! tag:x,2000:\n", "@", "`", "\\", "\\u", "\u{0}", "\u{FEFF}", "~", "null",
        "true", "false", "yes", "no", "on", "\u{2028}", "é", "\u{1F600}", "px", "%", "deg", "e", "E", "+", ".",
        "1e309", "-1e309", "-0", "+0", ".nan", ".NaN", ".inf", "-.inf", "0x1F", "0o17", "1_000", "3:2", "1e-400",
        "4.9e-324", "1.7976931348623157e308", "9223372036854775808", "-9223372036854775809",
        "1" + String(repeating: "0", count: 400), "0." + String(repeating: "0", count: 60) + "1",
        "id: a\n", "input: a\n", "enabled: false\n", "mask: {radial: {}}\n", "note: x\n",
        "stages:\n", "params: {}\n", "format: dev.recipe.edit\n", "version: 1.0\n", "version: 2.0\n",
        String(repeating: "[", count: 70), String(repeating: "{a: ", count: 70), String(repeating: "- ", count: 70),
        String(repeating: "]", count: 70), String(repeating: "}", count: 70),
    ].map { Array($0.utf8) } + [[0xC3], [0xFF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xC0, 0xAF]]

    /// Replacement numbers: range edges of the ops, just outside them, and values that stress parsing.
    static let numbers: [String] = [
        "0", "-0", "+0", "1", "-1", "0.5", "2", "4", "5", "8", "10", "-10", "10.000000000000002", "20", "45", "-45",
        "90", "180", "-180", "270", "100", "100.0001", "150", "-150", "1000", "1001", "2000", "1999.9999", "50000",
        "50001", "0.001", "0.0009", "0.1", ".5", "5.", "1e2", "1E-2", "1e309", "-1e309", "1e-309", "4.9e-324",
        "1.7976931348623157e308", "9007199254740993", "2147483648", "65535", "999999999.5", "1e9",
        "99999999999999999999999999999999999999999", "1" + String(repeating: "0", count: 300), ".nan", ".inf",
        "-.inf", "nan", "inf", "0x10", "1_0", "1e", "--1", "1..2", "1e+", "0.30000000000000004", "6000", "4000",
        "3000", "50%", "100%", "101%", "-1%", "12px", "0px", "1px", "1000px", "1001px", "3pt", "30deg", "360deg",
        // In range but long when printed shortest: push flow values past the printer's width limit.
        "0.123456789012345", "0.9999999999999999", "0.30000000000000004", "1e-7", "0.000001", "5e-324",
        "-0.987654321098765", "0.1234567", "0.7654321",
    ]

    /// Words of the language (ops, masks, stage and top-level keys, every param name) and near misses.
    static let words: [String] = {
        var words = Set<String>()
        for op in Operations.all {
            words.insert(op.name)
            for p in op.params { words.insert(p.name) }
            for m in op.migrations { for k in m.oldKeys { words.insert(k) } }
        }
        for mask in Operations.masks {
            words.insert(mask.name)
            for p in mask.params { words.insert(p.name) }
        }
        words.formUnion(["id", "input", "enabled", "mask", "note", "format", "version", "params", "stages", "default",
                         "doc", "true", "false", "null", "auto", "none", "normal", "multiply", "soft-light", "rgb",
                         "horizontal", "vertical", "center", "top-left", "lanczos3", "crop", "expand", "tetrahedral",
                         "base", "soft", "glow", "sky", "warmth", "lift", "dev.recipe.edit", "com.adobe.crs", "exposur",
                         "Exposure", "white_balance", "a", "-a", "a-", "a--b", "x", ""])
        return words.sorted()
    }()

    init(maxLength: Int) { self.maxLength = maxLength }

    /// A new input made from `base` (and `other`, for splices) by one to a few stacked mutations.
    func mutate(_ base: [UInt8], other: [UInt8], random: inout Xoshiro) -> [UInt8] {
        var data = base
        let count = random.chance(0.6) ? 1 : random.inRange(2...4)
        for _ in 0..<count {
            apply(pickKind(&random), to: &data, other: other, random: &random)
            if data.count > maxLength { data.removeSubrange(maxLength...) }
        }
        return data
    }

    func pickKind(_ random: inout Xoshiro) -> Kind {
        var r = random.below(Self.totalWeight)
        for (kind, weight) in Self.weights {
            if r < weight { return kind }
            r -= weight
        }
        return .flipBit
    }

    func apply(_ kind: Kind, to data: inout [UInt8], other: [UInt8], random: inout Xoshiro) {
        switch kind {
        case .flipBit:
            guard !data.isEmpty else { return }
            data[random.below(data.count)] ^= UInt8(1 << random.below(8))
        case .setByte:
            guard !data.isEmpty else { return }
            data[random.below(data.count)] = randomByte(&random)
        case .insertRandom:
            let n = random.small(16)
            data.insert(contentsOf: (0..<n).map { _ in randomByte(&random) }, at: random.below(data.count + 1))
        case .deleteRun:
            guard !data.isEmpty else { return }
            let start = random.below(data.count)
            let n = min(data.count - start, random.small(random.chance(0.2) ? 256 : 16))
            data.removeSubrange(start..<(start + n))
        case .duplicateRun:
            guard !data.isEmpty else { return }
            let start = random.below(data.count)
            let n = min(data.count - start, random.small(64))
            let run = Array(data[start..<(start + n)])
            data.insert(contentsOf: run, at: random.chance(0.5) ? start + n : random.below(data.count + 1))
        case .splice:
            let cutA = boundary(in: data, random: &random)
            let cutB = boundary(in: other, random: &random)
            data = Array(data[..<cutA]) + Array(other[cutB...])
        case .insertToken:
            let token = random.pick(Self.tokens)
            data.insert(contentsOf: token, at: tokenPosition(in: data, random: &random))
        case .replaceNumber:
            replaceNumber(in: &data, random: &random)
        case .swapWord:
            swapWord(in: &data, random: &random)
        case .duplicateKey:
            duplicateKey(in: &data, random: &random)
        case .lineEdit:
            lineEdit(&data, random: &random)
        case .indent:
            let lines = lineStarts(data)
            let at = random.pick(lines)
            if random.chance(0.5), at < data.count, data[at] == UInt8(ascii: " ") {
                data.removeSubrange(at..<min(data.count, at + random.inRange(1...2)))
            } else {
                data.insert(contentsOf: [UInt8](repeating: UInt8(ascii: random.chance(0.95) ? " " : "\t"), count: random.inRange(1...4)), at: at)
            }
        case .replaceScalar:
            replaceScalar(in: &data, random: &random)
        case .hugeRepeat:
            guard !data.isEmpty else { return }
            let start = random.below(data.count)
            let n = min(data.count - start, random.small(24))
            let run = Array(data[start..<(start + n)])
            let times = max(1, (maxLength - data.count) / max(1, n))
            var repeated: [UInt8] = []
            repeated.reserveCapacity(times * n)
            for _ in 0..<random.inRange(1...max(1, times)) { repeated += run }
            data.insert(contentsOf: repeated, at: start)
        case .deepNesting:
            let depth = random.pick([10, 63, 64, 65, 100, 1000, 3000])
            let open = random.pick(["[", "{a: ", "- ", "{", "[{a: "])
            let close = open == "[" ? "]" : open.hasPrefix("{") ? "}" : open == "[{a: " ? "}]" : ""
            var text = String(repeating: open, count: depth) + "1"
            if random.chance(0.7) { text += String(repeating: close, count: depth) }
            data.insert(contentsOf: Array(text.utf8), at: tokenPosition(in: data, random: &random))
        case .aliasBomb:
            data = aliasBomb(random: &random)
        }
    }

    // MARK: - pieces

    func randomByte(_ random: inout Xoshiro) -> UInt8 {
        if random.chance(0.8) {
            let interesting = Array("{}[]:-#&*!|>'\"%@`,?~$ \n\t.0123456789eE+".utf8)
            return random.pick(interesting)
        }
        return UInt8(truncatingIfNeeded: random.next())
    }

    /// A line start most of the time, anywhere otherwise.
    func boundary(in data: [UInt8], random: inout Xoshiro) -> Int {
        if random.chance(0.7) { return random.pick(lineStarts(data)) }
        return random.below(data.count + 1)
    }

    /// Where a token goes: after `: ` or `- `, at a line start, at a line end, or anywhere.
    func tokenPosition(in data: [UInt8], random: inout Xoshiro) -> Int {
        switch random.below(4) {
        case 0:
            let spots = data.indices.filter {
                $0 >= 2 && data[$0 - 1] == UInt8(ascii: " ") && (data[$0 - 2] == UInt8(ascii: ":") || data[$0 - 2] == UInt8(ascii: "-"))
            }
            return spots.isEmpty ? random.below(data.count + 1) : random.pick(spots)
        case 1: return random.pick(lineStarts(data))
        case 2:
            let ends = data.indices.filter { data[$0] == UInt8(ascii: "\n") }
            return ends.isEmpty ? data.count : random.pick(ends)
        default: return random.below(data.count + 1)
        }
    }

    func lineStarts(_ data: [UInt8]) -> [Int] {
        var starts = [0]
        for (i, b) in data.enumerated() where b == UInt8(ascii: "\n") && i + 1 <= data.count { starts.append(i + 1) }
        return starts
    }

    /// The byte ranges of the lines, each with its newline.
    func lines(_ data: [UInt8]) -> [Range<Int>] {
        let starts = lineStarts(data)
        return starts.indices.map { i in starts[i]..<(i + 1 < starts.count ? starts[i + 1] : data.count) }
            .filter { !$0.isEmpty }
    }

    static func isNumberByte(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: ".") || b == UInt8(ascii: "-")
            || b == UInt8(ascii: "+") || b == UInt8(ascii: "e") || b == UInt8(ascii: "E")
    }

    static func isWordByte(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
            || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "-") || b == UInt8(ascii: "_")
            || b == UInt8(ascii: ".")
    }

    /// Runs of bytes satisfying `inside` that start with a byte satisfying `first`.
    func runs(in data: [UInt8], first: (UInt8) -> Bool, inside: (UInt8) -> Bool) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var i = 0
        while i < data.count {
            if first(data[i]), i == 0 || !inside(data[i - 1]) {
                var j = i + 1
                while j < data.count, inside(data[j]) { j += 1 }
                result.append(i..<j)
                i = j
            } else {
                i += 1
            }
        }
        return result
    }

    func replaceNumber(in data: inout [UInt8], random: inout Xoshiro) {
        let numbers = runs(in: data, first: { ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") },
                           inside: Self.isNumberByte)
        guard !numbers.isEmpty else { return }
        let range = random.pick(numbers)
        data.replaceSubrange(range, with: Array(random.pick(Self.numbers).utf8))
    }

    func swapWord(in data: inout [UInt8], random: inout Xoshiro) {
        let words = runs(in: data, first: { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }, inside: Self.isWordByte)
        guard !words.isEmpty else { return }
        data.replaceSubrange(random.pick(words), with: Array(random.pick(Self.words).utf8))
    }

    /// Repeats a `key: value` line right after itself (or a flow `key: value,` entry), so the
    /// mapping gets the same key twice.
    func duplicateKey(in data: inout [UInt8], random: inout Xoshiro) {
        let keyed = lines(data).filter { range in data[range].contains(UInt8(ascii: ":")) }
        if !keyed.isEmpty, random.chance(0.7) {
            let line = random.pick(keyed)
            var copy = Array(data[line])
            // `- key: v` duplicated as `  key: v`, so the copy joins the same stage mapping.
            if let dash = copy.firstIndex(where: { $0 != UInt8(ascii: " ") }), copy[dash] == UInt8(ascii: "-") {
                copy[dash] = UInt8(ascii: " ")
            }
            if copy.last != UInt8(ascii: "\n") { copy.append(UInt8(ascii: "\n")); data.append(UInt8(ascii: "\n")) }
            data.insert(contentsOf: copy, at: min(line.upperBound, data.count))
            return
        }
        // Flow: `{a: 1, …` → `{a: 1, a: 1, …`.
        let opens = data.indices.filter { data[$0] == UInt8(ascii: "{") }
        guard let open = opens.isEmpty ? nil : random.pick(opens) else { return }
        var end = open + 1
        while end < data.count, ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "\n")].contains(data[end]) { end += 1 }
        let entry = Array(data[(open + 1)..<end])
        data.insert(contentsOf: entry + Array(", ".utf8), at: open + 1)
    }

    func lineEdit(_ data: inout [UInt8], random: inout Xoshiro) {
        let all = lines(data)
        guard !all.isEmpty else { return }
        let a = random.pick(all)
        var line = Array(data[a])
        if line.last != UInt8(ascii: "\n") { line.append(UInt8(ascii: "\n")) }
        switch random.below(4) {
        case 0: data.insert(contentsOf: line, at: a.upperBound)  // duplicate
        case 1: data.removeSubrange(a)  // delete
        case 2:  // move elsewhere
            data.removeSubrange(a)
            data.insert(contentsOf: line, at: random.pick(lineStarts(data)))
        default:  // replace with a line of the language
            let samples = ["  - exposure: 0.3\n", "    mask: {gradient: {}}\n", "  - id: a\n", "    input: a\n",
                           "params: {a: 1}\n", "  - blend: a\n", "    enabled: false\n", "# comment\n", "\n",
                           "  - vignette: {intensity: 0.5}\n", "  - crop: {aspect: \"3:2\"}\n", "stages: []\n",
                           "version: 1.0\n", "  - exposure: $a\n", "    note: |\n      text\n", "  - invert:\n"]
            data.replaceSubrange(a, with: Array(random.pick(samples).utf8))
        }
    }

    /// Replaces the value after a `: ` (or a list item) with a value that means something else
    /// to YAML or to the checker.
    func replaceScalar(in data: inout [UInt8], random: inout Xoshiro) {
        let values = [".nan", "1e309", "-0", "~", "null", "", "true", "yes", "No", "\"\"", "''", "\"0.5\"", "[]", "{}",
                      "[0.5, 0.5]", "[[0, 0], [1, 1]]", "[1, 2, 3]", "$warmth", "$", "$nope", "!!str 0.5", "&x 1", "*x",
                      "\"#996633\"", "#996633", "\"3:2\"", "3:2", "50%", "12px", "1.5e2px", "0x1p3", "a\\tb", "\"\\x00\"",
                      "\"\\uD800\"", "|\n  x\n", ">-\n  y\n", "base", "sky", "- a", "? a", "@x", "`x`", "'", "\""]
        var spots: [Range<Int>] = []
        var i = 0
        while i + 1 < data.count {
            if (data[i] == UInt8(ascii: ":") || data[i] == UInt8(ascii: "-")) && data[i + 1] == UInt8(ascii: " ") {
                var j = i + 2
                while j < data.count, ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: "\n"), UInt8(ascii: "#")].contains(data[j]) { j += 1 }
                while j > i + 2, data[j - 1] == UInt8(ascii: " ") { j -= 1 }
                spots.append((i + 2)..<j)
            }
            i += 1
        }
        guard !spots.isEmpty else { return }
        data.replaceSubrange(random.pick(spots), with: Array(random.pick(values).utf8))
    }

    /// A recipe whose anchors nest: level k is a list of `width` aliases of level k−1. Placed at
    /// a random spot of the recipe (a note, a knob's default, an op's value, an unknown top key),
    /// sometimes within the alias budget and sometimes far beyond it.
    func aliasBomb(random: inout Xoshiro) -> [UInt8] {
        let width = random.inRange(2...10)
        let levels = random.inRange(1...9)
        var lines: [String] = []
        var previous = "x"
        var anchorLines: [String] = []
        for level in 0..<levels {
            let items = level == 0 ? Array(repeating: "0.5", count: width) : Array(repeating: "*a\(level - 1)", count: width)
            anchorLines.append("&a\(level) [" + items.joined(separator: ", ") + "]")
            previous = "*a\(level)"
        }
        lines.append("format: dev.recipe.edit")
        lines.append("version: 1.1")
        switch random.below(4) {
        case 0:
            lines.append("params:")
            for (i, a) in anchorLines.enumerated() { lines.append("  k\(i): {default: \(a)}") }
            lines.append("stages:")
            lines.append("  - exposure: \(previous)")
        case 1:
            lines.append("bomb: [" + anchorLines.joined(separator: ", ") + "]")
            lines.append("stages: [\(previous), \(previous)]")
        case 2:
            lines.append("stages:")
            for a in anchorLines { lines.append("  - note: \(a)\n    invert: {}") }
            lines.append("  - curve: {points: \(previous)}")
        default:
            // Keys that are aliases of big nodes (duplicate-key and key-type checks on them).
            lines.append("stages:")
            for a in anchorLines { lines.append("  - {? \(a) : 1, exposure: 0.1}") }
            lines.append("  - {? \(previous) : 1, ? \(previous) : 2}")
        }
        return Array((lines.joined(separator: "\n") + "\n").utf8)
    }
}
