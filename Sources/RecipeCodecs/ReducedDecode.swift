/// How far to reduce a JPEG in the DCT domain for a smaller render.
///
/// libjpeg's reduced IDCT averages gamma-encoded YCbCr, where the full render's resize averages
/// linear light, and the error grows with the share of the reduction done that way. So the
/// decoded image stays at least twice the target (the Lanczos resize does the rest in linear
/// light), except that 1/2 is always taken when the target fits in it: that is what makes display
/// size fast (a 24 MP photo at 2048 px), and its error is the smallest. Measured against the full
/// render downscaled, for the recipes of Recipes/ on corpus/photos/exif-samples_42 (4032×3024) at
/// 1000 px: 33.0–39.6 dB at 1/4, 37.0–48.2 dB at 1/2 (the chain 33.9 → 39.2, film-look 36.4 →
/// 45.4; square-crop's 31.5 comes from its own resize and is the same either way); at 2048 px
/// (1/2, as before) 42.7–53.3 dB.
///
/// ```swift
/// ReducedDecode.denominator(width: 6000, height: 4000, target: (2048, 1365), supported: [1, 2, 4, 8])  // 2
/// ReducedDecode.denominator(width: 4032, height: 3024, target: (1000, 750), supported: [1, 2, 4, 8])   // 2, not 4
/// ```
public enum ReducedDecode {
    public static func denominator(width: Int, height: Int, target: (width: Int, height: Int), supported: [Int]) -> Int {
        func fits(_ d: Int, _ times: Int) -> Bool {
            (width + d - 1) / d >= times * target.width && (height + d - 1) / d >= times * target.height
        }
        let oversampled = supported.sorted(by: >).first { fits($0, 2) } ?? 1
        return oversampled == 1 && supported.contains(2) && fits(2, 1) ? 2 : oversampled
    }
}
