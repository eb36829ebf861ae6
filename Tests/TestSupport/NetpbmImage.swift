import Foundation

/// A decoded reference image in Netpbm form (P5 gray, P6 RGB, P7 PAM with any depth), as djpeg
/// and the PNG reference script write them. Samples are widened to Int for comparison.
public struct NetpbmImage: Equatable, Sendable {
    public var width: Int
    public var height: Int
    public var channels: Int
    public var maxValue: Int
    public var samples: [Int]

    public init(width: Int, height: Int, channels: Int, maxValue: Int, samples: [Int]) {
        self.width = width
        self.height = height
        self.channels = channels
        self.maxValue = maxValue
        self.samples = samples
    }

    /// Parses P5, P6 or P7 bytes.
    public init?(_ data: Data) {
        let bytes = [UInt8](data)
        var i = 0
        func token() -> String? {
            while i < bytes.count {
                if bytes[i] == UInt8(ascii: "#") { while i < bytes.count && bytes[i] != 10 { i += 1 } } else if bytes[i] <= 32 { i += 1 } else { break }
            }
            let start = i
            while i < bytes.count && bytes[i] > 32 { i += 1 }
            return start < i ? String(decoding: bytes[start..<i], as: UTF8.self) : nil
        }
        guard let magic = token() else { return nil }
        var w = 0, h = 0, depth = 0, maxv = 0
        switch magic {
        case "P5", "P6":
            guard let a = token().flatMap(Int.init), let b = token().flatMap(Int.init), let c = token().flatMap(Int.init) else { return nil }
            (w, h, maxv, depth) = (a, b, c, magic == "P5" ? 1 : 3)
        case "P7":
            while let t = token(), t != "ENDHDR" {
                let v = token().flatMap(Int.init) ?? 0
                switch t {
                case "WIDTH": w = v
                case "HEIGHT": h = v
                case "DEPTH": depth = v
                case "MAXVAL": maxv = v
                default: break  // TUPLTYPE's value was consumed as a token; harmless
                }
            }
        default:
            return nil
        }
        i += 1  // the single whitespace after the header
        let count = w * h * depth
        let wide = maxv > 255
        guard bytes.count - i >= count * (wide ? 2 : 1) else { return nil }
        var s = [Int](repeating: 0, count: count)
        for k in 0..<count {
            s[k] = wide ? Int(bytes[i + 2 * k]) << 8 | Int(bytes[i + 2 * k + 1]) : Int(bytes[i + k])
        }
        self.init(width: w, height: h, channels: depth, maxValue: maxv, samples: s)
    }

    /// Largest absolute sample difference to `other` (same geometry required).
    public func maxDifference(to other: NetpbmImage) -> Int? {
        guard width == other.width, height == other.height, channels == other.channels else { return nil }
        return zip(samples, other.samples).reduce(0) { max($0, abs($1.0 - $1.1)) }
    }

    /// Mean absolute sample difference to `other`.
    public func meanDifference(to other: NetpbmImage) -> Double? {
        guard width == other.width, height == other.height, channels == other.channels else { return nil }
        let total = zip(samples, other.samples).reduce(0) { $0 + abs($1.0 - $1.1) }
        return Double(total) / Double(max(1, samples.count))
    }
}
