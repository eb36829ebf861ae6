import RecipeCore
import RecipeKernels

extension Operations {
    /// Maps colours through a 3D lookup table from a `.cube` file (CIColorCube; Adobe Cube LUT 1.0).
    ///
    /// ```yaml
    /// - lut: {file: looks/film.cube, amount: 0.8}
    /// ```
    public static let lut = OperationSpec(
        name: "lut",
        summary: "Maps encoded RGB through the 3D table of an Adobe Cube LUT 1.0 file, tetrahedral (FilmLight TN-0057) or trilinear, mixed with the input by amount.",
        opClass: .point, space: .encoded, primary: "file",
        params: [
            ParamSpec("file", .file(extensions: ["cube"]), required: true,
                      "path of the .cube file, relative to the recipe's folder"),
            ParamSpec("interp", .choice(["tetrahedral", "trilinear"]), default: .choice("tetrahedral"),
                      "interpolation between table entries"),
            ParamSpec("amount", .number(0...1, unit: .none), default: .number(1),
                      "mix of the table's result with the input; 1 is the table alone"),
        ],
        example: "lut: {file: looks/film.cube, amount: 0.8}")
}

extension Operations {
    /// What a pixel becomes: the parsed table (the planner reads the file, relative to the
    /// recipe), interpolated as `interp` says and mixed with the input by `amount`.
    public static func lutSteps(_ p: ParamSet, table: CubeLUT) -> [PointStep] {
        [.lut(table, tetrahedral: p.choice("interp") != "trilinear", amount: Float(p.number("amount") ?? 1))]
    }
}
