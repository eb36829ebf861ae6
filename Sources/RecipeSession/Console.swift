import RecipeCore
#if canImport(Glibc)
import Glibc
#endif

/// Where messages go: results to stdout, errors and warnings to stderr, one line each.
package enum Console {
    /// `recipe: <message>` on stderr.
    package static func error(_ message: String) { printError("recipe: \(message)") }

    /// `recipe: warning: <message>` on stderr.
    package static func warning(_ message: String) { printError("recipe: warning: \(message)") }

    package static func warnings(_ list: [ImageWarning]) { list.forEach { warning($0.description) } }

    package static func printError(_ text: String, newline: Bool = true) {
        let line = !newline || text.hasSuffix("\n") ? text : text + "\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }
}
