import RecipeCodecs
import RecipeCore
import RecipeLanguage

/// A photo's adjustment data in our format: the recipe `<photo file name>.recipe.yaml` beside
/// it, with `original:` binding it to the photo's bytes and `base:` stages for frozen foreign
/// layers. Edits are made to the canonical text (`recipe fmt`'s form); `save` writes them into
/// the file's own text (`FormatPreservingWrite`), so a sidecar a person has edited keeps its
/// indents, spellings and comments and gains or loses only the lines of what changed:
///
/// ```swift
/// var sidecar = try Sidecar.load(Sidecar.path(forPhoto: "IMG_0001.JPG"))
/// try sidecar.append(stages: ["  - id: exposure\n    exposure: 0.3\n"])
/// try sidecar.save()
/// ```
public struct Sidecar: Sendable {
    /// The sidecar of a photo: its file name plus `.recipe.yaml`.
    public static func path(forPhoto photo: String) -> String { photo + ".recipe.yaml" }

    /// Sidecars may carry embedded foreign data, so they may be larger than a hand-written recipe.
    public static let maxBytes = 16 << 20

    /// Whether a file name is a photo's sidecar (`IMG_0001.JPG.recipe.yaml`): a recipe name whose
    /// stem is a photo's file name, of any format recipe reads (raws too). `recipe check` reads
    /// those with the sidecar limit.
    public static func isSidecarName(_ path: String) -> Bool {
        let name = Paths.name(of: path)
        guard name.lowercased().hasSuffix(".recipe.yaml") else { return false }
        let photo = String(name.dropLast(".recipe.yaml".count))
        guard let dot = photo.lastIndex(of: "."), dot != photo.startIndex else { return false }
        return ImageFileFormat(pathExtension: photo) != nil || RawDetection.hasRawExtension(photo)
    }

    public let path: String
    /// The text edits are made to: the file as read until the first edit, canonical from then on.
    public private(set) var text: String
    /// The text, checked.
    public private(set) var checked: CheckedRecipe
    /// What the file held when this sidecar was read; `save` writes only over that.
    var found: Found = .unchecked
    /// The file's text as read, which `save` edits rather than replaces (nil: a new sidecar).
    var asRead: SourceFile?

    /// The file at `path` as this sidecar found it.
    enum Found: Sendable {
        /// A new sidecar: there must still be no file.
        case absent
        /// Read from the file whose bytes had this SHA-256.
        case sha256(String)
        /// Not read from `path` (an in-memory edit, a sidecar moved to a new name).
        case unchecked
    }

    /// A new sidecar with no stages (and a note, when given).
    public init(path: String, original: OriginalBinding, note: String? = nil) throws {
        self.path = path
        let noteLine = note.map { "note: \(SidecarText.scalar($0))\n" } ?? ""
        let text = "format: \(RecipeFormat.identifier)\nversion: \(RecipeFormat.current)\n\(noteLine)\(SidecarText.original(original))\nstages: []\n"
        self.text = text
        self.checked = Sidecar.check(text, path: path)
        self.found = .absent
        try canonicalise()
    }

    /// Any recipe's text as a sidecar to edit in memory (`recipe preview` cuts it after a stage
    /// or turns stages off with these edits), canonicalised first; nothing is saved unless the
    /// caller calls `save`. Throws `SidecarEditError` when the text has errors.
    public init(editing text: String, path: String) throws {
        self.path = path
        self.text = text
        self.checked = Sidecar.check(text, path: path)
        try canonicalise()
    }

    private init(path: String, text: String, checked: CheckedRecipe) {
        self.path = path
        self.text = text
        self.checked = checked
    }

    /// Reads and checks a sidecar. Foreign data is not an error here (`checked.isForeign`); a
    /// broken recipe is returned with its diagnostics for the caller to print.
    public static func load(_ path: String) throws -> Sidecar {
        let bytes = try Paths.readBytes(path, limit: maxBytes)
        // Read as it is, or not at all: decoding with replacement characters would make a sidecar
        // `check` refuses look fine, and the next write would keep the replacements.
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw HistoryError(path, "is not valid UTF-8 (\(Self.firstInvalidUTF8(bytes))); nothing was changed: fix it in an editor (`recipe check` shows where)")
        }
        var sidecar = Sidecar(path: path, text: text, checked: check(text, path: path))
        sidecar.found = .sha256(ContentHash.bytes(bytes))
        sidecar.asRead = SourceFile(path: path, bytes: bytes)
        return sidecar
    }

    /// Where the first byte that is not UTF-8 is, in words: "line 3, byte 41".
    static func firstInvalidUTF8(_ bytes: [UInt8]) -> String {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): offset += scalar.count
            case .error:
                let line = bytes[..<offset].reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
                return "line \(line), byte \(offset + 1)"
            case .emptyInput: return "at the end"
            }
        }
    }

    public static func check(_ text: String, path: String, overrides: [String: String] = [:]) -> CheckedRecipe {
        var options = CheckOptions()
        options.limits.maxBytes = maxBytes
        options.overrides = overrides
        return RecipeChecker.check(SourceFile(path: path, text: text), options: options)
    }

    /// The same sidecar under another path (for `relink`).
    public func moved(to newPath: String) throws -> Sidecar {
        var moved = Sidecar(path: newPath, text: text, checked: Sidecar.check(text, path: newPath))
        moved.found = .absent
        moved.asRead = asRead
        return moved
    }

    /// Writes the sidecar atomically, if the file still holds what it held when this sidecar was
    /// read (or is still absent, for a new one). recipe's own writers hold the folder's lock
    /// (`Sidecar.lockFolder`) from reading to saving; this check catches every other writer (an
    /// editor's save), so an edit made meanwhile is never overwritten: the command fails instead.
    public func save() throws {
        try checkUnchanged()
        try Paths.writeAtomically(path, Array(written.text.utf8))
    }

    /// What `save` writes: the edits made since the file was read, in the file's own text (only
    /// what changed is edited; `note` says when the canonical text is written instead).
    public var written: FormatPreservingWrite {
        guard let asRead, Array(text.utf8) != asRead.bytes else { return FormatPreservingWrite(text: text, note: nil) }
        return FormatPreservingWrite.write(text, over: asRead)
    }

    /// Throws when the file is no longer what this sidecar was read from.
    public func checkUnchanged() throws {
        switch found {
        case .unchecked:
            return
        case .absent:
            if Paths.exists(path) {
                throw HistoryError(path, "was created by another program while this edit was being made; nothing written: run the command again")
            }
        case .sha256(let digest):
            let now = Paths.exists(path) ? try? Paths.readBytes(path, limit: Sidecar.maxBytes) : nil
            guard let now, ContentHash.bytes(now) == digest else {
                throw HistoryError(path, "was \(now == nil ? "removed" : "changed") by another program while this edit was being made; nothing written: run the command again")
            }
        }
    }

    /// Locks the folder of the sidecar at `path` for one read-change-write (every recipe command
    /// that writes sidecars or recipes takes it), waiting for another holder with `waiting`.
    public static func lockFolder(of path: String, waiting: (String?) -> Void) throws -> FileLock {
        do {
            return try FileLock(folder: Paths.folder(of: path), mode: .exclusive, waiting: waiting)
        } catch .busy {
            throw HistoryError(path, "is being changed by another process")
        } catch .cannotOpen(let why) {
            throw HistoryError(path, why)
        }
    }

    /// Throws the sidecar's errors (a file that does not parse or check), before anything changes it.
    public func requireNoErrors() throws {
        guard !checked.hasErrors else {
            throw SidecarEditError(what: "the sidecar", diagnostics: checked.diagnostics.filter { $0.severity == .error }, file: checked.file)
        }
    }

    /// Every frozen base's pixels present and intact in `store`: checked before a change is
    /// written, so a sidecar that cannot be rendered is refused, not saved.
    public func verifyObjects(in store: ObjectStore) throws {
        for stage in checked.stages {
            if let base = stage.base { _ = try store.verify(base.pixels) }
        }
    }

    // MARK: edits (each re-checks and re-formats; a change that breaks the recipe is refused)

    /// Replaces the text, which must check without errors; stores the canonical form.
    /// A stage newer than the sidecar's format version (a `develop` added to a 1.1 sidecar)
    /// moves the version up to the current one, so the file says what reading it needs.
    mutating func replace(with newText: String, what: String) throws {
        var result = Sidecar.check(newText, path: path)
        if result.diagnostics.contains(where: { $0.code == .newerOperation }), !result.hasErrors,
           let migrated = RecipePrinter.migrated(result) {
            result = Sidecar.check(migrated, path: path)
        }
        guard !result.hasErrors, let canonical = RecipePrinter.format(result) else {
            throw SidecarEditError(what: what, diagnostics: result.diagnostics.filter { $0.severity == .error }, file: result.file)
        }
        text = canonical
        checked = Sidecar.check(canonical, path: path)
    }

    mutating func canonicalise() throws { try replace(with: text, what: "the sidecar") }

    /// Puts the text as read in the canonical form before the first edit, so the line edits below
    /// find stages where `recipe fmt` puts them whatever the file's own indents (`save` writes the
    /// result back into the file's own text).
    mutating func editable() throws {
        if let asRead, Array(text.utf8) == asRead.bytes { try canonicalise() }
    }

    /// Binds the sidecar to an original (replacing any earlier binding).
    public mutating func bind(to original: OriginalBinding) throws {
        try editable()
        var lines = lines().filter { !$0.hasPrefix("original:") }
        let at = lines.firstIndex { $0.hasPrefix("params:") || $0.hasPrefix("stages:") } ?? lines.count
        lines.insert(SidecarText.original(original), at: at)
        try replace(with: lines.joined(separator: "\n"), what: "binding the sidecar to its photo")
    }

    /// Appends stage items (each "  - …" text at list indent 2, ending with a newline).
    public mutating func append(stages items: [String], what: String = "the new stages") throws {
        guard !items.isEmpty else { return }
        try editable()
        var t = lines().map { $0 == "stages: []" ? "stages:" : $0 }.joined(separator: "\n")
        if !t.hasSuffix("\n") { t += "\n" }
        t += items.joined()
        try replace(with: t, what: what)
    }

    /// Adds `params:` entries ("  name: {default: …}" lines) from an added recipe.
    mutating func append(params entries: [String]) throws {
        guard !entries.isEmpty else { return }
        try editable()
        var lines = lines()
        if let p = lines.firstIndex(where: { $0.hasPrefix("params:") }) {
            if lines[p] == "params: {}" { lines[p] = "params:" }
            var end = p + 1
            while end < lines.count, lines[end].hasPrefix(" ") || lines[end].isEmpty { end += 1 }
            lines.insert(contentsOf: entries, at: end)
        } else {
            let at = lines.firstIndex { $0.hasPrefix("stages:") } ?? lines.count
            lines.insert(contentsOf: ["params:"] + entries, at: at)
        }
        try replace(with: lines.joined(separator: "\n"), what: "the added params")
    }

    /// Removes a stage (1-based list position), with the comments above it.
    public mutating func remove(stage index: Int) throws {
        try editable()
        let (start, end) = try block(of: index)
        var lines = lines()
        lines.removeSubrange(start..<end)
        if !lines.contains(where: { $0.hasPrefix("  - ") || $0.hasPrefix("  -\t") }),
           let s = lines.firstIndex(where: { $0.hasPrefix("stages:") }) {
            lines[s] = "stages: []"
        }
        let what = "removing stage \(index)"
        try replace(with: lines.joined(separator: "\n"), what: what)
    }

    /// The block-form `params:` entries no stage uses (the checker's R301), as (1-based key line,
    /// name); the canonical text writes each entry on its own line at indent 2.
    var unusedParamEntries: [(line: Int, name: String)] {
        let text = lines()
        return checked.diagnostics.filter { $0.code == .unusedParam }.compactMap { $0.range?.start.line }.compactMap { line in
            guard line >= 1, line <= text.count, text[line - 1].hasPrefix("  "), !text[line - 1].hasPrefix("   ") else { return nil }
            return (line, String(text[line - 1].dropFirst(2).prefix { $0 != ":" }))
        }
    }

    /// The names of the params no stage uses.
    var unusedParams: Set<String> { Set(unusedParamEntries.map(\.name)) }

    /// Removes the params that became unused since `before` (the `unusedParams` of the text a
    /// revert started from): the stages that used them are gone, and the param with them, so
    /// every later command does not warn of it. Params unused before are the user's to remove.
    mutating func removeParams(unusedSince before: Set<String>) throws {
        let entries = unusedParamEntries.filter { !before.contains($0.name) }
        guard !entries.isEmpty else { return }
        try editable()
        var lines = lines()
        for entry in entries.sorted(by: { $0.line > $1.line }) {
            var end = entry.line
            while end < lines.count, lines[end].hasPrefix("   ") { end += 1 }
            lines.removeSubrange((entry.line - 1)..<end)
        }
        if let p = lines.firstIndex(of: "params:"), p + 1 >= lines.count || !lines[p + 1].hasPrefix("  ") { lines.remove(at: p) }
        try replace(with: lines.joined(separator: "\n"), what: "removing the params no stage uses: " + entries.map(\.name).sorted().joined(separator: ", "))
    }

    /// Keeps the first `count` stages and drops the rest (for renders of an earlier layer).
    /// Stages are the last top-level key of the canonical text, so this is one cut.
    public mutating func keepFirst(_ count: Int) throws {
        guard count < checked.stages.count else { return }
        try editable()
        let end = count > 0 ? try block(of: count).1 : try block(of: 1).0
        var kept = Array(lines()[..<end])
        if count == 0, let s = kept.firstIndex(where: { $0.hasPrefix("stages:") }) { kept[s] = "stages: []" }
        try replace(with: kept.joined(separator: "\n") + "\n", what: "keeping the first \(count) stages")
    }

    /// Turns a stage on or off with its one `enabled:` line.
    public mutating func setEnabled(_ enabled: Bool, stage index: Int) throws {
        try editable()
        let (_, end) = try block(of: index)
        var lines = lines()
        let first = try firstLine(of: index)
        let value = enabled ? "true" : "false"
        if let e = (first..<end).first(where: { lines[$0].hasPrefix("    enabled:") || lines[$0].hasPrefix("  - enabled:") }) {
            lines[e] = (lines[e].hasPrefix("  - ") ? "  - " : "    ") + "enabled: " + value
        } else {
            lines.insert("    enabled: " + value, at: first + 1)
        }
        try replace(with: lines.joined(separator: "\n"), what: (enabled ? "enabling" : "disabling") + " stage \(index)")
    }

    // MARK: lines

    func lines() -> [String] {
        var l = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if l.last == "" { l.removeLast() }
        return l
    }

    /// 0-based index of the stage's "  - " line.
    func firstLine(of index: Int) throws -> Int {
        guard index >= 1, index <= checked.stages.count else {
            throw HistoryError(path, "there is no stage \(index) (the sidecar has \(checked.stages.count))")
        }
        return checked.stages[index - 1].range.start.line - 1
    }

    /// 0-based line range [start, end) of a stage item in the canonical text, including the
    /// comment lines directly above it.
    func block(of index: Int) throws -> (Int, Int) {
        let lines = lines()
        var start = try firstLine(of: index)
        func isComment(_ l: String) -> Bool { l.hasPrefix("  ") && l.drop(while: { $0 == " " }).hasPrefix("#") }
        while start > 0, isComment(lines[start - 1]) { start -= 1 }
        var end: Int
        if index < checked.stages.count {
            end = try firstLine(of: index + 1)
            while end > start + 1, isComment(lines[end - 1]) { end -= 1 }
        } else {
            // The last stage runs to the next line at the top level (a blank line inside a
            // literal block of embedded data is part of it when indented lines follow).
            end = try firstLine(of: index) + 1
            var j = end
            while j < lines.count {
                let l = lines[j]
                if l.isEmpty { j += 1; continue }
                guard l.hasPrefix("   ") || (l.hasPrefix("  ") && !l.hasPrefix("  -")) else { break }
                j += 1
                end = j
            }
        }
        return (start, end)
    }
}

/// A change that would leave the sidecar broken (a removed stage that another reads, an added
/// stage with a mistake): refused, with the checker's diagnostics.
public struct SidecarEditError: Error, Sendable {
    public var what: String
    public var diagnostics: [Diagnostic]
    public var file: SourceFile
}
