import RecipeCore

/// Canonical YAML text for scalars and flow collections: plain where a YAML reader would read the
/// same text back as the same string, double-quoted otherwise.
enum YAMLText {
    /// A string value: plain when safe, else double-quoted with escapes.
    static func string(_ s: String, inFlow: Bool = true) -> String { isPlainSafe(s, inFlow: inFlow) ? s : quoted(s) }

    static func quoted(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            // Line breaks to YAML (NEL, LS, PS) and the BOM must not appear raw.
            case "\u{85}": out += "\\N"
            case "\u{2028}": out += "\\L"
            case "\u{2029}": out += "\\P"
            case "\u{FEFF}": out += "\\uFEFF"
            case _ where u.value < 0x20 || (u.value >= 0x7F && u.value < 0xA0):
                let h = String(u.value, radix: 16)
                out += "\\x" + (h.count < 2 ? "0" : "") + h
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }

    /// Multi-line text as a literal block scalar (`|`, `|-`, `|+`) whose lines are indented by
    /// `indent` spaces, so embedded foreign data (an AAE property list, a recipe) stays readable
    /// and diffs line by line. Nil when the text is not multi-line or a block cannot carry it
    /// exactly (a BOM, a carriage return, control characters…); the result is read back with
    /// libyaml and only returned when it gives exactly `s` again.
    static func literalBlock(_ s: String, indent: Int, parentIndent: Int) -> String? {
        guard s.contains("\n"), s.utf8.count <= 4 << 20 else { return nil }
        for u in s.unicodeScalars {
            if u == "\n" || u == "\t" { continue }
            if u.value < 0x20 || (u.value >= 0x7F && u.value < 0xA0) || u.value == 0x2028 || u.value == 0x2029 || u.value == 0xFEFF { return nil }
        }
        var lines = s.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var trailingBreaks = 0
        while lines.count > 1, lines.last == "" {
            lines.removeLast()
            trailingBreaks += 1
        }
        let chomp = trailingBreaks == 0 ? "-" : trailingBreaks == 1 ? "" : "+"
        // Content whose first non-empty line starts with a blank needs the indentation stated.
        let firstContent = lines.first { !$0.isEmpty }
        let indicator = (firstContent?.first == " " || firstContent?.first == "\t") ? String(indent - parentIndent) : ""
        let pad = String(repeating: " ", count: indent)
        var out = "|" + indicator + chomp
        for line in lines { out += "\n" + (line.isEmpty ? "" : pad + line) }
        for _ in 0..<max(0, trailingBreaks - 1) { out += "\n" }
        // Read it back: only an exact round trip is written.
        let probe = String(repeating: " ", count: parentIndent) + "k: " + out + "\n"
        let (root, diagnostics) = YAMLReader.read(SourceFile(path: "-", text: probe))
        guard diagnostics.isEmpty, let value = root?.mapping?.first?.value.scalar, value == s else { return nil }
        return out
    }

    /// Canonical text of any value, in flow style: numbers in their shortest form, strings plain
    /// when safe, collections as `[…]` and `{…}`. Two values that read back the same have the same
    /// text, so `recipe fmt` writes it and `recipe diff` compares by it.
    ///
    /// ```yaml
    /// {ev: 0.30, list: [ 1.0 , "a"]}    →    {ev: 0.3, list: [1, a]}
    /// ```
    static func canonical(_ node: YAMLNode) -> String {
        switch node.content {
        case .scalar(let s, let style):
            if style == .plain {
                if node.isNull { return "null" }
                if let v = Double(s), v.isFinite, looksNumeric(s), !s.contains(":") { return NumberFormatting.shortest(v) }
                if s == "true" || s == "false" { return s }
                return isPlainSafe(s) || s.hasPrefix("$") ? s : quoted(s)
            }
            return string(s)
        case .sequence(let items):
            return "[" + items.map(canonical).joined(separator: ", ") + "]"
        case .mapping(let pairs):
            return "{" + pairs.map { "\(canonical($0.key)): \(canonical($0.value))" }.joined(separator: ", ") + "}"
        }
    }

    static let reservedWords: Set<String> = [
        "true", "false", "True", "False", "TRUE", "FALSE", "yes", "no", "Yes", "No", "YES", "NO",
        "on", "off", "On", "Off", "ON", "OFF", "y", "n", "Y", "N", "null", "Null", "NULL", "~",
    ]

    /// True when `s` can be written unquoted, also inside a flow collection, and reads back as
    /// the same string (not a number, boolean or null).
    static func isPlainSafe(_ s: String, inFlow: Bool = true) -> Bool {
        guard let first = s.unicodeScalars.first, let last = s.unicodeScalars.last else { return false }
        if reservedWords.contains(s) { return false }
        if " \t".unicodeScalars.contains(first) || " \t".unicodeScalars.contains(last) { return false }
        if "-?:,[]{}#&*!|>'\"%@`".unicodeScalars.contains(first) {
            // `-5` style numbers are not strings anyway; a leading dash followed by a letter is fine.
            if first == "-", s.count > 1, s.unicodeScalars.dropFirst().first.map({ CharacterSetLite.isLetter($0) }) == true {
            } else {
                return false
            }
        }
        if s.contains(": ") || s.contains(" #") || s.hasSuffix(":") { return false }
        for u in s.unicodeScalars {
            if u.value < 0x20 || (u.value >= 0x7F && u.value < 0xA0) || u.value == 0x2028 || u.value == 0x2029 || u.value == 0xFEFF { return false }
            if inFlow, ",[]{}".unicodeScalars.contains(u) { return false }
        }
        if looksNumeric(s) { return false }
        return true
    }

    /// Would a YAML 1.1 or 1.2 reader take this as a number (including 3:2 sexagesimal, 0x1f, .inf)?
    static func looksNumeric(_ s: String) -> Bool {
        let scalars = s.unicodeScalars
        guard let first = scalars.first else { return false }
        if first == "." || first == "+" || first == "-" || CharacterSetLite.isDigit(first) {
            return scalars.allSatisfy { CharacterSetLite.isDigit($0) || ".+-_:eExXoOabcdefABCDEFinfINFnaNA".unicodeScalars.contains($0) }
        }
        return false
    }
}

/// ASCII character classes without Foundation.
enum CharacterSetLite {
    static func isDigit(_ u: Unicode.Scalar) -> Bool { u.value >= 48 && u.value <= 57 }
    static func isLetter(_ u: Unicode.Scalar) -> Bool { (u.value >= 65 && u.value <= 90) || (u.value >= 97 && u.value <= 122) }
}
