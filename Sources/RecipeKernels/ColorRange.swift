import CKernelsSIMD
#if canImport(Glibc)
import Glibc
#endif

/// A colour-range mask's selection in OKLCh (`OKLab`): an arc of hues, a band of chroma and a
/// band of lightness, each with a feather; the weight is the product of the three.
///
/// - hue: 1 on the arc from `hueFrom` going up (through 360 back to 0 when it wraps) to
///   `hueFrom + hueWidth`; outside, 1 − smoothstep(0, hueFeather, d), d the degrees to the
///   nearer end of the arc (0 at once with no feather); 1 everywhere when `wholeCircle`.
/// - chroma and lightness: 1 in [low, high], smoothstep(low − feather, low, v) below and
///   1 − smoothstep(high, high + feather, v) above (hard edges with no feather).
///
/// The input is linear light; `inputIsLinear` false means the stage's values are sRGB-encoded
/// and are decoded first.
public struct ColorRange: Sendable, Hashable {
    public var hueFrom: Float
    public var hueWidth: Float
    public var hueFeather: Float
    public var wholeCircle: Bool
    public var chromaLow: Float, chromaHigh: Float, chromaFeather: Float
    public var lightnessLow: Float, lightnessHigh: Float, lightnessFeather: Float
    public var inputIsLinear: Bool

    public init(hueFrom: Float, hueTo: Float, hueFeather: Float, chromaLow: Float, chromaHigh: Float, chromaFeather: Float,
                lightnessLow: Float, lightnessHigh: Float, lightnessFeather: Float, inputIsLinear: Bool) {
        var width = hueTo - hueFrom
        while width < 0 { width += 360 }
        wholeCircle = width >= 360 || (hueTo - hueFrom) >= 360 || (hueFrom == 0 && hueTo == 360)
        self.hueFrom = hueFrom.truncatingRemainder(dividingBy: 360)
        if self.hueFrom < 0 { self.hueFrom += 360 }
        hueWidth = min(width, 360)
        self.hueFeather = hueFeather
        self.chromaLow = chromaLow
        self.chromaHigh = chromaHigh
        self.chromaFeather = chromaFeather
        self.lightnessLow = lightnessLow
        self.lightnessHigh = lightnessHigh
        self.lightnessFeather = lightnessFeather
        self.inputIsLinear = inputIsLinear
    }

    /// The weight of a pixel whose values are `rgb`, in double precision.
    public func weight(_ rgb: SIMD3<Double>) -> Double {
        let linear = inputIsLinear ? rgb : SIMD3(SRGB.decode(rgb.x), SRGB.decode(rgb.y), SRGB.decode(rgb.z))
        let lch = OKLab.lch(linear)
        var wh = 1.0
        if !wholeCircle {
            var d = lch.z - Double(hueFrom)
            if d < 0 { d += 360 }
            let width = Double(hueWidth)
            if d > width {
                let outside = min(d - width, 360 - d)
                wh = hueFeather > 0 ? 1 - PointProgram.smoothstep(0, Double(hueFeather), outside) : 0
            }
        }
        return wh * MaskShape.band(lch.y, chromaLow, chromaHigh, chromaFeather) * MaskShape.band(lch.x, lightnessLow, lightnessHigh, lightnessFeather)
    }

    /// The weights of `count` pixels (linear light, or encoded when `inputIsLinear` is false,
    /// already decoded by the caller) into `w`.
    func weights(linear r: UnsafePointer<Float>, _ g: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int, into w: UnsafeMutablePointer<Float>) {
        var q = rk_color_range(hue_from: hueFrom, hue_width: hueWidth, hue_feather: hueFeather, whole_circle: wholeCircle ? 1 : 0,
                               chroma_low: chromaLow, chroma_high: chromaHigh, chroma_feather: chromaFeather,
                               lightness_low: lightnessLow, lightness_high: lightnessHigh, lightness_feather: lightnessFeather)
        rk_color_range_weights(r, g, b, Int32(count), &q, w)
    }
}
