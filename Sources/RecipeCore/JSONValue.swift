/// A JSON value with ordered object keys, written compactly (one line, for `--format json`
/// records) or pretty (the generated Grammar/recipe.schema.json).
///
/// Hand-written rather than Foundation's JSONEncoder: the outputs need a fixed key order (generated
/// files are diffed in git), and Foundation would add to a binary whose resident size is measured.
///
/// ```swift
/// JSONValue.object([("code", "R204"), ("line", 7)]).compact   // {"code":"R204","line":7}
/// ```
public indirect enum JSONValue: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral {
    case string(String)
    case number(Double)
    case int(Int)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([(String, JSONValue)])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }

    public static func == (a: JSONValue, b: JSONValue) -> Bool { a.compact == b.compact }
    public func hash(into h: inout Hasher) { h.combine(compact) }

    /// One line, no spaces.
    public var compact: String {
        var out = ""
        write(to: &out, indent: nil, level: 0)
        return out
    }

    /// Two-space indentation, `"key": value`, a newline at the end.
    public var pretty: String {
        var out = ""
        write(to: &out, indent: "  ", level: 0)
        return out + "\n"
    }

    private func write(to out: inout String, indent: String?, level: Int) {
        switch self {
        case .string(let s): out += JSONValue.quote(s)
        case .number(let d): out += d.isFinite ? NumberFormatting.shortest(d) : "null"
        case .int(let i): out += String(i)
        case .bool(let b): out += b ? "true" : "false"
        case .null: out += "null"
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            // Short arrays of scalars stay on one line even when pretty.
            let flat = items.allSatisfy { if case .array = $0 { return false }; if case .object = $0 { return false }; return true }
            if indent == nil || flat {
                out += "["
                for (i, item) in items.enumerated() {
                    if i > 0 { out += indent == nil ? "," : ", " }
                    item.write(to: &out, indent: nil, level: 0)
                }
                out += "]"
                return
            }
            out += "[\n"
            for (i, item) in items.enumerated() {
                out += String(repeating: indent!, count: level + 1)
                item.write(to: &out, indent: indent, level: level + 1)
                out += i + 1 < items.count ? ",\n" : "\n"
            }
            out += String(repeating: indent!, count: level) + "]"
        case .object(let fields):
            if fields.isEmpty { out += "{}"; return }
            guard let indent else {
                out += "{"
                for (i, (k, v)) in fields.enumerated() {
                    if i > 0 { out += "," }
                    out += JSONValue.quote(k) + ":"
                    v.write(to: &out, indent: nil, level: 0)
                }
                out += "}"
                return
            }
            out += "{\n"
            for (i, (k, v)) in fields.enumerated() {
                out += String(repeating: indent, count: level + 1) + JSONValue.quote(k) + ": "
                v.write(to: &out, indent: indent, level: level + 1)
                out += i + 1 < fields.count ? ",\n" : "\n"
            }
            out += String(repeating: indent, count: level) + "}"
        }
    }

    /// A JSON string literal.
    public static func quote(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20:
                let h = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }
}
