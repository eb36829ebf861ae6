import RecipeCore
import RecipeKernels
#if canImport(Glibc)
import Glibc
#endif

extension Operations {
    /// Multiplies linear light by 2^ev, like a change of exposure time (CIExposureAdjust).
    ///
    /// ```yaml
    /// - exposure: 0.3
    /// - exposure: auto        # measured per photo: its mean brightness (log average) to mid-grey
    /// - exposure: auto-0.3    # measured, then 0.3 stops darker
    /// ```
    public static let exposure = OperationSpec(
        name: "exposure",
        summary: "Multiplies linear light by 2^ev, like a change of exposure time (CIExposureAdjust).",
        opClass: .point, space: .linear, primary: "ev",
        params: [
            ParamSpec("ev", .orAuto(.number(-10...10, unit: .stops)), default: .number(0), autoSince: FormatVersion(1, 4),
                      "exposure change in stops; +1 doubles the light; auto: the change that brings the photo's log-average luminance to 18% grey (auto+n, auto-n: that, then n stops more or less)"),
        ],
        example: "exposure: 0.3")
}

extension Operations {
    /// What a pixel becomes: the point steps of `exposure` for checked parameters `p`, in the
    /// op's working space (the planner adds the conversions around them).
    static func exposureSteps(_ p: ParamSet, _ canvas: CanvasSize) -> [PointStep] {
        let g = Float(pow(2, p.number("ev") ?? 0))
        return [.matrix([g, 0, 0, 0, 0, g, 0, 0, 0, 0, g, 0])]
    }
}
