/// The largest image a render reads or makes by default (`--max-pixels`): 2^28 pixels, about
/// 268 MP, a 16384×16384 image, beyond any camera sold today. The decoders refuse a photo
/// declaring more, a render refuses a plan whose geometry makes more, and `recipe check` warns of
/// a stage that always would (R303).
public enum PixelLimits {
    public static let defaultMaxPixels = 1 << 28
}
