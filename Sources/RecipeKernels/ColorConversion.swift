/// Colour-model conversions done at the codec boundary.
public enum ColorConversion {
    /// CMYK (or YCCK, which libjpeg hands over as CMYK) to RGB, the naive way without a profile:
    /// `R = (255 − C)(255 − K)/255`. Adobe applications store the channels inverted (APP14
    /// marker present), in which case `R = C·K/255` on the stored values.
    @inlinable
    public static func cmykToRGB(_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>, width: Int, adobeInverted: Bool) {
        for x in 0..<width {
            var c = Int(src[4 * x]), m = Int(src[4 * x + 1]), y = Int(src[4 * x + 2]), k = Int(src[4 * x + 3])
            if !adobeInverted { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k }
            dst[3 * x] = UInt8((c * k + 127) / 255)
            dst[3 * x + 1] = UInt8((m * k + 127) / 255)
            dst[3 * x + 2] = UInt8((y * k + 127) / 255)
        }
    }
}
