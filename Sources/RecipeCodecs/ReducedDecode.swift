/// How far to reduce a JPEG in the DCT domain for a smaller render.
///
/// libjpeg's reduced IDCT averages gamma-encoded YCbCr in blocks, where the full render's resize
/// averages linear light with a Lanczos window, and the error grows with the share of the
/// reduction done that way. So the decoded image stays at least twice the target (the Lanczos
/// resize does the rest in linear light), except that 1/2 is taken when it leaves the resize at
/// least `halfMargin` (1.4×) to do: that is what makes display size fast (a 24 MP photo at
/// 2048 px: 3000 px, 1.46×). Closer to the target, the reduced decode's blocks pass almost
/// unfiltered into the output. Measured against the full render downscaled, on the most detailed
/// corpus photo (brendon-van-zyl, 3051×4529), basic-corrections and black-and-white, with 1/2
/// leaving 1.11× (at 2048 px): 37.2 dB; 1.26×: 38.9; 1.42×: 40.1–40.2; 1.62×: 41.0–41.2; and
/// shefta-shifa (4256×3219) at 2048 px, 1.04×: 32.1–39.8 dB for its eight rendering recipes.
/// Decoded in full, brendon-van-zyl's recipes give 46.8–57.0 dB (from 37.1–45.0), shefta-shifa's
/// 35.0–45.1 (the rest is its clarity and blurs on fine texture, not the decode); photo24 keeps 1/2
/// at 42.9–51.3 dB, and the display path its speed. Below the 2× rule, 1/4 instead of 1/2 costs
/// 4–6 dB: on corpus/photos/exif-samples_42 (4032×3024) at 1000 px, 33.0–39.6 dB at 1/4,
/// 37.0–48.2 dB at 1/2.
///
/// ```swift
/// ReducedDecode.denominator(width: 6000, height: 4000, target: (2048, 1365), supported: [1, 2, 4, 8])  // 2
/// ReducedDecode.denominator(width: 4032, height: 3024, target: (1000, 750), supported: [1, 2, 4, 8])   // 2, not 4
/// ReducedDecode.denominator(width: 3051, height: 4529, target: (1380, 2048), supported: [1, 2, 4, 8])  // 1: 2265 is 1.11×
/// ```
public enum ReducedDecode {
    public static func denominator(width: Int, height: Int, target: (width: Int, height: Int), supported: [Int]) -> Int {
        func fits(_ d: Int, _ times: Double) -> Bool {
            Double((width + d - 1) / d) >= times * Double(target.width) && Double((height + d - 1) / d) >= times * Double(target.height)
        }
        let oversampled = supported.sorted(by: >).first { fits($0, 2) } ?? 1
        return oversampled == 1 && supported.contains(2) && fits(2, halfMargin) ? 2 : oversampled
    }

    /// How much larger than the target a 1/2 decode must be to be taken below the 2× rule.
    static let halfMargin = 1.4
}
