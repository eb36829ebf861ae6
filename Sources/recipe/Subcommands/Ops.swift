import ArgumentParser
import RecipeCore
import RecipeLanguage
import RecipeOps
import RecipeSession

struct Ops: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ops",
        abstract: "List the operations, or show one: its parameters, units, ranges, defaults and an example.",
        discussion: "`recipe ops --markdown` prints Grammar/operations.md (generated from the op declarations).")

    @Argument(help: "An operation or mask kind (e.g. white-balance, radial).")
    var name: String?

    @Flag(help: "Print the whole reference as Markdown (Grammar/operations.md).")
    var markdown = false

    func run() throws {
        if markdown {
            print(OperationsDocument.markdown(), terminator: "")
            return
        }
        guard let name else {
            let width = Operations.all.map(\.name.count).max() ?? 10
            for op in Operations.all {
                print(op.name.padding(width) + "  " + op.opClass.rawValue.padding(16) + "  " + op.summary)
            }
            print("\nmasks (a stage's `mask:`): " + Operations.masks.map(\.name).joined(separator: ", "))
            print("`recipe ops NAME` shows one operation's parameters.")
            return
        }
        if let op = Operations.named(name) {
            print("\(op.name) — \(op.summary)")
            print("class: \(op.opClass.rawValue); space: \(op.space.rawValue); parameter version \(op.version)")
            printParams(op.params, primary: op.primary)
            print("\nexample:\n  - \(op.example)")
            for m in op.migrations {
                print("\nmigration to version \(m.toVersion) (format \(m.sinceFormat)): \(m.reason)")
            }
        } else if let mask = Operations.mask(named: name) {
            print("mask \(mask.name) — \(mask.summary)")
            printParams(mask.params, primary: nil)
            print("\nexample:\n  \(mask.example)")
        } else {
            var message = "no operation or mask named `\(name)`"
            let all = Operations.all.map(\.name) + Operations.masks.map(\.name)
            if let guess = Suggestions.closest(to: name, in: all) { message += "; did you mean `\(guess)`?" }
            Console.error(message)
            throw CommandFailure.usage
        }
    }

    func printParams(_ params: [ParamSpec], primary: String?) {
        guard !params.isEmpty else {
            print("\nno parameters")
            return
        }
        print("")
        let width = params.map(\.name.count).max()! + 2
        for p in params {
            let star = p.name == primary ? " *" : "  "
            print("  \((p.name + star).padding(width + 2))\(ParamDescription.type(p.kind))")
            print("  \("".padding(width + 2))default \(ParamDescription.defaultText(p)); \(p.doc)")
        }
        if primary != nil { print("\n  * primary: `op: value` sets it") }
    }
}

struct Schema: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the JSON Schema of recipes (Grammar/recipe.schema.json), for YAML editors.")

    func run() throws {
        print(SchemaDocument.json().pretty, terminator: "")
    }
}

extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
