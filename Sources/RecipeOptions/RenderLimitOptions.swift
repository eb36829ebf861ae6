import ArgumentParser
import RecipeCodecs
import RecipeSession

/// The limits of a render, declared once for every command that renders (`render`, `apply`,
/// `edit`, `revert`, `preview`) and set on its `RenderRequest` in one place: `--max-pixels`,
/// `--allow-damaged`, `--timeout` and `--max-memory`.
///
/// ```
/// recipe render IMG_0001.CR2 --recipe look.recipe.yaml -o out.jpg --max-memory 2G --timeout 60
/// recipe apply look.recipe.yaml shoot/ -o out --allow-damaged --max-pixels 100000000
/// ```
package struct RenderLimitOptions: ParsableArguments {
    package init() {}

    @Flag(help: "Render what can be decoded from a truncated or damaged photo, with a warning.")
    package var allowDamaged = false

    @Option(help: "Refuse photos declaring more pixels than this.")
    package var maxPixels: Int = DecodeOptions.defaultMaxPixels

    @Option(help: ArgumentHelp("Stop a render that takes longer than this many seconds: it fails, writing nothing (in a batch, the others go on).", valueName: "seconds"))
    package var timeout: Double?

    @OptionGroup package var memory: MemoryOptions

    package func validate() throws {
        guard maxPixels > 0 else { throw ValidationError("--max-pixels must be positive") }
        guard timeout.map({ $0 > 0 && $0.isFinite }) ?? true else { throw ValidationError("--timeout takes a positive number of seconds") }
    }

    /// The limits set on `request`.
    package func apply(to request: inout RenderRequest) {
        request.decode.maxPixels = maxPixels
        request.decode.allowDamaged = allowDamaged
        request.timeout = timeout
        request.budget = memory.budget
    }
}

/// `--threads` and `--single-thread`, for the commands that render one photo at a time.
package struct ThreadOptions: ParsableArguments {
    package init() {}

    @Option(help: ArgumentHelp("Threads to render with (default: the cores); the output bytes are the same for any count.", valueName: "n"))
    package var threads: Int = RenderJob.defaultThreads

    @Flag(help: "Render on one thread (the same as --threads 1).")
    package var singleThread = false

    package func validate() throws {
        guard (1...256).contains(threads) else { throw ValidationError("--threads must be between 1 and 256") }
    }

    package var count: Int { singleThread ? 1 : threads }
}
