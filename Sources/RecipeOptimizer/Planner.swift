import RecipeCore
import RecipeKernels
import RecipeOps

/// Turns a checked filter graph into an execution plan through the optimiser passes, in this
/// order (the one list of them; `recipe explain` prints the plan after each):
///
/// 1. `LowerPointOps` — each node to its kernel steps, with the node's working space;
/// 2. `DropIdentities` — steps that change nothing;
/// 3. `HoistCrops` — crops move before the point steps in front of them;
/// 4. `FuseGeometry` — a straighten and the crops and flips after it become one resample;
/// 5. `FoldMatrices` — adjacent colour matrices in one space become one;
/// 6. `EncodedGains` — a vignette or shadows/highlights between encoded neighbours runs on
///    encoded values;
/// 7. `InsertSpaceConversions` — → linear / → encoded only where the space changes;
/// 8. `BranchFromSource` — a first branch point keeps the photo's rows, its per-channel steps
///    moving to each reader;
/// 9. `FusePointRuns` — every run of point steps becomes one pass over the strip.
///
/// With `fuse: false` (`--no-fuse`), passes 3–6, 8 and 9 are replaced by `SplitPerStep`: every op
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

    /// How the photo's decoder can make it smaller without resampling: the upright size it
    /// decodes to for a render that needs `wanted` (nil: no reduction fits). A JPEG's DCT scaling.
    public typealias DecodeReduction = (_ wanted: CanvasSize) -> CanvasSize?

    /// `scale` is the output's render size over its full size (1 for a full render): px lengths
    /// in a recipe are pixels of the full-size image, so a display render scales them
    /// (resolution independence). The plan says which size to decode the photo to.
    ///
    /// `color` converts the photo's colours into the working space at the start and the working
    /// space into the output's at the end (nothing for sRGB in and out).
    ///
    /// A fused full render whose recipe shrinks in a resize runs the stages before it on fewer
    /// pixels: the photo resampled as it is decoded when the resize comes first, else as far as
    /// `reduction` decodes it smaller (`LowerPointOps.shrinkEarly`).
    public static func plan(_ graph: FilterGraph, fuse: Bool = true, scale: Double = 1,
                            readFile: @escaping FileReader = { _ in throw PlanError("no file reader", range: nil) },
                            color: ColorEndpoints = ColorEndpoints(), reduction: DecodeReduction? = { _ in nil },
                            lenses: [FilterGraph.NodeID: LensCorrection] = [:], rasters: [String: RasterMaskImage] = [:])
        throws(PlanError) -> (ExecutionPlan, [Trace]) {
        var trace: [Trace] = []
        var plan = try LowerPointOps.run(graph, readFile: readFile, scale: scale, reduction: fuse ? reduction : nil, lenses: lenses,
                                         rasters: rasters)
        plan.color = color
        trace.append(Trace(pass: "LowerPointOps", plan: plan))
        let passes: [(String, (ExecutionPlan) -> ExecutionPlan)] = fuse
            ? [("DropIdentities", DropIdentities.run), ("HoistCrops", HoistCrops.run), ("FuseGeometry", FuseGeometry.run),
               ("FoldMatrices", FoldMatrices.run), ("EncodedGains", EncodedGains.run),
               ("InsertSpaceConversions", { InsertSpaceConversions.run($0, fold: true) }), ("BranchFromSource", BranchFromSource.run),
               ("FusePointRuns", FusePointRuns.run)]
            : [("DropIdentities", DropIdentities.run), ("InsertSpaceConversions", { InsertSpaceConversions.run($0, fold: false) }),
               ("SplitPerStep", SplitPerStep.run)]
        for (name, pass) in passes {
            plan = pass(plan)
            trace.append(Trace(pass: name, plan: plan))
        }
        return (plan, trace)
    }
}
