/// `recipe-bench`: times the `recipe` CLI, as a separate process, against the libjpeg-turbo floor
/// (`djpeg | cjpeg`) and peers (libvips, fused C, GraphicsMagick, ImageMagick) on the bench
/// photos, and judges the issues' targets.
///
/// ```
/// .ci/build-release   # the binary measured
/// swift build -c release --product recipe-bench
/// .build/release/recipe-bench engine --runs 5 --out bench-results/engine.md
/// .build/release/recipe-bench --help
/// ```
///
/// Exit status: 0 when every row ran (even if a target is missed: this is a measurement, not a
/// test), 1 when a command failed or an input is missing, 2 for a command-line mistake.
import Glibc

/// Writes `message` and a newline to stderr (progress and errors; the report goes to stdout).
func note(_ message: String) {
    FileSystem.writeAll(message + "\n", to: STDERR_FILENO)
}

// The mode is a subcommand (`BenchCommand`): engine, check, apply or display.
BenchCommand.main()
