import RecipeBatch
import RecipeCore
import RecipeSession

extension InfoReport {
    /// What `auto` comes to on the photo (`recipe info --auto`): white balance, then exposure,
    /// then levels, each measured as a recipe of those three stages measures it (the exposure
    /// after the white balance, the levels after both), on the reduced image the render measures:
    ///
    /// ```
    ///   auto white-balance: temp 4721, tint 6.3
    ///   auto exposure: ev 0.8412
    ///   auto levels: black 0.0216, white 0.9812 (0.1% of the pixels beyond each)
    /// ```
    static let autoRecipe = """
        format: dev.recipe.edit
        version: 1.4
        stages:
          - white-balance: auto
          - exposure: auto
          - levels: {black: auto, white: auto}

        """

    static func autoFields(_ photo: String) throws -> [(key: String, value: JSONLine.Value)] {
        var request = RenderRequest(photo: photo)
        request.recipes = [RenderRequest.Recipe(path: "auto values", text: autoRecipe)]
        request.threads = 1
        let plan = try RenderPlanner.plan(request)
        var fields: [(key: String, value: JSONLine.Value)] = []
        for op in ["white-balance", "exposure", "levels"] {
            let values = plan.auto.values.filter { $0.op == op }
            guard !values.isEmpty else { continue }
            let text = values.map { "\($0.param) \(NumberFormatting.shortest($0.value))" }.joined(separator: ", ")
            fields.append(("auto \(op)", .string(text + (op == "levels" ? " (0.1% of the pixels beyond each)" : ""))))
        }
        if let size = plan.auto.measuredSize { fields.append(("auto measured on", .string("\(size.width)×\(size.height)"))) }
        return fields
    }
}
