import RecipeCodecs

/// What a photo says about its lens, the input of `LensDatabase.match`: the camera, the lens as the
/// file names it (EXIF LensModel 0xA434, LensMake 0xA433, LensSpecification 0xA432, or LibRaw's
/// reading of a raw's maker notes), a maker-note lens ID when there is one, and the settings the
/// photo was taken at (focal length 0x920A, f-number 0x829D, subject distance 0x9206, focal
/// length in 35 mm film 0xA405).
///
/// ```swift
/// let q = LensQuery(info: try ImageDecoders.open("DSC_6083.JPG").info)
/// q.cameraMake      // "NIKON CORPORATION"
/// q.lensModel       // "AF Nikkor 35mm f/2D"
/// q.focalLength     // 35
/// ```
public struct LensQuery: Sendable, Hashable {
    public var cameraMake: String
    public var cameraModel: String
    public var lensMake: String
    public var lensModel: String
    /// The maker notes' lens ID (LibRaw's for a raw; XMP aux:LensID otherwise), nil when none.
    public var lensID: Int64?
    /// The lens's focal range and widest apertures at its ends, as the file states them.
    public var lensSpecification: LensSpecification?
    /// Focal length (mm), f-number and focus distance (m) the photo was taken at.
    public var focalLength: Double?
    public var aperture: Double?
    public var distance: Double?
    /// Focal length in 35 mm terms: with `focalLength`, the camera's crop factor when lensfun
    /// does not know the camera.
    public var focalLength35mm: Double?

    /// A lens's focal range and widest apertures (EXIF LensSpecification).
    public struct LensSpecification: Sendable, Hashable {
        public var minFocal: Double
        public var maxFocal: Double
        public var wideAperture: Double?
        public var teleAperture: Double?

        public init(minFocal: Double, maxFocal: Double, wideAperture: Double? = nil, teleAperture: Double? = nil) {
            self.minFocal = minFocal
            self.maxFocal = maxFocal
            self.wideAperture = wideAperture
            self.teleAperture = teleAperture
        }
    }

    public init(cameraMake: String = "", cameraModel: String = "", lensMake: String = "", lensModel: String = "", lensID: Int64? = nil,
                lensSpecification: LensSpecification? = nil, focalLength: Double? = nil, aperture: Double? = nil,
                distance: Double? = nil, focalLength35mm: Double? = nil) {
        self.cameraMake = cameraMake
        self.cameraModel = cameraModel
        self.lensMake = lensMake
        self.lensModel = lensModel
        self.lensID = lensID
        self.lensSpecification = lensSpecification
        self.focalLength = focalLength
        self.aperture = aperture
        self.distance = distance
        self.focalLength35mm = focalLength35mm
    }

    /// What the file's header says: a raw's facts as LibRaw read them, then the EXIF block for
    /// what they lack (a JPEG, TIFF, HEIF or WebP has only the EXIF block), then XMP aux:LensID.
    public init(info: ImageInfo) {
        self.init()
        if let raw = info.raw {
            cameraMake = raw.make
            cameraModel = raw.model
            lensMake = raw.lensMake
            lensModel = raw.lens
            lensID = raw.lensID
            focalLength = raw.focalLength
            aperture = raw.aperture
            focalLength35mm = raw.focalLength35mm
            lensSpecification = raw.lensSpecification.map {
                LensSpecification(minFocal: $0.minFocal, maxFocal: $0.maxFocal, wideAperture: $0.wideAperture, teleAperture: $0.teleAperture)
            }
        }
        if let bytes = info.metadata.exif, let exif = EXIF(bytes) {
            func fill(_ field: inout String, _ tag: UInt16, _ directory: EXIF.Directory) {
                if field.isEmpty, let s = exif.string(tag, in: directory) { field = s }
            }
            func positive(_ tag: UInt16) -> Double? {
                exif.numbers(tag, in: .exif)?.first.flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
            }
            fill(&cameraMake, 0x010F, .ifd0)
            fill(&cameraModel, 0x0110, .ifd0)
            fill(&lensMake, 0xA433, .exif)
            fill(&lensModel, 0xA434, .exif)
            focalLength = focalLength ?? positive(0x920A)
            aperture = aperture ?? positive(0x829D)
            focalLength35mm = focalLength35mm ?? positive(0xA405)
            // SubjectDistance: 0 is unknown, 0xFFFFFFFF/1 infinity (lensfun's 1000 m stands for it).
            if distance == nil, let d = positive(0x9206) { distance = min(d, 1000) }
            if lensSpecification == nil, let s = exif.numbers(0xA432, in: .exif), s.count == 4, s[0].isFinite, s[0] > 0 {
                let maxFocal = s[1].isFinite && s[1] >= s[0] ? s[1] : s[0]
                lensSpecification = LensSpecification(minFocal: s[0], maxFocal: maxFocal, wideAperture: s[2].isFinite && s[2] > 0 ? s[2] : nil,
                                                      teleAperture: s[3].isFinite && s[3] > 0 ? s[3] : nil)
            }
        }
        if lensID == nil, let xmp = info.metadata.xmp { lensID = LensQuery.auxLensID(xmp) }
    }

    /// XMP aux:LensID (Adobe's auxiliary namespace, written by Lightroom, exiftool and others: the
    /// maker notes' lens number), as an attribute or an element.
    static func auxLensID(_ xmp: [UInt8]) -> Int64? {
        let text = String(decoding: xmp, as: UTF8.self)
        for (open, close) in [("aux:LensID=\"", "\""), ("aux:LensID='", "'"), ("<aux:LensID>", "<")] {
            guard let start = text.firstRange(of: open)?.upperBound else { continue }
            let value = text[start...].prefix { String($0) != close }
            if let id = Int64(value.filter { $0 != " " }) { return id }
        }
        return nil
    }
}
