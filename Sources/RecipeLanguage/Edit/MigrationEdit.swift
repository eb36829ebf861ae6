import RecipeCore

/// `recipe migrate`'s write: the file's own text with only the migrated spans edited — the
/// `version:` value, a renamed key, a rescaled value, a removed key's lines — found by walking the
/// file's tree beside the migrated one (the migrations keep every node's source marks). The
/// result must read back as the canonical migration does, else that canonical text is written.
///
/// ```yaml
/// version: "1.0"                        version: "1.2"
/// stages:                               stages:
///     - vignette:                   →       - vignette:
///         intensity: 0.80  # corners            amount: 0.80  # corners
/// ```
public enum MigrationEdit {
    /// The migrated text of a checked recipe (nil when `RecipePrinter.migrated` gives none).
    public static func migrated(_ checked: CheckedRecipe) -> FormatPreservingWrite? {
        guard let canonical = RecipePrinter.migrated(checked) else { return nil }
        let file = checked.file
        do {
            let text = try edit(checked)
            guard let meaning = try? RecipeDocument.parse(SourceFile(path: file.path, text: canonical)), meaning.isMeant(by: text) else {
                return FormatPreservingWrite(text: canonical, note: "\(file.path): written in the canonical form (the migration in place did not read back the same)")
            }
            return FormatPreservingWrite(text: text, note: nil)
        } catch {
            return FormatPreservingWrite(text: canonical, note: "\(file.path): written in the canonical form (\(error.reason))")
        }
    }

    static func edit(_ checked: CheckedRecipe) throws(SourceEditor.Unclear) -> String {
        let (original, _) = YAMLReader.read(checked.file)
        guard let original, var migrated = checked.root else { throw SourceEditor.Unclear("the file does not read") }
        if let v = checked.declaredVersion, v < RecipeFormat.current, checked.migrations.isEmpty {
            migrated = Migrator.migrate(migrated, from: v).0
        }
        var editor = SourceEditor(checked.file)
        try walk(original, migrated, &editor)
        guard let text = editor.apply() else { throw SourceEditor.Unclear("two edits overlap") }
        return text
    }

    /// Edits every scalar whose text the migration changed and removes every pair it removed.
    static func walk(_ old: YAMLNode, _ new: YAMLNode, _ editor: inout SourceEditor) throws(SourceEditor.Unclear) {
        switch (old.content, new.content) {
        case (.scalar(let a, let style), .scalar(let b, _)):
            guard a != b else { return }
            editor.replace(old.range, with: spelled(b, like: style))
        case (.sequence(let a), .sequence(let b)):
            guard a.count == b.count else { throw SourceEditor.Unclear("a migrated list changed length") }
            for (x, y) in zip(a, b) { try walk(x, y, &editor) }
        case (.mapping(let a), .mapping(let b)):
            for p in a {
                if let q = b.first(where: { $0.key.range == p.key.range }) {
                    try walk(p.key, q.key, &editor)
                    try walk(p.value, q.value, &editor)
                } else {
                    try editor.deletePair(p, in: old)
                }
            }
            guard b.allSatisfy({ q in a.contains { $0.key.range == q.key.range } }) else { throw SourceEditor.Unclear("a migration added a key") }
        default:
            throw SourceEditor.Unclear("a migrated value changed shape")
        }
    }

    /// A migrated scalar in the quoting the file used for it.
    static func spelled(_ s: String, like style: YAMLNode.ScalarStyle) -> String {
        switch style {
        case .doubleQuoted: return YAMLText.quoted(s)
        case .singleQuoted where !s.contains("'") && !s.contains("\n"): return "'" + s + "'"
        default: return YAMLText.isPlainSafe(s) || YAMLText.looksNumeric(s) ? s : YAMLText.quoted(s)
        }
    }
}
