/// A point in canvas coordinates as fractions: (0, 0) the top-left corner, (1, 1) the bottom-right.
public struct CanvasPoint: Sendable, Hashable {
    public var x: Double
    public var y: Double
    public init(_ x: Double, _ y: Double) { self.x = x; self.y = y }
}

/// An RGB colour, components in 0…1 (sRGB-encoded, as `#rrggbb` is written).
public struct RGBColor: Sendable, Hashable {
    public var r: Double, g: Double, b: Double
    public init(_ r: Double, _ g: Double, _ b: Double) { self.r = r; self.g = g; self.b = b }

    /// `#rrggbb`, lower case.
    public var hex: String {
        func byte(_ v: Double) -> String {
            let n = Int((max(0, min(1, v)) * 255).rounded())
            let digits = Array("0123456789abcdef")
            return String([digits[n >> 4], digits[n & 15]])
        }
        return "#" + byte(r) + byte(g) + byte(b)
    }

    /// Whether `hex` says exactly this colour: every component a whole number of 255ths in 0…1.
    public var isExactlyHex: Bool {
        func exact(_ v: Double) -> Bool {
            let scaled: Double = v * 255
            return v >= 0 && v <= 1 && abs(scaled - scaled.rounded()) < 1e-9
        }
        return exact(r) && exact(g) && exact(b)
    }
}

/// A spatial size: pixels of the full-size image (scaled at display size), or a percentage of a
/// base the parameter names (the short side, the width, …). Resolution independence rests on it.
public enum Length: Sendable, Hashable, CustomStringConvertible {
    case px(Double)
    case percent(Double)

    /// The length in pixels on a canvas whose base dimension is `base` pixels, at `scale` (the
    /// display factor: 1 at full size).
    public func pixels(base: Double, scale: Double) -> Double {
        switch self {
        case .px(let v): v * scale
        case .percent(let p): p / 100 * base
        }
    }

    public var description: String {
        switch self {
        case .px(let v): "\(NumberFormatting.shortest(v))px"
        case .percent(let p): "\(NumberFormatting.shortest(p))%"
        }
    }
}

/// The typed value of one parameter after checking. The case matches the parameter's `ParamKind`.
public enum ParamValue: Sendable, Hashable, CustomStringConvertible {
    case number(Double)
    case integer(Int)
    case boolean(Bool)
    case choice(String)
    case color(RGBColor)
    case point(CanvasPoint)
    case points([CanvasPoint])
    case length(Length)
    /// Degrees.
    case angle(Double)
    /// A file reference as written (relative to the recipe's folder).
    case file(String)
    /// Rows of a colour matrix: 3 rows of 3 (or 4, the last a bias) numbers.
    case matrix([[Double]])
    /// A width:height ratio such as 3:2.
    case aspect(Int, Int)
    /// The id of another stage (a composite op's second input).
    case stageRef(String)
    /// Free text (`ParamKind.text`).
    case text(String)
    /// `auto`: the value is worked out from the photo when it is rendered.
    case auto
    /// `auto+0.3`, `auto-0.3`: the value measured from the photo, then this added (a parameter
    /// whose `auto` is measured, `ParamSpec.autoSince`).
    case autoPlus(Double)

    /// Whether the value is `auto`, plain or relative: worked out for each photo.
    public var isAuto: Bool {
        switch self {
        case .auto, .autoPlus: true
        default: false
        }
    }

    /// What a relative `auto` adds to the measured value (0 for plain `auto`; nil: not auto).
    public var autoOffset: Double? {
        switch self {
        case .auto: 0
        case .autoPlus(let v): v
        default: nil
        }
    }

    public var number: Double? {
        switch self {
        case .number(let v), .angle(let v): v
        case .integer(let v): Double(v)
        default: nil
        }
    }

    /// The canonical recipe text of the value (what `recipe fmt` writes).
    public var description: String {
        switch self {
        case .number(let v), .angle(let v): NumberFormatting.shortest(v)
        case .integer(let v): String(v)
        case .boolean(let b): b ? "true" : "false"
        case .choice(let s), .stageRef(let s), .text(let s): s
        case .auto: "auto"
        case .autoPlus(let v): v < 0 ? "auto-\(NumberFormatting.shortest(-v))" : "auto+\(NumberFormatting.shortest(v))"
        // `[0.3, 0.4, 0.2]` is no `#rrggbb` (0.3 is 76.5/255): such a colour keeps its numbers.
        case .color(let c): c.isExactlyHex ? "\"\(c.hex)\"" : "[\(NumberFormatting.shortest(c.r)), \(NumberFormatting.shortest(c.g)), \(NumberFormatting.shortest(c.b))]"
        case .point(let p): "[\(NumberFormatting.shortest(p.x)), \(NumberFormatting.shortest(p.y))]"
        case .points(let ps):
            "[" + ps.map { "[\(NumberFormatting.shortest($0.x)), \(NumberFormatting.shortest($0.y))]" }
                .joined(separator: ", ") + "]"
        case .length(let l): l.description
        case .file(let f): f
        case .matrix(let rows):
            "[" + rows.map { "[" + $0.map(NumberFormatting.shortest).joined(separator: ", ") + "]" }
                .joined(separator: ", ") + "]"
        case .aspect(let w, let h): "\"\(w):\(h)\""
        }
    }
}

/// Shortest round-tripping decimal text for numbers: `0.3`, never `0.30000000000000004`; integral
/// values without a fraction (`5200`, not `5200.0`).
public enum NumberFormatting {
    public static func shortest(_ v: Double) -> String {
        if v == 0 { return "0" }  // also -0
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        var text = "\(v)"  // Swift prints the shortest text that parses back to the same Double
        if let e = text.firstIndex(of: "e") {
            // 1e-05 → 1e-5: YAML and JSON read both, people read the short one
            var exponent = String(text[text.index(after: e)...])
            let sign = exponent.hasPrefix("-") ? "-" : ""
            exponent = String(exponent.drop { $0 == "-" || $0 == "+" || $0 == "0" })
            text = String(text[..<e]) + "e" + sign + exponent
        }
        return text
    }
}
