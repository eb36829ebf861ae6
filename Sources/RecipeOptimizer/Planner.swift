import RecipeCore
import RecipeKernels

/// Turns a checked filter graph into an execution plan through the optimiser passes, in this
/// order (the one list of them; `recipe explain` prints the plan after each):
///
/// 1. `LowerPointOps` — each node to its kernel steps, with the node's working space;
/// 2. `DropIdentities` — steps that change nothing;
/// 3. `HoistCrops` — crops move before the point steps in front of them;
/// 4. `FoldMatrices` — adjacent colour matrices in one space become one;
/// 5. `InsertSpaceConversions` — → linear / → encoded only where the space changes;
/// 6. `FusePointRuns` — every run of point steps becomes one pass over the strip.
///
/// With `fuse: false` (`--no-fuse`), passes 3, 4 and 6 are replaced by `SplitPerStep`: every op
/// runs as a pass of its own over the strip, as an interpreter without fusion would.
public enum Planner {
    /// The plan after each pass, for `recipe explain`.
    public struct Trace: Sendable {
        public var pass: String
        public var plan: ExecutionPlan
    }

    /// Reads a file a recipe names (a LUT), given as written; the caller resolves it against the
    /// recipe's folder (the checker has already fenced it in).
    public typealias FileReader = (String) throws -> [UInt8]

    /// `scale` is the output's render size over its full size (1 for a full render): px lengths
    /// in a recipe are pixels of the full-size image, so a display render scales them
    /// (resolution independence). The plan says which size to decode the photo to.
    ///
    /// `color` converts the photo's colours into the working space at the start and the working
    /// space into the output's at the end (nothing for sRGB in and out).
    public static func plan(_ graph: FilterGraph, fuse: Bool = true, scale: Double = 1,
                            readFile: @escaping FileReader = { _ in throw PlanError("no file reader", range: nil) },
                            color: ColorEndpoints = ColorEndpoints())
        throws(PlanError) -> (ExecutionPlan, [Trace]) {
        var trace: [Trace] = []
        var plan = try LowerPointOps.run(graph, readFile: readFile, scale: scale)
        plan.color = color
        trace.append(Trace(pass: "LowerPointOps", plan: plan))
        let passes: [(String, (ExecutionPlan) -> ExecutionPlan)] = fuse
            ? [("DropIdentities", DropIdentities.run), ("HoistCrops", HoistCrops.run), ("FoldMatrices", FoldMatrices.run),
               ("InsertSpaceConversions", { InsertSpaceConversions.run($0, fold: true) }), ("FusePointRuns", FusePointRuns.run)]
            : [("DropIdentities", DropIdentities.run), ("InsertSpaceConversions", { InsertSpaceConversions.run($0, fold: false) }),
               ("SplitPerStep", SplitPerStep.run)]
        for (name, pass) in passes {
            plan = pass(plan)
            trace.append(Trace(pass: name, plan: plan))
        }
        return (plan, trace)
    }
}
