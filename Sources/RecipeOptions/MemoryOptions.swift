import ArgumentParser
import RecipeSession

/// `--max-memory`, declared once for every command that renders (`recipe render`, `apply`,
/// `edit`, `revert`), for `recipe explain`, which shows a render's estimate against it, and for
/// `recipe-fuzz`, whose renders run under it.
///
/// ```
/// recipe render IMG_0001.jpg --recipe look.recipe.yaml -o out.jpg --max-memory 2G
/// recipe apply look.recipe.yaml shoot/ -o out --max-memory 1.5GiB     # shared by its --jobs
/// ```
package struct MemoryOptions: ParsableArguments {
    package init() {}

    @Option(name: .customLong("max-memory"), help: ArgumentHelp(
        "The memory rendering may take, e.g. 512M, 2G, 1.5GiB (K, M, G, T are binary). A render whose estimate, made from the "
            + "photo's header before decoding, is above it is refused, naming the stages that need the most (exit 1). Default: a "
            + "third of the memory there is (here \(MemoryBudget.standard)), so two jobs on one machine leave a third for the rest; "
            + "`apply` shares it among the photos it renders at once.",
        valueName: "size"))
    package var maxMemory: MemoryBudget?

    /// The budget asked for, else the default.
    package var budget: MemoryBudget { maxMemory ?? .standard }

    package func validate() throws {
        if let maxMemory, maxMemory.bytes < MemoryBudget.minimumBytes {
            throw ValidationError("--max-memory must be at least \(MemoryBudget.text(MemoryBudget.minimumBytes)), not \(maxMemory)")
        }
    }
}

extension MemoryBudget: ExpressibleByArgument {}
