import ArgumentParser
import RecipeCore
import RecipeHistory
import RecipeLanguage
#if canImport(Glibc)
import Glibc
import RecipeSession
#endif

/// The output formats of commands that report diagnostics.
enum DiagnosticFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check recipes: every diagnostic of every file, with the line, a caret and how to fix it.",
        discussion: """
        Folders are searched for *.recipe.yaml. Exit status: 0 when no file has an error (warnings \
        are printed but pass), 2 when some file has an error or for usage errors (the table of \
        `recipe --help`). `--format json` prints one JSON object per diagnostic, for editors and CI.
        """)

    @Argument(help: "Recipe files, or folders to search for *.recipe.yaml.", completion: .file())
    var paths: [String]

    @Option(help: "text (people) or json (one object per line).")
    var format: DiagnosticFormat = .text

    @Flag(help: "Allow file references (LUTs) outside the recipe's folder.")
    var allowOutsideFiles = false

    @Flag(name: .shortAndLong, help: "Print only errors and the summary (no warnings).")
    var quiet = false

    func run() throws {
        let (files, missing) = RecipeFiles.expand(paths)
        var options = CheckOptions()
        options.allowFilesOutside = allowOutsideFiles
        var errorFiles = 0, errors = 0, warnings = 0
        var output = OutputBuffer()
        for path in missing {
            // The same R107 wording as a file that exists but cannot be read.
            for d in RecipeChecker.load(path: path, options: options).diagnostics { emit(d, source: nil, into: &output) }
            errors += 1
            errorFiles += 1
        }
        let color = format == .text && RecipeFiles.colorOutput
        for path in files {
            // A photo's sidecar may embed foreign data (frozen bases): it gets the sidecar limit.
            var options = options
            if Sidecar.isSidecarName(path) { options.limits.maxBytes = Sidecar.maxBytes }
            let checked = RecipeChecker.load(path: path, options: options)
            var fileHasError = false
            for d in checked.diagnostics {
                if d.severity == .error { errors += 1; fileHasError = true } else { warnings += 1 }
                if quiet && d.severity != .error { continue }
                emit(d, source: checked.file, color: color, into: &output)
            }
            if fileHasError { errorFiles += 1 }
        }
        output.flush()
        if format == .text {
            let checkedCount = files.count + missing.count
            var summary = "checked \(checkedCount) file\(checkedCount == 1 ? "" : "s"): "
            summary += errors == 0 ? "no errors" : "\(errors) error\(errors == 1 ? "" : "s") in \(errorFiles) file\(errorFiles == 1 ? "" : "s")"
            if warnings > 0 { summary += ", \(warnings) warning\(warnings == 1 ? "" : "s")" }
            Console.printError(summary)
        }
        if errors > 0 { throw CommandFailure.usage }
    }

    func emit(_ d: Diagnostic, source: SourceFile?, color: Bool = false, into output: inout OutputBuffer) {
        switch format {
        case .text: output.append(DiagnosticPrinter.render(d, source: source, color: color) + "\n")
        case .json: output.append(DiagnosticPrinter.json(d).compact + "\n")
        }
    }
}

/// Collects stdout text and writes it in large blocks: checking thousands of files must not cost
/// a system call per line.
struct OutputBuffer {
    private var text = ""

    mutating func append(_ s: String) {
        text += s
        if text.utf8.count > 1 << 16 { flush() }
    }

    mutating func flush() {
        guard !text.isEmpty else { return }
        var data = Array(text.utf8)
        var done = 0
        while done < data.count {
            let n = data.withUnsafeMutableBytes { write(1, $0.baseAddress! + done, $0.count - done) }
            if n <= 0 { break }
            done += n
        }
        data.removeAll()
        text = ""
    }
}
