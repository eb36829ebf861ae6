/// Thrown after the command has already reported what went wrong.
package struct CommandFailure: Error {
    package var exitCode: Int32

    package init(exitCode: Int32) { self.exitCode = exitCode }

    /// Some photos failed, or a question's answer is no (`ExitStatus.partial`).
    package static let partial = CommandFailure(exitCode: ExitStatus.partial)
    /// A usage or recipe error: nothing was done (`ExitStatus.usage`).
    package static let usage = CommandFailure(exitCode: ExitStatus.usage)
}

/// The one exit-status table of every subcommand (issue 24), in the README and `recipe --help`:
/// a script tells "some photos failed" from "the recipe is wrong" the same way whatever it ran.
/// It follows diff(1): 0 equal, 1 different, 2 trouble.
package enum ExitStatus {
    /// Everything asked was done; a question's answer is yes (`check`: no errors; `diff`: the
    /// same; `fmt --check`, `migrate --check`: nothing to change; `merge-file`: merged cleanly).
    package static let success: Int32 = 0
    /// Done as far as it could go: a photo could not be read, rendered (its render over the
    /// memory budget, `--max-memory`, is one such failure) or written (`render`, `edit`,
    /// `revert`, `info`; for `apply`, some photos, the others were done), or a question's answer
    /// is no (`diff`: they differ; `merge-file`: conflicts left; `fmt --check`, `migrate
    /// --check`: files to change).
    package static let partial: Int32 = 1
    /// Nothing done: a usage error (options, arguments, a file or folder named on the command
    /// line that is not there) or a recipe with errors (`check`'s findings, and any recipe,
    /// sidecar edit or LUT that `render`, `apply`, `edit`, `explain`, `fmt` or `preview` needs).
    package static let usage: Int32 = 2

    /// The status for an ArgumentParser exit code: its usage code 64 (EX_USAGE) is the table's 2.
    package static func forParser(_ code: Int32) -> Int32 { code == 64 ? usage : code }

    /// The table as `recipe --help` prints it. ArgumentParser wraps help text to the terminal's
    /// width and keeps the line breaks it finds, without a hanging indent: so each status is one
    /// paragraph with no line break inside it, and paragraphs are separated by blank lines.
    package static let help = """
        Exit status, the same for every subcommand:

        0: success; a question's answer is yes (check: no errors; diff: the same; \
        fmt --check: canonical).

        1: a photo failed, its render over --max-memory too (apply: some did, the others were \
        done); or a question's answer is no (diff: they differ; merge-file: conflicts left; \
        fmt --check, migrate --check: files to change).

        2: nothing done: a usage error, a missing file or folder, or a recipe with errors.
        """
}
