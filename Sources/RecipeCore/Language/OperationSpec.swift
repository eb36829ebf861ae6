/// How an operation touches pixels; the optimiser and the planner branch on it.
public enum OperationClass: String, Sendable, Hashable, CaseIterable {
    /// Per pixel, no coordinates: any run of these fuses into one pass.
    case point
    /// Per pixel, reads (x, y) and the canvas size (vignette): still fusable.
    case positional = "positional point"
    /// Needs a window of rows (blur, sharpen).
    case neighbourhood
    /// Changes the size or the coordinate map (crop, rotate, resize).
    case geometric
    /// Reads more than one image (blend).
    case composite
    /// How a camera raw file becomes pixels (`develop`): run by the raw decoder before every
    /// other stage, ignored for other photos.
    case develop = "raw develop"
}

/// The colour encoding an operation works in; the planner inserts conversions between them.
public enum WorkingSpace: String, Sendable, Hashable {
    /// Linear-light sRGB primaries (physically motivated ops: exposure, blur, resize).
    case linear = "lin"
    /// sRGB-encoded values (slider tone ops: contrast, curve, lut).
    case encoded = "enc"
    /// Indifferent (clip).
    case any
    /// Pixels are only moved, never mixed (crop, rotate, flip).
    case none
}

/// A width × height in pixels.
public struct CanvasSize: Sendable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) { self.width = width; self.height = height }
    public var shortSide: Int { min(width, height) }
    public var longSide: Int { max(width, height) }
    public var description: String { "\(width)×\(height)" }
}

/// One step of a parameter migration, applied to the recipe text's key/value pairs so that
/// `recipe migrate` can rewrite a file with its comments.
public enum MigrationStep: Sendable, Hashable {
    /// The key `from` is now called `to`.
    case rename(String, to: String)
    /// The value of a number key is multiplied by `factor`.
    case scale(String, by: Double)
    /// The key no longer exists (its effect is now the default).
    case remove(String)
}

/// Moves an operation's parameters from version `toVersion - 1` to `toVersion`, one step at a
/// time (darktable's `legacy_params` model). The old shape is declared inline, and a fixture of
/// it under Tests/ must keep loading.
public struct ParamMigration: Sendable {
    public let toVersion: Int
    /// The recipe format version that brought `toVersion` (files of an older format get it).
    public let sinceFormat: FormatVersion
    /// The keys of the old version, as it was declared.
    public let oldKeys: [String]
    public let steps: [MigrationStep]
    /// Why, in one line (shown by `recipe migrate`).
    public let reason: String

    public init(toVersion: Int, sinceFormat: FormatVersion, oldKeys: [String], steps: [MigrationStep],
                reason: String) {
        self.toVersion = toVersion
        self.sinceFormat = sinceFormat
        self.oldKeys = oldKeys
        self.steps = steps
        self.reason = reason
    }
}

/// The declaration of one operation: everything the checker, `recipe ops`, the generated
/// Grammar/operations.md and JSON Schema, and (with the engine) the kernel need to know. Each op
/// declares itself in one file of RecipeOps.
///
/// ```swift
/// OperationSpec(name: "exposure", summary: "Multiplies linear light by 2^ev.",
///               opClass: .point, space: .linear, primary: "ev",
///               params: [ParamSpec("ev", .number(-10...10, unit: .stops), default: .number(0), "…")],
///               example: "exposure: 0.3")
/// ```
public struct OperationSpec: Sendable {
    /// The key in recipes (kebab-case).
    public let name: String
    /// One sentence: what the op does, and the formula's source where it matters.
    public let summary: String
    public let opClass: OperationClass
    public let space: WorkingSpace
    /// The version of the parameter set; bumped with a migration when parameters change.
    public let version: Int
    public let params: [ParamSpec]
    /// The parameter a scalar value sets (`exposure: 0.3` sets `ev`); nil when there is none.
    public let primary: String?
    /// One or more YAML stage lines, checked by the tests.
    public let example: String
    public let migrations: [ParamMigration]
    /// The recipe format version that brought the op: a recipe declaring an older version that
    /// uses it gets a warning (R304), since a reader of that version would refuse the stage.
    public let sinceFormat: FormatVersion
    /// Rules across parameters (black below white, one of width/height/scale…). Empty when fine.
    public let validate: @Sendable (ParamSet) -> [ParamProblem]
    /// The output size for an input of `size`.
    public let geometry: @Sendable (CanvasSize, ParamSet) -> CanvasSize

    public init(name: String, summary: String, opClass: OperationClass, space: WorkingSpace,
                version: Int = 1, primary: String? = nil, params: [ParamSpec], example: String,
                migrations: [ParamMigration] = [], sinceFormat: FormatVersion = FormatVersion(1, 0),
                validate: @escaping @Sendable (ParamSet) -> [ParamProblem] = { _ in [] },
                geometry: @escaping @Sendable (CanvasSize, ParamSet) -> CanvasSize = { size, _ in size }) {
        self.name = name
        self.summary = summary
        self.opClass = opClass
        self.space = space
        self.version = version
        self.primary = primary
        self.params = params
        self.example = example
        self.migrations = migrations
        self.sinceFormat = sinceFormat
        self.validate = validate
        self.geometry = geometry
    }

    public func param(_ name: String) -> ParamSpec? { params.first { $0.name == name } }
}

/// The declaration of one mask kind (`gradient`, `radial`, `luminance`): a stage's `mask:` holds
/// one of them and makes the stage local.
public struct MaskSpec: Sendable {
    public let name: String
    public let summary: String
    public let params: [ParamSpec]
    public let example: String
    public let validate: @Sendable (ParamSet) -> [ParamProblem]

    public init(name: String, summary: String, params: [ParamSpec], example: String,
                validate: @escaping @Sendable (ParamSet) -> [ParamProblem] = { _ in [] }) {
        self.name = name
        self.summary = summary
        self.params = params
        self.example = example
        self.validate = validate
    }

    public func param(_ name: String) -> ParamSpec? { params.first { $0.name == name } }
}
