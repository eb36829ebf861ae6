/// `apply --select EXPR`: which photos a batch renders, by what the photographer marked and what
/// the camera recorded (PhotoFacts), as darktable's collections and Lightroom's filters choose.
///
/// ```text
/// rating >= 3 and label == red
/// not rejected and (keyword == wedding or keyword ~ ceremony)
/// date >= 2024-06-01 and date < 2024-07 and camera ~ "EOS R5" and lens ~ 50mm
/// ```
///
/// Fields: `rating` (−1 rejected … 5), `label`, `keyword` (true when any keyword matches),
/// `date` (ISO 8601, compared as text, so `2024-06` is a prefix), `camera`, `lens`, and `rejected`
/// alone. Operators: `==` `!=` `<` `<=` `>` `>=`, and `~` (contains); text compares ignore case;
/// `and`, `or`, `not` and parentheses combine them.
struct Selection: Sendable, CustomStringConvertible {
    indirect enum Node: Sendable {
        case and(Node, Node), or(Node, Node), not(Node)
        case rejected
        case compare(field: String, op: String, value: String)
    }

    let root: Node
    let text: String
    var description: String { text }

    static let fields = ["rating", "label", "keyword", "date", "camera", "lens"]
    static let operators = ["==", "!=", "<=", ">=", "<", ">", "~"]

    struct ParseError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    init(_ text: String) throws {
        self.text = text
        var parser = Parser(tokens: try Self.tokens(text), text: text)
        root = try parser.expression()
        if let extra = parser.peek { throw ParseError(message: "--select `\(text)`: unexpected `\(extra)`") }
    }

    /// Words, quoted text, operators and parentheses.
    static func tokens(_ text: String) throws -> [String] {
        var out: [String] = []
        var i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            if c.isWhitespace { i = text.index(after: i); continue }
            if c == "(" || c == ")" { out.append(String(c)); i = text.index(after: i); continue }
            if c == "\"" || c == "'" {
                guard let end = text[text.index(after: i)...].firstIndex(of: c) else {
                    throw ParseError(message: "--select `\(text)`: a quote is not closed")
                }
                out.append("\"" + text[text.index(after: i)..<end]); i = text.index(after: end); continue
            }
            if let op = operators.first(where: { text[i...].hasPrefix($0) }) {
                out.append(op); i = text.index(i, offsetBy: op.count); continue
            }
            var j = i
            while j < text.endIndex, !text[j].isWhitespace, !"()\"'".contains(text[j]), !operators.contains(where: { text[j...].hasPrefix($0) }) {
                j = text.index(after: j)
            }
            out.append(String(text[i..<j])); i = j
        }
        return out
    }

    struct Parser {
        var tokens: [String]
        var text: String
        var at = 0
        var peek: String? { at < tokens.count ? tokens[at] : nil }

        mutating func next() throws -> String {
            guard let t = peek else { throw ParseError(message: "--select `\(text)`: it ends too soon") }
            at += 1
            return t
        }

        mutating func expression() throws -> Node {
            var left = try conjunction()
            while peek?.lowercased() == "or" { at += 1; left = .or(left, try conjunction()) }
            return left
        }

        mutating func conjunction() throws -> Node {
            var left = try negation()
            while peek?.lowercased() == "and" { at += 1; left = .and(left, try negation()) }
            return left
        }

        mutating func negation() throws -> Node {
            if peek?.lowercased() == "not" { at += 1; return .not(try negation()) }
            let t = try next()
            if t == "(" {
                let inner = try expression()
                guard try next() == ")" else { throw ParseError(message: "--select `\(text)`: a `(` is not closed") }
                return inner
            }
            if t.lowercased() == "rejected" { return .rejected }
            let field = t.lowercased()
            guard Selection.fields.contains(field) else {
                throw ParseError(message: "--select `\(text)`: `\(t)` is not a field (\(Selection.fields.joined(separator: ", ")), or `rejected`)")
            }
            let op = try next()
            guard Selection.operators.contains(op) else { throw ParseError(message: "--select `\(text)`: `\(op)` after \(field) is not an operator (\(Selection.operators.joined(separator: " ")))") }
            var value = try next()
            if value.hasPrefix("\"") { value.removeFirst() }
            if field == "rating", Int(value) == nil { throw ParseError(message: "--select `\(text)`: a rating is a whole number (-1 to 5), not `\(value)`") }
            return .compare(field: field, op: op, value: value)
        }
    }

    func matches(_ f: PhotoFacts) -> Bool { Self.evaluate(root, f) }

    /// Whether the expression reads the date, camera or lens (which may need the photo's EXIF).
    var needsEXIF: Bool { ["date", "camera", "lens"].contains { text.lowercased().contains($0) } }

    static func evaluate(_ node: Node, _ f: PhotoFacts) -> Bool {
        switch node {
        case .and(let a, let b): return evaluate(a, f) && evaluate(b, f)
        case .or(let a, let b): return evaluate(a, f) || evaluate(b, f)
        case .not(let a): return !evaluate(a, f)
        case .rejected: return f.rating < 0
        case .compare(let field, let op, let value):
            switch field {
            case "rating": return compare(f.rating, op, Int(value) ?? 0)
            case "keyword": return op == "!=" ? !f.keywords.contains { text($0, "==", value) } : f.keywords.contains { text($0, op, value) }
            case "label": return text(f.label, op, value)
            case "camera": return text(f.camera, op, value)
            case "lens": return text(f.lens, op, value)
            default: // date: a prefix is a whole day, month or year
                if op == "==" || op == "!=" { return f.date.hasPrefix(value) == (op == "==") }
                return !f.date.isEmpty && (op == "~" ? f.date.contains(value) : compare(f.date, op, value))
            }
        }
    }

    static func text(_ a: String, _ op: String, _ b: String) -> Bool {
        let x = a.lowercased(), y = b.lowercased()
        return op == "~" ? x.contains(y) : compare(x, op, y)
    }

    static func compare<T: Comparable>(_ a: T, _ op: String, _ b: T) -> Bool {
        switch op {
        case "==": a == b
        case "!=": a != b
        case "<": a < b
        case "<=": a <= b
        case ">": a > b
        case ">=": a >= b
        default: false
        }
    }
}
