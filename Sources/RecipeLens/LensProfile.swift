internal import CLensfunLoader
import RecipeKernels

/// One lens profile of lensfun's database: a lens model measured on one sensor size. The same lens
/// measured on two sizes is two profiles (lensfun scales a profile to a camera's crop factor, and a
/// profile measured on a smaller sensor than the camera's does not cover its corners).
///
/// ```swift
/// let p = try LensDatabase.shared().profile(named: "nikon af-s nikkor 50mm f/1.8g", cropFactor: 1)!
/// p.model                       // "Nikon AF-S Nikkor 50mm f/1.8G"
/// p.calibration(focal: 50, aperture: 2.8, distance: 3)   // distortion, TCA and vignetting at 50 mm f/2.8
/// ```
public struct LensProfile: Sendable, Hashable, CustomStringConvertible {
    /// The lens's projection (lensfun's lens type).
    public enum Projection: String, Sendable {
        case unknown, rectilinear, fisheye, panoramic, equirectangular
        case orthographicFisheye = "orthographic fisheye", stereographicFisheye = "stereographic fisheye"
        case equisolidFisheye = "equisolid fisheye", thobyFisheye = "Thoby fisheye"

        init(lensfunType: Int32) {
            let all: [Projection] = [.unknown, .rectilinear, .fisheye, .panoramic, .equirectangular, .orthographicFisheye,
                                     .stereographicFisheye, .equisolidFisheye, .thobyFisheye]
            self = lensfunType >= 0 && Int(lensfunType) < all.count ? all[Int(lensfunType)] : .unknown
        }
    }

    /// Maker and model as lensfun spells them ("Nikon", "Nikon AF-S Nikkor 50mm f/1.8G").
    public let maker: String
    public let model: String
    /// The model's other spellings in the database (its translations).
    public let otherNames: [String]
    public let mounts: [String]
    /// The crop factor and aspect ratio of the sensor it was measured on.
    public let cropFactor: Double
    public let aspectRatio: Double
    /// The optical centre's offset from the image centre (lensfun's normalised units).
    public let centerX: Double
    public let centerY: Double
    public let projection: Projection
    public let focalRange: ClosedRange<Double>?
    /// Widest to smallest f-number, nil when the database gives none.
    public let apertureRange: ClosedRange<Double>?
    public let hasDistortion: Bool
    public let hasTCA: Bool
    public let hasVignetting: Bool
    /// The position in lensfun's list, which names the profile in the C calls.
    let index: Int
    let handle: LensfunHandle
    /// The name taken apart once, for matching.
    let name: LensName

    init(_ c: rcp_lensfun_lens, handle: LensfunHandle) {
        maker = cString(c.maker)
        model = cString(c.model)
        otherNames = cString(c.other_names).split(separator: "\n").compactMap { $0.split(separator: "\t", maxSplits: 1).last.map(String.init) }
        mounts = withUnsafeBytes(of: c.mounts) { raw in
            (0..<Int(c.mount_count)).map { i in
                String(decoding: raw[(i * 48)..<(i * 48 + 48)].prefix { $0 != 0 }, as: UTF8.self)
            }
        }
        cropFactor = Double(c.crop_factor)
        aspectRatio = c.aspect_ratio > 0 ? Double(c.aspect_ratio) : 1.5
        centerX = Double(c.center_x)
        centerY = Double(c.center_y)
        projection = Projection(lensfunType: c.type)
        focalRange = c.min_focal > 0 ? Double(c.min_focal)...Double(max(c.max_focal, c.min_focal)) : nil
        apertureRange = c.min_aperture > 0 ? Double(c.min_aperture)...Double(max(c.max_aperture, c.min_aperture)) : nil
        hasDistortion = c.distortion_count > 0
        hasTCA = c.tca_count > 0
        hasVignetting = c.vignetting_count > 0
        index = Int(c.index)
        self.handle = handle
        name = LensName(model)
    }

    /// "Sigma 19mm f/2.8 EX DN (crop 1.534)".
    public var description: String { "\(model) (crop \(shown(cropFactor)))" }

    /// lensfun's interpolation of the profile's measurements at a focal length (mm), aperture
    /// (f-number) and focus distance (m), with the profile's crop factor, aspect ratio and centre.
    /// Without an aperture there is no vignetting (it depends on it most); without a distance,
    /// focus at infinity is taken (lensfun's 1000 m).
    public func calibration(focal: Double, aperture: Double?, distance: Double?) -> LensCalibration {
        var c = LensCalibration(source: .lensfun(profile: model), calibrationCropFactor: cropFactor,
                                calibrationAspectRatio: aspectRatio, centerX: centerX, centerY: centerY)
        var r = rcp_lensfun_calibration()
        if rcp_lensfun_distortion(handle.db, Int32(index), Float(focal), &r) != 0 {
            let t = terms(r)
            switch r.model {
            case 1: c.distortion = .poly3(k1: t[0])
            case 2: c.distortion = .poly5(k1: t[0], k2: t[1])
            case 3: c.distortion = .ptlens(a: t[0], b: t[1], c: t[2])
            default: break
            }
        }
        if rcp_lensfun_tca(handle.db, Int32(index), Float(focal), &r) != 0 {
            let t = terms(r)
            switch r.model {
            case 1: c.tca = .linear(kr: t[0], kb: t[1])
            case 2: c.tca = .poly3(vr: t[0], vb: t[1], cr: t[2], cb: t[3], br: t[4], bb: t[5])
            default: break
            }
        }
        if let aperture, rcp_lensfun_vignetting(handle.db, Int32(index), Float(focal), Float(aperture), Float(distance ?? 1000), &r) != 0,
           r.model == 1 {
            let t = terms(r)
            c.vignetting = .pa(k1: t[0], k2: t[1], k3: t[2])
        }
        return c
    }

    /// lensfun's own automatic scale (GetAutoScale) for this lens on a `width`×`height` photo of a
    /// camera of `cropFactor` at `focal` mm, with distortion and TCA corrected as asked: the
    /// magnification that leaves no empty border. Asked of lensfun itself, so that `scale: auto`
    /// lands exactly where lensfun's would (its search stops within a thousandth of the edge, so
    /// another implementation lands elsewhere within that). nil when lensfun finds none.
    public func autoScale(cropFactor: Double, width: Int, height: Int, focal: Double, distortion: Bool, tca: Bool) -> Double? {
        let s = rcp_lensfun_auto_scale(handle.db, Int32(index), Float(cropFactor), Int32(width), Int32(height), Float(focal),
                                       distortion ? 1 : 0, tca ? 1 : 0)
        return s > 0 ? Double(s) : nil
    }

    private func terms(_ r: rcp_lensfun_calibration) -> [Double] {
        [r.terms.0, r.terms.1, r.terms.2, r.terms.3, r.terms.4, r.terms.5].map(Double.init)
    }

    public static func == (a: LensProfile, b: LensProfile) -> Bool { a.index == b.index && a.handle === b.handle }
    public func hash(into h: inout Hasher) { h.combine(index) }
}

/// A C string held in a fixed-size char array of a lensfun struct.
func cString<T>(_ tuple: T) -> String {
    withUnsafeBytes(of: tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
}
