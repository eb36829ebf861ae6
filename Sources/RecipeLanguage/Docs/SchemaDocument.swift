import RecipeCore
import RecipeOps

/// Grammar/recipe.schema.json (JSON Schema 2020-12), generated from the op declarations, so
/// editors with a YAML language server complete and validate recipes:
///
/// ```yaml
/// # yaml-language-server: $schema=../Grammar/recipe.schema.json
/// ```
///
/// The schema checks shape, types, ranges and enums; what it cannot say (duplicate keys, inputs
/// naming earlier stages, cross-parameter rules) `recipe check` does.
public enum SchemaDocument {
    static let idPattern = "^[a-z](?:[a-z0-9]|-(?=[a-z0-9]))*$"
    static let refPattern = "^\\$[a-z](?:[a-z0-9]|-(?=[a-z0-9]))*$"

    public static func json() -> JSONValue {
        var defs: [(String, JSONValue)] = [
            ("param-ref", .object([("type", "string"), ("pattern", .string(refPattern)),
                                    ("description", "a recipe-level param declared under `params:`, e.g. $warmth")])),
        ]
        var stageProperties: [(String, JSONValue)] = [
            ("id", .object([("type", "string"), ("pattern", .string(idPattern)), ("description", "a name other stages can refer to")])),
            ("input", .object([("type", "string"), ("pattern", .string(idPattern)), ("description", "read the output of this earlier stage instead of the previous one")])),
            ("enabled", .object([("type", "boolean"), ("default", true), ("description", "false skips the stage (it stays in the file)")])),
            ("note", .object([("type", "string"), ("description", "free text for people")])),
            ("mask", .object([("$ref", "#/$defs/mask")])),
            ("base", .object([("$ref", "#/$defs/frozen-base")])),
        ]
        for op in Operations.all {
            stageProperties.append((op.name, .object([("$ref", .string("#/$defs/op-\(op.name)"))])))
            defs.append(("op-\(op.name)", opSchema(op)))
        }
        var maskAlternatives: [JSONValue] = []
        for mask in Operations.masks {
            maskAlternatives.append(.object([
                ("type", "object"),
                ("properties", .object([(mask.name, .object([
                    ("description", .string(mask.summary)),
                    ("anyOf", [.object([("type", "null")]), paramsObject(mask.params)]),
                ]))])),
                ("required", [.string(mask.name)]),
                ("additionalProperties", false),
            ]))
        }
        for kind in FilterGraph.Mask.combinations {
            maskAlternatives.append(.object([
                ("type", "object"),
                ("properties", .object([(kind, .object([
                    ("description", .string(kind == "all" ? "where every mask of the list selects (their weights multiplied)"
                                                          : "where any mask of the list selects (the largest weight)")),
                    ("type", "array"), ("minItems", 2), ("items", .object([("$ref", "#/$defs/mask")])),
                ]))])),
                ("required", [.string(kind)]),
                ("additionalProperties", false),
            ]))
        }
        defs.append(("mask", .object([("description", .string("makes the stage local: one of " + (Operations.masks.map(\.name) + FilterGraph.Mask.combinations).joined(separator: ", "))),
                                      ("oneOf", .array(maskAlternatives))])))
        defs.append(("stage", .object([
            ("type", "object"),
            ("description", "one operation, plus optional id, input, enabled, mask and note"),
            ("properties", .object(stageProperties)),
            ("additionalProperties", false),
            ("oneOf", .array((Operations.all.map(\.name) + ["base"]).map { .object([("required", [.string($0)])]) })),
        ])))
        let digest: JSONValue = .object([("type", "string"), ("pattern", "^[0-9a-f]{64}$")])
        let text: JSONValue = .object([("type", "string")])
        defs.append(("frozen-base", .object([
            ("description", "another tool's adjustment data, kept verbatim, with the pixels it produced (written by `recipe edit`)"),
            ("type", "object"),
            ("required", ["format", "version", "pixels"]),
            ("additionalProperties", false),
            ("properties", .object([
                ("format", text), ("version", .object([("type", .array(["string", "number"]))])), ("tool", text), ("source", text),
                ("embedded", text), ("data", text), ("data-base64", text), ("data-sha256", digest),
                ("pixels", .object([("type", "object"), ("required", ["sha256", "size"]), ("additionalProperties", false),
                                    ("properties", .object([("sha256", digest), ("size", .object([("type", "integer"), ("minimum", 0)])), ("type", text)]))])),
            ])),
        ])))
        defs.append(("original", .object([
            ("description", "the photo this sidecar belongs to, by content (written by `recipe edit`)"),
            ("type", "object"), ("required", ["sha256", "size"]), ("additionalProperties", false),
            ("properties", .object([("file", text), ("sha256", digest), ("size", .object([("type", "integer"), ("minimum", 0)]))])),
        ])))
        return .object([
            ("$schema", "https://json-schema.org/draft/2020-12/schema"),
            ("$id", .string("https://recipe.dev/schema/\(RecipeFormat.identifier)-\(RecipeFormat.current).json")),
            ("title", .string("recipe \(RecipeFormat.current) (\(RecipeFormat.identifier))")),
            ("description", "A photo-edit recipe. Generated from the op declarations by `recipe schema`; do not edit by hand."),
            ("type", "object"),
            ("required", ["format", "version", "stages"]),
            ("additionalProperties", false),
            ("properties", .object([
                ("format", .object([("const", .string(RecipeFormat.identifier)), ("description", "the format identifier (reverse DNS)")])),
                ("version", .object([("description", "the format version, major.minor[.patch]"),
                                     ("anyOf", [.object([("type", "number"), ("minimum", .int(RecipeFormat.current.major)), ("exclusiveMaximum", .int(RecipeFormat.current.major + 1))]),
                                                .object([("type", "string"), ("pattern", .string("^\(RecipeFormat.current.major)(\\.[0-9]+){0,2}$"))])])])),
                ("note", .object([("type", "string")])),
                ("original", .object([("$ref", "#/$defs/original")])),
                ("params", .object([
                    ("description", "named knobs with defaults; stages use them as $name and `--set name=value` overrides them"),
                    ("type", .array(["object", "null"])),
                    ("propertyNames", .object([("pattern", .string(idPattern))])),
                    ("additionalProperties", .object([("anyOf", [
                        .object([("type", .array(["number", "string", "boolean", "array"]))]),
                        .object([("type", "object"), ("required", ["default"]), ("additionalProperties", false),
                                 ("properties", .object([("default", .object([])), ("doc", .object([("type", "string")]))]))]),
                    ])])),
                ])),
                ("output", .object([
                    ("description", "how the recipe's renders are written: colour and export settings, unless the command line says otherwise"),
                    ("type", "object"), ("additionalProperties", false),
                    ("properties", .object(outputProperties)),
                ])),
                ("stages", .object([("type", .array(["array", "null"])), ("items", .object([("$ref", "#/$defs/stage")]))])),
            ])),
            ("$defs", .object(defs)),
        ])
    }

    /// The keys of `output:` (Checker+Output.swift checks them).
    static var outputProperties: [(String, JSONValue)] {
        typealias C = CheckedRecipe.Output.Choices
        func words(_ list: [String]) -> JSONValue { .array(list.map { .string($0) }) }
        let share: JSONValue = .object([("anyOf", [.object([("type", "number")]), .object([("type", "string"), ("pattern", "^[0-9.]+%$")])])])
        let text: JSONValue = .object([("type", "string"), ("maxLength", .int(2000))])
        return [
            ("profile", .object([("enum", words(C.profiles)), ("description", "keep: the photo's own colour space")])),
            ("intent", .object([("enum", words(C.intents))])),
            ("format", .object([("enum", words(C.formats)), ("description", "the format `apply` writes (-o OUT's extension wins for `render`)")])),
            ("quality", .object([("type", "integer"), ("minimum", .int(1)), ("maximum", .int(100))])),
            ("max-bytes", .object([("anyOf", [.object([("type", "integer"), ("minimum", .int(1024))]),
                                               .object([("type", "string"), ("pattern", "^[0-9.]+ *([kKmMgG]i?[bB]?)?$")])]),
                                   ("description", "the largest file: the highest quality that fits (JPEG, WebP, HEIC, AVIF)")])),
            ("sharpen", .object([("anyOf", [.object([("enum", words(C.sharpenTargets))]),
                                             .object([("type", "object"), ("additionalProperties", false), ("required", ["for"]),
                                                      ("properties", .object([("for", .object([("enum", words(C.sharpenTargets))])),
                                                                              ("amount", .object([("enum", words(C.sharpenAmounts))]))]))])]),
                                 ("description", "output sharpening after the last resize")])),
            ("watermark", .object([("type", "object"), ("additionalProperties", false), ("required", ["image"]),
                                   ("properties", .object([("image", .object([("type", "string"), ("pattern", "\\.[pP][nN][gG]$")])),
                                                           ("position", .object([("enum", words(C.positions))])),
                                                           ("scale", share), ("margin", share),
                                                           ("opacity", .object([("type", "number"), ("minimum", .int(0)), ("maximum", .int(1))]))]))])),
            ("metadata", .object([("anyOf", [.object([("enum", words(C.keep))]),
                                              .object([("type", "object"), ("additionalProperties", false),
                                                       ("properties", .object([("keep", .object([("enum", words(C.keep))])),
                                                                               ("strip", .object([("anyOf", [.object([("enum", words(C.strip))]),
                                                                                                             .object([("type", "array"), ("items", .object([("enum", words(C.strip))]))])])])),
                                                                               ("copyright", text), ("creator", text)]))])])])),
        ]
    }

    static func opSchema(_ op: OperationSpec) -> JSONValue {
        var alternatives: [JSONValue] = [.object([("type", "null")])]
        if let primary = op.primary.flatMap({ op.param($0) }) {
            var shorthand = paramSchema(primary)
            if case .object(var fields) = shorthand {
                fields.insert(("description", .string("shorthand for `\(primary.name)`: \(primary.doc)")), at: 0)
                shorthand = .object(fields)
            }
            alternatives.append(shorthand)
        }
        alternatives.append(paramsObject(op.params))
        return .object([("description", .string(op.summary)), ("anyOf", .array(alternatives))])
    }

    static func paramsObject(_ params: [ParamSpec]) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("type", "object"),
            ("properties", .object(params.map { ($0.name, paramSchema($0)) })),
            ("additionalProperties", false),
        ]
        let required = params.filter(\.required).map { JSONValue.string($0.name) }
        if !required.isEmpty { fields.append(("required", .array(required))) }
        return .object(fields)
    }

    static func paramSchema(_ p: ParamSpec) -> JSONValue {
        var fields: [(String, JSONValue)] = [("description", .string("\(p.doc) (\(ParamDescription.type(p.kind)))"))]
        if let d = p.defaultValue { fields.append(("default", json(d))) }
        var kinds = [kindSchema(p.kind)]
        if p.autoSince != nil {
            // The relative form of a measured `auto`: `auto-0.3`, `auto + 500`.
            kinds.append(.object([("type", "string"), ("pattern", "^auto *[+-] *(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?$")]))
        }
        fields.append(("anyOf", .array(kinds + [.object([("$ref", "#/$defs/param-ref")])])))
        return .object(fields)
    }

    static func kindSchema(_ kind: ParamKind) -> JSONValue {
        func number(_ r: ClosedRange<Double>) -> JSONValue {
            .object([("type", "number"), ("minimum", .number(r.lowerBound)), ("maximum", .number(r.upperBound))])
        }
        switch kind {
        case .number(let r, _): return number(r)
        case .integer(let r): return .object([("type", "integer"), ("minimum", .int(r.lowerBound)), ("maximum", .int(r.upperBound))])
        case .boolean: return .object([("type", "boolean")])
        case .choice(let cases): return .object([("enum", .array(cases.map { .string($0) }))])
        case .color:
            return .object([("anyOf", [
                .object([("type", "string"), ("pattern", "^#?[0-9a-fA-F]{6}$")]),
                .object([("type", "array"), ("items", number(0...1)), ("minItems", 3), ("maxItems", 3)]),
            ])])
        case .point(let r):
            return .object([("type", "array"), ("items", number(r)), ("minItems", 2), ("maxItems", 2)])
        case .points(let c):
            return .object([("type", "array"), ("minItems", .int(c.lowerBound)), ("maxItems", .int(c.upperBound)),
                            ("items", .object([("type", "array"), ("items", number(0...1)), ("minItems", 2), ("maxItems", 2)]))])
        case .length(let px, _):
            return .object([("anyOf", [number(px), .object([("type", "string"), ("pattern", "^[+-]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?(?:px|%)$")])])])
        case .angle(let r, let allowed):
            if let allowed {
                let words = allowed.map { NumberFormatting.shortest($0) }
                return .object([("anyOf", [.object([("enum", .array(allowed.map { .number($0) }))]),
                                           .object([("type", "string"), ("pattern", .string("^(?:" + words.joined(separator: "|") + ")(?:\\.0*)?deg$"))])])])
            }
            return .object([("anyOf", [number(r), .object([("type", "string"), ("pattern", "^[+-]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?deg$")])])])
        case .file(let ext):
            return .object([("type", "string"), ("pattern", .string("\\.(?:" + ext.joined(separator: "|") + ")$"))])
        case .matrix:
            return .object([("type", "array"), ("minItems", 3), ("maxItems", 3),
                            ("items", .object([("type", "array"), ("items", .object([("type", "number")])), ("minItems", 3), ("maxItems", 4)]))])
        case .aspect: return .object([("type", "string"), ("pattern", "^ *[0-9]+ *: *[0-9]+ *$")])
        case .stageRef: return .object([("type", "string"), ("pattern", .string(idPattern))])
        case .text(let max): return .object([("type", "string"), ("minLength", 1), ("maxLength", .int(max))])
        case .orAuto(let inner): return .object([("anyOf", [.object([("const", "auto")]), kindSchema(inner)])])
        }
    }

    static func json(_ v: ParamValue) -> JSONValue {
        switch v {
        case .number(let d), .angle(let d): return .number(d)
        case .integer(let i): return .int(i)
        case .boolean(let b): return .bool(b)
        case .choice(let s), .stageRef(let s), .file(let s), .text(let s): return .string(s)
        case .auto, .autoPlus: return .string(v.description)
        case .color(let c): return .string(c.hex)
        case .point(let p): return [.number(p.x), .number(p.y)]
        case .points(let ps): return .array(ps.map { [.number($0.x), .number($0.y)] })
        case .length(let l): return .string(l.description)
        case .matrix(let rows): return .array(rows.map { .array($0.map { .number($0) }) })
        case .aspect(let w, let h): return .string("\(w):\(h)")
        }
    }
}
