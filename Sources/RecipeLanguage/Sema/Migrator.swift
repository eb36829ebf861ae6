import RecipeCore
import RecipeOps

/// Brings a recipe of an older minor format version up to the current one, one step at a time:
/// for each op, every `ParamMigration` introduced after the file's version is applied to the op's
/// keys in the YAML tree, so `recipe migrate` prints the upgrade as a plain diff (comments kept).
///
/// ```yaml
/// version: 1.0                      version: 1.1
/// stages:                      →    stages:
///   - vignette: {intensity: 0.8}      - vignette: {amount: 0.8}
/// ```
enum Migrator {
    /// The migrated tree, one line per change made, and the conflicts found (an old key given
    /// together with its new name: which one was meant is unknowable, so it is an error).
    static func migrate(_ root: YAMLNode, from version: FormatVersion) -> (YAMLNode, [String], [Diagnostic]) {
        guard version < RecipeFormat.current, var pairs = root.mapping else { return (root, [], []) }
        var log: [String] = []
        var conflicts: [Diagnostic] = []
        for (i, pair) in pairs.enumerated() where pair.key.scalar == "version" {
            var v = pair.value
            v.content = .scalar(RecipeFormat.current.description, .plain)
            pairs[i].value = v
        }
        for (i, pair) in pairs.enumerated() where pair.key.scalar == "stages" {
            guard var stages = pair.value.sequence else { continue }
            for s in stages.indices {
                guard var stage = stages[s].mapping else { continue }
                for k in stage.indices {
                    guard let name = stage[k].key.scalar, let spec = Operations.named(name) else { continue }
                    let steps = spec.migrations.filter { $0.sinceFormat > version }.sorted { $0.toVersion < $1.toVersion }
                    for migration in steps {
                        conflicts += conflictsOf(migration, in: stage[k].value, op: name)
                        if apply(migration, to: &stage[k].value) {
                            log.append("stage \(s + 1) `\(name)`: \(migration.reason) (format \(migration.sinceFormat))")
                        }
                    }
                }
                stages[s].content = .mapping(stage)
            }
            pairs[i].value.content = .sequence(stages)
        }
        var out = root
        out.content = .mapping(pairs)
        return (out, log, conflicts)
    }

    /// Renames whose new key is already there.
    static func conflictsOf(_ migration: ParamMigration, in value: YAMLNode, op: String) -> [Diagnostic] {
        guard let params = value.mapping else { return [] }
        var out: [Diagnostic] = []
        for case .rename(let from, let to) in migration.steps {
            guard let old = params.first(where: { $0.key.scalar == from }), params.contains(where: { $0.key.scalar == to }) else { continue }
            out.append(Diagnostic(.conflictingParameters,
                "`\(from)` of `\(op)` is the name `\(to)` had before format \(migration.sinceFormat); both are given", at: old.key.range,
                notes: [.init("keep one of them: \(migration.reason)")]))
        }
        return out
    }

    /// Applies one migration to an op's value; true when it changed anything.
    static func apply(_ migration: ParamMigration, to value: inout YAMLNode) -> Bool {
        guard var params = value.mapping else { return false }
        var changed = false
        for step in migration.steps {
            switch step {
            case .rename(let from, let to):
                guard !params.contains(where: { $0.key.scalar == to }) else {
                    params.removeAll { $0.key.scalar == from }  // reported by conflictsOf; one error is enough
                    continue
                }
                for i in params.indices where params[i].key.scalar == from {
                    params[i].key.content = .scalar(to, .plain)
                    changed = true
                }
            case .scale(let key, let factor):
                for i in params.indices where params[i].key.scalar == key {
                    if let text = params[i].value.plainScalar, let v = Double(text) {
                        params[i].value.content = .scalar(NumberFormatting.shortest(v * factor), .plain)
                        changed = true
                    }
                }
            case .remove(let key):
                let before = params.count
                params.removeAll { $0.key.scalar == key }
                changed = changed || params.count != before
            }
        }
        value.content = .mapping(params)
        return changed
    }
}
