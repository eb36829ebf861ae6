/// A raw develop's denoise of the mosaic, before the demosaic: how strongly the luma and the
/// chroma of each 2×2 cell are smoothed, and the sensor's noise model, given or (nil) estimated
/// from the mosaic itself (`NoiseModel`).
///
/// ```yaml
/// - develop: {denoise: 1}                                    # luma and chroma at 1, model estimated
/// - develop: {denoise-luma: 0.7, denoise-chroma: 1.5, noise-gain: 8.5, noise-floor: 290}
/// ```
public struct RawDenoise: Sendable, Hashable, CustomStringConvertible {
    /// Multipliers of the threshold the luma (and the two greens' difference) and the chroma are
    /// smoothed at: 1 is the setting tuned on photos with a known answer, 0 leaves it alone.
    public var luma: Double
    public var chroma: Double
    /// The noise model; nil: estimated from the mosaic when it is unpacked.
    public var model: NoiseModel?

    public init(luma: Double, chroma: Double, model: NoiseModel? = nil) {
        (self.luma, self.chroma, self.model) = (luma, chroma, model)
    }

    public var description: String {
        func n(_ v: Double) -> String { NumberFormatting.shortest(v) }
        let strengths = luma == chroma ? "denoise \(n(luma))" : "denoise luma \(n(luma)) chroma \(n(chroma))"
        return strengths + (model.map { ", noise \($0)" } ?? "")
    }
}

/// A sensor's noise, Poisson–Gaussian, in raw units above black: a sample at signal s varies
/// with variance `gain`·s + `floor` (photon noise grows with the light; the floor is the read
/// noise, there in the dark). Both follow the ISO.
public struct NoiseModel: Sendable, Hashable, CustomStringConvertible {
    public var gain: Double
    public var floor: Double
    /// Where it came from: the recipe, or an estimate from the mosaic.
    public var estimated: Bool

    public init(gain: Double, floor: Double, estimated: Bool = false) {
        (self.gain, self.floor, self.estimated) = (gain, floor, estimated)
    }

    /// The standard deviation at signal `s` (raw units above black).
    public func sigma(at s: Double) -> Double { (gain * max(0, s) + floor).squareRoot() }

    public var description: String {
        let g = NumberFormatting.shortest((gain * 1000).rounded() / 1000), f = NumberFormatting.shortest((floor * 10).rounded() / 10)
        return "variance \(g)·signal + \(f)" + (estimated ? " (estimated from the mosaic)" : "")
    }
}
