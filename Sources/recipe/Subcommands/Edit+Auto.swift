import RecipeCore
import RecipeHistory
import RecipeSession

extension LifecycleCommand {
    /// Records the measured `auto` values of a photo's edit in its sidecar (`Sidecar.setOperation`):
    /// the values the planner measures for this photo replace `auto` in the stages that say it,
    /// each with a comment of what was measured; a param's `auto` (`$ev`) stays. Nothing to do
    /// when the sidecar has no `auto`; a photo that cannot be planned is left to the render to
    /// report. Returns a line a stage recorded.
    static func recordAuto(_ sidecar: inout Sidecar, asset: Asset, current: CurrentVersionOptions) throws -> [String] {
        guard let graph = sidecar.checked.graph, graph.nodes.contains(where: { !AutoResolver.autoParams($0).isEmpty }) else { return [] }
        var request = current.request(asset.photo)
        request.photo = try asset.renderSource(sidecar)
        request.recipes = [.sidecar(sidecar)]
        guard let plan = try? RenderPlanner.plan(request), let resolved = plan.graph else { return [] }
        // The default look's nodes come first in a raw's graph.
        let look = plan.defaultLook?.graph.map { $0.nodes.count - 1 } ?? 0
        var lines: [String] = []
        for id in Set(plan.auto.values.map(\.node)).sorted() where id > look {
            let node = resolved.nodes[id]
            let values = plan.auto.values.filter { $0.node == id }
            // A value given through a param (`$ev`) keeps its param.
            guard values.allSatisfy({ node.bindings[$0.param] == nil }) else { continue }
            let given = node.params.names.filter { node.params.isGiven($0) }
            let text = "{" + given.map { name in "\(name): " + (node.bindings[name].map { "$" + $0 } ?? node.params[name]!.description) }
                .joined(separator: ", ") + "}"
            let said = values.map { v in
                let written = graph.nodes[id - look].params[v.param].map { $0.isAuto ? $0.description : "auto" } ?? "auto"
                return "\(v.param) \(written): measured \(NumberFormatting.shortest(v.measured))"
            }
            try sidecar.setOperation(stage: node.stageIndex, op: node.op, value: text, comment: said.joined(separator: ", "))
            lines.append("stage \(node.stageIndex) (\(node.op)): recorded \(text), " + said.joined(separator: ", "))
        }
        return lines
    }
}
