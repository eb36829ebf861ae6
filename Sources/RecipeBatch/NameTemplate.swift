/// Where each output goes below the output folder: a template with `{dir}` (the photo's folder
/// below the command-line folder, empty at its top), `{stem}` (the file name without its
/// extension), `{name}` (the whole file name), `{ext}` (the output format's extension: the
/// photo's own, as written, unless `--format` changes it), `{srcext}` (the photo's extension)
/// and `{recipe}` (the recipes' file names without `.recipe.yaml`, joined by `+`).
///
/// ```swift
/// let t = try NameTemplate("{dir}/{stem}-{recipe}.{ext}")
/// t.path(for: "2024/rome/IMG_1.JPG", ext: "jpg", recipe: "film")   // "2024/rome/IMG_1-film.jpg"
/// ```
///
/// Empty folders collapse (`{dir}/x` at the top is `x`); the result must stay inside the output
/// folder, so `..` and absolute paths are refused.
public struct NameTemplate: Sendable {
    public static let `default` = "{dir}/{stem}.{ext}"
    public static let placeholders = ["dir", "stem", "name", "ext", "srcext", "recipe"]

    enum Piece: Sendable {
        case text(String)
        case placeholder(String)
    }

    public let template: String
    let pieces: [Piece]

    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    public init(_ template: String) throws(Invalid) {
        self.template = template
        var pieces: [Piece] = []
        var text = ""
        var rest = Substring(template)
        while let c = rest.first {
            rest.removeFirst()
            guard c == "{" else {
                if c == "}" { throw Invalid(description: "`}` without `{` in the name template `\(template)`") }
                text.append(c)
                continue
            }
            guard let end = rest.firstIndex(of: "}") else {
                throw Invalid(description: "`{` without `}` in the name template `\(template)`")
            }
            let name = String(rest[..<end])
            guard Self.placeholders.contains(name) else {
                throw Invalid(description: "`{\(name)}` in the name template `\(template)` is not one of "
                    + Self.placeholders.map { "{\($0)}" }.joined(separator: ", "))
            }
            if !text.isEmpty { pieces.append(.text(text)) }
            text = ""
            pieces.append(.placeholder(name))
            rest = rest[rest.index(after: end)...]
        }
        if !text.isEmpty { pieces.append(.text(text)) }
        guard pieces.contains(where: { if case .placeholder(let n) = $0 { n == "stem" || n == "name" } else { false } }) else {
            throw Invalid(description: "the name template `\(template)` has neither {stem} nor {name}, so every photo would get the same name")
        }
        self.pieces = pieces
    }

    /// The output's path below the output folder, or nil when it would leave it.
    public func path(for relative: String, ext: String?, recipe: String) -> String? {
        let name = relative.split(separator: "/").last.map(String.init) ?? relative
        let dir = relative.contains("/") ? String(relative[..<relative.lastIndex(of: "/")!]) : ""
        let dot = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : $0 }
        let stem = dot.map { String(name[..<$0]) } ?? name
        let srcext = dot.map { String(name[name.index(after: $0)...]) } ?? ""
        var out = ""
        for piece in pieces {
            switch piece {
            case .text(let t): out += t
            case .placeholder(let p):
                switch p {
                case "dir": out += dir
                case "stem": out += stem
                case "name": out += name
                case "ext": out += ext ?? srcext
                case "srcext": out += srcext
                default: out += recipe
                }
            }
        }
        let parts = out.split(separator: "/", omittingEmptySubsequences: true)
        guard !parts.isEmpty, !parts.contains(where: { $0 == ".." }), parts.last != "." else { return nil }
        return parts.filter { $0 != "." }.joined(separator: "/")
    }
}
