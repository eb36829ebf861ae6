#if canImport(Glibc)
import Glibc
#endif

/// An Adobe Cube LUT 1.0 file (also Resolve's LUT_1D/3D_INPUT_RANGE spelling of the domain):
/// a 1D or a 3D table, red varying fastest, with its domain. Parsed by hand: the format is a few
/// keywords and rows of numbers, and no maintained C library for it ships with Debian.
///
/// ```
/// TITLE "film"
/// LUT_3D_SIZE 33
/// 0.0 0.0 0.0
/// …
/// ```
public struct CubeLUT: Sendable, Hashable {
    public enum Kind: Sendable, Hashable { case oneD, threeD }

    public var kind: Kind
    /// Entries per axis (3D) or in the table (1D).
    public var size: Int
    /// RGB triples, red fastest: index r + size·g + size²·b for 3D.
    public var table: [Float]
    public var domainMin: SIMD3<Float> = SIMD3(0, 0, 0)
    public var domainMax: SIMD3<Float> = SIMD3(1, 1, 1)
    /// Resolve's 1D shaper before a 3D table (LUT_1D_SIZE and LUT_3D_SIZE in one file, each
    /// with its LUT_*_INPUT_RANGE), applied per channel first.
    public var shaper: Shaper?

    /// A 1D table applied before the 3D one.
    public struct Shaper: Sendable, Hashable {
        public var size: Int
        public var table: [Float]
        public var domainMin: Float
        public var domainMax: Float
    }

    /// What is wrong with a file, with its line.
    public struct ParseError: Error, Sendable, CustomStringConvertible {
        public var line: Int
        public var message: String
        public var description: String { "line \(line): \(message)" }
    }

    public static let max3DSize = 256
    public static let max1DSize = 65536

    public static func parse(_ bytes: [UInt8]) throws(ParseError) -> CubeLUT {
        var size1D = 0, size3D = 0
        var domainMin = SIMD3<Float>(0, 0, 0), domainMax = SIMD3<Float>(1, 1, 1)
        var range1D: (Float, Float)?, range3D: (Float, Float)?
        var values: [Float] = []
        var lineNumber = 0
        // Line by line without splitting the file first: a 256³ table is 16.7 million lines, and
        // an array of their slices alone would be 537 MB.
        var start = 0
        var word = [CChar](repeating: 0, count: 64)
        var maxValues = 0  // 3 × the rows the sizes say
        while start <= bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != UInt8(ascii: "\n") { end += 1 }
            let rawLine = bytes[start..<end]
            start = end + 1
            lineNumber += 1
            // A table row, nearly every line of the file: three numbers read from the bytes
            // (no String, no word array: 10 times faster on a 65³ table). Anything else, or a row
            // that is not plain, goes the general way below, which also words its errors.
            if size1D + size3D > 0, let row = Self.plainRow(rawLine, into: &word) {
                values.append(row.0)
                values.append(row.1)
                values.append(row.2)
                guard values.count <= maxValues else { throw ParseError(line: lineNumber, message: "more rows than the sizes say (\(maxValues / 3))") }
                continue
            }
            var line = String(decoding: rawLine, as: UTF8.self)
            if let hash = line.firstIndex(of: "#") { line = String(line[..<hash]) }
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            guard let first = words.first else { continue }
            func numbers(_ count: Int) throws(ParseError) -> [Float] {
                let rest = words.dropFirst()
                guard rest.count == count else { throw ParseError(line: lineNumber, message: "\(first) takes \(count) numbers") }
                var out: [Float] = []
                for w in rest {
                    guard let v = Float(w), v.isFinite else { throw ParseError(line: lineNumber, message: "`\(w)` is not a number") }
                    out.append(v)
                }
                return out
            }
            switch first {
            case "TITLE": continue
            case "LUT_3D_SIZE", "LUT_1D_SIZE":
                let is3D = first == "LUT_3D_SIZE"
                guard (is3D ? size3D : size1D) == 0 else { throw ParseError(line: lineNumber, message: "\(first) is given twice") }
                guard values.isEmpty else { throw ParseError(line: lineNumber, message: "\(first) after table data") }
                guard words.count == 2, let n = Int(words[1]) else { throw ParseError(line: lineNumber, message: "\(first) takes one whole number") }
                guard n >= 2, n <= (is3D ? max3DSize : max1DSize) else {
                    throw ParseError(line: lineNumber, message: "\(first) \(n) is outside 2…\(is3D ? max3DSize : max1DSize)")
                }
                if is3D { size3D = n } else { size1D = n }
                // The table in one allocation of its final size, not grown by doubling.
                maxValues = 3 * (size1D + size3D * size3D * size3D)
                values.reserveCapacity(maxValues)
            case "DOMAIN_MIN":
                let v = try numbers(3)
                domainMin = SIMD3(v[0], v[1], v[2])
            case "DOMAIN_MAX":
                let v = try numbers(3)
                domainMax = SIMD3(v[0], v[1], v[2])
            case "LUT_1D_INPUT_RANGE", "LUT_3D_INPUT_RANGE":
                let v = try numbers(2)
                guard v[1] > v[0] else { throw ParseError(line: lineNumber, message: "\(first): the maximum must be above the minimum") }
                if first == "LUT_1D_INPUT_RANGE" { range1D = (v[0], v[1]) } else { range3D = (v[0], v[1]) }
            default:
                guard let f = first.first, f.isNumber || f == "-" || f == "." || f == "+" else {
                    throw ParseError(line: lineNumber, message: "unknown keyword `\(first)`")
                }
                guard size1D > 0 || size3D > 0 else { throw ParseError(line: lineNumber, message: "table data before LUT_3D_SIZE or LUT_1D_SIZE") }
                guard words.count == 3 else { throw ParseError(line: lineNumber, message: "a table row has 3 numbers, not \(words.count)") }
                for w in words {
                    guard let v = Float(w), v.isFinite else { throw ParseError(line: lineNumber, message: "`\(w)` is not a number") }
                    values.append(v)
                }
                guard values.count <= maxValues else { throw ParseError(line: lineNumber, message: "more rows than the sizes say (\(maxValues / 3))") }
            }
        }
        guard size1D > 0 || size3D > 0 else { throw ParseError(line: lineNumber, message: "no LUT_3D_SIZE or LUT_1D_SIZE") }
        let expected = size1D + size3D * size3D * size3D
        guard values.count == 3 * expected else {
            throw ParseError(line: lineNumber, message: "\(values.count / 3) table rows; the sizes say \(expected)")
        }
        guard all(domainMax .> domainMin) else { throw ParseError(line: lineNumber, message: "DOMAIN_MAX must be above DOMAIN_MIN") }
        if size3D == 0 {
            let range = range1D.map { (SIMD3<Float>(repeating: $0.0), SIMD3<Float>(repeating: $0.1)) } ?? (domainMin, domainMax)
            return CubeLUT(kind: .oneD, size: size1D, table: values, domainMin: range.0, domainMax: range.1)
        }
        var shaperTable: [Float] = []
        if size1D > 0 {
            shaperTable = Array(values[..<(3 * size1D)])
            values.removeFirst(3 * size1D)
        }
        var lut = CubeLUT(kind: .threeD, size: size3D, table: values, domainMin: domainMin, domainMax: domainMax)
        if let r = range3D { (lut.domainMin, lut.domainMax) = (SIMD3(repeating: r.0), SIMD3(repeating: r.1)) }
        if size1D > 0 {
            let r = range1D ?? (0, 1)
            lut.shaper = Shaper(size: size1D, table: shaperTable, domainMin: r.0, domainMax: r.1)
        }
        return lut
    }

    /// The three numbers of a line that is exactly three finite numbers between blanks (spaces,
    /// tabs, a CR), each as `Float(_:)` reads it (`strtof`, correctly rounded); nil for anything
    /// else (a keyword, a comment, two or four words, a word that is no number). recipe never
    /// calls `setlocale`; were the decimal point another locale's, `strtof` would stop at the `.`,
    /// the word would not be used up, and the row would go the general way: slower, not wrong.
    /// `word` is scratch space for one NUL-terminated word.
    static func plainRow(_ line: ArraySlice<UInt8>, into word: inout [CChar]) -> (Float, Float, Float)? {
        var out: (Float, Float, Float) = (0, 0, 0)
        var count = 0
        var i = line.startIndex
        while true {
            while i < line.endIndex, line[i] == 0x20 || line[i] == 0x09 || line[i] == 0x0D { i += 1 }
            if i == line.endIndex { break }
            let first = line[i]
            // Digits, a sign or a point start a number; `inf`, `nan` and comments go the long way.
            guard count < 3, (first >= 0x30 && first <= 0x39) || first == 0x2D || first == 0x2B || first == 0x2E else { return nil }
            var n = 0
            while i < line.endIndex, line[i] != 0x20, line[i] != 0x09, line[i] != 0x0D {
                guard n < word.count - 1 else { return nil }
                word[n] = CChar(bitPattern: line[i])
                n += 1
                i += 1
            }
            word[n] = 0
            let parsed: Float? = word.withUnsafeMutableBufferPointer { buffer in
                var end: UnsafeMutablePointer<CChar>?
                let v = strtof(buffer.baseAddress!, &end)
                return end == buffer.baseAddress! + n && v.isFinite ? v : nil
            }
            guard let v = parsed else { return nil }
            switch count {
            case 0: out.0 = v
            case 1: out.1 = v
            default: out.2 = v
            }
            count += 1
        }
        return count == 3 ? out : nil
    }

    /// The table's output for one encoded RGB value, in double precision: the reference the
    /// kernel is tested against (tetrahedral per FilmLight TN-0057 / ffmpeg, or trilinear).
    public func lookup(_ input: SIMD3<Double>, tetrahedral: Bool) -> SIMD3<Double> {
        var p = input
        if let s = shaper {
            for c in 0..<3 {
                let x = min(max((p[c] - Double(s.domainMin)) / Double(s.domainMax - s.domainMin) * Double(s.size - 1), 0), Double(s.size - 1))
                let i = min(Int(x), s.size - 2), f = x - Double(i)
                p[c] = Double(s.table[3 * i + c]) * (1 - f) + Double(s.table[3 * (i + 1) + c]) * f
            }
        }
        let n = size
        func position(_ v: Double, _ c: Int) -> Double {
            let lo = Double(domainMin[c]), hi = Double(domainMax[c])
            return min(max((v - lo) / (hi - lo) * Double(n - 1), 0), Double(n - 1))
        }
        func entry(_ i: Int) -> SIMD3<Double> { SIMD3(Double(table[3 * i]), Double(table[3 * i + 1]), Double(table[3 * i + 2])) }
        if kind == .oneD {
            var out = SIMD3<Double>()
            for c in 0..<3 {
                let x = position(p[c], c)
                let i = min(Int(x), n - 2), f = x - Double(i)
                out[c] = Double(table[3 * i + c]) * (1 - f) + Double(table[3 * (i + 1) + c]) * f
            }
            return out
        }
        let x = position(p.x, 0), y = position(p.y, 1), z = position(p.z, 2)
        let i = min(Int(x), n - 2), j = min(Int(y), n - 2), k = min(Int(z), n - 2)
        let fr = x - Double(i), fg = y - Double(j), fb = z - Double(k)
        func c(_ a: Int, _ b: Int, _ d: Int) -> SIMD3<Double> { entry((i + a) + n * (j + b) + n * n * (k + d)) }
        if !tetrahedral {
            let c00 = c(0, 0, 0) * (1 - fr) + c(1, 0, 0) * fr, c10 = c(0, 1, 0) * (1 - fr) + c(1, 1, 0) * fr
            let c01 = c(0, 0, 1) * (1 - fr) + c(1, 0, 1) * fr, c11 = c(0, 1, 1) * (1 - fr) + c(1, 1, 1) * fr
            return (c00 * (1 - fg) + c10 * fg) * (1 - fb) + (c01 * (1 - fg) + c11 * fg) * fb
        }
        let c000 = c(0, 0, 0), c111 = c(1, 1, 1)
        if fr > fg {
            if fg > fb { return c000 * (1 - fr) + c(1, 0, 0) * (fr - fg) + c(1, 1, 0) * (fg - fb) + c111 * fb }
            if fr > fb { return c000 * (1 - fr) + c(1, 0, 0) * (fr - fb) + c(1, 0, 1) * (fb - fg) + c111 * fg }
            return c000 * (1 - fb) + c(0, 0, 1) * (fb - fr) + c(1, 0, 1) * (fr - fg) + c111 * fg
        }
        if fb > fg { return c000 * (1 - fb) + c(0, 0, 1) * (fb - fg) + c(0, 1, 1) * (fg - fr) + c111 * fr }
        if fb > fr { return c000 * (1 - fg) + c(0, 1, 0) * (fg - fb) + c(0, 1, 1) * (fb - fr) + c111 * fr }
        return c000 * (1 - fg) + c(0, 1, 0) * (fg - fr) + c(1, 1, 0) * (fr - fb) + c111 * fb
    }
}
