import Foundation
import RecipeCore
import RecipeLanguage
import RecipeOps
import Testing
import TestSupport

extension GeneratedRecipesTests {
    /// A tiny deterministic generator (xorshift64), so the generated recipes are the same on every run
    /// and machine.
    struct XorShift64 {
        var state: UInt64

        init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }

        mutating func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }

        /// A whole number in `range`.
        mutating func int(_ range: ClosedRange<Int>) -> Int {
            range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
        }

        /// A number in [0, 1).
        mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }

        mutating func chance(_ p: Double) -> Bool { unit() < p }

        mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }

        mutating func shuffled<T>(_ items: [T]) -> [T] {
            var a = items
            if a.count < 2 { return a }
            for i in stride(from: a.count - 1, to: 0, by: -1) { a.swapAt(i, int(0...i)) }
            return a
        }
    }

    /// Builds random valid recipes from `Operations.all`: random ops and parameter subsets, valid values
    /// for every ParamKind written in the forms people write (shorthand or mapping, flow or block,
    /// numbers with trailing zeros or exponents, lengths with and without units, hex or list colours),
    /// random key orders, comments, blank lines, ids, `input:`, `enabled: false`, masks and knobs.
    ///
    /// Valid by construction: ops with cross-parameter rules (clip, levels, curve, crop, resize, blend
    /// and the gradient/luminance masks) get values that satisfy them, and `blend` only names a stage
    /// whose image has the same size as its input (no geometric op in between). No op is skipped.
    /// Angles with `deg` never use exponents (`35e-2deg`): recipe check takes them, the schema not.
    struct RecipeGenerator {
        var rng: XorShift64
        /// Stage ids so far, with the "size lineage" of their output image.
        var ids: [(id: String, lineage: Int)] = []
        var knobs: [(name: String, text: String)] = []
        var lineage = 0
        var nextLineage = 1
        var commentCount = 0

        static let luts = ["luts/colour-correct.cube", "luts/rgb-1-0.5-0.25.cube"]
        static let idWords = ["base", "sky", "glow", "warm", "soft", "detail", "small", "mono", "tone", "fix"]
        static let noteTexts = ["warmer", "from the client", "\"issue #12: too dark\"", "'v2, after review'", "50% softer"]

        init(seed: UInt64) { rng = XorShift64(seed: seed) }

        mutating func comment(_ indent: String) -> String {
            commentCount += 1
            return indent + rng.pick(["# comment \(commentCount)", "#c\(commentCount)", "# why: step \(commentCount) # with a hash"])
        }

        /// Lines of full-line comments and blank lines that may stand before something at `indent`.
        mutating func filler(_ indent: String, comments p: Double = 0.15, blanks q: Double = 0.15) -> [String] {
            var lines: [String] = []
            if rng.chance(q) { lines += Array(repeating: "", count: rng.int(1...2)) }
            if rng.chance(p) { for _ in 0..<rng.int(1...2) { lines.append(comment(indent)) } }
            return lines
        }

        mutating func trailing(_ p: Double = 0.15) -> String {
            rng.chance(p) ? String(repeating: " ", count: rng.int(1...3)) + comment("") : ""
        }

        // MARK: values

        /// A number in `range`, in one of the ways a person may write it.
        mutating func number(_ range: ClosedRange<Double>) -> String {
            let lo = range.lowerBound, hi = range.upperBound
            let v = lo + (hi - lo) * rng.unit()
            let cents = (v * 100).rounded() / 100
            let roundOK = range.contains(cents)
            switch rng.int(0...7) {
            case 0:
                let a = Int(lo.rounded(.up)), b = Int(hi.rounded(.down))
                if a <= b { return String(rng.int(a...b)) }
                return "\(lo)"
            case 1 where roundOK: return "\(cents)"
            case 2 where roundOK:
                let text = "\(cents)"
                return text.contains(".") ? text + "0" : text + ".0"  // 0.350, 5200.0
            case 3: return "\(v)"  // every digit, e.g. 0.7234981273645291
            case 4: return rng.chance(0.5) ? "\(lo)" : "\(hi)"
            case 5 where roundOK && cents >= 0: return "+\(cents)"
            case 6 where roundOK && abs(cents) < 1e6: return "\(Int((cents * 100).rounded()))e-2"  // 35e-2
            default: return roundOK ? "\(cents)" : "\(v)"
            }
        }

        /// n distinct values i/100, sorted (x coordinates of curve points).
        mutating func increasing(_ n: Int, from low: Int = 0, to high: Int = 100) -> [Double] {
            var chosen = Set<Int>()
            while chosen.count < n { chosen.insert(rng.int(low...high)) }
            return chosen.sorted().map { Double($0) / 100 }
        }

        mutating func hexColour() -> String {
            let digits = Array(rng.chance(0.5) ? "0123456789abcdef" : "0123456789ABCDEF")
            var hex = ""
            for _ in 0..<6 { hex.append(digits[rng.int(0...15)]) }
            let text = rng.chance(0.8) ? "#" + hex : hex
            return rng.chance(0.5) ? "\"\(text)\"" : "'\(text)'"
        }

        mutating func length(_ px: ClosedRange<Double>, positive: Bool) -> String {
            if rng.chance(0.4) {
                let p = positive ? 1 + 99 * rng.unit() : 100 * rng.unit()
                return rng.chance(0.5) ? "\(Int(p.rounded(.down)))%" : "\((p * 10).rounded() / 10)%"
            }
            let low = max(px.lowerBound, positive ? 1 : 0), high = min(px.upperBound, 4000)
            let v = rng.chance(0.5) ? Double(rng.int(Int(low.rounded(.up))...Int(high))) : ((low + (high - low) * rng.unit()) * 10).rounded() / 10
            let text = v == v.rounded() && rng.chance(0.5) ? String(Int(v)) : "\(max(v, low))"
            return rng.chance(0.5) ? text + "px" : text
        }

        /// A valid value of `spec`'s kind, as YAML text usable in flow and block context.
        mutating func value(_ spec: ParamSpec) -> String { value(kind: spec.kind) }

        mutating func value(kind: ParamKind) -> String {
            switch kind {
            case .text: return rng.pick(["auto", "camera", "\"Canon EF 24-70mm f/2.8L USM\"", "'Nikon AF-S Nikkor 35mm f/1.8G'"])
            case .orAuto(let inner): return rng.chance(0.3) ? "auto" : value(kind: inner)
            case .number(let range, _): return number(range)
            case .integer(let range): return String(rng.int(range))
            case .boolean: return rng.chance(0.5) ? "true" : "false"
            case .choice(let cases): return rng.pick(cases)
            case .color:
                if rng.chance(0.6) { return hexColour() }
                return "[\(number(0...1)), \(number(0...1)), \(number(0...1))]"
            case .point(let range): return "[\(number(range)), \(number(range))]"
            case .points(let count):
                let n = rng.int(count.lowerBound...min(count.upperBound, 7))
                return "[" + increasing(n).map { "[\($0), \(number(0...1))]" }.joined(separator: ", ") + "]"
            case .length(let px, _): return length(px, positive: px.lowerBound > 0)
            case .angle(let range, let allowed):
                // Exponent forms are left out with `deg`: the schema's angle pattern does not take them.
                let text: String
                if let allowed { text = NumberFormatting.shortest(rng.pick(allowed)) } else {
                    let cents = ((range.lowerBound + (range.upperBound - range.lowerBound) * rng.unit()) * 100).rounded() / 100
                    text = rng.chance(0.5) ? NumberFormatting.shortest(cents) : "\(cents)"
                }
                return rng.chance(0.3) ? text + "deg" : text
            case .file: return rng.pick(Self.luts)
            case .matrix:
                let columns = rng.chance(0.5) ? 3 : 4
                return "[" + (0..<3).map { _ in "[" + (0..<columns).map { _ in number(-2...2) }.joined(separator: ", ") + "]" }
                    .joined(separator: ", ") + "]"
            case .aspect:
                let (w, h) = (rng.int(1...21), rng.int(1...21))
                switch rng.int(0...3) {
                case 0: return "\"\(w):\(h)\""
                case 1: return "'\(w):\(h)'"
                case 2: return "\(w):\(h)"
                default: return "\" \(w) : \(h) \""
                }
            case .stageRef:
                preconditionFailure("stage references are chosen by the caller")
            }
        }

        // MARK: ops

        /// The parameters to give `spec`, as (name, text) pairs, satisfying its cross-parameter rules;
        /// nil when the op cannot be used here (a blend with no stage of the same size to name).
        mutating func parameters(_ spec: OperationSpec, primaryLineage: Int) -> [(String, String)]? {
            func p(_ name: String) -> ParamSpec { spec.param(name)! }
            func some(_ names: [String], _ chance: Double = 0.5) -> [String] { names.filter { _ in rng.chance(chance) } }
            switch spec.name {
            case "lens":
                // Any of its parameters, with at least one correction left on.
                var out = some(["profile", "focal", "aperture", "distance", "crop-factor", "scale", "mode", "required"], 0.3)
                    .map { ($0, value(p($0))) }
                let switches = some(["distortion", "tca", "vignetting"], 0.4)
                out += switches.enumerated().map { ($1, $0 == 0 ? "true" : value(p($1))) }
                return out
            case "clip":
                let (a, b) = { let v = increasing(2); return (v[0], v[1]) }()
                switch rng.int(0...3) {
                case 0: return [("min", "\(a)"), ("max", "\(b)")]
                case 1: return [("min", "\(a)")]
                case 2: return [("max", "\(b)")]
                default: return []
                }
            case "levels":
                var out: [(String, String)] = []
                let (black, white) = { let v = increasing(2); return (v[0], v[1]) }()
                switch rng.int(0...3) {
                case 0: out += [("black", "\(black)"), ("white", "\(white)")]
                case 1: out.append(("black", "\(black)"))
                case 2: out.append(("white", "\(white)"))
                default: break
                }
                let outs = increasing(2)
                if rng.chance(0.4) { out.append(("out-black", "\(outs[0])")) }
                if rng.chance(0.4) { out.append(("out-white", "\(outs[1])")) }
                if rng.chance(0.5) { out.append(("gamma", value(p("gamma")))) }
                return out
            case "crop":
                if rng.chance(0.5) {
                    var out = [("aspect", value(p("aspect")))]
                    if rng.chance(0.5) { out.append(("anchor", value(p("anchor")))) }
                    return out
                }
                // A crop keeps at least a pixel (R217): its sizes are drawn positive.
                func positive(_ name: String) -> String {
                    if case .length(let px, _) = p(name).kind { return length(px, positive: true) }
                    return value(p(name))
                }
                var out = [("width", positive("width")), ("height", positive("height"))]
                for key in some(["x", "y"]) { out.append((key, value(p(key)))) }
                return out
            case "resize":
                let sizes = rng.pick([["width"], ["height"], ["long-edge"], ["scale"], ["width", "height"]])
                var out = sizes.map { ($0, value(p($0))) }
                if rng.chance(0.4) { out.append(("kernel", value(p("kernel")))) }
                return out
            case "blend":
                let same = ids.filter { $0.lineage == primaryLineage }
                guard !same.isEmpty else { return nil }
                var out = [("with", rng.pick(same).id)]
                for key in some(["mode", "opacity"]) { out.append((key, value(p(key)))) }
                return out
            default:
                return spec.params.filter { $0.required || rng.chance(0.5) }.map { ($0.name, value($0)) }
            }
        }

        /// `mask: …` text, in flow form or as block lines (indented under a stage key at `indent`).
        mutating func mask(indent: String) -> [String] {
            let spec = rng.pick(Operations.masks)
            var fields: [(String, String)] = []
            switch spec.name {
            case "gradient":
                let xs = increasing(2)
                let from = "[\(number(0...1)), \(xs[0])]", to = "[\(number(0...1)), \(xs[1])]"
                switch rng.int(0...2) {
                case 0: fields += [("from", from), ("to", to)]
                case 1: fields.append(("from", "[0.5, \(xs[1] == 0 ? 0.5 : 0)]"))
                default: fields.append(("to", "[0.5, \(max(xs[1], 0.01))]"))
                }
            case "luminance":
                let v = increasing(2)
                switch rng.int(0...2) {
                case 0: fields += [("min", "\(v[0])"), ("max", "\(v[1])")]
                case 1: fields.append(("min", "\(v[0])"))
                default: fields.append(("max", "\(v[1])"))
                }
            case "color":
                for axis in ["chroma", "lightness"] {
                    let v = increasing(2).map { axis == "chroma" ? $0 / 2 : $0 }
                    switch rng.int(0...2) {
                    case 0: fields += [("\(axis)-min", "\(v[0])"), ("\(axis)-max", "\(v[1])")]
                    case 1: fields.append(("\(axis)-min", "\(v[0])"))
                    default: fields.append(("\(axis)-max", "\(axis == "chroma" ? max(v[1], 0.02) : v[1])"))  // at least the default min
                    }
                }
            case "image":
                fields.append(("file", "photos/kodim03.png"))  // a PNG beside the recipes (the checker reads its first bytes)
            default:
                break
            }
            let paired = ["from", "to", "min", "max", "chroma-min", "chroma-max", "lightness-min", "lightness-max", "file", "sha256"]
            for p in spec.params where !fields.contains(where: { $0.0 == p.name }) && !paired.contains(p.name) {
                if rng.chance(0.4) { fields.append((p.name, value(p))) }
            }
            fields = rng.shuffled(fields)
            if rng.chance(0.1) {
                // A combination: this mask and a luminance band, in flow form.
                let kind = rng.pick(FilterGraph.Mask.combinations)
                return ["mask: {\(kind): [{\(spec.name): {" + fields.map { "\($0.0): \($0.1)" }.joined(separator: ", ") + "}}, {luminance: {min: 0.2}}]}" + trailing()]
            }
            if rng.chance(0.7) || fields.isEmpty {
                return ["mask: {\(spec.name): {" + fields.map { "\($0.0): \($0.1)" }.joined(separator: ", ") + "}}" + trailing()]
            }
            return ["mask:" + trailing(), indent + "  \(spec.name):"] + fields.map { indent + "    \($0.0): \($0.1)" + trailing(0.1) }
        }

        /// A value, or a `$knob` standing for it (declared under `params:`).
        mutating func maybeKnob(_ text: String, _ spec: ParamSpec) -> String {
            if case .stageRef = spec.kind { return text }
            guard knobs.count < 3, rng.chance(0.08) else { return text }
            let name = rng.pick(["warmth", "strength", "k", "look-2", "amount-x"]) + "\(knobs.count)"
            knobs.append((name, text))
            return "$" + name
        }

        /// The lines of stage `index` (each without the final newline), indented by 2.
        mutating func stage(_ index: Int) -> [String] {
            var input: String?
            var primaryLineage = lineage
            if !ids.isEmpty, rng.chance(0.2) {
                let target = rng.pick(ids)
                input = target.id
                primaryLineage = target.lineage
            }
            // `develop` stands only first, with one way of giving its white balance (R226, R217):
            // RawTests and the fixtures check it; here it would make most recipes invalid. `lens`
            // comes before any stage that moves pixels, once (R228): here only as the first stage.
            let ops = Operations.all.filter { $0.opClass != .develop && (index == 1 || $0.name != "lens") }
            var spec = rng.pick(ops)
            var params: [(String, String)]
            while true {
                if let p = parameters(spec, primaryLineage: primaryLineage) { params = p; break }
                spec = rng.pick(ops)
            }
            params = rng.shuffled(params).map { ($0.0, maybeKnob($0.1, spec.param($0.0)!)) }
            let enabled = rng.chance(0.12) ? false : nil as Bool?
            var id: String?
            if rng.chance(0.35) { id = rng.pick(Self.idWords) + (rng.chance(0.5) ? "" : "-\(index)") }
            if let candidate = id, ids.contains(where: { $0.id == candidate }) { id = candidate + "-s\(index)" }

            // The op key and its value, as a first line plus continuation lines (at 6 spaces).
            var opLines: [String]
            if params.isEmpty {
                // `op:` (null) takes the defaults too; written only for ops without parameters.
                opLines = [spec.name + (spec.params.isEmpty && rng.chance(0.5) ? ":" : ": {}") + trailing()]
            } else if params.count == 1, params[0].0 == spec.primary, rng.chance(0.5) {
                opLines = ["\(spec.name): \(params[0].1)" + trailing()]
            } else {
                switch rng.int(0...5) {
                case 0, 1:
                    opLines = ["\(spec.name):" + trailing()]
                    for (k, v) in params {
                        opLines += filler("      ", comments: 0.1, blanks: 0.05)
                        opLines.append("      \(k): \(v)" + trailing(0.2))
                    }
                case 2:
                    opLines = ["\(spec.name): {" + trailing(0.3)]
                    for (i, (k, v)) in params.enumerated() {
                        opLines.append("      \(k): \(v)" + (i + 1 < params.count ? "," : "") + trailing(0.4))
                    }
                    opLines.append("    }")
                default:
                    opLines = ["\(spec.name): {" + params.map { "\($0.0): \($0.1)" }.joined(separator: rng.pick([", ", ",  "])) + "}" + trailing()]
                }
            }

            var entries: [[String]] = [opLines]
            if let id { entries.append(["id: \(id)" + trailing(0.1)]) }
            if let input { entries.append(["input: \(input)" + trailing(0.1)]) }
            if let enabled { entries.append(["enabled: \(enabled)" + trailing(0.1)]) }
            if ![OperationClass.geometric, .composite].contains(spec.opClass), rng.chance(0.15) { entries.append(mask(indent: "    ")) }
            if rng.chance(0.1) { entries.append(["note: " + rng.pick(Self.noteTexts) + trailing(0.1)]) }
            entries = rng.shuffled(entries)

            var lines = filler("  ", comments: 0.2, blanks: 0.2)
            for (i, entry) in entries.enumerated() {
                if i > 0 { lines += filler("    ", comments: 0.1, blanks: 0.05) }
                lines.append((i == 0 ? "  - " : "    ") + entry[0])
                lines += entry.dropFirst()
            }

            // The size lineage of this stage's output, for later blends.
            let resizes = spec.opClass == .geometric && spec.name != "flip" && spec.name != "orient"
            let out = enabled != false && resizes ? nextLineage : primaryLineage
            if out == nextLineage { nextLineage += 1 }
            lineage = out
            if let id { ids.append((id, out)) }
            return lines
        }

        /// One whole recipe.
        mutating func recipe() -> String {
            ids = []
            knobs = []
            lineage = 0
            nextLineage = 1
            var stageLines: [String] = []
            for i in 1...rng.int(1...8) { stageLines += stage(i) }
            var blocks: [(String, [String])] = [
                ("format", ["format: dev.recipe.edit" + trailing()]),
                ("version", ["version: " + rng.pick(["1.1", "1.1", "'1.1'", "\"1.1\"", "1.1.0"]) + trailing()]),
                ("stages", [(stageLines.isEmpty ? "stages: []" : "stages:") + trailing()] + stageLines),
            ]
            if rng.chance(0.2) { blocks.append(("note", ["note: " + rng.pick(Self.noteTexts) + trailing()])) }
            if !knobs.isEmpty {
                if rng.chance(0.3) {
                    blocks.append(("params", ["params: {" + knobs.map { "\($0.name): \($0.text)" }.joined(separator: ", ") + "}" + trailing()]))
                } else {
                    var lines = ["params:" + trailing()]
                    for k in knobs {
                        lines += filler("  ", comments: 0.1, blanks: 0.05)
                        lines.append("  \(k.name): " + (rng.chance(0.5) ? k.text : "{default: \(k.text), doc: the \(k.name) knob}") + trailing())
                    }
                    blocks.append(("params", lines))
                }
            }
            var lines: [String] = rng.chance(0.5) ? ["# yaml-language-server: $schema=../Grammar/recipe.schema.json"] : []
            for (i, block) in rng.shuffled(blocks).enumerated() {
                lines += filler("", comments: 0.2, blanks: i == 0 ? 0 : 0.2)
                lines += block.1
            }
            lines += filler("", comments: 0.2, blanks: 0.1)
            return lines.joined(separator: "\n") + "\n"
        }
    }
}

@Suite("recipe fmt on generated recipes")
struct GeneratedRecipesTests {
    static let count = 400
    /// Generated recipes are placed in Recipes/ (never written) so that `lut` finds Recipes/luts/.
    static let path = TestPaths.packageRoot.appendingPathComponent("Recipes/generated.recipe.yaml").path

    static func generate(seed: UInt64 = 0x5EED_2024, count: Int = count) -> [String] {
        var generator = RecipeGenerator(seed: seed)
        return (0..<count).map { _ in generator.recipe() }
    }

    static func check(_ text: String) -> CheckedRecipe { RecipeChecker.check(SourceFile(path: path, text: text)) }

    /// The recipe with every `enabled: false` turned on (fmt keeps that text as it is).
    static func enablingAll(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.replacing("enabled: false", with: "enabled: true") }.joined(separator: "\n")
    }

    @Test("the generator is deterministic and covers every op, mask and value form")
    func coverage() {
        let recipes = Self.generate()
        if let dump = ProcessInfo.processInfo.environment["RECIPE_GENERATED_DUMP"] {
            // For reading them, or feeding them to other tools: RECIPE_GENERATED_DUMP=/tmp/gen swift test …
            try? FileManager.default.createDirectory(atPath: dump, withIntermediateDirectories: true)
            for (i, text) in recipes.enumerated() {
                _ = FileManager.default.createFile(atPath: "\(dump)/generated-\(i).recipe.yaml", contents: Data(text.utf8))
            }
        }
        #expect(recipes == Self.generate(), "same seed, different recipes")
        #expect(Set(recipes).count > Self.count * 9 / 10, "too many duplicates")
        let all = recipes.joined()
        for op in Operations.all where op.opClass != .develop { #expect(all.contains("- \(op.name):") || all.contains("    \(op.name):"), "no `\(op.name)` stage") }
        for mask in Operations.masks { #expect(all.contains("{\(mask.name): {") || all.contains("  \(mask.name):\n"), "no \(mask.name) mask") }
        let forms = ["input: ", "enabled: false", "params:", ": $", "{default: ", "px", "%", "deg", "\"#", "'#", "# comment",
                     "e-2", ": +", "\n\n", ": {\n", "    mask:", "note: ", "invert:\n", "version: '1.1'"]
        for form in forms {
            #expect(all.contains(form), "no recipe has `\(form)`")
        }
    }

    @Test("each generated recipe checks, and fmt is idempotent and keeps its graph")
    func roundTrip() {
        var failures = 0
        for (i, text) in Self.generate().enumerated() where failures < 5 {
            let checked = Self.check(text)
            guard !checked.hasErrors, let graph = checked.graph else {
                failures += 1
                Issue.record("generated recipe \(i) has errors:\n\(text)\n\(PrinterTests.diagnostics(checked))")
                continue
            }
            guard let once = RecipePrinter.format(checked) else {
                failures += 1
                Issue.record("fmt refused generated recipe \(i):\n\(text)")
                continue
            }
            let reparsed = Self.check(once)
            guard let graphOnce = reparsed.graph else {
                failures += 1
                Issue.record("fmt output of generated recipe \(i) has errors:\n\(text)\n--- fmt:\n\(once)\n\(PrinterTests.diagnostics(reparsed))")
                continue
            }
            let twice = RecipePrinter.format(reparsed)
            let sameGraph = graphOnce.signature == graph.signature
            let sameWarnings = reparsed.diagnostics.map(\.code) == checked.diagnostics.map(\.code)
            // Disabled stages are not in the graph: compare their op, id and state, and the graphs
            // with every stage enabled (when that is still a valid recipe).
            var sameStages = reparsed.stages.map { "\($0.op ?? "?") \($0.id ?? "-") \($0.enabled)" }
                == checked.stages.map { "\($0.op ?? "?") \($0.id ?? "-") \($0.enabled)" }
            if text.contains("enabled: false"), let all = Self.check(Self.enablingAll(text)).graph {
                sameStages = sameStages && Self.check(Self.enablingAll(once)).graph?.signature == all.signature
            }
            if twice != once || !sameGraph || !sameWarnings || !sameStages {
                failures += 1
                Issue.record("""
                    generated recipe \(i): \(twice != once ? "fmt is not idempotent; " : "")\(sameGraph ? "" : "fmt changed the graph; ")\(sameWarnings ? "" : "fmt changed the warnings; ")\(sameStages ? "" : "fmt changed the stages")
                    --- input:
                    \(text)--- fmt(x):
                    \(once)--- fmt(fmt(x)):
                    \(twice ?? "nil")\(sameGraph ? "" : "--- graph before:\n\(graph.signature)--- graph after:\n\(graphOnce.signature)")
                    """)
            }
        }
    }
}
