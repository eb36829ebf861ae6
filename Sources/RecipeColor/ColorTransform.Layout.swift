internal import CLCMS2

extension ColorTransform {
    /// How the pixels a transform reads or writes are laid out: channels interleaved in one row
    /// (native-endian 16-bit, 32-bit float in [0, 1]), or float planes.
    ///
    /// ```swift
    /// // An Adobe-style CMYK JPEG stores ink inverted (0 = full ink):
    /// let t = try ColorTransform(from: swop, to: .sRGB, input: .cmyk8Inverted, output: .rgb8, intent: .perceptual)
    /// ```
    public enum Layout: Sendable {
        /// R G B, 8 bits each.
        case rgb8
        /// R G B, 16 bits each, native byte order.
        case rgb16
        /// R G B, Float each, 1.0 = full scale.
        case rgbFloat
        /// One 8-bit sample a pixel.
        case gray8
        /// One 16-bit sample a pixel, native byte order.
        case gray16
        /// One Float a pixel.
        case grayFloat
        /// C M Y K, 8 bits each, 255 = full ink.
        case cmyk8
        /// C M Y K, 8 bits each, inverted as Adobe's JPEGs store them: 0 = full ink.
        case cmyk8Inverted
        /// Three Float planes (red, then green, then blue).
        case rgbFloatPlanar
    }
}

extension ColorTransform.Layout {
    var colorModel: ProfileColorModel {
        switch self {
        case .rgb8, .rgb16, .rgbFloat, .rgbFloatPlanar: .rgb
        case .gray8, .gray16, .grayFloat: .gray
        case .cmyk8, .cmyk8Inverted: .cmyk
        }
    }

    var isFloat: Bool {
        switch self {
        case .rgbFloat, .grayFloat, .rgbFloatPlanar: true
        default: false
        }
    }

    /// lcms2's TYPE_* pixel format.
    var lcmsFormat: cmsUInt32Number {
        let value = switch self {
        case .rgb8: RCP_TYPE_RGB_8
        case .rgb16: RCP_TYPE_RGB_16
        case .rgbFloat: RCP_TYPE_RGB_FLT
        case .gray8: RCP_TYPE_GRAY_8
        case .gray16: RCP_TYPE_GRAY_16
        case .grayFloat: RCP_TYPE_GRAY_FLT
        case .cmyk8: RCP_TYPE_CMYK_8
        case .cmyk8Inverted: RCP_TYPE_CMYK_8_REV
        case .rgbFloatPlanar: RCP_TYPE_RGB_FLT_PLANAR
        }
        return cmsUInt32Number(value)
    }
}
