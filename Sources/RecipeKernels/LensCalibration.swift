/// A lens's corrections at one focal length, aperture and focus distance: what a lens profile
/// (lensfun's database, interpolated by lensfun) or the photo's own correction data (a DNG's
/// opcode lists) says about distortion, lateral chromatic aberration (TCA) and vignetting. Plain
/// numbers, so that the maths (`LensMap`) does not depend on where they came from.
///
/// ```swift
/// var c = LensCalibration(source: .lensfun(profile: "Nikon AF-S Nikkor 24-70mm f/2.8G ED"))
/// c.distortion = .ptlens(a: 0.01, b: -0.03, c: 0.0)
/// c.tca = .linear(kr: 1.0002, kb: 0.9998)
/// c.vignetting = .pa(k1: -0.3, k2: 0.1, k3: -0.05)
/// ```
public struct LensCalibration: Sendable, Hashable {
    /// Where the numbers come from (what `info` and `explain` name).
    public enum Source: Sendable, Hashable {
        /// A lensfun profile, by its lens name (maker and model as the database spells them).
        case lensfun(profile: String)
        /// The photo's own correction data (DNG OpcodeList2/3).
        case camera(String)
    }

    /// Radial distortion: the distorted radius rd of an undistorted radius ru, in lensfun's
    /// normalised coordinates (r = 1 at half the short side of the calibration sensor).
    public enum Distortion: Sendable, Hashable {
        /// lensfun `poly3`: rd = ru·(1 − k1 + k1·ru²).
        case poly3(k1: Double)
        /// lensfun `poly5`: rd = ru·(1 + k1·ru² + k2·ru⁴).
        case poly5(k1: Double, k2: Double)
        /// lensfun `ptlens` (Panorama Tools): rd = ru·(a·ru³ + b·ru² + c·ru + 1 − a − b − c).
        case ptlens(a: Double, b: Double, c: Double)
        /// DNG `WarpRectilinear` (DNG 1.4 §6 "Opcode List Processing"): per plane (1 or 3: red,
        /// green, blue) a radial polynomial kr0 + kr1·r² + kr2·r⁴ + kr3·r⁶ and tangential terms
        /// kt0, kt1, about an optical centre given as a fraction of the image (0.5, 0.5 is the
        /// middle); r = 1 at the corner farthest from that centre. The DNG's own lateral
        /// chromatic aberration is its per-plane difference.
        case dngWarp(planes: [DNGWarpPlane], centerX: Double, centerY: Double)
    }

    /// One plane of a DNG `WarpRectilinear`.
    public struct DNGWarpPlane: Sendable, Hashable {
        public var kr: [Double]  // kr0, kr1, kr2, kr3
        public var kt: [Double]  // kt0, kt1
        public init(kr: [Double], kt: [Double]) {
            precondition(kr.count == 4 && kt.count == 2, "a WarpRectilinear plane has 4 radial and 2 tangential terms")
            self.kr = kr
            self.kt = kt
        }
    }

    /// Lateral chromatic aberration (TCA): where red and blue lie against green, in lensfun's
    /// normalised coordinates (after distortion).
    public enum TCA: Sendable, Hashable {
        /// lensfun `linear`: red at kr·r, blue at kb·r.
        case linear(kr: Double, kb: Double)
        /// lensfun `poly3`: r_c = b_c·r³ + c_c·r² + v_c·r for c in red, blue.
        case poly3(vr: Double, vb: Double, cr: Double, cb: Double, br: Double, bb: Double)
    }

    /// Vignetting: the fraction of light that reaches radius r.
    public enum Vignetting: Sendable, Hashable {
        /// lensfun `pa` (Pablo d'Angelo): 1 + k1·r² + k2·r⁴ + k3·r⁶, r = 1 at the calibration
        /// sensor's corner.
        case pa(k1: Double, k2: Double, k3: Double)
        /// DNG `FixVignetteRadial`: the gain 1 + k0·r² + k1·r⁴ + k2·r⁶ + k3·r⁸ + k4·r¹⁰ the
        /// pixel is multiplied by, about a centre given as a fraction of the image, r = 1 at the
        /// corner farthest from it.
        case dngRadial(k: [Double], centerX: Double, centerY: Double)
    }

    public var source: Source
    public var distortion: Distortion?
    public var tca: TCA?
    public var vignetting: Vignetting?
    /// The crop factor and aspect ratio (long side over short) of the sensor the lensfun profile
    /// was calibrated on (lensfun's `CropFactor`, `AspectRatio`); unused for DNG data.
    public var calibrationCropFactor: Double
    public var calibrationAspectRatio: Double
    /// The lens's optical centre offset from the image centre, in lensfun's normalised
    /// coordinates (lensfun's `CenterX`, `CenterY`; 0 almost always).
    public var centerX: Double
    public var centerY: Double
    /// Whether the vignetting is corrected on the source, before the distortion (lensfun's order,
    /// and a DNG's whose OpcodeList3 lists FixVignetteRadial first), or on the corrected image,
    /// at the output's positions (a DNG listing it after WarpRectilinear).
    public var vignettingFirst = true

    public init(source: Source, distortion: Distortion? = nil, tca: TCA? = nil, vignetting: Vignetting? = nil,
                calibrationCropFactor: Double = 1, calibrationAspectRatio: Double = 1.5, centerX: Double = 0, centerY: Double = 0) {
        self.source = source
        self.distortion = distortion
        self.tca = tca
        self.vignetting = vignetting
        self.calibrationCropFactor = calibrationCropFactor
        self.calibrationAspectRatio = calibrationAspectRatio
        self.centerX = centerX
        self.centerY = centerY
    }

    /// Whether it corrects anything.
    public var isEmpty: Bool { distortion == nil && tca == nil && vignetting == nil }

    /// Whether every number is finite (a damaged profile or opcode may hold NaN or infinity).
    public var isFinite: Bool {
        var numbers = [calibrationCropFactor, calibrationAspectRatio, centerX, centerY]
        switch distortion {
        case .poly3(let k1)?: numbers += [k1]
        case .poly5(let k1, let k2)?: numbers += [k1, k2]
        case .ptlens(let a, let b, let c)?: numbers += [a, b, c]
        case .dngWarp(let planes, let cx, let cy)?: numbers += planes.flatMap { $0.kr + $0.kt } + [cx, cy]
        case nil: break
        }
        switch tca {
        case .linear(let kr, let kb)?: numbers += [kr, kb]
        case .poly3(let vr, let vb, let cr, let cb, let br, let bb)?: numbers += [vr, vb, cr, cb, br, bb]
        case nil: break
        }
        switch vignetting {
        case .pa(let k1, let k2, let k3)?: numbers += [k1, k2, k3]
        case .dngRadial(let k, let cx, let cy)?: numbers += k + [cx, cy]
        case nil: break
        }
        return numbers.allSatisfy(\.isFinite)
    }
}
