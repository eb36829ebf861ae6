/// What a parameter accepts. The checker turns the YAML value into the matching `ParamValue`.
///
/// ```swift
/// ParamSpec("ev", .number(-10...10, unit: .stops), default: .number(0), "exposure change in stops")
/// ```
public enum ParamKind: Sendable, Hashable {
    /// A real number in `range`, in `unit`.
    case number(ClosedRange<Double>, unit: NumberUnit)
    case integer(ClosedRange<Int>)
    case boolean
    /// One of a fixed set of lower-case words.
    case choice([String])
    /// `"#rrggbb"` (quoted: a bare `#` starts a YAML comment) or `[r, g, b]` in 0…1.
    case color
    /// `[x, y]`, fractions of the canvas; `range` bounds each coordinate.
    case point(ClosedRange<Double>)
    /// A list of `[x, y]` pairs in 0…1, with a count in `count` (curve points).
    case points(count: ClosedRange<Int>)
    /// `12px` (pixels of the full-size image), `1.5%` (of `percentOf`), or a bare number (px).
    case length(px: ClosedRange<Double>, percentOf: LengthBase)
    /// Degrees in `range`; `90` or `90deg`. `allowed` restricts it to listed values (rotate).
    case angle(ClosedRange<Double>, allowed: [Double]?)
    /// A path relative to the recipe's folder, with one of `extensions`.
    case file(extensions: [String])
    /// 3 rows of 3 numbers, or of 4 (the 4th a bias).
    case matrix
    /// `"3:2"`: positive integers width:height.
    case aspect
    /// The `id` of another stage.
    case stageRef
    /// Free text of one line, at most `maxLength` characters (a lens profile's name).
    case text(maxLength: Int)
    /// The word `auto` (worked out from the photo when it is rendered) or a value of `kind`.
    indirect case orAuto(ParamKind)
}

/// The unit of a number parameter, shown in `recipe ops` and the schema.
public enum NumberUnit: String, Sendable, Hashable {
    case none = ""
    case stops
    case kelvin = "K"
    case degrees = "°"
    /// A fraction of something the parameter names (the half-diagonal, the short side).
    case fraction
    case factor = "×"
    case millimetres = "mm"
    case metres = "m"
}

/// What a `%` length is a percentage of.
public enum LengthBase: String, Sendable, Hashable {
    case shortSide = "short side"
    case longSide = "long side"
    case width
    case height
}

/// One parameter of an operation: its key, what it accepts, its default, and a line of docs.
public struct ParamSpec: Sendable {
    /// The key in recipes (kebab-case).
    public let name: String
    public let kind: ParamKind
    /// The value when the key is absent; nil when the parameter has no default (it may still be
    /// optional: an op's `validate` says which combinations it needs).
    public let defaultValue: ParamValue?
    /// True when a recipe must give it.
    public let required: Bool
    public let doc: String
    /// For an `.orAuto` number measured from the photo's pixels (`exposure: auto`): the format
    /// its `auto` came in. Such a parameter also takes the relative form, `auto+0.3` / `auto-0.3`
    /// (the measured value, then this added). nil: `auto` came with the op and is read, not
    /// measured (the lens's EXIF values), and has no relative form.
    public let autoSince: FormatVersion?

    public init(_ name: String, _ kind: ParamKind, default defaultValue: ParamValue? = nil,
                required: Bool = false, autoSince: FormatVersion? = nil, _ doc: String) {
        self.name = name
        self.kind = kind
        self.defaultValue = defaultValue
        self.required = required
        self.autoSince = autoSince
        self.doc = doc
    }
}

/// The parameters of one stage after checking, in declaration order, with defaults filled in
/// for keys the recipe left out.
public struct ParamSet: Sendable, Hashable {
    public private(set) var names: [String] = []
    public private(set) var values: [String: ParamValue] = [:]
    /// Keys the recipe gave explicitly (the rest are defaults).
    public private(set) var given: Set<String> = []

    public init() {}

    public mutating func set(_ name: String, _ value: ParamValue, given isGiven: Bool) {
        if values[name] == nil { names.append(name) }
        values[name] = value
        if isGiven { given.insert(name) } else { given.remove(name) }
    }

    public subscript(_ name: String) -> ParamValue? { values[name] }

    public func number(_ name: String) -> Double? { values[name]?.number }
    public func isGiven(_ name: String) -> Bool { given.contains(name) }
}

/// A problem found by an operation's own cross-parameter rules: which parameter to point at (nil:
/// the op key) and what is wrong.
public struct ParamProblem: Sendable, Hashable {
    public var param: String?
    public var message: String
    public var notes: [String]

    public init(_ param: String?, _ message: String, notes: [String] = []) {
        self.param = param
        self.message = message
        self.notes = notes
    }
}
