import RecipeCore

/// Converts one YAML value into the typed value a `ParamSpec` asks for, or reports why it cannot:
/// wrong type (R206), out of range (R207), bad unit (R208), not a choice (R209), wrong number of
/// elements (R221). Messages name the parameter and say what is allowed.
struct ValueChecker {
    let source: SourceFile
    var diagnostics: [Diagnostic] = []

    init(source: SourceFile) { self.source = source }

    /// `what` names the parameter in messages: "`ev` of `exposure`".
    /// Names of `$params` seen where they are not allowed (so they are not also "never used").
    var mentionedParams: Set<String> = []

    mutating func convert(_ node: YAMLNode, _ spec: ParamSpec, what: String) -> ParamValue? {
        if let s = node.plainScalar, s.hasPrefix("$"), s.count > 1 {
            mentionedParams.insert(String(s.dropFirst()))
            error(.wrongType, "\(what) cannot be a param: `\(s)` may only stand for the whole value of an operation's parameter", node,
                  notes: [.init("for a point or list, give the param the whole value: `params: {c: [0.4, 0.5]}` and `center: $c`")])
            return nil
        }
        if spec.autoSince != nil, case .orAuto(.number(let range, let unit)) = spec.kind, let s = node.plainScalar,
           s.hasPrefix("auto"), s != "auto" {
            return relativeAuto(s, node, range: range, unit: unit, what: what)
        }
        return convert(node, spec.kind, what: what)
    }

    /// `auto+0.3`, `auto - 0.3`: the measured value with an offset, which may move it at most
    /// across the parameter's whole range.
    mutating func relativeAuto(_ s: String, _ node: YAMLNode, range: ClosedRange<Double>, unit: NumberUnit, what: String) -> ParamValue? {
        let rest = s.dropFirst(4).trimmingSpaces
        let example = "auto\(range.upperBound - range.lowerBound > 100 ? "+500" : "-0.3")"
        let digits = rest.dropFirst().trimmingSpaces
        guard let sign = rest.first, sign == "+" || sign == "-", digits.first.map({ $0.isNumber || $0 == "." }) == true,
              let v = parseNumber(String(digits)) else {
            error(.wrongType, "\(what) must be auto, auto plus or minus a number, or a number, not `\(s)`", node,
                  notes: [.init("for example `\(example)`: the value measured from the photo, then that added")])
            return nil
        }
        let offset = sign == "-" ? -v : v
        let span = range.upperBound - range.lowerBound
        guard inRange(offset, -span...span, node, what: "the offset of \(what)", unit: unit.rawValue) else { return nil }
        return offset == 0 ? .auto : .autoPlus(offset)
    }

    mutating func convert(_ node: YAMLNode, _ kind: ParamKind, what: String) -> ParamValue? {
        switch kind {
        case .orAuto(let inner):
            if node.plainScalar == "auto" { return .auto }
            return convert(node, inner, what: what)
        case .text(let maxLength):
            guard let s = node.scalar, node.sequence == nil, !node.isNull, !s.isEmpty else {
                error(.wrongType, "\(what) must be text, not \(node.kindDescription)", node)
                return nil
            }
            guard s.count <= maxLength, !s.contains(where: { $0.isNewline || $0.asciiValue.map { $0 < 0x20 } == true }) else {
                error(.outOfRange, "\(what) must be one line of at most \(maxLength) characters", node)
                return nil
            }
            return .text(s)
        case .number(let range, let unit):
            guard let v = number(node, what: what, expected: "a number") else { return nil }
            guard inRange(v, range, node, what: what, unit: unit.rawValue) else { return nil }
            return .number(v)
        case .integer(let range):
            guard let v = number(node, what: what, expected: "a whole number") else { return nil }
            guard v == v.rounded(), abs(v) < 1e9 else {
                error(.wrongType, "\(what) must be a whole number, not \(node.kindDescription)", node)
                return nil
            }
            guard inRange(v, Double(range.lowerBound)...Double(range.upperBound), node, what: what, unit: "") else { return nil }
            return .integer(Int(v))
        case .boolean:
            guard let s = node.plainScalar, s == "true" || s == "false" else {
                var notes: [Diagnostic.Note] = [.init("write `true` or `false`")]
                if let s = node.scalar, ["yes", "no", "on", "off", "y", "n", "True", "False", "TRUE", "FALSE"].contains(s) {
                    notes = [.init("YAML 1.1 readers take `\(s)` as a boolean and YAML 1.2 readers as text; write `\(["yes", "on", "y", "True", "TRUE"].contains(s) ? "true" : "false")`")]
                }
                error(.wrongType, "\(what) must be true or false, not \(node.kindDescription)", node, notes: notes)
                return nil
            }
            return .boolean(s == "true")
        case .choice(let cases):
            guard let s = node.scalar, node.sequence == nil, !node.isNull else {
                error(.wrongType, "\(what) must be one of \(Suggestions.list(cases)), not \(node.kindDescription)", node)
                return nil
            }
            guard cases.contains(s) else {
                var notes: [Diagnostic.Note] = []
                if let guess = Suggestions.closest(to: s, in: cases) { notes.append(.init("did you mean `\(guess)`?")) }
                notes.append(.init("valid choices: \(Suggestions.list(cases))"))
                error(.invalidChoice, "`\(s)` is not a valid \(what)", node, notes: notes)
                return nil
            }
            return .choice(s)
        case .color:
            return color(node, what: what)
        case .point(let range):
            guard let xy = numbers(node, count: 2...2, what: what, shape: "[x, y]") else { return nil }
            for (v, item) in zip(xy, node.sequence!) {
                guard inRange(v, range, item, what: what, unit: "", fractionNote: true) else { return nil }
            }
            return .point(CanvasPoint(xy[0], xy[1]))
        case .points(let count):
            guard let items = node.sequence else {
                error(.wrongType, "\(what) must be a list of [x, y] points, not \(node.kindDescription)", node,
                      notes: [.init("for example [[0, 0], [0.5, 0.55], [1, 1]]")])
                return nil
            }
            guard count.contains(items.count) else {
                error(.wrongLength, "\(what) has \(items.count) point\(items.count == 1 ? "" : "s"); it takes \(count.lowerBound) to \(count.upperBound)", node)
                return nil
            }
            var points: [CanvasPoint] = []
            for item in items {
                guard let xy = numbers(item, count: 2...2, what: "each point of \(what)", shape: "[x, y]") else { return nil }
                for (v, n) in zip(xy, item.sequence!) {
                    guard inRange(v, 0...1, n, what: "a point of \(what)", unit: "") else { return nil }
                }
                points.append(CanvasPoint(xy[0], xy[1]))
            }
            return .points(points)
        case .length(let pxRange, let base):
            return length(node, pxRange: pxRange, base: base, what: what)
        case .angle(let range, let allowed):
            guard let s = node.scalar, node.sequence == nil, !node.isNull else {
                error(.wrongType, "\(what) must be an angle in degrees, not \(node.kindDescription)", node)
                return nil
            }
            var text = s
            if text.hasSuffix("deg") { text.removeLast(3) }
            guard node.scalarStyle == .plain || s.hasSuffix("deg"), let v = parseNumber(text) else {
                if node.scalarStyle == .plain || s.hasSuffix("deg"), overflows(text, node, what: what) {
                    return nil
                } else if let unit = unitSuffix(s) {
                    error(.badUnit, "unknown unit `\(unit)` for \(what)", node, notes: [.init("angles are in degrees: write a number, or a number with `deg`")])
                } else {
                    error(.wrongType, "\(what) must be an angle in degrees, not \(node.kindDescription)", node)
                }
                return nil
            }
            if let allowed, !allowed.contains(v) {
                error(.outOfRange, "\(what) must be one of \(allowed.map(NumberFormatting.shortest).joined(separator: ", ")) degrees, not \(NumberFormatting.shortest(v))", node,
                      notes: allowed.contains(90) ? [.init("for small angles, use `straighten`")] : [])
                return nil
            }
            guard inRange(v, range, node, what: what, unit: "°") else { return nil }
            return .angle(v)
        case .file(let extensions):
            guard let s = node.scalar, node.sequence == nil, !node.isNull, !s.isEmpty else {
                error(.wrongType, "\(what) must be a file path, not \(node.kindDescription)", node)
                return nil
            }
            let lower = s.lowercased()
            guard extensions.contains(where: { lower.hasSuffix("." + $0) }) else {
                error(.wrongType, "\(what) must name a \(extensions.map { "." + $0 }.joined(separator: " or ")) file, not `\(s)`", node)
                return nil
            }
            return .file(s)
        case .matrix:
            guard let rows = node.sequence, rows.count == 3 else {
                error(node.sequence == nil ? .wrongType : .wrongLength,
                      "\(what) must be 3 rows of 3 numbers (or 4, the last a bias), not \(node.sequence.map { "\($0.count) rows" } ?? node.kindDescription)", node,
                      notes: [.init("identity: [[1, 0, 0], [0, 1, 0], [0, 0, 1]]")])
                return nil
            }
            var matrix: [[Double]] = []
            for row in rows {
                guard let values = numbers(row, count: 3...4, what: "each row of \(what)", shape: "[r, g, b] or [r, g, b, bias]") else { return nil }
                guard inRange(values.map(abs).max() ?? 0, 0...100, row, what: "an entry of \(what)", unit: "") else { return nil }
                matrix.append(values)
            }
            guard Set(matrix.map(\.count)).count == 1 else {
                error(.wrongLength, "the rows of \(what) must all have 3 or all have 4 numbers", node)
                return nil
            }
            return .matrix(matrix)
        case .aspect:
            guard let s = node.scalar, node.sequence == nil, !node.isNull else {
                error(.wrongType, "\(what) must be a ratio such as \"3:2\", not \(node.kindDescription)", node)
                return nil
            }
            let parts = s.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let w = Int(parts[0].trimmingSpaces), let h = Int(parts[1].trimmingSpaces),
                  (1...1000).contains(w), (1...1000).contains(h) else {
                let plainInt = node.scalarStyle == .plain && Int(s) != nil
                error(.wrongType, "\(what) must be a ratio such as \"3:2\" (two whole numbers 1–1000), not `\(s)`", node,
                      notes: plainInt ? [.init("quote the ratio: some YAML readers take an unquoted 3:2 as the number 182")] : [])
                return nil
            }
            return .aspect(w, h)
        case .stageRef:
            guard let s = node.scalar, node.sequence == nil, !node.isNull, !s.isEmpty else {
                error(.wrongType, "\(what) must be the id of a stage, not \(node.kindDescription)", node)
                return nil
            }
            return .stageRef(s)
        }
    }

    // MARK: - pieces

    mutating func number(_ node: YAMLNode, what: String, expected: String) -> Double? {
        if let s = node.plainScalar, s.hasPrefix("$"), s.count > 1 {
            mentionedParams.insert(String(s.dropFirst()))
            error(.wrongType, "\(what) cannot be a param: `\(s)` may only stand for the whole value of an operation's parameter", node,
                  notes: [.init("for a point or list, give the param the whole value: `params: {c: [0.4, 0.5]}` and `center: $c`")])
            return nil
        }
        guard case .scalar(let s, let style) = node.content, !node.isNull else {
            error(.wrongType, "\(what) must be \(expected), not \(node.kindDescription)", node)
            return nil
        }
        guard style == .plain else {
            let notes: [Diagnostic.Note] = parseNumber(s) != nil ? [.init("remove the quotes: write \(s)")] : []
            error(.wrongType, "\(what) must be \(expected), not \(node.kindDescription)", node, notes: notes)
            return nil
        }
        guard let v = parseNumber(s) else {
            if overflows(s, node, what: what) {
                return nil
            } else if let unit = unitSuffix(s) {
                error(.badUnit, "\(what) takes no unit; `\(unit)` is not allowed", node, notes: [.init("write the number alone")])
            } else {
                error(.wrongType, "\(what) must be \(expected), not \(node.kindDescription)", node)
            }
            return nil
        }
        return v
    }

    /// A finite decimal number as YAML's core schema writes it (no `.inf`, `.nan`, hex or `_`).
    func parseNumber(_ s: String) -> Double? {
        guard s.utf8.count <= 40, let v = decimal(s), v.isFinite else { return nil }
        return v
    }

    /// The value of decimal text (digits, `.`, sign, exponent; nothing else), infinite when it is
    /// too large for a double (`1e400`).
    func decimal(_ s: String) -> Double? {
        guard !s.isEmpty else { return nil }
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "+"),
                 UInt8(ascii: "e"), UInt8(ascii: "E"): continue
            default: return nil
            }
        }
        return Double(s)
    }

    /// Reports `s` as out of range (R207) when it is a number too large to hold (`1e400`, not a
    /// unit `e400`).
    mutating func overflows(_ s: String, _ node: YAMLNode, what: String) -> Bool {
        guard let v = decimal(s), v.isInfinite else { return false }
        error(.outOfRange, "\(what) is \(s), a number out of range", node,
              notes: [.init("numbers go up to about ±1.8e308; no parameter takes one this large")])
        return true
    }

    /// The alphabetic suffix of `12pt` (`pt`), if the text is a number followed by letters or `%`.
    func unitSuffix(_ s: String) -> String? {
        guard let i = s.firstIndex(where: { !($0.isNumber || $0 == "." || $0 == "-" || $0 == "+") }), i != s.startIndex else { return nil }
        let number = s[..<i], unit = s[i...].trimmingSpaces
        guard Double(number) != nil, !unit.isEmpty else { return nil }
        return String(unit)
    }

    mutating func inRange(_ v: Double, _ range: ClosedRange<Double>, _ node: YAMLNode, what: String, unit: String,
                          fractionNote: Bool = false) -> Bool {
        guard range.contains(v) else {
            let u = unit.isEmpty ? "" : unit == "°" ? "°" : " \(unit)"
            var notes: [Diagnostic.Note] = [.init("allowed range: \(NumberFormatting.shortest(range.lowerBound))\(u) to \(NumberFormatting.shortest(range.upperBound))\(u)")]
            if fractionNote { notes.append(.init("points are fractions of the canvas: [0, 0] top left, [1, 1] bottom right")) }
            error(.outOfRange, "\(what) is \(NumberFormatting.shortest(v))\(u), outside its range", node, notes: notes)
            return false
        }
        return true
    }

    mutating func numbers(_ node: YAMLNode, count: ClosedRange<Int>, what: String, shape: String) -> [Double]? {
        guard let items = node.sequence else {
            error(.wrongType, "\(what) must be a list \(shape), not \(node.kindDescription)", node)
            return nil
        }
        guard count.contains(items.count) else {
            let n = count.lowerBound == count.upperBound ? "\(count.lowerBound)" : "\(count.lowerBound) or \(count.upperBound)"
            error(.wrongLength, "\(what) must have \(n) numbers \(shape), not \(items.count)", node)
            return nil
        }
        var out: [Double] = []
        for item in items {
            guard let v = number(item, what: what, expected: "a number") else { return nil }
            out.append(v)
        }
        return out
    }

    mutating func color(_ node: YAMLNode, what: String) -> ParamValue? {
        if node.sequence != nil {
            guard let rgb = numbers(node, count: 3...3, what: what, shape: "[r, g, b]") else { return nil }
            for (v, item) in zip(rgb, node.sequence!) {
                guard inRange(v, 0...1, item, what: "a component of \(what)", unit: "") else { return nil }
            }
            return .color(RGBColor(rgb[0], rgb[1], rgb[2]))
        }
        if node.isNull {
            // `color: #996633` unquoted: YAML reads a comment and the value is null.
            let line = source.line(node.range.start.line)
            let hint = line.contains("#") ? [Diagnostic.Note("a `#` after a space starts a YAML comment: quote the colour, \"#996633\"")] : []
            error(.wrongType, "\(what) must be a colour \"#rrggbb\" or [r, g, b], not nothing", node, notes: hint)
            return nil
        }
        guard let s = node.scalar else {
            error(.wrongType, "\(what) must be a colour \"#rrggbb\" or [r, g, b], not \(node.kindDescription)", node)
            return nil
        }
        let hex = s.hasPrefix("#") ? s.dropFirst() : Substring(s)
        guard hex.count == 6, hex.allSatisfy(\.isHexDigit), let n = UInt32(hex, radix: 16) else {
            error(.wrongType, "\(what) must be a colour \"#rrggbb\" or [r, g, b], not `\(s)`", node)
            return nil
        }
        return .color(RGBColor(Double(n >> 16) / 255, Double((n >> 8) & 255) / 255, Double(n & 255) / 255))
    }

    mutating func length(_ node: YAMLNode, pxRange: ClosedRange<Double>, base: LengthBase, what: String) -> ParamValue? {
        guard let s = node.scalar, node.sequence == nil, !node.isNull else {
            error(.wrongType, "\(what) must be a length such as 12px or 1.5%, not \(node.kindDescription)", node)
            return nil
        }
        let units: [(String, Bool)] = [("px", false), ("%", true)]
        for (suffix, isPercent) in units where s.hasSuffix(suffix) {
            let numberText = String(s.dropLast(suffix.count))
            guard let v = parseNumber(numberText) else {
                if !overflows(numberText, node, what: what) {
                    error(.wrongType, "\(what) must be a length such as 12px or 1.5%, not `\(s)`", node)
                }
                return nil
            }
            if isPercent {
                guard inRange(v, 0...100, node, what: what, unit: "%") else { return nil }
                return .length(.percent(v))
            }
            guard inRange(v, pxRange, node, what: what, unit: "px") else { return nil }
            return .length(.px(v))
        }
        if node.scalarStyle == .plain, let v = parseNumber(s) {
            guard inRange(v, pxRange, node, what: what, unit: "px") else { return nil }
            return .length(.px(v))
        }
        if node.scalarStyle == .plain, overflows(s, node, what: what) {
            return nil
        }
        if let unit = unitSuffix(s) {
            error(.badUnit, "unknown unit `\(unit)` in \(what)", node,
                  notes: [.init("lengths are in px (of the full-size image) or % (of the \(base.rawValue))")])
        } else {
            error(.wrongType, "\(what) must be a length such as 12px or 1.5%, not \(node.kindDescription)", node)
        }
        return nil
    }

    mutating func error(_ code: DiagnosticCode, _ message: String, _ node: YAMLNode, notes: [Diagnostic.Note] = []) {
        diagnostics.append(Diagnostic(code, message, at: node.range, notes: notes))
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return s
    }
}
