import RecipeCore

/// The result of checking one recipe: the diagnostics, and when there is no error the typed
/// filter DAG. The YAML tree is kept (after migrations) for `fmt` and `migrate`.
public struct CheckedRecipe: Sendable {
    /// `output:`, when the recipe has one.
    public var output: Output?

    /// One declared knob of `params:`.
    public struct Knob: Sendable {
        public var name: String
        public var value: YAMLNode
        public var doc: String?
        public var keyRange: SourceRange
        /// The override given on the command line, if any.
        public var overridden: Bool
    }

    /// One entry of `stages:`, enabled or not.
    public struct Stage: Sendable {
        public var index: Int
        public var id: String?
        public var op: String?
        public var enabled: Bool
        /// Its node in the graph (nil when disabled or broken).
        public var node: FilterGraph.NodeID?
        public var range: SourceRange
        /// The frozen base layer this stage holds (`op` is then "base").
        public var base: FrozenBase?
        /// The op's checked parameters, defaults filled in (also for a disabled stage; empty when
        /// the op is unknown). `recipe diff` and `merge-file` compare stages by these.
        public var params = ParamSet()
        /// Which parameters come from a knob: parameter → knob name.
        public var bindings: [String: String] = [:]
        /// The checked mask, if the stage has one.
        public var mask: FilterGraph.Mask?
    }

    public var file: SourceFile
    public var root: YAMLNode?
    /// The version the file declares (before migration).
    public var declaredVersion: FormatVersion?
    /// What the migrations did, one line each ("vignette: `intensity` is now `amount` (1.1)").
    public var migrations: [String] = []
    public var knobs: [Knob] = []
    /// The photo a sidecar belongs to (`original:`), when the file says.
    public var original: OriginalBinding?
    /// The 1-based index of the last enabled frozen base layer: rendering starts from its pixels
    /// (the graph's source node), and only the stages after it are in the graph.
    public var activeBase: Int?
    public var stages: [Stage] = []
    public var graph: FilterGraph?
    public var diagnostics: [Diagnostic] = []
    /// True when the file is adjustment data of another format (identifier or major version).
    public var isForeign = false

    public var hasErrors: Bool { diagnostics.hasErrors }

    /// True when `recipe migrate` has something to do: a migration changes a stage, or a stage
    /// uses an operation newer than the version the file declares (R304).
    public var needsMigration: Bool {
        !migrations.isEmpty || diagnostics.contains { $0.code == .newerOperation }
    }

    /// The errors that stop `fmt`: all but those about the files a recipe names (a `.cube` kept
    /// out of the checkout): formatting is about the text, and `check` reports the rest.
    public var formatBlockers: [Diagnostic] {
        diagnostics.filter { $0.severity == .error && $0.code != .missingFile && $0.code != .notAFile }
    }
}
