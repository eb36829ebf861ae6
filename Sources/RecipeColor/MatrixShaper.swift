internal import CLCMS2
#if canImport(Glibc)
import Glibc
#endif

/// An RGB matrix-shaper profile reduced to numbers a point kernel can use without lcms2: three tone
/// curves (encoded → linear) and the 3×3 matrices between linear device RGB and the working space,
/// linear sRGB. It is what lcms2's own relative colorimetric transform to `ColorProfile.linearSRGB`
/// computes, written out.
///
/// ```swift
/// let m = ColorProfile.adobeRGB.matrixShaper(intent: .relative)!
/// let linear = [0.8, 0.2, 0.1].enumerated().map { MatrixShaper.evaluate(m.curves[$0.offset], $0.element) }
/// let working = (0..<3).map { r in (0..<3).reduce(0.0) { $0 + m.toWorking[3 * r + $1] * linear[$1] } }
/// ```
public struct MatrixShaper: Sendable, Hashable {
    /// The tone curves of red, green and blue, each mapping encoded values to linear light.
    public var curves: [Curve]
    /// Row-major 3×3: linear device RGB → linear sRGB, `inverse(M_sRGB) · M_profile` with both
    /// matrices made of the D50-adapted colorant tags (columns red, green, blue).
    public var toWorking: [Double]
    /// Row-major 3×3: linear sRGB → linear device RGB, the inverse of `toWorking`.
    public var fromWorking: [Double]

    /// A matrix-shaper from its parts (the profile builds these; tests and kernels may too).
    ///
    /// ```swift
    /// let identity = MatrixShaper(curves: [.srgb, .srgb, .srgb], toWorking: [1, 0, 0, 0, 1, 0, 0, 0, 1],
    ///                             fromWorking: [1, 0, 0, 0, 1, 0, 0, 0, 1])
    /// ```
    public init(curves: [Curve], toWorking: [Double], fromWorking: [Double]) {
        precondition(curves.count == 3 && toWorking.count == 9 && fromWorking.count == 9, "three curves and two 3×3 matrices")
        self.curves = curves
        self.toWorking = toWorking
        self.fromWorking = fromWorking
    }

    /// Evaluates `curve` at the encoded value `v`, giving linear light. `.srgb` and `.gamma` are
    /// extended sign-symmetrically below 0 (−f(−v)) and follow their formula above 1; `.sampled`
    /// interpolates linearly and continues the end segments' slopes outside [0, 1].
    ///
    /// ```swift
    /// MatrixShaper.evaluate(.srgb, 0.5)         // 0.21404
    /// MatrixShaper.evaluate(.gamma(2.2), -0.5)  // −0.21764
    /// ```
    public static func evaluate(_ curve: Curve, _ v: Double) -> Double {
        switch curve {
        case .srgb:
            let a = abs(v)
            let y = a <= 0.04045 ? a / 12.92 : pow((a + 0.055) / 1.055, 2.4)
            return v < 0 ? -y : y
        case .gamma(let g):
            let y = pow(abs(v), g)
            return v < 0 ? -y : y
        case .sampled(let s):
            precondition(s.count >= 2, "a sampled curve needs two samples")
            let last = s.count - 1
            let x = v * Double(last)
            let i = min(max(Int(x.rounded(.down)), 0), last - 1)
            let f = x - Double(i)
            return Double(s[i]) + f * (Double(s[i + 1]) - Double(s[i]))
        }
    }
}

extension ColorProfile {
    /// The profile as a matrix-shaper for `intent`, or nil when lcms2 would not use one: the profile
    /// is not RGB, lacks the colorant or TRC tags, the intent is `.absolute` (which also needs the
    /// media white), or a table (D2Bx, A2Bx or the A2B0 fallback; B2Dx, B2Ax or B2A0) would be used
    /// for that intent in either direction.
    ///
    /// ```swift
    /// ColorProfile.displayP3.matrixShaper(intent: .relative)?.curves   // [.srgb, .srgb, .srgb]
    /// ```
    public func matrixShaper(intent: RenderingIntent) -> MatrixShaper? {
        guard colorModel == .rgb, intent != .absolute, Self.usesMatrixShaper(handle, intent: Int32(intent.lcmsValue)),
              let source = colorants, let work = ColorProfile.linearSRGB.colorants, let workInverse = work.inverse
        else { return nil }
        let toWorking = workInverse * source
        guard let fromWorking = toWorking.inverse else { return nil }
        var curves: [MatrixShaper.Curve] = []
        for tag in [cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag] {
            guard let curve = cmsReadTag(handle, tag) else { return nil }
            curves.append(MatrixShaper.Curve(lcms: OpaquePointer(curve)))
        }
        return MatrixShaper(curves: curves, toWorking: toWorking.m, fromWorking: fromWorking.m)
    }
}
