import RecipeCore
import RecipeKernels
#if canImport(Glibc)
import Glibc
#endif

extension Operations {
    /// Turns the image into a monochrome of one colour (CIColorMonochrome-like).
    ///
    /// ```yaml
    /// - colorize: {color: "#996633", amount: 0.6}
    /// ```
    public static let colorize = OperationSpec(
        name: "colorize",
        summary: "Mixes linear RGB towards its Rec.709 luminance times the colour, mix(rgb, Y·color, amount) (CIColorMonochrome-like).",
        opClass: .point, space: .linear, primary: "amount",
        params: [
            ParamSpec("color", .color, default: .color(RGBColor(0x99 / 255, 0x66 / 255, 0x33 / 255)),
                      "tint colour, \"#rrggbb\" or [r, g, b] in 0…1 (sRGB-encoded)"),
            ParamSpec("amount", .number(0...1, unit: .none), default: .number(1),
                      "strength; 0 leaves the image unchanged, 1 is fully tinted"),
        ],
        example: "colorize: {color: \"#996633\", amount: 0.6}")
}

extension Operations {
    /// What a pixel becomes: the point steps of `colorize` for checked parameters `p`, in the
    /// op's working space (the planner adds the conversions around them).
    static func colorizeSteps(_ p: ParamSet, _ canvas: CanvasSize) -> [PointStep] {
        // mix(rgb, Y·colour, amount) in linear light; the colour is written sRGB-encoded.
        guard case .color(let c)? = p["color"] else { return [] }
        let a = Float(p.number("amount") ?? 1)
        let tint = [c.r, c.g, c.b].map { Float(SRGB.decode($0)) }
        let w = Luma.rec709
        var m = PointStep.identityMatrix.map { $0 * (1 - a) }
        for row in 0..<3 { for col in 0..<3 { m[row * 4 + col] += a * tint[row] * w[col] } }
        return [.matrix(m)]
    }
}
