#if canImport(Glibc)
import Glibc
#endif
import RecipeCore
import RecipeOps

/// Checks a recipe and compiles it to the typed filter DAG. Every mistake is collected, not only
/// the first: YAML problems, the header, each stage's op, keys and values, inputs, masks, knobs.
///
/// ```swift
/// let checked = RecipeChecker.load(path: "warm.recipe.yaml")
/// for d in checked.diagnostics { print(DiagnosticPrinter.render(d, source: checked.file)) }
/// if let graph = checked.graph { … }
/// ```
public enum RecipeChecker {
    static let topLevelKeys = ["format", "version", "note", "original", "params", "output", "stages"]
    static let metaKeys = ["id", "input", "enabled", "mask", "note"]

    /// Reads and checks the recipe at `path`. A file that cannot be read is an R107 diagnostic.
    public static func load(path: String, options: CheckOptions = CheckOptions()) -> CheckedRecipe {
        switch readFile(path, limit: options.limits.maxBytes) {
        case .success(let bytes):
            return check(SourceFile(path: path, bytes: bytes), options: options)
        case .failure(let d):
            var checked = CheckedRecipe(file: SourceFile(path: path, bytes: []))
            checked.diagnostics = [d]
            return checked
        }
    }

    /// Checks recipe text already in memory.
    public static func check(_ file: SourceFile, options: CheckOptions = CheckOptions()) -> CheckedRecipe {
        var checker = Checker(file: file, options: options)
        checker.run()
        return checker.result
    }

    static func readFile(_ path: String, limit: Int) -> Result<[UInt8], Diagnostic> {
        do {
            return .success(try InputFile.readAll(path, limit: limit))
        } catch {
            let tooLarge = error.kind == .tooLarge
            var reason = error.reason  // "cannot open: …" → "cannot open the recipe: …"
            for verb in ["cannot open", "cannot read"] where reason.hasPrefix(verb + ":") {
                reason = verb + " the recipe" + reason.dropFirst(verb.count)
            }
            return .failure(Diagnostic(tooLarge ? .fileTooLarge : .unreadableFile,
                                       tooLarge ? "recipe \(reason)" : reason, at: nil, file: path,
                                       notes: tooLarge ? [.init("a recipe is a few kilobytes of text; is this the right file?")] : []))
        }
    }
}

/// The state of one check.
struct Checker {
    let file: SourceFile
    let options: CheckOptions
    var result: CheckedRecipe
    var knobs: [String: CheckedRecipe.Knob] = [:]
    var usedKnobs: Set<String> = []
    /// Knobs declared with a mistake (already reported): their uses raise nothing more.
    var brokenKnobs: Set<String> = []
    /// The declared knob names, sorted once for suggestions.
    var knobNames: [String] = []

    /// A stage after its own checks, before the graph is built.
    struct StageDraft {
        var index: Int
        var range: SourceRange
        var id: String?
        var idRange: SourceRange?
        var input: (String, SourceRange)?
        var enabled = true
        var op: OperationSpec?
        var opRange: SourceRange?
        var params = ParamSet()
        var paramRanges: [String: SourceRange] = [:]
        var bindings: [String: String] = [:]
        var mask: FilterGraph.Mask?
        /// A frozen base layer instead of an operation.
        var base: FrozenBase?
        var baseRange: SourceRange?
        var broken = false
    }

    init(file: SourceFile, options: CheckOptions) {
        self.file = file
        self.options = options
        self.result = CheckedRecipe(file: file)
    }

    mutating func error(_ code: DiagnosticCode, _ message: String, _ range: SourceRange?, notes: [Diagnostic.Note] = []) {
        result.diagnostics.append(Diagnostic(code, message, at: range, file: file.path, notes: notes))
    }

    mutating func run() {
        defer { finish() }
        let (root, yamlDiagnostics) = YAMLReader.read(file, limits: options.limits)
        result.diagnostics += yamlDiagnostics
        guard var root else {
            if yamlDiagnostics.isEmpty {
                error(.missingKey, "the recipe is empty", nil,
                      notes: [.init("a recipe starts with `format: \(RecipeFormat.identifier)`, `version: \(RecipeFormat.current)` and a `stages:` list")])
            }
            return
        }
        // A file `recipe merge-file` left with conflicts means nothing until they are resolved.
        let conflicts = ConflictMarker.diagnostics(in: root, file: file.path)
        guard conflicts.isEmpty else {
            result.diagnostics += conflicts
            return
        }
        guard let pairs = root.mapping else {
            error(.wrongType, "a recipe is a mapping with `format`, `version` and `stages`, not \(root.kindDescription)", root.range)
            return
        }
        var entries: [String: YAMLPair] = [:]
        for pair in pairs {
            guard let key = pair.key.scalar else {
                error(.wrongType, "keys must be words, not \(pair.key.kindDescription)", pair.key.range)
                continue
            }
            if RecipeChecker.topLevelKeys.contains(key) {
                if entries[key] == nil { entries[key] = pair }
            } else {
                unknownKey(key, pair.key.range, valid: RecipeChecker.topLevelKeys, context: "the recipe")
            }
        }

        // Header: format and version decide whether we can handle the file at all.
        guard let format = entries["format"] else {
            error(.missingKey, "the recipe has no `format`", root.range,
                  notes: [.init("add `format: \(RecipeFormat.identifier)` at the top")])
            return
        }
        guard let identifier = format.value.scalar, format.value.sequence == nil, !format.value.isNull else {
            error(.wrongType, "`format` must be a reverse-DNS identifier such as \(RecipeFormat.identifier), not \(format.value.kindDescription)", format.value.range)
            return
        }
        guard identifier == RecipeFormat.identifier else {
            result.isForeign = true
            var notes: [Diagnostic.Note] = []
            if Suggestions.distance(Array(identifier.utf8), Array(RecipeFormat.identifier.utf8)) <= 2 {
                notes.append(.init("did you mean `\(RecipeFormat.identifier)`?"))
            }
            notes.append(.init("this build reads `\(RecipeFormat.identifier)` \(RecipeFormat.current.major).x; `recipe edit` keeps other tools' edits as a frozen base layer"))
            error(.foreignFormat, "foreign adjustment data: format `\(identifier)` is not a recipe of this language", format.value.range, notes: notes)
            return
        }
        guard let versionPair = entries["version"] else {
            error(.missingKey, "the recipe has no `version`", root.range,
                  notes: [.init("add `version: \(RecipeFormat.current)` after `format`")])
            return
        }
        guard let versionText = versionPair.value.scalar, versionPair.value.sequence == nil,
              let version = FormatVersion(versionText) else {
            error(.invalidVersion, "`version` must be a version such as \(RecipeFormat.current), not \(versionPair.value.kindDescription)", versionPair.value.range,
                  notes: [.init("versions are major.minor[.patch]")])
            return
        }
        result.declaredVersion = version
        if version.major != RecipeFormat.current.major {
            result.isForeign = true
            error(.unsupportedVersion, "format version \(version) is not supported: this build reads \(RecipeFormat.current.major).x", versionPair.value.range,
                  notes: [.init("a different major version is foreign adjustment data; `recipe edit` keeps it as a frozen base layer")])
            return
        }
        if version > RecipeFormat.current {
            error(.unsupportedVersion, "format version \(version) is newer than this build reads (up to \(RecipeFormat.current))", versionPair.value.range,
                  notes: [.init("update recipe to read this file")])
            return
        }
        if version < RecipeFormat.current {
            // A file of an older minor version reads as it is unless a migration touches one of
            // its stages: a version that only added operations (1.2 added `develop`) changes
            // nothing an older file says, so it is read silently and keeps its version.
            let (migrated, log, conflicts) = Migrator.migrate(root, from: version)
            result.diagnostics += conflicts
            if !log.isEmpty || !conflicts.isEmpty {
                root = migrated
                result.migrations = log
                result.diagnostics.append(Diagnostic(.olderVersion,
                    "written in format \(version); read through the migrations to \(RecipeFormat.current)", at: versionPair.value.range,
                    notes: [.init("`recipe migrate \(file.path)` rewrites it to \(RecipeFormat.current)")] + log.map { .init($0) }))
            }
        }
        result.root = root

        if let note = entries["note"], note.value.scalar == nil || note.value.sequence != nil {
            error(.wrongType, "`note` must be text, not \(note.value.kindDescription)", note.value.range)
        }
        if let original = entries["original"] { result.original = checkOriginal(original.value) }
        checkKnobs(entries["params"]?.value)
        if let output = entries["output"] { checkOutput(output.value) }

        let migratedPairs = root.mapping ?? []
        guard let stagesPair = migratedPairs.first(where: { $0.key.scalar == "stages" }) else {
            error(.missingKey, "the recipe has no `stages`", root.range,
                  notes: [.init("add `stages:` with a list of operations, or `stages: []` for none")])
            return
        }
        let stageNodes: [YAMLNode]
        if stagesPair.value.isNull {
            stageNodes = []
        } else if let items = stagesPair.value.sequence {
            stageNodes = items
        } else {
            error(.wrongType, "`stages` must be a list (each item starts with `- `), not \(stagesPair.value.kindDescription)", stagesPair.value.range)
            return
        }
        let limit = options.limits.maxStages
        guard stageNodes.count <= limit else {
            // Refused before any stage is checked or planned: the cost of a recipe is bounded.
            error(.tooManyStages, "stage \(limit + 1) is over the limit of \(limit) stages (the recipe has \(stageNodes.count))",
                  stageNodes[limit].range, notes: [.init("a recipe (and a chain of recipes together) has at most \(limit) stages")])
            return
        }
        var drafts: [StageDraft] = []
        for (i, node) in stageNodes.enumerated() { drafts.append(checkStage(node, index: i + 1)) }
        buildGraph(drafts)
        for knob in result.knobs where !usedKnobs.contains(knob.name) {
            result.diagnostics.append(Diagnostic(.unusedParam, "param `\(knob.name)` is never used", at: knob.keyRange,
                notes: [.init("use it as `$\(knob.name)` in a stage, or remove it")]))
        }
    }

    mutating func finish() {
        // Sorted by position (file-wide problems first), duplicates dropped: a knob used twice
        // with a bad value is one mistake.
        var seen = Set<Diagnostic>()
        let unique = result.diagnostics.filter { seen.insert($0).inserted }
        result.diagnostics = unique.enumerated().sorted { a, b in
            let pa = a.element.range?.start.offset ?? -1, pb = b.element.range?.start.offset ?? -1
            return pa != pb ? pa < pb : a.offset < b.offset
        }.map(\.element)
        if result.diagnostics.hasErrors { result.graph = nil }
    }

    mutating func unknownKey(_ key: String, _ range: SourceRange, valid: [String], context: String) {
        var notes: [Diagnostic.Note] = []
        if let guess = Suggestions.closest(to: key, in: valid) { notes.append(.init("did you mean `\(guess)`?")) }
        notes.append(.init("valid keys of \(context): \(Suggestions.list(valid))"))
        error(.unknownKey, "unknown key `\(key)` in \(context)", range, notes: notes)
    }

    static let enabledSpec = ParamSpec("enabled", .boolean, default: .boolean(true), "whether the stage runs")

    static func isIdentifier(_ s: String) -> Bool {
        guard let first = s.utf8.first, first >= UInt8(ascii: "a"), first <= UInt8(ascii: "z"), s.utf8.count <= 64 else { return false }
        return s.utf8.allSatisfy { ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "-") }
            && !s.hasSuffix("-") && !s.contains("--")
    }

    // MARK: - params: (knobs)

    mutating func checkKnobs(_ node: YAMLNode?) {
        defer {
            knobNames = knobs.keys.sorted()
            for name in options.overrides.keys.sorted() where knobs[name] == nil {
                var notes: [Diagnostic.Note] = []
                if let guess = Suggestions.closest(to: name, in: knobNames) { notes.append(.init("did you mean `\(guess)`?")) }
                notes.append(.init(knobs.isEmpty ? "the recipe declares no params" : "declared: \(Suggestions.list(knobNames, conjunction: "and", limit: 8))"))
                error(.undefinedParam, "`--set \(name)`: the recipe declares no param `\(name)`", nil, notes: notes)
            }
        }
        guard let node, !node.isNull else { return }
        guard let pairs = node.mapping else {
            error(.invalidParamDeclaration, "`params` must be a mapping of names to default values, not \(node.kindDescription)", node.range,
                  notes: [.init("for example `params: {warmth: 5200}`")])
            return
        }
        for pair in pairs {
            guard let name = pair.key.scalar else {
                error(.invalidParamDeclaration, "param names must be words, not \(pair.key.kindDescription)", pair.key.range)
                continue
            }
            guard Checker.isIdentifier(name) else {
                error(.invalidParamDeclaration, "param name `\(name)` must be lower-case kebab-case (letters, digits, `-`)", pair.key.range,
                      notes: [.init("for example `\(Suggestions.normalise(name).filter { $0.isLetter || $0.isNumber || $0 == "-" })`")])
                continue
            }
            var value = pair.value
            var doc: String?
            if let fields = pair.value.mapping {
                var defaultNode: YAMLNode?
                for field in fields {
                    switch field.key.scalar {
                    case "default": defaultNode = field.value
                    case "doc":
                        if field.value.scalar == nil { error(.invalidParamDeclaration, "`doc` of param `\(name)` must be text", field.value.range) }
                        doc = field.value.scalar
                    default:
                        unknownKey(field.key.scalar ?? "?", field.key.range, valid: ["default", "doc"], context: "param `\(name)`")
                    }
                }
                guard let defaultNode else {
                    brokenKnobs.insert(name)
                    error(.invalidParamDeclaration, "param `\(name)` has no `default`", pair.value.range,
                          notes: [.init("write `\(name): {default: …}` or `\(name): …`")])
                    continue
                }
                value = defaultNode
            }
            if value.plainScalar?.hasPrefix("$") == true {
                brokenKnobs.insert(name)
                error(.invalidParamDeclaration, "param `\(name)` cannot refer to another param", value.range)
                continue
            }
            var overridden = false
            if let text = options.overrides[name] {
                let (node, diagnostics) = YAMLReader.read(SourceFile(path: "--set \(name)", text: text))
                if let node, diagnostics.isEmpty {
                    value = node
                    overridden = true
                } else {
                    result.diagnostics += diagnostics
                }
            }
            let knob = CheckedRecipe.Knob(name: name, value: value, doc: doc, keyRange: pair.key.range, overridden: overridden)
            knobs[name] = knob
            result.knobs.append(knob)
        }
    }

    // MARK: - stages

    mutating func checkStage(_ node: YAMLNode, index: Int) -> StageDraft {
        var draft = StageDraft(index: index, range: node.range)
        defer {
            result.stages.append(CheckedRecipe.Stage(index: index, id: draft.id, op: draft.base != nil ? "base" : draft.op?.name,
                                                     enabled: draft.enabled, node: nil, range: node.range, base: draft.base,
                                                     params: draft.params, bindings: draft.bindings, mask: draft.mask))
        }
        guard let pairs = node.mapping else {
            var notes: [Diagnostic.Note] = [.init("a stage is a mapping with one operation, for example `- exposure: 0.3`")]
            if let s = node.plainScalar, Operations.named(s) != nil { notes = [.init("write `- \(s): {}` for the defaults")] }
            error(.wrongType, "stage \(index) must be a mapping with one operation, not \(node.kindDescription)", node.range, notes: notes)
            draft.broken = true
            return draft
        }
        var opPair: YAMLPair?
        var basePair: YAMLPair?
        var maskNode: YAMLNode?
        var seenKeys = Set<String>()
        for pair in pairs {
            guard let key = pair.key.scalar else {
                error(.wrongType, "keys must be words, not \(pair.key.kindDescription)", pair.key.range)
                draft.broken = true
                continue
            }
            // A repeated key is already an R106 error; the first one counts.
            guard seenKeys.insert(key).inserted else {
                draft.broken = true
                continue
            }
            switch key {
            case "id":
                guard let id = pair.value.scalar, pair.value.sequence == nil, !pair.value.isNull else {
                    error(.wrongType, "`id` must be a name, not \(pair.value.kindDescription)", pair.value.range)
                    draft.broken = true
                    continue
                }
                guard Checker.isIdentifier(id) else {
                    error(.invalidID, "id `\(id)` must be lower-case kebab-case: a letter, then letters, digits and single `-`", pair.value.range,
                          notes: [.init("for example `sky` or `warm-base`")])
                    draft.broken = true
                    continue
                }
                draft.id = id
                draft.idRange = pair.value.range
            case "input":
                guard let id = pair.value.scalar, pair.value.sequence == nil, !pair.value.isNull else {
                    error(.wrongType, "`input` must be the id of an earlier stage, not \(pair.value.kindDescription)", pair.value.range)
                    draft.broken = true
                    continue
                }
                draft.input = (id, pair.value.range)
            case "enabled":
                var values = ValueChecker(source: file)
                let v = values.convert(pair.value, Checker.enabledSpec, what: "`enabled`")
                result.diagnostics += values.diagnostics
        usedKnobs.formUnion(values.mentionedParams)
                guard case .boolean(let on)? = v else {
                    draft.broken = true
                    continue
                }
                draft.enabled = on
            case "note":
                if pair.value.scalar == nil || pair.value.sequence != nil {
                    error(.wrongType, "`note` must be text, not \(pair.value.kindDescription)", pair.value.range)
                }
            case "mask":
                maskNode = pair.value
            case "base":
                if let first = opPair ?? basePair {
                    error(.multipleOperations, "stage \(index) has a second operation, `base`", pair.key.range,
                          notes: [.init("the first is `\(first.key.scalar ?? "")`", at: first.key.range),
                                  .init("a frozen base layer is a stage of its own")])
                    draft.broken = true
                } else {
                    basePair = pair
                }
            default:
                if let spec = Operations.named(key) {
                    if let first = opPair ?? basePair {
                        error(.multipleOperations, "stage \(index) has a second operation, `\(key)`", pair.key.range,
                              notes: [.init("the first is `\(first.key.scalar ?? "")`", at: first.key.range),
                                      .init("each stage holds one operation: start a new list item with `- \(key):`")])
                        draft.broken = true
                    } else {
                        opPair = pair
                        draft.op = spec
                        draft.opRange = pair.key.range
                        if let declared = result.declaredVersion, declared < spec.sinceFormat {
                            result.diagnostics.append(Diagnostic(.newerOperation,
                                "`\(key)` came in format \(spec.sinceFormat); this file says version \(declared)", at: pair.key.range,
                                notes: [.init("a reader of format \(declared) would refuse this stage: set `version: \(spec.sinceFormat)` or later (`recipe migrate` does it)")]))
                        }
                    }
                } else {
                    var notes: [Diagnostic.Note] = []
                    let candidates = Operations.all.map(\.name) + RecipeChecker.metaKeys
                    if let guess = Suggestions.closest(to: key, in: candidates) { notes.append(.init("did you mean `\(guess)`?")) }
                    else { notes.append(.init("`recipe ops` lists the operations")) }
                    error(.unknownOperation, "unknown operation `\(key)`", pair.key.range, notes: notes)
                    draft.broken = true
                }
            }
        }
        if let basePair, opPair == nil {
            draft.baseRange = basePair.key.range
            if let (_, range) = draft.input {
                error(.invalidBase, "a frozen base layer has no `input`: it replaces the image with its own pixels", range)
                draft.broken = true
            }
            if let maskNode {
                error(.invalidBase, "a frozen base layer cannot be masked: its pixels are the whole image", maskNode.range)
                draft.broken = true
            }
            if let base = checkBase(basePair.value) { draft.base = base } else { draft.broken = true }
            return draft
        }
        guard let opPair, let spec = draft.op else {
            if !draft.broken {
                error(.stageWithoutOperation, "stage \(index) has no operation", node.range,
                      notes: [.init("a stage holds one operation besides `id`, `input`, `enabled`, `mask` and `note`")])
            }
            draft.broken = true
            return draft
        }
        checkOperation(spec, opPair, into: &draft)
        if let maskNode { draft.mask = checkMask(maskNode, into: &draft) }
        return draft
    }

    mutating func checkOperation(_ spec: OperationSpec, _ pair: YAMLPair, into draft: inout StageDraft) {
        var given: [(String, YAMLNode, SourceRange)] = []
        let value = pair.value
        if let params = value.mapping {
            for p in params {
                guard let key = p.key.scalar else {
                    error(.wrongType, "keys must be words, not \(p.key.kindDescription)", p.key.range)
                    draft.broken = true
                    continue
                }
                guard spec.param(key) != nil else {
                    unknownParam(key, p.key.range, spec: spec)
                    draft.broken = true
                    continue
                }
                given.append((key, p.value, p.key.range))
            }
        } else if value.isNull && value.tag == nil {
            // `invert:` — the defaults
        } else if let primary = spec.primary {
            given.append((primary, value, pair.key.range))
        } else {
            let keys = spec.params.map(\.name)
            error(.wrongType, "`\(spec.name)` takes \(keys.isEmpty ? "no value" : "a mapping of its parameters"), not \(value.kindDescription)", value.range,
                  notes: [.init(keys.isEmpty ? "write `\(spec.name): {}`" : "for example `\(spec.example)`")])
            draft.broken = true
            return
        }
        var params = ParamSet()
        for (key, node, keyRange) in given {
            let paramSpec = spec.param(key)!
            draft.paramRanges[key] = keyRange
            let what = "`\(key)` of `\(spec.name)`"
            if let ref = node.plainScalar, ref.hasPrefix("$") {
                guard let v = knobValue(String(ref.dropFirst()), at: node, spec: paramSpec, what: what) else {
                    draft.broken = true
                    continue
                }
                draft.bindings[key] = String(ref.dropFirst())
                params.set(key, v, given: true)
                continue
            }
            var values = ValueChecker(source: file)
            let v = values.convert(node, paramSpec, what: what)
            result.diagnostics += values.diagnostics
            checkAutoVersion(v, paramSpec, what: what, at: node.range)
        usedKnobs.formUnion(values.mentionedParams)
            guard let v else { draft.broken = true; continue }
            if case .file(let path) = v, !checkFileReference(path, node.range, what: what) { draft.broken = true }
            params.set(key, v, given: true)
        }
        for p in spec.params where params[p.name] == nil {
            if p.required, !given.contains(where: { $0.0 == p.name }) {
                error(.missingParameter, "`\(spec.name)` needs `\(p.name)` (\(p.doc))", pair.key.range,
                      notes: [.init("for example `\(spec.example)`")])
                draft.broken = true
            } else if let d = p.defaultValue {
                params.set(p.name, d, given: false)
            }
        }
        draft.params = params
        if !draft.broken {
            for problem in spec.validate(params) {
                let at = problem.param.flatMap { draft.paramRanges[$0] } ?? pair.key.range
                error(.conflictingParameters, problem.message, at, notes: problem.notes.map { .init($0) })
                draft.broken = true
            }
        }
    }

    mutating func unknownParam(_ key: String, _ range: SourceRange, spec: OperationSpec) {
        let valid = spec.params.map(\.name)
        var notes: [Diagnostic.Note] = []
        if let guess = Suggestions.closest(to: key, in: valid) {
            notes.append(.init("did you mean `\(guess)`?"))
        } else if Operations.named(key) != nil {
            notes.append(.init("`\(key)` is an operation: give it a stage of its own"))
        } else if RecipeChecker.metaKeys.contains(key) {
            notes.append(.init("`\(key)` belongs to the stage, not inside `\(spec.name)`: indent it like the op key"))
        }
        if let band = Self.unknownBand(key, spec: spec) {
            // `teal-hue`: name the bands rather than list 24 keys.
            let word = spec.name == "color-grade" ? "zone" : "band"
            notes.append(.init("`\(band)` is not a \(word) of `\(spec.name)`: the \(word)s are \(Suggestions.list(Self.bands(of: spec))), each with -hue, -saturation and -luminance"))
        } else {
            notes.append(.init(valid.isEmpty ? "`\(spec.name)` has no parameters" : "valid keys of `\(spec.name)`: \(Suggestions.list(valid))"))
        }
        error(.unknownKey, "unknown key `\(key)` for `\(spec.name)`", range, notes: notes)
    }

    /// The bands (or zones) of an op whose keys are `<band>-hue`, `<band>-saturation` and
    /// `<band>-luminance` (the colour mixer, grading): their names in order.
    static func bands(of spec: OperationSpec) -> [String] {
        var names: [String] = []
        for p in spec.params where p.name.hasSuffix("-hue") { names.append(String(p.name.dropLast(4))) }
        return names.count >= 3 && names.allSatisfy({ spec.param("\($0)-saturation") != nil }) ? names : []
    }

    /// The band a key such as `teal-hue` names when `spec` has bands and the key has a band's
    /// suffix but no band's name.
    static func unknownBand(_ key: String, spec: OperationSpec) -> String? {
        let bands = bands(of: spec)
        guard !bands.isEmpty else { return nil }
        for suffix in ["-hue", "-saturation", "-luminance"] where key.hasSuffix(suffix) {
            let band = String(key.dropLast(suffix.count))
            return bands.contains(band) ? nil : band
        }
        return nil
    }

    mutating func knobValue(_ name: String, at node: YAMLNode, spec: ParamSpec, what: String) -> ParamValue? {
        if brokenKnobs.contains(name) {
            usedKnobs.insert(name)
            return nil
        }
        guard let knob = knobs[name] else {
            var notes: [Diagnostic.Note] = []
            if let guess = Suggestions.closest(to: name, in: knobNames) { notes.append(.init("did you mean `$\(guess)`?")) }
            notes.append(.init("declare it under `params:`, for example `params: {\(name): …}`"))
            error(.undefinedParam, "`$\(name)` names no declared param", node.range, notes: notes)
            return nil
        }
        usedKnobs.insert(name)
        var values = ValueChecker(source: file)
        let v = values.convert(knob.value, spec, what: "param `\(name)` (used as \(what))")
        for var d in values.diagnostics {
            d.notes.append(.init("used here", at: node.range))
            result.diagnostics.append(d)
        }
        if case .file(let path)? = v, !checkFileReference(path, knob.value.range, what: what) { return nil }
        checkAutoVersion(v, spec, what: what, at: node.range)
        return v
    }

    /// A measured `auto` (`exposure: auto`, `auto-0.3`) in a file of a format before it came:
    /// a reader of that format would refuse the value, as it would a newer operation.
    mutating func checkAutoVersion(_ v: ParamValue?, _ spec: ParamSpec, what: String, at range: SourceRange?) {
        guard let v, v.isAuto, let since = spec.autoSince, let declared = result.declaredVersion, declared < since else { return }
        result.diagnostics.append(Diagnostic(.newerOperation,
            "`\(v)` as \(what) came in format \(since); this file says version \(declared)", at: range,
            notes: [.init("a reader of format \(declared) would refuse this value: set `version: \(since)` or later (`recipe migrate` does it)")]))
    }

    /// LUTs and other files must stay inside the recipe's folder tree unless allowed.
    /// The recipe's folder and a path written in it, resolved against it.
    func resolved(_ path: String) -> (folder: String, full: String) {
        let recipeDir = file.path.contains("/") ? String(file.path[..<file.path.lastIndex(of: "/")!]) : "."
        return (recipeDir, path.hasPrefix("/") ? path : recipeDir + "/" + path)
    }

    mutating func checkFileReference(_ path: String, _ range: SourceRange, what: String) -> Bool {
        let (recipeDir, full) = resolved(path)
        if !options.allowFilesOutside {
            var escapes = path.hasPrefix("/")
            var depth = 0
            for part in path.split(separator: "/") {
                if part == ".." { depth -= 1 } else if part != "." { depth += 1 }
                if depth < 0 { escapes = true }
            }
            if !escapes, let realDir = realPath(recipeDir), let realFile = realPath(full) {
                escapes = !(realFile == realDir || realFile.hasPrefix(realDir.hasSuffix("/") ? realDir : realDir + "/"))
            }
            if escapes {
                error(.fileOutsideRecipe, "\(what) names `\(path)`, outside the recipe's folder", range,
                      notes: [.init("recipes from others may only read files beside them; `--allow-outside-files` lifts this")])
                return false
            }
        }
        if options.checkFilesExist, access(full, R_OK) != 0 {
            error(.missingFile, "\(what) names `\(path)`, which cannot be read: \(errnoText())", range,
                  notes: [.init("paths are relative to the recipe's folder")])
            return false
        }
        var st = stat()
        if options.checkFilesExist, stat(full, &st) == 0, st.st_mode & S_IFMT != S_IFREG {
            error(.notAFile, "\(what) names `\(path)`, which is \(InputFile.kindName(st.st_mode & S_IFMT)), not a regular file", range,
                  notes: [.init("a render reads only regular files: a FIFO or a device could block it for ever")])
            return false
        }
        return true
    }

    /// A mask image must be a PNG or a TIFF: its first bytes say so before anything decodes it.
    mutating func checkMaskImage(_ path: String, _ range: SourceRange, what: String) -> Bool {
        guard options.checkFilesExist else { return true }
        let full = resolved(path).full
        guard let head = try? InputFile.prefix(full, count: 8) else { return true }  // unreadable: checkFileReference said so
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let tiff = head.starts(with: [0x49, 0x49, 0x2A, 0x00]) || head.starts(with: [0x4D, 0x4D, 0x00, 0x2A])
        guard head.starts(with: png) || tiff else {
            error(.invalidMask, "\(what) names `\(path)`, which is not a PNG or TIFF image (\(head.isEmpty ? "it is empty" : "it starts with " + head.prefix(4).map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined(separator: " ")))", range,
                  notes: [.init("a mask is an 8- or 16-bit grey PNG or TIFF, white where the stage applies; export it as one")])
            return false
        }
        return true
    }

    func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }

    mutating func checkMask(_ node: YAMLNode, into draft: inout StageDraft, depth: Int = 0) -> FilterGraph.Mask? {
        let kinds = Operations.masks.map(\.name) + FilterGraph.Mask.combinations
        guard let pairs = node.mapping, pairs.count == 1, let kind = pairs[0].key.scalar else {
            error(.invalidMask, "`mask` must hold exactly one of \(Suggestions.list(kinds)), not \(node.mapping.map { "\($0.count) keys" } ?? node.kindDescription)", node.range,
                  notes: [.init("for example `mask: {gradient: {from: [0.5, 0], to: [0.5, 0.45]}}`")])
            draft.broken = true
            return nil
        }
        if FilterGraph.Mask.combinations.contains(kind) {
            return checkCombination(kind, pairs[0].value, node.range, into: &draft, depth: depth)
        }
        guard let spec = Operations.mask(named: kind) else {
            var notes: [Diagnostic.Note] = []
            if let guess = Suggestions.closest(to: kind, in: kinds) { notes.append(.init("did you mean `\(guess)`?")) }
            notes.append(.init("masks: \(Suggestions.list(kinds))"))
            error(.invalidMask, "unknown mask `\(kind)`", pairs[0].key.range, notes: notes)
            draft.broken = true
            return nil
        }
        var params = ParamSet()
        var ranges: [String: SourceRange] = [:]
        let value = pairs[0].value
        if let fields = value.mapping {
            for f in fields {
                guard let key = f.key.scalar, let p = spec.param(key) else {
                    let valid = spec.params.map(\.name)
                    var notes: [Diagnostic.Note] = []
                    if let k = f.key.scalar, let guess = Suggestions.closest(to: k, in: valid) { notes.append(.init("did you mean `\(guess)`?")) }
                    notes.append(.init("valid keys of mask `\(kind)`: \(Suggestions.list(valid))"))
                    error(.unknownKey, "unknown key `\(f.key.scalar ?? "?")` for mask `\(kind)`", f.key.range, notes: notes)
                    draft.broken = true
                    continue
                }
                var values = ValueChecker(source: file)
                let v = values.convert(f.value, p, what: "`\(key)` of mask `\(kind)`")
                result.diagnostics += values.diagnostics
        usedKnobs.formUnion(values.mentionedParams)
                guard let v else { draft.broken = true; continue }
                if case .file(let path) = v {
                    let what = "`\(key)` of mask `\(kind)`"
                    guard checkFileReference(path, f.value.range, what: what), checkMaskImage(path, f.value.range, what: what) else {
                        draft.broken = true
                        continue
                    }
                }
                params.set(key, v, given: true)
                ranges[key] = f.key.range
            }
        } else if !value.isNull {
            error(.invalidMask, "mask `\(kind)` takes a mapping of its parameters, not \(value.kindDescription)", value.range,
                  notes: [.init("for example `\(spec.example)`")])
            draft.broken = true
            return nil
        }
        for p in spec.params where params[p.name] == nil {
            if let d = p.defaultValue { params.set(p.name, d, given: false) }
        }
        for problem in spec.validate(params) {
            error(.invalidMask, problem.message, problem.param.flatMap { ranges[$0] } ?? pairs[0].key.range,
                  notes: problem.notes.map { .init($0) })
            draft.broken = true
        }
        return FilterGraph.Mask(kind: kind, params: params, range: node.range)
    }

    /// `all: [mask, mask, …]` or `any: [...]`: two or more masks, each checked as a stage's
    /// `mask:` is (combinations nest, eight deep at most).
    mutating func checkCombination(_ kind: String, _ value: YAMLNode, _ range: SourceRange, into draft: inout StageDraft, depth: Int) -> FilterGraph.Mask? {
        let example = "mask: {\(kind): [{color: {hue-min: 200, hue-max: 270}}, {gradient: {from: [0.5, 0], to: [0.5, 0.6]}}]}"
        guard let items = value.sequence, items.count >= 2 else {
            error(.invalidMask, "`\(kind)` combines a list of two or more masks, not \(value.sequence.map { "a list of \($0.count)" } ?? value.kindDescription)", value.range,
                  notes: [.init("for example `\(example)`"),
                          .init(kind == "all" ? "`all` applies where every mask selects (their weights multiplied)" : "`any` applies where one mask selects (the largest weight)")])
            draft.broken = true
            return nil
        }
        guard depth < 8 else {
            error(.invalidMask, "masks combined more than eight deep", value.range, notes: [.init("flatten the combination: `all` and `any` take any number of masks")])
            draft.broken = true
            return nil
        }
        var parts: [FilterGraph.Mask] = []
        for item in items {
            if let part = checkMask(item, into: &draft, depth: depth + 1) { parts.append(part) }
        }
        guard parts.count == items.count else { return nil }
        return FilterGraph.Mask(kind: kind, params: ParamSet(), range: range, parts: parts)
    }
}
