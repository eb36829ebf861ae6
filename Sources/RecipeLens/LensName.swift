/// A lens's name taken apart the same way whether a file or lensfun's database spells it: the
/// maker it names, its focal range, its widest apertures and the rest as a set of words. Two
/// spellings of one lens then compare equal although their texts differ: "AF Nikkor 35mm f/2D" and
/// "Nikon AF Nikkor 35mm f/2.0D" are both 35 mm, f/2, {af, nikkor, d}, the second naming Nikon.
///
/// ```swift
/// let n = LensName("E PZ 18-105mm F4 G OSS")
/// n.focal          // 18...105
/// n.aperture       // (4, nil)
/// n.words          // ["e", "pz", "g", "oss"]
/// LensName("LUMIX G 20/F1.7 II").focal   // 20...20 (Panasonic's "focal/aperture" form)
/// ```
struct LensName: Sendable, Hashable {
    /// The maker a word of the name gives ("Sigma 19mm …", "LUMIX G …"), nil when none does.
    var maker: String?
    var focal: ClosedRange<Double>?
    /// The widest f-number at the short end, and at the long end when the name gives one.
    var aperture: (wide: Double, tele: Double?)?
    /// The other words in lower case, maker words removed, in order.
    var words: [String]

    static func == (a: LensName, b: LensName) -> Bool {
        a.maker == b.maker && a.focal == b.focal && a.aperture?.wide == b.aperture?.wide && a.aperture?.tele == b.aperture?.tele
            && a.words == b.words && a.lineWords == b.lineWords
    }

    func hash(into h: inout Hasher) {
        h.combine(maker)
        h.combine(focal)
        h.combine(words)
    }

    /// Words that say nothing about which lens it is, dropped: units, fillers, "Mark" before a
    /// version number.
    static let fillers: Set<String> = ["mm", "f", "lens", "for", "mount", "mark", "mk", "with", "and", "compatibles", "standard"]
    /// Spellings of one word.
    static let synonyms: [String: String] = [
        "contemporary": "c", "art": "a", "sports": "s", "aspherical": "asph", "asp": "asph", "aspheric": "asph",
        "ⅱ": "ii", "ⅲ": "iii",
    ]

    init(_ text: String) {
        var s = Array(text.lowercased().unicodeScalars.map { Character($0) })
        // "F1,2": a decimal comma between digits is a point.
        for i in s.indices.dropFirst().dropLast() where s[i] == "," && s[i - 1].isNumber && s[i + 1].isNumber { s[i] = "." }
        // Tokina's "AT-X" is one word, split by the hyphen below otherwise.
        var rest = String(s).replacing("at-x", with: "atx")
        focal = LensName.takeFocal(&rest)
        aperture = LensName.takeAperture(&rest)
        var words: [String] = []
        var line: Set<String> = []
        // Sigma writes its line and year after a bar ("DC DN | Contemporary 018", "DG HSM | A"),
        // which names often leave out.
        let bar = rest.firstIndex(of: "|")
        for raw in rest.split(whereSeparator: { !($0.isLetter || $0.isNumber) }) {
            var w = String(raw)
            if LensName.fillers.contains(w) { continue }
            w = LensName.synonyms[w] ?? w
            // "MkII", "MarkIII": the version alone.
            for prefix in ["mk", "mark"] where w.hasPrefix(prefix) && ["i", "ii", "iii", "iv", "v"].contains(String(w.dropFirst(prefix.count))) {
                w = String(w.dropFirst(prefix.count))
            }
            words.append(w)
            if let bar, raw.startIndex > bar { line.insert(w) }
        }
        maker = LensMaker.named(in: words)
        self.words = words.filter { w in LensMaker.aliases[w] == nil || w == "hd" }
        lineWords = line
    }

    /// The words after a "|".
    var lineWords: Set<String> = []

    /// Words a name may have or lack without naming another lens: all-digit words (Sigma's year
    /// "018", the lens numbers lensfun appends: "… f/2D 66"), Tamron's model codes ("A009",
    /// "B008", "A16") and Sigma's line after a bar.
    var weakWords: Set<String> {
        Set(words.filter { w in
            w.allSatisfy(\.isNumber) || lineWords.contains(w)
                || (w.count >= 3 && w.count <= 5 && w.first!.isLetter && w.dropFirst().prefix(2).allSatisfy(\.isNumber)
                    && w.dropFirst(3).allSatisfy { $0.isNumber || $0.isLetter } && w.filter(\.isNumber).count >= 2)
        })
    }
    /// The words that tell lenses apart.
    var strongWords: Set<String> { Set(words).subtracting(weakWords) }

    /// Removes and returns the focal length: "18-105mm", "35 mm", "20/f1.7" (Panasonic), or a bare
    /// range before the aperture ("28-300 f3.5-5.6").
    static func takeFocal(_ s: inout String) -> ClosedRange<Double>? {
        let chars = Array(s)
        var i = 0
        var bare: (range: Range<Int>, value: ClosedRange<Double>)?
        while i < chars.count {
            guard chars[i].isNumber, i == 0 || !chars[i - 1].isNumber, !isAperture(chars, i) else {
                i += 1
                continue
            }
            guard let (low, afterLow) = number(chars, i) else { i += 1; continue }
            var high = low, end = afterLow
            var j = skipSpaces(chars, afterLow)
            if j < chars.count, chars[j] == "-", let (h, afterHigh) = number(chars, skipSpaces(chars, j + 1)) {
                high = h
                end = afterHigh
                j = skipSpaces(chars, afterHigh)
            }
            let unitMM = j + 1 < chars.count && chars[j] == "m" && chars[j + 1] == "m"
            let slashF = j + 1 < chars.count && chars[j] == "/" && chars[skipSpaces(chars, j + 1)] == "f"
            if unitMM || slashF, low > 0, high >= low {
                let stop = unitMM ? j + 2 : j + 1
                s = String(chars[..<i]) + " " + String(chars[stop...])
                return low...high
            }
            if bare == nil, high > low, high >= 8 { bare = (i..<end, low...high) }
            i = end
        }
        if let bare {
            s = String(chars[..<bare.range.lowerBound]) + " " + String(chars[bare.range.upperBound...])
            return bare.value
        }
        return nil
    }

    /// Removes and returns the widest apertures: "f/2.8", "f2.8", "f/3.5-5.6", "F4", and "1:2.8"
    /// when no f-number is written (a "1:2" after "Macro" is a magnification, not an aperture).
    static func takeAperture(_ s: inout String) -> (wide: Double, tele: Double?)? {
        let chars = Array(s)
        for form in 0..<2 {
            var i = 0
            while i < chars.count {
                let start = i
                var j: Int
                if form == 0 {
                    guard chars[i] == "f", i == 0 || !chars[i - 1].isLetter else { i += 1; continue }
                    j = skipSpaces(chars, i + 1)
                    if j < chars.count, chars[j] == "/" { j = skipSpaces(chars, j + 1) }
                } else {
                    guard chars[i] == "1", i == 0 || !chars[i - 1].isNumber, i + 1 < chars.count, chars[i + 1] == ":" else { i += 1; continue }
                    if String(chars[..<i]).hasSuffix("macro ") { i += 1; continue }
                    j = skipSpaces(chars, i + 2)
                }
                guard let (wide, afterWide) = number(chars, j), wide > 0, wide < 100 else { i += 1; continue }
                var end = afterWide, tele: Double?
                let k = skipSpaces(chars, afterWide)
                if k < chars.count, chars[k] == "-", let (t, afterTele) = number(chars, skipSpaces(chars, k + 1)) {
                    tele = t
                    end = afterTele
                }
                s = String(chars[..<start]) + " " + String(chars[end...])
                return (wide, tele)
            }
        }
        return nil
    }

    /// Whether the number at `i` is an f-number ("f/2.8", "f 4") or follows a decimal point or a
    /// ratio's colon ("1:2.8"), rather than a focal length ("ef50mm", "m.12-40mm").
    private static func isAperture(_ c: [Character], _ i: Int) -> Bool {
        var j = i - 1
        while j >= 0, c[j] == " " { j -= 1 }
        if j >= 0, c[j] == "/" { j -= 1 }
        while j >= 0, c[j] == " " { j -= 1 }
        guard j >= 0 else { return false }
        if c[j] == ":" || (c[j] == "." && j > 0 && c[j - 1].isNumber) { return true }
        return c[j] == "f" && (j == 0 || !c[j - 1].isLetter)
    }

    private static func skipSpaces(_ c: [Character], _ i: Int) -> Int {
        var i = i
        while i < c.count, c[i] == " " { i += 1 }
        return i
    }

    /// A decimal number at `i` and the index after it.
    private static func number(_ c: [Character], _ i: Int) -> (Double, Int)? {
        var j = i
        while j < c.count, c[j].isNumber { j += 1 }
        guard j > i else { return nil }
        if j + 1 < c.count, c[j] == ".", c[j + 1].isNumber {
            j += 1
            while j < c.count, c[j].isNumber { j += 1 }
        }
        return Double(String(c[i..<j])).map { ($0, j) }
    }
}
