import ArgumentParser
import RecipeOptions

/// `recipe preview`'s command line, declared once: `recipe` parses it (for `--help`, completions
/// and errors) and hands the arguments to `recipe-preview`, which parses them again and serves.
package struct PreviewOptions: ParsableArguments {
    package init() {}

    @Argument(help: ArgumentHelp("Photos and one recipe (*.recipe.yaml), or one recipe and one folder.", valueName: "photo-or-recipe"), completion: .file())
    package var arguments: [String] = []

    @Option(help: "The port to listen on (0: one the system picks).")
    package var port: Int = 0

    @Option(help: "The long edge of the live render in pixels.")
    package var size: Int = 1600

    @Option(help: "The address to listen on. Anything but 127.0.0.1 or ::1 lets other machines reach the page (they still need the token).")
    package var host: String = "127.0.0.1"

    /// Each render the page asks for is held to it: one over it shows the refusal on the page.
    @OptionGroup package var memory: MemoryOptions

    package func validate() throws {
        guard !arguments.isEmpty else { throw ValidationError("name the photos and one recipe, or one recipe and one folder") }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard (16...16384).contains(size) else { throw ValidationError("--size must be between 16 and 16384") }
    }

    /// The command's description, shared by both executables.
    package static let abstract = "See while you write: a live before/after page for a recipe, in any browser."
    package static let discussion = """
        Starts a local web server and prints its URL, with a random token in it, as the first \
        line on stdout; open it in a browser. Every request without the token is refused (403), \
        and so is one whose Host header does not name this server (421) or that comes from another \
        site's page (its Origin; 403). \
        Only the photos named here (or the photos inside FOLDER) are served, by their place in \
        the list, never by a path: no other file, no directory listing, no link out of the folder.

        When the recipe file is saved (any editor: in place, or a new file renamed over it), \
        the picture is rendered again at --size and pushed to the page; a render still running \
        is cancelled. The photo is decoded once and kept, so a save runs only the recipe. While \
        the recipe has errors the last good picture stays, with the diagnostics of `recipe check` \
        over it.

        The page: a before/after split slider; the stages, each with a thumbnail (click one to \
        see the picture up to it; switch a stage off and on without editing the file); the \
        recipe's params as sliders and fields, and a button that writes them into the file as \
        new defaults (through `recipe fmt`'s printer, comments kept); a histogram with clipped \
        highlights and shadows on request; a 1:1 view of a region at full resolution. With a \
        folder, a grid of thumbnails through the recipe; click one for the single view.

        It binds 127.0.0.1 unless --host says otherwise. Ctrl-C stops it.

        Examples:
          recipe preview IMG_0001.jpg look.recipe.yaml
          recipe preview IMG_0001.jpg IMG_0002.jpg look.recipe.yaml --port 8080 --size 2048
          recipe preview look.recipe.yaml shoot/

        The server is the `recipe-preview` executable installed beside `recipe`, which `recipe \
        preview` runs in its place (same process, stdout and signals): linked into `recipe`, its \
        web stack made every other command start 3.5 ms slower and 6.5 MiB larger.
        """
}
