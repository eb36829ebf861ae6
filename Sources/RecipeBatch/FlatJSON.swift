import RecipeCore

/// Reads and writes one flat JSON object per line: string and integer fields only, which is all
/// a manifest record holds.
///
/// ```swift
/// FlatJSON.parse(#"{"output":"a.jpg","source_size":812}"#)   // ["output": .string("a.jpg"), "source_size": .int(812)]
/// ```
///
/// Hand-written: a no-op re-run reads a record per output (10,000 in well under a second is the
/// target) and the CLI does not link Foundation, whose JSON decoder would be its only use.
public enum FlatJSON {
    public enum Value: Sendable, Equatable {
        case string(String)
        case int(Int64)
    }

    /// The fields of `line`, or nil when it is not a flat object of strings and integers (a torn
    /// last line after a kill, a hand edit gone wrong).
    public static func parse(_ line: Substring) -> [String: Value]? {
        var fields: [String: Value] = [:]
        var bytes = Array(line.utf8)[...]
        func skipSpace() { while let b = bytes.first, b == 0x20 || b == 0x09 || b == 0x0D { bytes.removeFirst() } }
        func expect(_ c: UInt8) -> Bool {
            skipSpace()
            guard bytes.first == c else { return false }
            bytes.removeFirst()
            return true
        }
        func string() -> String? {
            guard expect(0x22) else { return nil }
            var out: [UInt8] = []
            while let b = bytes.popFirst() {
                switch b {
                case 0x22: return String(decoding: out, as: UTF8.self)
                case 0x5C:
                    guard let e = bytes.popFirst() else { return nil }
                    switch e {
                    case 0x22, 0x5C, 0x2F: out.append(e)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "u"):
                        guard bytes.count >= 4, let v = UInt32(String(decoding: bytes.prefix(4), as: UTF8.self), radix: 16) else { return nil }
                        bytes.removeFirst(4)
                        var scalar = v
                        if (0xD800..<0xDC00).contains(v) {
                            // A surrogate pair: \uD83D\uDE00.
                            guard bytes.count >= 6, bytes.first == 0x5C, bytes.dropFirst().first == UInt8(ascii: "u"),
                                  let low = UInt32(String(decoding: bytes.dropFirst(2).prefix(4), as: UTF8.self), radix: 16),
                                  (0xDC00..<0xE000).contains(low) else { return nil }
                            bytes.removeFirst(6)
                            scalar = 0x10000 + ((v - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let u = Unicode.Scalar(scalar) else { return nil }
                        out.append(contentsOf: Array(String(Character(u)).utf8))
                    default: return nil
                    }
                default:
                    guard b >= 0x20 else { return nil }
                    out.append(b)
                }
            }
            return nil
        }
        guard expect(0x7B) else { return nil }
        skipSpace()
        if bytes.first == 0x7D {
            bytes.removeFirst()
            skipSpace()
            return bytes.isEmpty ? fields : nil
        }
        repeat {
            guard let key = string(), expect(0x3A) else { return nil }
            skipSpace()
            if bytes.first == 0x22 {
                guard let s = string() else { return nil }
                fields[key] = .string(s)
            } else {
                var digits = ""
                if bytes.first == 0x2D { digits.append("-"); bytes.removeFirst() }
                while let b = bytes.first, (0x30...0x39).contains(b) {
                    digits.append(Character(Unicode.Scalar(b)))
                    bytes.removeFirst()
                }
                guard let v = Int64(digits) else { return nil }
                fields[key] = .int(v)
            }
        } while expect(0x2C)
        guard expect(0x7D) else { return nil }
        skipSpace()
        return bytes.isEmpty ? fields : nil
    }

    /// One line (no newline) with the fields in the given order.
    public static func line(_ fields: [(String, Value)]) -> String {
        var out = "{"
        for (i, (key, value)) in fields.enumerated() {
            if i > 0 { out += "," }
            out += quote(key) + ":"
            switch value {
            case .string(let s): out += quote(s)
            case .int(let v): out += String(v)
            }
        }
        return out + "}"
    }

    public static func quote(_ s: String) -> String { JSONValue.quote(s) }
}
