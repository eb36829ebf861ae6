import RecipeCodecs
import RecipeColor
import RecipeCore
import RecipeHistory
import RecipeLanguage

/// Everything one render depends on, as a value: the photo, the recipes in order, the size, the
/// colour asked for, the decode limits, the time and thread limits, fusion and the memory budget.
/// Every front end (`render`, `apply`, `edit`/`revert`, the preview, `explain`) describes its
/// render as one request and runs what `RenderPlanner` makes of it; none plans on its own.
///
/// ```swift
/// var request = RenderRequest(photo: "IMG_0001.CR2")
/// request.recipes = [RenderRequest.Recipe(path: "look.recipe.yaml", overrides: ["warmth": "5600"])]
/// request.size = .longEdge(1600)
/// request.budget = MemoryBudget(argument: "512M")!
/// let plan = try RenderPlanner.plan(request)      // checked, composed, planned; nothing printed
/// try plan.job(output: "IMG_0001.jpg").run()
/// ```
package struct RenderRequest: Sendable {
    /// One recipe of the render: a file, or text already read (a sidecar, the preview's edit).
    package struct Recipe: Sendable {
        /// The recipe's path: where its text comes from when `text` is nil, what messages name,
        /// and the folder the files it names (LUTs) are read from.
        package var path: String
        /// The text, when the caller holds it (a sidecar as loaded, a page's edit).
        package var text: String?
        /// `--set` values for the params this recipe declares.
        package var overrides: [String: String]
        /// The most bytes the text may have (a sidecar's own limit; nil: the language's).
        package var maxBytes: Int?

        package init(path: String, text: String? = nil, overrides: [String: String] = [:], maxBytes: Int? = nil) {
            self.path = path
            self.text = text
            self.overrides = overrides
            self.maxBytes = maxBytes
        }

        /// A photo's sidecar: its own text, its own size limit.
        package static func sidecar(_ sidecar: Sidecar) -> Recipe {
            Recipe(path: sidecar.path, text: sidecar.text, maxBytes: Sidecar.maxBytes)
        }
    }

    /// What the planner knows of the photo without opening it: the header a caller already
    /// read (the preview keeps its photo's), or a nominal size when there is no photo
    /// (`explain --size`).
    package enum Header: Sendable {
        case photo(ImageInfo, supportedScaleDenominators: [Int])
        case nominal(CanvasSize?)
    }

    /// The photo (or the pixels of a sidecar's frozen base) the render reads.
    package var photo: String
    /// Its header when the caller already has it (nil: the planner opens the photo for it).
    package var header: Header?
    /// The recipes in order, each reading the last one's output: a sidecar first, then a chain.
    package var recipes: [Recipe] = []
    package var size: RenderSize = .full
    /// `--profile` / `--intent` (nil: the recipes' `output:`, else keep / relative).
    package var profile: OutputProfile?
    package var intent: RenderingIntent?
    /// How the output is encoded (`--quality`, `--max-bytes`, the formats' options); a recipe's
    /// `output:` quality and size limit apply where these do not say.
    package var encoding = OutputEncoding()
    /// `--max-pixels`, `--allow-damaged`; the raw develop and LibRaw's limit are set from the plan
    /// and the budget.
    package var decode = DecodeOptions()
    /// Seconds the render may take (`--timeout`).
    package var timeout: Double?
    package var threads = RenderJob.defaultThreads
    /// false: every operation a pass of its own (`--no-fuse`).
    package var fuse = true
    /// `--max-memory`, with the photos `apply` renders at once sharing it.
    package var budget = MemoryBudget.standard
    /// Measured `auto` values recorded by an earlier render of the same photo and recipes (a
    /// manifest's, `AutoResolver.Resolution.record`), used instead of measuring again.
    package var recordedAuto: [String: Double] = [:]

    package init(photo: String) {
        self.photo = photo
    }

    /// The output's colour: `--profile` and `--intent` when given, else the recipes' `output:`
    /// settings, else keep and relative colorimetric.
    package func output(_ recipes: CheckedRecipe.Output?) -> (profile: OutputProfile, intent: RenderingIntent) {
        RecipePlanning.output(profile, intent, recipe: recipes)
    }

    /// The decode options a render of this request opens its photo with: LibRaw may allocate
    /// what one render's budget allows, and no more.
    package func decodeOptions(develop: RawDevelop?) -> DecodeOptions {
        var options = decode
        if let develop { options.develop = develop }
        options.maxRawMemory = budget.perRender
        return options
    }
}
