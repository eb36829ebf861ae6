/// How a camera raw file is developed: the settings of a recipe's `develop` stage, which the raw
/// decoder runs before any other stage (and which every other photo ignores).
///
/// ```yaml
/// - develop: {white-balance: as-shot, demosaic: ahd, highlights: clip}
/// ```
public struct RawDevelop: Sendable, Hashable, CustomStringConvertible {
    /// The light the photo is balanced for.
    public enum WhiteBalance: Sendable, Hashable {
        /// What the camera recorded (its as-shot multipliers, a DNG's AsShotNeutral).
        case asShot
        /// LibRaw's grey-world estimate over the whole image.
        case auto
        /// A named light (`daylight`, `cloudy`, …): a temperature on the daylight locus.
        case preset(String)
        /// A light of this colour temperature (K) and tint (Adobe units), through the camera matrix.
        case temperature(Double, tint: Double)
        /// Multipliers of the camera's red, green and blue (green 1 when normalised).
        case multipliers([Double])
    }

    /// recipe's own demosaic (`directional`), LibRaw's algorithms by name, and `half-size` (each
    /// 2×2 cell one pixel).
    public enum Demosaic: String, Sendable, Hashable, CaseIterable {
        /// Gradient-based threshold-free (colour differences to green along rows and columns,
        /// weighted by how little they change; CDemosaic): strip by strip, as the engine asks.
        case directional
        case linear, vng, ppg, ahd, dcb, dht, aahd
        case halfSize = "half-size"

        /// LibRaw's `user_qual` (half-size: no demosaic at all).
        public var libRawQuality: Int32 {
            switch self {
            case .linear: 0
            case .vng: 1
            case .ppg: 2
            case .ahd, .halfSize, .directional: 3
            case .dcb: 4
            case .dht: 11
            case .aahd: 12
            }
        }
    }

    /// What becomes of light above the sensor's white level.
    public enum Highlights: Sendable, Hashable {
        /// Every channel clipped at white (neutral, never pink).
        case clip
        /// Kept as measured above white (tinted where a channel saturated).
        case unclip
        /// Clipped and unclipped blended (LibRaw's `-H 2`).
        case blend
        /// Rebuilt from the channels that did not clip, at a level 3…9 (LibRaw's `-H 3…9`).
        case rebuild(Int)

        /// LibRaw's `highlight` mode.
        public var libRawMode: Int32 {
            switch self {
            case .clip: 0
            case .unclip: 1
            case .blend: 2
            case .rebuild(let level): Int32(level)
            }
        }
    }

    public var whiteBalance: WhiteBalance = .asShot
    public var demosaic: Demosaic = .directional
    public var highlights: Highlights = .clip
    /// Stops of exposure applied to the linear raw data (nothing clips: the develop's output is
    /// float from there on).
    public var exposure: Double = 0
    /// Chromatic aberration: the scale of the red and blue planes against green (1: none).
    public var chromaticAberration: (red: Double, blue: Double) = (1, 1)
    /// LibRaw's wavelet denoising threshold (0: none; 100–1000 is useful).
    public var noiseThreshold: Double = 0
    /// recipe's own denoise of the mosaic before the demosaic (nil: none).
    public var denoise: RawDenoise?

    public init() {}

    /// The temperatures of the named lights (K; tint 0), as darktable's and Lightroom's presets.
    public static let presets: [(name: String, temperature: Double)] = [
        ("daylight", 5500), ("cloudy", 6500), ("shade", 7500), ("tungsten", 2850), ("fluorescent", 3800), ("flash", 5500),
    ]

    public static func == (a: RawDevelop, b: RawDevelop) -> Bool {
        a.whiteBalance == b.whiteBalance && a.demosaic == b.demosaic && a.highlights == b.highlights && a.exposure == b.exposure
            && a.chromaticAberration == b.chromaticAberration && a.noiseThreshold == b.noiseThreshold && a.denoise == b.denoise
    }

    public func hash(into h: inout Hasher) {
        h.combine(description)
    }

    /// One line, as `explain` and `info` say it.
    public var description: String {
        let wb: String = switch whiteBalance {
        case .asShot: "as shot"
        case .auto: "auto"
        case .preset(let name): name
        case .temperature(let t, let tint): "\(Int(t)) K, tint \(tint == tint.rounded() ? String(Int(tint)) : String(tint))"
        case .multipliers(let m): "multipliers " + m.map { String($0) }.joined(separator: " ")
        }
        let hl: String = switch highlights {
        case .clip: "clip"
        case .unclip: "unclip"
        case .blend: "blend"
        case .rebuild(let level): "rebuild \(level)"
        }
        var parts = ["white balance \(wb)", "demosaic \(demosaic.rawValue)", "highlights \(hl)"]
        if exposure != 0 { parts.append("exposure \(exposure > 0 ? "+" : "")\(exposure) EV") }
        if chromaticAberration != (1, 1) { parts.append("chromatic aberration red \(chromaticAberration.red) blue \(chromaticAberration.blue)") }
        if noiseThreshold != 0 { parts.append("noise threshold \(noiseThreshold)") }
        if let denoise { parts.append(denoise.description) }
        return parts.joined(separator: ", ")
    }
}
