import RecipeCore
import RecipeKernels
#if canImport(Glibc)
import Glibc
#endif

extension Operations {
    /// A tone curve through 2–16 points, monotone cubic between them and linear outside
    /// (Fritsch–Carlson; CIToneCurve-like).
    ///
    /// ```yaml
    /// - curve: {points: [[0, 0.02], [0.5, 0.5], [1, 0.98]]}
    /// - curve: {points: [[0, 0], [0.6, 0.7], [1, 1]], channel: b}
    /// ```
    ///
    /// The x of each point must be greater than the x before it.
    public static let curve = OperationSpec(
        name: "curve",
        summary: "Maps encoded values through a monotone cubic curve through the points, linear outside them (Fritsch–Carlson monotone cubic).",
        opClass: .point, space: .encoded, primary: "points",
        params: [
            ParamSpec("points", .points(count: 2...16),
                      default: .points([CanvasPoint(0, 0), CanvasPoint(1, 1)]),
                      "[input, output] pairs of encoded values in 0…1, x increasing"),
            ParamSpec("channel", .choice(["rgb", "r", "g", "b"]), default: .choice("rgb"),
                      "channel the curve applies to: all three, or only red, green or blue"),
        ],
        example: "curve: {points: [[0, 0.02], [0.5, 0.5], [1, 0.98]]}",
        validate: validateCurve)

    private static func validateCurve(_ params: ParamSet) -> [ParamProblem] {
        guard let points = params.points("points") else { return [] }
        var problems: [ParamProblem] = []
        for i in points.indices.dropFirst() where !(points[i].x > points[i - 1].x) {
            let x = NumberFormatting.shortest(points[i].x), previous = NumberFormatting.shortest(points[i - 1].x)
            problems.append(ParamProblem(
                "points", "point \(i + 1) has x \(x), which is not greater than the x \(previous) of point \(i)",
                notes: ["a curve maps each input to one output, so the x values must increase strictly"]))
        }
        return problems
    }
}

extension Operations {
    /// What a pixel becomes: the point steps of `curve` for checked parameters `p`, in the
    /// op's working space (the planner adds the conversions around them).
    static func curveSteps(_ p: ParamSet, _ canvas: CanvasSize) -> [PointStep] {
        guard let points = p.points("points") else { return [] }
        let table = MonotoneCubic(points.map { (Double($0.x), Double($0.y)) }).table(size: MonotoneCubic.tableSize)
        let identity = (0..<MonotoneCubic.tableSize).map { Float($0) / Float(MonotoneCubic.tableSize - 1) }
        let channel = p.choice("channel") ?? "rgb"
        let r = channel == "rgb" || channel == "r" ? table : identity
        let g = channel == "rgb" || channel == "g" ? table : identity
        let b = channel == "rgb" || channel == "b" ? table : identity
        return [.curves(table: r + g + b, size: MonotoneCubic.tableSize)]
    }
}
