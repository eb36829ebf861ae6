import RecipeCore
import RecipeKernels

/// A raw photo's develop resolved for one render, from the recipe's `develop` settings and the
/// raw's header facts: which develop runs it, its white balance as multipliers, and the scale its
/// rows come out on. Worked out in this one place for the decoder, the colour plan, the memory
/// estimate and `explain`.
///
/// recipe's own develop is a render stage (`DemosaicStage`): the codec hands out the mosaic and
/// the stage white-balances and demosaics it. LibRaw's whole develop stays the path for what is
/// not a plain Bayer mosaic (X-Trans, Foveon, linear DNGs), for LibRaw's demosaics by name, its
/// highlight modes, aberration and denoise settings, and its grey-world white balance.
///
/// ```swift
/// let plan = RawDevelopPlan(RawDevelop(), raw: info.raw!, scaleDenominator: 2)
/// plan.isStage        // true: a Bayer DNG, half size, as shot
/// plan.multipliers    // [2.1, 1, 1.4]
/// ```
public struct RawDevelopPlan: Sendable {
    public let develop: RawDevelop
    /// Each 2×2 cell of the mosaic one pixel: the develop says half size, or the render decodes at 1/2.
    public let half: Bool
    /// Whether recipe's own develop runs it, as a render stage: a plain Bayer mosaic, clipped
    /// highlights, no aberration or denoise (LibRaw's, in its develop) and a white balance known
    /// before the develop (not LibRaw's grey-world estimate).
    public let isStage: Bool
    /// LibRaw's white-balance mode (0 as shot, 1 grey world, 2 the multipliers given) and the
    /// multipliers for modes 0 and 2, as the file or the recipe gives them.
    let libRawMode: Int32
    let libRawMultipliers: [Double]
    /// How far above 1 (the white level of the least-multiplied channel) the developed rows reach
    /// (`RawWhiteBalance.headroom`).
    public let headroom: Double

    public init(_ develop: RawDevelop, raw: RawImageInfo, scaleDenominator: Int) {
        self.develop = develop
        half = develop.demosaic == .halfSize || scaleDenominator == 2
        (libRawMode, libRawMultipliers) = RawWhiteBalance.libRaw(develop.whiteBalance, raw: raw)
        isStage = (develop.demosaic == .directional || develop.demosaic == .halfSize) && !raw.cfa.isEmpty && raw.colors == 3
            && develop.highlights == .clip && develop.chromaticAberration == (1, 1) && develop.noiseThreshold == 0 && libRawMode != 1
        headroom = RawWhiteBalance.headroom(develop, raw: raw)
    }

    /// The multipliers (R, G, B; green 1) the white balance scales the mosaic by, nil when they are
    /// known only once developed (LibRaw's grey-world `auto`, or as shot without a record).
    public var multipliers: [Double]? {
        guard libRawMode != 1, libRawMultipliers.count >= 3, libRawMultipliers[1] > 0 else { return nil }
        return libRawMultipliers.prefix(3).map { $0 / libRawMultipliers[1] }
    }

    /// The demosaic stage's develop of `mosaic` (the raw's daylight balance where the file records
    /// none, as LibRaw does).
    public func stage(_ mosaic: RawMosaic, daylight: [Double], finished: (() -> Void)? = nil) -> MosaicDevelop {
        MosaicDevelop(mosaic: mosaic, multipliers: libRawMultipliers.count < 3 ? daylight : libRawMultipliers, half: half,
                      denoise: develop.denoise, finished: finished)
    }
}

/// The white-balance science of a raw develop: what a recipe's `white-balance` asks of the
/// mosaic's channels.
public enum RawWhiteBalance {
    /// What a white balance asks of LibRaw: its mode and the multipliers for modes 0 and 2.
    static func libRaw(_ wb: RawDevelop.WhiteBalance, raw: RawImageInfo) -> (mode: Int32, multipliers: [Double]) {
        switch wb {
        case .asShot: return raw.asShot == nil ? (1, []) : (0, raw.asShot!)
        case .auto: return (1, [])
        case .multipliers(let m): return (2, m)
        case .preset(let name):
            let t = RawDevelop.presets.first { $0.name == name }?.temperature ?? 5500
            return (2, multipliers(temperature: t, tint: 0, raw: raw))
        case .temperature(let t, let tint): return (2, multipliers(temperature: t, tint: tint, raw: raw))
        }
    }

    /// The multipliers that make a light of (temperature, tint) neutral: its white (DNG SDK
    /// temperature/tint to xy) through the camera matrix, inverted, green = 1.
    public static func multipliers(temperature: Double, tint: Double, raw: RawImageInfo) -> [Double] {
        let (x, y) = WhiteBalance.xy(temperature: temperature, tint: tint)
        let white = [x / y, 1, (1 - x - y) / y]
        let m = raw.xyzToCamera
        let response = (0..<3).map { c in (0..<3).reduce(0.0) { $0 + m[3 * c + $1] * white[$1] } }
        guard response.allSatisfy({ $0 > 0 }) else { return raw.daylight }
        return response.map { response[1] / $0 }
    }

    /// How far above 1 (the white level of the least-multiplied channel) the rows reach: 1 when
    /// highlights clip; the ratio of the largest multiplier to the smallest when they are kept
    /// (LibRaw then scales the largest to white); 8 (three stops) for an auto white balance,
    /// whose multipliers are known only once developed.
    static func headroom(_ develop: RawDevelop, raw: RawImageInfo) -> Double {
        guard develop.highlights != .clip else { return 1 }
        let (mode, m) = libRaw(develop.whiteBalance, raw: raw)
        guard mode != 1, m.count >= 3, let low = m.prefix(3).min(), low > 0 else { return 8 }
        return m.prefix(3).max()! / low
    }
}
