import RecipeCore
import RecipeOps

/// Grammar/operations.md, generated from the op declarations (`recipe ops --markdown`); a test
/// fails when the committed file is stale.
public enum OperationsDocument {
    /// What an op's space means for the values it sees.
    static func spaceMeaning(_ space: WorkingSpace) -> String {
        switch space {
        case .linear: "working-space linear light, whatever the photo's profile"
        case .encoded: "working-space values through the sRGB curve, whatever the photo's profile"
        case .any: "any space: the values as they come"
        case .none: "pixels are only moved"
        }
    }

    public static func markdown() -> String {
        var out = """
        # Operations

        Generated from the op declarations in Sources/RecipeOps by `recipe ops --markdown`; do not
        edit by hand (a test fails when this file is stale). Format \(RecipeFormat.identifier) \(RecipeFormat.current).

        Every stage holds one operation. `op: value` sets the op's primary parameter (marked ★);
        `op: {key: value, …}` sets any; `op: {}` takes the defaults. Spaces: `lin` linear light,
        `enc` sRGB-encoded, `none` pixels only moved; classes as in semantics.md. The values an op
        sees are the working space's (linear light, sRGB primaries, extended range), whatever the
        photo's colour profile: a `lin` op sees them as they are, an `enc` op through the sRGB curve
        (semantics.md, "Working space, precision and colour").

        | op | class | space | summary |
        |---|---|---|---|

        """
        for op in Operations.all {
            out += "| [`\(op.name)`](#\(op.name)) | \(op.opClass.rawValue) | \(op.space.rawValue) | \(cell(op.summary)) |\n"
        }
        out += "\nMasks (a stage's `mask:` holds one): " + Operations.masks.map { "[`\($0.name)`](#mask-\($0.name))" }.joined(separator: ", ") + ".\n"
        for op in Operations.all {
            out += "\n## \(op.name)\n\n\(op.summary)\n\n"
            out += "Class: \(op.opClass.rawValue). Space: \(op.space.rawValue) (\(Self.spaceMeaning(op.space))). Parameter version: \(op.version).\n\n"
            out += table(op.params, primary: op.primary)
            out += "\nExample:\n\n```yaml\n- \(op.example.replacingNewlines(with: "\n  "))\n```\n"
            if !op.migrations.isEmpty {
                out += "\nMigrations:\n\n"
                for m in op.migrations {
                    out += "- to version \(m.toVersion) (format \(m.sinceFormat)): \(m.reason) Old keys: \(m.oldKeys.map { "`\($0)`" }.joined(separator: ", ")).\n"
                }
            }
        }
        for mask in Operations.masks {
            out += "\n## mask: \(mask.name)\n<a id=\"mask-\(mask.name)\"></a>\n\n\(mask.summary)\n\n"
            out += table(mask.params, primary: nil)
            out += "\nExample:\n\n```yaml\n\(mask.example)\n```\n"
        }
        return out
    }

    static func table(_ params: [ParamSpec], primary: String?) -> String {
        guard !params.isEmpty else { return "No parameters.\n" }
        var out = "| key | type | default | meaning |\n|---|---|---|---|\n"
        for p in params {
            let star = p.name == primary ? " ★" : ""
            out += "| `\(p.name)`\(star) | \(cell(ParamDescription.type(p.kind))) | \(cell(ParamDescription.defaultText(p))) | \(cell(p.doc)) |\n"
        }
        return out
    }

    static func cell(_ s: String) -> String {
        String(s.flatMap { $0 == "|" ? ["\\", "|"] : [$0] })
    }
}

extension String {
    func replacingNewlines(with s: String) -> String {
        split(separator: "\n", omittingEmptySubsequences: false).joined(separator: s)
    }
}
