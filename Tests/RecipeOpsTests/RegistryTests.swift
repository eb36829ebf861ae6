import Foundation
import RecipeCore
@testable import RecipeOps
import Testing

/// Whole-registry invariants: names, kinds and defaults, primaries, migrations, docs.
@Suite struct RegistryTests {
    static func isKebab(_ s: String) -> Bool { s.wholeMatch(of: #/[a-z0-9]+(-[a-z0-9]+)*/#) != nil }

    /// Why `value` does not fit `kind`, or nil when it does.
    static func mismatch(_ value: ParamValue, _ kind: ParamKind) -> String? {
        switch (kind, value) {
        case (.orAuto, .auto):
            return nil
        case let (.orAuto(inner), value):
            return mismatch(value, inner)
        case let (.text(maxLength), .text(t)):
            return t.count <= maxLength && !t.isEmpty ? nil : "text of \(t.count) characters, not 1…\(maxLength)"
        case let (.number(range, _), .number(v)):
            return range.contains(v) ? nil : "\(v) outside \(range)"
        case let (.integer(range), .integer(v)):
            return range.contains(v) ? nil : "\(v) outside \(range)"
        case (.boolean, .boolean):
            return nil
        case let (.choice(options), .choice(c)):
            return options.contains(c) ? nil : "\(c) not one of \(options)"
        case let (.color, .color(c)):
            return [c.r, c.g, c.b].allSatisfy { (0...1).contains($0) } ? nil : "colour outside 0…1"
        case let (.point(range), .point(p)):
            return range.contains(p.x) && range.contains(p.y) ? nil : "point outside \(range)"
        case let (.points(count), .points(ps)):
            guard count.contains(ps.count) else { return "\(ps.count) points, not \(count)" }
            return ps.allSatisfy { (0...1).contains($0.x) && (0...1).contains($0.y) } ? nil : "points outside 0…1"
        case let (.length(px, _), .length(l)):
            switch l {
            case .px(let v): return px.contains(v) ? nil : "\(v)px outside \(px)"
            case .percent(let p): return (0...100).contains(p) ? nil : "\(p)% outside 0…100"
            }
        case let (.angle(range, allowed), .angle(v)):
            guard range.contains(v) else { return "\(v)° outside \(range)" }
            return allowed.map { $0.contains(v) } ?? true ? nil : "\(v)° not allowed"
        case let (.file(extensions), .file(f)):
            return extensions.contains { f.hasSuffix("." + $0) } ? nil : "\(f) lacks \(extensions)"
        case let (.matrix, .matrix(rows)):
            let shaped = rows.count == 3 && (rows.allSatisfy { $0.count == 3 } || rows.allSatisfy { $0.count == 4 })
            return shaped ? nil : "not 3×3 or 3×4"
        case let (.aspect, .aspect(w, h)):
            return w > 0 && h > 0 ? nil : "aspect \(w):\(h) not positive"
        case (.stageRef, .stageRef):
            return nil
        default:
            return "\(value) is not a value of \(kind)"
        }
    }

    /// The keys of a parameter set after applying migration steps to `keys`.
    static func migrated(_ keys: [String], _ steps: [MigrationStep]) -> Set<String> {
        var result = Set(keys)
        for step in steps {
            switch step {
            case let .rename(from, to):
                if result.remove(from) != nil { result.insert(to) }
            case .remove(let key):
                result.remove(key)
            case .scale:
                break
            }
        }
        return result
    }

    /// Occurrences of `pattern` in the Swift files of Sources/RecipeOps/`folder`.
    static func declarations(in folder: String, matching pattern: Regex<Substring>) throws -> Int {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }  // Tests/RecipeOpsTests/RegistryTests.swift
        let dir = url.appendingPathComponent("Sources/RecipeOps").appendingPathComponent(folder)
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".swift") }
        #expect(!files.isEmpty, "no Swift files in \(dir.path)")
        return try files.reduce(0) { count, name in
            let text = try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
            return count + text.matches(of: pattern).count
        }
    }

    @Test func everyDeclaredOperationIsListed() throws {
        let declared = try Self.declarations(in: "Operations", matching: #/public static let \w+ = OperationSpec\(/#)
        #expect(declared == Operations.all.count)
        #expect(Operations.all.count == 35)
    }

    @Test func everyDeclaredMaskIsListed() throws {
        let declared = try Self.declarations(in: "Masks", matching: #/public static let \w+ = MaskSpec\(/#)
        #expect(declared == Operations.masks.count)
        #expect(Operations.masks.map(\.name) == ["gradient", "radial", "luminance", "color", "image"])
    }

    @Test func namesAreUniqueAndKebabCase() {
        let names = Operations.all.map(\.name) + Operations.masks.map(\.name)
        #expect(Set(names).count == names.count, "duplicates: \(names.filter { n in names.filter { $0 == n }.count > 1 })")
        for name in names { #expect(Self.isKebab(name), "\(name)") }
    }

    @Test func lookupsFindEveryName() {
        for op in Operations.all { #expect(Operations.named(op.name)?.name == op.name) }
        for mask in Operations.masks { #expect(Operations.mask(named: mask.name)?.name == mask.name) }
        #expect(Operations.named("white-balance")?.primary == "temp")
        #expect(Operations.named("white_balance") == nil)
        #expect(Operations.named("look") == nil)
        #expect(Operations.named("grain") == nil)
        #expect(Operations.mask(named: "exposure") == nil)
    }

    @Test func paramNamesAreKebabCaseAndUnique() {
        let all = Operations.all.map { ($0.name, $0.params) } + Operations.masks.map { ($0.name, $0.params) }
        for (op, params) in all {
            let names = params.map(\.name)
            #expect(Set(names).count == names.count, "\(op): \(names)")
            for name in names { #expect(Self.isKebab(name), "\(op).\(name)") }
        }
    }

    @Test func defaultsAreOfTheirKindAndInRange() {
        let all = Operations.all.map { ($0.name, $0.params) } + Operations.masks.map { ($0.name, $0.params) }
        for (op, params) in all {
            for param in params {
                if let value = param.defaultValue {
                    let problem = Self.mismatch(value, param.kind)
                    #expect(problem == nil, "\(op).\(param.name): \(problem ?? "")")
                    #expect(!param.required, "\(op).\(param.name) is required and has a default")
                }
            }
        }
    }

    @Test func primariesNameDeclaredParams() {
        for op in Operations.all {
            guard let primary = op.primary else { continue }
            #expect(op.param(primary) != nil, "\(op.name): primary \(primary) is not declared")
        }
        let withoutPrimary = Operations.all.filter { $0.primary == nil }.map(\.name)
        #expect(withoutPrimary == ["levels", "invert", "clip", "color-mixer", "color-grade", "shadows-highlights", "crop", "resize"])
    }

    @Test func migrationsChainFromTwoToTheVersion() {
        for op in Operations.all {
            #expect(op.version >= 1, "\(op.name)")
            let targets = op.migrations.map(\.toVersion)
            #expect(targets.allSatisfy { $0 <= op.version }, "\(op.name): \(targets)")
            #expect(targets.sorted() == Array(stride(from: 2, through: op.version, by: 1)), "\(op.name): \(targets)")
            for migration in op.migrations {
                #expect(RecipeFormat.history.contains(migration.sinceFormat), "\(op.name)")
                #expect(!migration.reason.isEmpty, "\(op.name)")
                for key in migration.oldKeys { #expect(Self.isKebab(key), "\(op.name) v\(migration.toVersion - 1).\(key)") }
            }
        }
        #expect(Operations.all.filter { $0.version > 1 }.map(\.name) == ["vignette", "sharpen"])
    }

    @Test func latestMigrationProducesTheDeclaredKeys() {
        for op in Operations.all {
            guard let last = op.migrations.max(by: { $0.toVersion < $1.toVersion }) else { continue }
            #expect(Self.migrated(last.oldKeys, last.steps) == Set(op.params.map(\.name)), "\(op.name)")
        }
    }

    @Test func summariesAreSentencesAndDocsArePresent() {
        let summaries = Operations.all.map { ($0.name, $0.summary) } + Operations.masks.map { ($0.name, $0.summary) }
        for (name, summary) in summaries {
            #expect(summary.hasSuffix("."), "\(name): \(summary)")
            #expect(summary.first?.isUppercase == true, "\(name): \(summary)")
        }
        let all = Operations.all.map { ($0.name, $0.params) } + Operations.masks.map { ($0.name, $0.params) }
        for (op, params) in all {
            for param in params { #expect(!param.doc.isEmpty && !param.doc.hasSuffix("."), "\(op).\(param.name)") }
        }
    }

    @Test func examplesStartWithTheirKey() {
        for op in Operations.all { #expect(op.example.hasPrefix("\(op.name): "), "\(op.example)") }
        for mask in Operations.masks { #expect(mask.example.hasPrefix("mask: {\(mask.name): "), "\(mask.example)") }
    }

    @Test func everyMaskTakesInvertAndAmount() {
        for mask in Operations.masks {
            #expect(mask.param("invert")?.defaultValue == .boolean(false), "\(mask.name)")
            #expect(mask.param("amount")?.defaultValue == .number(1), "\(mask.name)")
            #expect(mask.problems().isEmpty, "\(mask.name)")
        }
    }

    @Test func defaultsPassValidation() {
        // Crop and resize need a size; every other op is valid with its defaults alone.
        for op in Operations.all where !["crop", "resize"].contains(op.name) {
            #expect(op.problems().isEmpty, "\(op.name)")
        }
        #expect(!Operations.crop.problems().isEmpty)
        #expect(!Operations.resize.problems().isEmpty)
    }

    @Test func onlyGeometricOpsChangeTheSize() {
        for op in Operations.all where op.opClass != .geometric {
            #expect(op.size(6000, 4000) == size(6000, 4000), "\(op.name)")
        }
        let geometric = Operations.all.filter { $0.opClass == .geometric }.map(\.name)
        #expect(Set(geometric) == ["orient", "lens", "crop", "straighten", "rotate", "flip", "resize"])
    }
}
