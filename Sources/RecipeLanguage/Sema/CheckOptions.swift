import RecipeCore

/// What a check may assume and allow.
public struct CheckOptions: Sendable {
    /// The size of the photo the graph's geometry is computed for. `recipe check` uses a nominal
    /// 6000×4000; `explain --photo` and renders use the photo's own.
    public var sourceSize = CanvasSize(width: 6000, height: 4000)
    /// Let file references (LUTs) leave the recipe's folder tree (`--allow-outside-files`).
    public var allowFilesOutside = false
    /// Check that referenced files exist (off for recipes checked from a string).
    public var checkFilesExist = true
    /// `--set name=value` overrides of the recipe's `params:`, as YAML text.
    public var overrides: [String: String] = [:]
    public var limits = YAMLReader.Limits()

    public init() {}
}
