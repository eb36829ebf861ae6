/// The storage type of one sample (one channel of one pixel).
///
/// Codecs hand out `uint8` or `uint16` rows as they are in the file; the interpreter works in
/// `float32` (nominal range 0…1, unclamped between ops) and converts back at the encoder.
///
/// Integer rows are interleaved (r g b r g b …, as codecs want them). Float rows, which are RGB
/// and only ever pass between the interpreter's stages, are planar: a row of `width` pixels holds
/// its `width` red values, then its green, then its blue. Every kernel works on planes, so a
/// stage reads and writes them as they are; interleaved float rows cost a shuffle at each end of
/// every stage (10–15% of a neighbourhood recipe's CPU).
public enum SampleType: Sendable, Hashable {
    case uint8
    case uint16
    /// Planar rows (see above).
    case float32

    /// Bytes per sample.
    public var byteCount: Int {
        switch self {
        case .uint8: 1
        case .uint16: 2
        case .float32: 4
        }
    }

    /// Bits per sample as a codec reports them (8, 16 or 32).
    public var bitDepth: Int { byteCount * 8 }
}

/// Which channels a pixel has, in storage order.
public enum ColorModel: String, Sendable, Hashable {
    case gray
    case grayAlpha = "gray+alpha"
    case rgb
    case rgba

    /// Channels per pixel.
    public var channels: Int {
        switch self {
        case .gray: 1
        case .grayAlpha: 2
        case .rgb: 3
        case .rgba: 4
        }
    }

    /// Whether the last channel is alpha.
    public var hasAlpha: Bool { self == .grayAlpha || self == .rgba }

    /// The model with the alpha channel removed.
    public var withoutAlpha: ColorModel {
        switch self {
        case .gray, .grayAlpha: .gray
        case .rgb, .rgba: .rgb
        }
    }
}

/// Colour model plus sample type: everything needed to interpret a row of bytes.
///
/// ```swift
/// let f = PixelFormat(.rgb, .uint8)   // 3 bytes per pixel
/// ```
public struct PixelFormat: Sendable, Hashable, CustomStringConvertible {
    public var colorModel: ColorModel
    public var sampleType: SampleType

    public init(_ colorModel: ColorModel, _ sampleType: SampleType) {
        self.colorModel = colorModel
        self.sampleType = sampleType
    }

    /// Channels per pixel.
    public var channels: Int { colorModel.channels }
    /// Bytes per pixel.
    public var bytesPerPixel: Int { colorModel.channels * sampleType.byteCount }

    public var description: String { "\(colorModel.rawValue) \(sampleType.bitDepth)-bit" }
}
