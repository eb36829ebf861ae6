/// EXIF orientation (tag 0x0112): how the stored pixels must be transformed to be upright.
///
/// Values 1–8 as in EXIF 2.32 §4.6.4; anything else is treated as 1 (upright), which is what
/// cameras mean by 0. `transposes` tells whether width and height swap.
///
/// | value | stored image is… | to show it upright |
/// |---|---|---|
/// | 1 | upright | nothing |
/// | 2 | mirrored | flip horizontally |
/// | 3 | upside down | rotate 180° |
/// | 4 | mirrored upside down | flip vertically |
/// | 5 | mirrored, rotated | transpose (flip about the main diagonal) |
/// | 6 | rotated 90° CCW | rotate 90° clockwise |
/// | 7 | mirrored, rotated | transverse (flip about the anti-diagonal) |
/// | 8 | rotated 90° CW | rotate 90° counter-clockwise |
public enum Orientation: Int, Sendable, CaseIterable {
    case up = 1
    case upMirrored = 2
    case down = 3
    case downMirrored = 4
    case leftMirrored = 5
    case right = 6
    case rightMirrored = 7
    case left = 8

    /// Orientation from an EXIF value; out-of-range values (0 included) mean upright.
    public init(exifValue: Int) {
        self = Orientation(rawValue: exifValue) ?? .up
    }

    /// Whether the upright image has width and height swapped relative to the stored one.
    public var transposes: Bool { rawValue >= 5 }

    /// Upright size for a stored size.
    public func orientedSize(width: Int, height: Int) -> (width: Int, height: Int) {
        transposes ? (height, width) : (width, height)
    }

    /// Whether this orientation can be applied row by row (no need for the whole image).
    public var isStreamable: Bool { self == .up || self == .upMirrored }

    /// For upright output pixel (x, y) of an image whose upright size is (w, h): the stored pixel.
    @inlinable
    public func sourceCoordinate(x: Int, y: Int, uprightWidth w: Int, uprightHeight h: Int)
        -> (x: Int, y: Int)
    {
        switch self {
        case .up: (x, y)
        case .upMirrored: (w - 1 - x, y)
        case .down: (w - 1 - x, h - 1 - y)
        case .downMirrored: (x, h - 1 - y)
        case .leftMirrored: (y, x)
        case .right: (y, w - 1 - x)
        case .rightMirrored: (h - 1 - y, w - 1 - x)
        case .left: (h - 1 - y, x)
        }
    }
}
