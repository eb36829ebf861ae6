import RecipeCore

/// What a camera raw file's header says beyond `ImageInfo`'s fields: the camera, how its sensor
/// recorded the light, and its colour (for `recipe info` and the develop's colour conversion).
public struct RawImageInfo: Sendable {
    public var make: String
    public var model: String
    public var lens: String
    /// LibRaw's name for the format's decoder (`lossless_jpeg_load_raw`, …).
    public var decoder: String
    /// The sensor's stored frame (what LibRaw unpacks).
    public var rawWidth: Int
    public var rawHeight: Int
    /// Colours of the mosaic: 3 (RGB), 4 (CMYG, RGBE), 1 (monochrome).
    public var colors: Int
    /// The 2×2 Bayer pattern from the top-left of the visible image (`RGGB`), empty when the
    /// sensor is not a Bayer mosaic (X-Trans, Foveon, linear DNG).
    public var cfa: String
    /// Black and white levels in raw units.
    public var black: Int
    public var white: Int
    /// The camera's as-shot multipliers, red green blue, green = 1 (nil when the file has none).
    public var asShot: [Double]?
    /// Daylight (D65) multipliers from the camera matrix, green = 1.
    public var daylight: [Double]
    /// XYZ (D65) → camera RGB, row-major 3×3 (LibRaw's `cam_xyz`: Adobe's table or the DNG's
    /// ColorMatrix).
    public var xyzToCamera: [Double]
    /// LibRaw's own camera → linear sRGB matrix, row-major 3×3, for the tests to compare ours with.
    public var libRawCameraToSRGB: [Double]
    /// DNG version ("1.4.0.0"), nil when not a DNG.
    public var dngVersion: String?
    /// DNG BaselineExposure in stops (reported; the neutral develop does not apply it).
    public var baselineExposure: Double
    /// The embedded preview, when there is one.
    public var preview: (format: String, width: Int, height: Int, bytes: Int)?
    public var iso: Double?
    /// Exposure time in seconds.
    public var shutter: Double?
    public var aperture: Double?
    /// Focal length in mm.
    public var focalLength: Double?
    /// Seconds since 1970 (UTC as the camera's clock said).
    public var timestamp: Int?
    /// Signed degrees and metres.
    public var gps: (latitude: Double, longitude: Double, altitude: Double)?
    /// The lens's maker as the file names it (EXIF LensMake), empty when it does not.
    public var lensMake: String = ""
    /// The maker notes' lens ID (Canon, Nikon, Sony, Pentax, Olympus … numbering, as LibRaw reads
    /// it), nil when there is none: what names the lens when the file gives no lens name.
    public var lensID: Int64?
    /// Focal length in 35 mm terms (EXIF FocalLengthIn35mmFormat), for the crop factor.
    public var focalLength35mm: Double?
    /// The lens's focal range and widest apertures at its ends (EXIF LensSpecification or the
    /// maker notes), nil when unknown.
    public var lensSpecification: (minFocal: Double, maxFocal: Double, wideAperture: Double?, teleAperture: Double?)?
    /// A DNG's opcode lists (its maker's lens corrections among them), nil when it has none.
    public var opcodes: DNGOpcodes? = nil
}

extension Unicode.GeneralCategory {
    /// Control (Cc), format (Cf), surrogate, private use and unassigned code points.
    var isControlOrFormat: Bool {
        switch self {
        case .control, .format, .surrogate, .privateUse, .unassigned: true
        default: false
        }
    }
}
