import RecipeCore
import RecipeSession

/// A flat JSON object on one line, for `--json` outputs read by scripts and editors.
///
/// Hand-written because the outputs are flat and Foundation's JSONEncoder would pull the whole of
/// Foundation into a binary whose resident size is a measured target.
package enum JSONLine {
    package enum Value {
        case string(String)
        case int(Int)
        case number(Double)
        case bool(Bool)
        case list([String])

        /// Plain-text rendering for human output.
        package var text: String {
            switch self {
            case .string(let s): s
            case .int(let i): "\(i)"
            case .number(let d): "\(d)"
            case .bool(let b): b ? "yes" : "no"
            case .list(let l): l.isEmpty ? "none" : l.joined(separator: ", ")
            }
        }

        var json: String {
            switch self {
            case .string(let s): JSONLine.quote(s)
            case .int(let i): "\(i)"
            case .number(let d): d.isFinite ? "\(d)" : "null"
            case .bool(let b): b ? "true" : "false"
            case .list(let l): "[" + l.map(JSONLine.quote).joined(separator: ",") + "]"
            }
        }
    }

    package static func object(_ fields: [(String, Value)]) -> String {
        "{" + fields.map { "\(quote($0.0.replacingSpaces())):\($0.1.json)" }.joined(separator: ",") + "}"
    }

    static func quote(_ s: String) -> String { JSONValue.quote(s) }
}

extension String {
    /// JSON keys use underscores where the human labels have spaces ("bit depth" → "bit_depth").
    fileprivate func replacingSpaces() -> String { String(map { $0 == " " ? "_" : $0 }) }
}
