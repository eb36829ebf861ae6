import RecipeCore

/// Words for a parameter's type, range, unit and default, shared by `recipe ops`, the generated
/// Grammar/operations.md and the schema's descriptions.
public enum ParamDescription {
    public static func type(_ kind: ParamKind) -> String {
        switch kind {
        case .number(let r, let unit):
            let u = unit == .none ? "" : unit == .degrees ? "°" : " \(unit.rawValue)"
            return "number \(n(r.lowerBound))…\(n(r.upperBound))\(u)"
        case .integer(let r): return "integer \(r.lowerBound)…\(r.upperBound)"
        case .boolean: return "true | false"
        case .choice(let cases): return cases.joined(separator: " | ")
        case .color: return "colour \"#rrggbb\" or [r, g, b]"
        case .point(let r): return "point [x, y], each \(n(r.lowerBound))…\(n(r.upperBound)) of the canvas"
        case .points(let c): return "\(c.lowerBound)–\(c.upperBound) points [[x, y], …] in 0…1"
        case .length(let px, let base): return "length: px (\(n(px.lowerBound))…\(n(px.upperBound))) or % of the \(base.rawValue)"
        case .angle(let r, let allowed):
            if let allowed { return "angle: " + allowed.map(n).joined(separator: " | ") + "°" }
            return "angle \(n(r.lowerBound))…\(n(r.upperBound))°"
        case .file(let ext): return "file (" + ext.map { "." + $0 }.joined(separator: ", ") + "), relative to the recipe"
        case .matrix: return "3×3 or 3×4 matrix [[…], […], […]]"
        case .aspect: return "ratio \"w:h\""
        case .stageRef: return "id of an earlier stage"
        case .text(let max): return "text (up to \(max) characters)"
        case .orAuto(let inner): return "auto | " + type(inner)
        }
    }

    public static func defaultText(_ p: ParamSpec) -> String {
        if p.required { return "required" }
        return p.defaultValue?.description ?? "none"
    }

    static func n(_ v: Double) -> String { NumberFormatting.shortest(v) }
}
