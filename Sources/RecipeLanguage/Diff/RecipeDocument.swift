import RecipeCore
import RecipeOps

/// A recipe as `recipe diff` and `recipe merge-file` see it: its header, knobs and stages, each
/// value in canonical text, so formatting, comments, key order and shorthand do not count
/// (`exposure: 0.3`, `exposure: {ev: 0.30}` and `exposure: {ev: 0.3, }` are one value). Known
/// ops' parameters come from the checker, with their defaults; a stage whose key is no op this
/// build knows (another build's stage kind) is kept as plain YAML and compared field by field.
///
/// ```swift
/// let old = try RecipeDocument.load(path: "a.recipe.yaml")
/// old.stages[0].kind                  // "exposure"
/// old.stages[0].param("ev")?.text     // "0.3"
/// ```
public struct RecipeDocument: Sendable {
    /// One compared value: `key` is what it means, `text` how it is written (canonical YAML).
    public struct Value: Sendable, Hashable {
        public var key: String
        public var text: String
        /// True for a parameter's default that the file does not write.
        public var isDefault: Bool

        public init(_ text: String, key: String? = nil, isDefault: Bool = false) {
            self.text = text
            self.key = key ?? text
            self.isDefault = isDefault
        }

        /// Same meaning (nil: absent).
        static func same(_ a: Value?, _ b: Value?) -> Bool { a?.key == b?.key }

        /// The text for a message: "(none)" when absent, "(default)" after a default, long values cut.
        static func shown(_ v: Value?) -> String {
            guard let v else { return "(none)" }
            let text = v.text.count > 80 ? String(v.text.prefix(77)) + "…" : v.text
            return v.isDefault ? text + " (default)" : text
        }
    }

    /// A named value: a header key, a knob, a stage's meta key or parameter. `chunk` is its source
    /// text (top-level keys and knobs only), copied when a merge keeps it as it was.
    public struct Field: Sendable {
        public var name: String
        public var value: Value
        var chunk: String?
    }

    /// Why a file cannot be compared: it cannot be read, is not YAML, or is not a valid recipe.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var path: String
        public var reason: String
        /// The checker's errors, to print with their source lines.
        public var diagnostics: [Diagnostic]
        public var source: SourceFile?
        public var description: String { "\(path): \(reason)" }
    }

    public var path: String
    /// Top-level keys other than `params` and `stages`, in file order (`format`, `version`, …).
    public var header: [Field] = []
    public var knobs: [Field] = []
    public var stages: [Stage] = []
    /// The top-level keys in file order, `params` and `stages` included.
    var order: [String] = []
    /// Comment lines written above `params:` and `stages:`, and after the last key.
    var paramsComments: [String] = []
    var stagesComments: [String] = []
    var trailer: [String] = []
    /// Things compared as plain YAML because this build does not know them ("stage 2: `vignete2` …").
    public var notes: [String] = []

    /// A document with nothing in it: the side of an added or deleted file.
    public static func empty(path: String) -> RecipeDocument { RecipeDocument(path: path) }

    init(path: String) { self.path = path }

    public func headerValue(_ name: String) -> Value? { header.first { $0.name == name }?.value }
    public func knob(_ name: String) -> Value? { knobs.first { $0.name == name }?.value }

    /// What is checked before comparing: file references are not followed (a merge driver's
    /// temporary files live elsewhere) and sizes do not matter.
    static var options: CheckOptions {
        var o = CheckOptions()
        o.checkFilesExist = false
        o.allowFilesOutside = true
        return o
    }

    /// Reads and checks the recipe at `path`. With `canonical`, a recipe that checks clean is
    /// first put in `recipe fmt`'s form (migrated to the current version), so its pieces are
    /// canonical text; `merge-file` writes them.
    public static func load(path: String, canonical: Bool = false) throws(Failure) -> RecipeDocument {
        if path == "/dev/null" { return empty(path: path) }  // git's side of an added or deleted file
        switch RecipeChecker.readFile(path, limit: options.limits.maxBytes) {
        case .success(let bytes): return try parse(SourceFile(path: path, bytes: bytes), canonical: canonical)
        case .failure(let d): throw Failure(path: path, reason: d.message, diagnostics: [d], source: nil)
        }
    }

    /// Whether two documents mean the same: the same header values and knobs, the same stages in
    /// the same order (formatting, comments, key order and shorthand do not count). The check a
    /// tool that edits a file in place makes of its result against what it meant to write.
    public func means(_ other: RecipeDocument) -> Bool {
        func header(_ d: RecipeDocument) -> [String] { d.header.map { $0.name + "\u{1}" + $0.value.key }.sorted() }
        func knobs(_ d: RecipeDocument) -> [String] { d.knobs.map { $0.name + "\u{1}" + $0.value.key } }
        return header(self) == header(other) && knobs(self) == knobs(other)
            && stages.count == other.stages.count && zip(stages, other.stages).allSatisfy { $0.same($1) }
    }

    /// Whether `text` checks and means what `self` means.
    func isMeant(by text: String) -> Bool {
        guard let document = try? RecipeDocument.parse(SourceFile(path: path, text: text)) else { return false }
        return means(document)
    }

    /// The file at `path` as written (nil when it cannot be read, and for `/dev/null`): the text
    /// a merge edits in place.
    public static func source(path: String) -> SourceFile? {
        guard path != "/dev/null", case .success(let bytes) = RecipeChecker.readFile(path, limit: options.limits.maxBytes) else { return nil }
        return SourceFile(path: path, bytes: bytes)
    }

    /// Checks `file` and builds its document; see `load`. A blank file (`/dev/null`, git's base
    /// of a file both sides added) is the empty document.
    public static func parse(_ file: SourceFile, canonical: Bool = false) throws(Failure) -> RecipeDocument {
        if file.bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return empty(path: file.path) }
        let (checked, errors) = validate(file)
        guard let root = checked.root, errors.isEmpty else { throw failure(checked, errors) }
        if canonical, let text = canonicalText(checked), Array(text.utf8) != file.bytes {
            return try parse(SourceFile(path: file.path, text: text), canonical: false)
        }
        var builder = DocumentBuilder(file: file, checked: checked, root: root)
        return builder.build()
    }

    /// The check of `file` and its errors that stop a comparison: all but the R203/R204 of keys
    /// this build does not know (another build's stage kinds and top-level keys).
    static func validate(_ file: SourceFile) -> (CheckedRecipe, [Diagnostic]) {
        let checked = RecipeChecker.check(file, options: options)
        let unknown = checked.root.map(DocumentBuilder.unknownKeys) ?? []
        let errors = checked.diagnostics.filter { d in
            guard d.severity == .error else { return false }
            let tolerated = (d.code == .unknownOperation || d.code == .unknownKey) && d.range.map(unknown.contains) == true
            return !tolerated
        }
        return (checked, checked.root == nil && errors.isEmpty ? checked.diagnostics : errors)
    }

    /// `recipe fmt`'s text of a recipe that checks clean (nil otherwise).
    static func canonicalText(_ checked: CheckedRecipe) -> String? { RecipePrinter.format(checked) }

    /// `recipe fmt`'s text of `file` without looking for the files it names (git's copy of an old
    /// version lives in a temporary folder); nil when it does not check clean.
    public static func canonicalText(_ file: SourceFile) -> String? {
        canonicalText(RecipeChecker.check(file, options: options))
    }

    static func failure(_ checked: CheckedRecipe, _ errors: [Diagnostic]? = nil) -> Failure {
        let errors = errors ?? checked.diagnostics.filter { $0.severity == .error }
        let first = errors.first.map { d in
            d.code == .unresolvedConflict ? "it holds an unresolved merge conflict (\(d.message))" : "not a valid recipe: \(d.message)"
        } ?? "not a recipe"
        let more = errors.count > 1 ? " (and \(errors.count - 1) more error\(errors.count == 2 ? "" : "s"))" : ""
        return Failure(path: checked.file.path, reason: first + more, diagnostics: errors, source: checked.file)
    }
}
