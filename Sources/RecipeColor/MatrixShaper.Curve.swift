internal import CLCMS2

extension MatrixShaper {
    /// One channel's tone curve, encoded → linear, in the simplest form that reproduces lcms2's.
    ///
    /// ```swift
    /// switch shaper.curves[0] {
    /// case .srgb: break                 // the IEC 61966-2.1 piecewise curve
    /// case .gamma(let g): print(g)      // a pure power, 563/256 for Adobe RGB
    /// case .sampled(let table): print(table.count)   // 4097 samples of [0, 1]
    /// }
    /// ```
    public enum Curve: Sendable, Hashable {
        /// The sRGB curve: v ≤ 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055)^2.4.
        case srgb
        /// A pure power, v^g.
        case gamma(Double)
        /// The curve sampled at i/(count − 1), i = 0 ..< count (4097 samples when read from a profile).
        case sampled([Float])
    }
}

extension MatrixShaper.Curve {
    /// The sRGB curve as lcms2's parametric type 4: Y = (aX + b)^g for X ≥ d, cX below.
    static let srgbParameters: [Double] = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]

    /// Classifies an lcms2 tone curve: a parametric type 4 (or type 5 with zero offsets) whose
    /// parameters are within 1e-4 of sRGB's is `.srgb`; a parametric type 1, which is also how lcms2
    /// reads a one-entry `curv`, is `.gamma`; anything else is sampled with lcms2's own float
    /// evaluation at 4097 points.
    init(lcms curve: OpaquePointer) {
        let type = cmsGetToneCurveParametricType(curve)
        if let p = cmsGetToneCurveParams(curve) {
            let near = { (i: Int) in abs(p[i] - Self.srgbParameters[i]) <= 1e-4 }
            switch type {
            case 1:
                self = .gamma(p[0])
                return
            case 4 where (0..<5).allSatisfy(near), 5 where (0..<5).allSatisfy(near) && abs(p[5]) <= 1e-4 && abs(p[6]) <= 1e-4:
                self = .srgb
                return
            default:
                break
            }
        }
        self = .sampled((0...4096).map { cmsEvalToneCurveFloat(curve, Float($0) / 4096) })
    }
}
