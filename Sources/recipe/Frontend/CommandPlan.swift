import RecipeCore
import RecipeLanguage
import RecipeSession

extension RenderPlanner {
    /// Plans `request` for a command that renders one photo: every diagnostic of its recipes is
    /// printed (warnings too); a recipe with errors or foreign data stops the command (exit 2),
    /// and so does one that cannot be planned, except a file over the budget (exit 1, as any
    /// render over `--max-memory` is).
    static func planForCommand(_ request: RenderRequest) throws -> RenderPlan {
        let planned = Result { () throws(RenderPlanError) -> RenderPlan in try RenderPlanner.plan(request) }
        switch planned {
        case .success(let plan):
            for line in plan.diagnostics { Console.printError(line) }
            return plan
        case .failure(.recipe(let checked, _)):
            for d in checked.diagnostics { Console.printError(DiagnosticPrinter.render(d, source: checked.file)) }
            if checked.isForeign { Console.error("\(checked.file.path): foreign adjustment data; this build cannot render it") }
            throw CommandFailure.usage
        case .failure(.plan(let planError, let recipe)):
            Console.printError(RecipePlanning.position(planError.range, else: recipe) + "error: " + planError.message)
            throw planError.overBudget ? CommandFailure.partial : CommandFailure.usage
        case .failure(.photo(let underlying)):
            throw underlying
        }
    }
}
