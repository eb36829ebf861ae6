import RecipeCore

/// The metadata blocks of a photo, kept verbatim so an output carries them on.
///
/// Blocks are stored in a format-neutral shape so a JPEG→PNG or PNG→JPEG render can carry them:
/// EXIF as the bare TIFF structure (JPEG's `Exif\0\0` prefix removed), ICC as the whole profile
/// (JPEG's APP2 chunks reassembled), XMP as the packet text.
public struct ImageMetadata: Sendable, Equatable {
    /// EXIF as a TIFF structure (`II*\0…` or `MM\0*…`).
    public var exif: [UInt8]?
    /// The ICC profile.
    public var icc: [UInt8]?
    /// The XMP packet (UTF-8 XML).
    public var xmp: [UInt8]?
    /// JPEG extended-XMP segments, each the payload after the namespace, verbatim.
    public var extendedXMP: [[UInt8]] = []
    /// JPEG APP13 payload (Photoshop image resources holding IPTC), verbatim.
    public var iptc: [UInt8]?
    /// JPEG COM segments.
    public var comments: [[UInt8]] = []
    /// PNG text chunks other than XMP (tEXt, zTXt, iTXt), in file order.
    public var pngText: [PNGText] = []
    /// PNG gAMA value (the encoding exponent, e.g. 0.45455), carried to PNG outputs.
    public var pngGamma: Double?
    /// PNG sRGB chunk rendering intent, carried to PNG outputs.
    public var pngSRGBIntent: Int?
    /// PNG cHRM chromaticities: white x, y, then red, green and blue x, y.
    public var pngChromaticities: [Double]?
    /// Coding-independent code points (ITU-T H.273): a HEIF's `nclx` colour box, a PNG's cICP.
    public var cicp: CICP?
    /// Orientation read from EXIF (upright when absent).
    public var orientation: Orientation = .up

    public init() {}

    /// Names of the blocks present, for `recipe info`.
    public var blockNames: [String] {
        var names: [String] = []
        if exif != nil { names.append("EXIF") }
        if icc != nil { names.append("ICC") }
        if xmp != nil { names.append(extendedXMP.isEmpty ? "XMP" : "XMP (+\(extendedXMP.count) extended)") }
        if iptc != nil { names.append("IPTC") }
        if !comments.isEmpty { names.append("comment") }
        if !pngText.isEmpty { names.append("text (\(pngText.count))") }
        return names
    }
}

/// A PNG text chunk (tEXt, zTXt or iTXt) carried from a PNG to a PNG.
public struct PNGText: Sendable, Equatable {
    public var keyword: String
    public var text: [UInt8]
    public var compressed: Bool
    public var international: Bool
    public var languageTag: String
    public var translatedKeyword: String

    public init(keyword: String, text: [UInt8], compressed: Bool = false, international: Bool = false,
                languageTag: String = "", translatedKeyword: String = "")
    {
        self.keyword = keyword
        self.text = text
        self.compressed = compressed
        self.international = international
        self.languageTag = languageTag
        self.translatedKeyword = translatedKeyword
    }
}

/// Colour described by ITU-T H.273 code points instead of an ICC profile (a HEIF's `nclx` box, a
/// PNG's cICP chunk): primaries 1 = BT.709/sRGB, 9 = BT.2020, 12 = Display P3 (SMPTE EG 432);
/// transfer 1/6/14/15 = BT.709 family, 13 = sRGB, 8 = linear, 16 = PQ, 18 = HLG; matrix 0 = RGB
/// (identity), 1 = BT.709, 5/6 = BT.601, 9 = BT.2020 non-constant.
public struct CICP: Sendable, Equatable, CustomStringConvertible {
    public var primaries: Int
    public var transfer: Int
    public var matrix: Int
    public var fullRange: Bool

    public init(primaries: Int, transfer: Int, matrix: Int, fullRange: Bool) {
        self.primaries = primaries
        self.transfer = transfer
        self.matrix = matrix
        self.fullRange = fullRange
    }

    public var description: String { "\(primaries)/\(transfer)/\(matrix)\(fullRange ? " full" : " limited")" }
}
