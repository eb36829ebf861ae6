/// A size in bytes as people write it: `512M`, `2G`, `1.5GiB`, `800MB`, `300K` or a byte count. K,
/// M, G and T are binary (1K = 1024 bytes, 1G = 1024³), with or without `i` and `B`, in any case.
/// `--max-memory`, `--max-bytes` and a recipe's `max-bytes` read sizes so.
///
/// ```swift
/// ByteSize.parse("300K")   // 307200
/// ByteSize.parse("1.5x")   // nil
/// ```
public enum ByteSize {
    /// The bytes `text` says (nil: not a positive size, or past 2⁶²); a range is the caller's.
    public static func parse(_ text: String) -> Int? {
        var rest = Substring(text.lowercased()).drop { $0 == " " }
        while rest.last == " " { rest = rest.dropLast() }
        if rest.hasSuffix("b") { rest = rest.dropLast() }
        if rest.hasSuffix("i") { rest = rest.dropLast() }
        var scale = 1.0
        if let unit = rest.last, let power = ["k": 1, "m": 2, "g": 3, "t": 4][String(unit)] {
            scale = Double(1 << (10 * power))
            rest = rest.dropLast()
        }
        while rest.last == " " { rest = rest.dropLast() }
        guard let number = Double(rest), number.isFinite, number > 0, number * scale < 0x1p62 else { return nil }
        return Int(number * scale)
    }
}
