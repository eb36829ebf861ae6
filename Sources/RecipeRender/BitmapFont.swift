/// A built-in 5×8 bitmap font for labels on images (the contact sheet's captions). It is written
/// by hand because no Debian library gives us text rendering without pulling in a font stack
/// (FreeType, fontconfig and a font file to ship and find); a few labels on a thumbnail strip do
/// not need hinting, kerning or Unicode.
///
/// It covers printable ASCII 0x20–0x7E. Every character takes a cell of `advance`×`lineHeight`
/// (6×9) pixels at scale 1: the 5×8 glyph, one blank column on its right, one blank row below.
/// Capitals and digits use rows 0–6; rows 6–7 hold the descenders of g, j, p, q, y, the comma
/// and the underscore. Any other character draws as a box, so a missing glyph is seen rather
/// than silently dropped. Monospaced, so widths are arithmetic.
///
/// ```swift
/// var image = RGBImage(width: 120, height: 20, filledWith: .gray(238))
/// let label = BitmapFont.truncated("exposure 0.3", maxWidth: 100, scale: 1)
/// let x = (image.width - BitmapFont.textWidth(label, scale: 1)) / 2
/// BitmapFont.draw(label, into: &image, x: x, y: 4, scale: 1, color: .gray(32))
/// ```
public enum BitmapFont {
    /// Inked columns of a glyph at scale 1.
    public static let glyphWidth = 5
    /// Inked rows of a glyph at scale 1 (7 above the baseline, 1 of descender).
    public static let glyphHeight = 8
    /// Horizontal distance from one character to the next at scale 1.
    public static let advance = 6
    /// Height of one line of text at scale 1.
    public static let lineHeight = 9
    /// Largest scale `draw` accepts: far beyond any label, small enough that no position
    /// arithmetic can overflow.
    public static let maxScale = 4096

    /// Drawn for characters outside 0x20–0x7E: a hollow box the size of a capital.
    public static let placeholder: UInt64 = 0x1F_11_11_11_11_11_1F_00

    /// One `UInt64` per character from 0x20 (space) to 0x7E (`~`). Byte 7 (the most
    /// significant) is row 0, the top; byte 0 is row 7. In each byte bit 4 is the leftmost
    /// column and bit 0 the rightmost, so a row reads as its 5-bit binary number:
    /// `0x0E` = `.###.`, `0x11` = `#...#`. "I" is `0x0E_04_04_04_04_04_0E_00`.
    static let glyphs: [UInt64] = [
        0x00_00_00_00_00_00_00_00, 0x04_04_04_04_04_00_04_00, 0x0A_0A_0A_00_00_00_00_00, 0x0A_0A_1F_0A_1F_0A_0A_00,  // space ! " #
        0x04_0F_14_0E_05_1E_04_00, 0x18_19_02_04_08_13_03_00, 0x0C_12_14_08_15_12_0D_00, 0x04_04_08_00_00_00_00_00,  // $ % & '
        0x02_04_08_08_08_04_02_00, 0x08_04_02_02_02_04_08_00, 0x00_04_15_0E_15_04_00_00, 0x00_04_04_1F_04_04_00_00,  // ( ) * +
        0x00_00_00_00_00_0C_04_08, 0x00_00_00_1F_00_00_00_00, 0x00_00_00_00_00_0C_0C_00, 0x00_01_02_04_08_10_00_00,  // , - . /
        0x0E_11_13_15_19_11_0E_00, 0x04_0C_04_04_04_04_0E_00, 0x0E_11_01_02_04_08_1F_00, 0x1F_02_04_02_01_11_0E_00,  // 0 1 2 3
        0x02_06_0A_12_1F_02_02_00, 0x1F_10_1E_01_01_11_0E_00, 0x06_08_10_1E_11_11_0E_00, 0x1F_01_02_04_08_08_08_00,  // 4 5 6 7
        0x0E_11_11_0E_11_11_0E_00, 0x0E_11_11_0F_01_02_0C_00, 0x00_0C_0C_00_0C_0C_00_00, 0x00_0C_0C_00_0C_04_08_00,  // 8 9 : ;
        0x02_04_08_10_08_04_02_00, 0x00_00_1F_00_1F_00_00_00, 0x08_04_02_01_02_04_08_00, 0x0E_11_01_02_04_00_04_00,  // < = > ?
        0x0E_11_01_0D_15_15_0E_00, 0x0E_11_11_1F_11_11_11_00, 0x1E_11_11_1E_11_11_1E_00, 0x0E_11_10_10_10_11_0E_00,  // @ A B C
        0x1C_12_11_11_11_12_1C_00, 0x1F_10_10_1E_10_10_1F_00, 0x1F_10_10_1E_10_10_10_00, 0x0E_11_10_17_11_11_0F_00,  // D E F G
        0x11_11_11_1F_11_11_11_00, 0x0E_04_04_04_04_04_0E_00, 0x07_02_02_02_02_12_0C_00, 0x11_12_14_18_14_12_11_00,  // H I J K
        0x10_10_10_10_10_10_1F_00, 0x11_1B_15_15_11_11_11_00, 0x11_11_19_15_13_11_11_00, 0x0E_11_11_11_11_11_0E_00,  // L M N O
        0x1E_11_11_1E_10_10_10_00, 0x0E_11_11_11_15_12_0D_00, 0x1E_11_11_1E_14_12_11_00, 0x0F_10_10_0E_01_01_1E_00,  // P Q R S
        0x1F_04_04_04_04_04_04_00, 0x11_11_11_11_11_11_0E_00, 0x11_11_11_11_11_0A_04_00, 0x11_11_11_15_15_15_0A_00,  // T U V W
        0x11_11_0A_04_0A_11_11_00, 0x11_11_0A_04_04_04_04_00, 0x1F_01_02_04_08_10_1F_00, 0x0E_08_08_08_08_08_0E_00,  // X Y Z [
        0x00_10_08_04_02_01_00_00, 0x0E_02_02_02_02_02_0E_00, 0x04_0A_11_00_00_00_00_00, 0x00_00_00_00_00_00_00_1F,  // \ ] ^ _
        0x08_04_02_00_00_00_00_00, 0x00_00_0E_01_0F_11_0F_00, 0x10_10_16_19_11_11_1E_00, 0x00_00_0E_10_10_11_0E_00,  // ` a b c
        0x01_01_0D_13_11_11_0F_00, 0x00_00_0E_11_1F_10_0E_00, 0x06_09_08_1C_08_08_08_00, 0x00_00_0F_11_11_0F_01_0E,  // d e f g
        0x10_10_16_19_11_11_11_00, 0x04_00_0C_04_04_04_0E_00, 0x02_00_06_02_02_02_12_0C, 0x10_10_12_14_18_14_12_00,  // h i j k
        0x0C_04_04_04_04_04_0E_00, 0x00_00_1A_15_15_11_11_00, 0x00_00_16_19_11_11_11_00, 0x00_00_0E_11_11_11_0E_00,  // l m n o
        0x00_00_1E_11_11_1E_10_10, 0x00_00_0F_11_11_0F_01_01, 0x00_00_16_19_10_10_10_00, 0x00_00_0F_10_0E_01_1E_00,  // p q r s
        0x08_08_1C_08_08_09_06_00, 0x00_00_11_11_11_13_0D_00, 0x00_00_11_11_11_0A_04_00, 0x00_00_11_11_15_15_0A_00,  // t u v w
        0x00_00_11_0A_04_0A_11_00, 0x00_00_11_11_11_0F_01_0E, 0x00_00_1F_02_04_08_1F_00, 0x02_04_04_08_04_04_02_00,  // x y z {
        0x04_04_04_04_04_04_04_00, 0x08_04_04_02_04_04_08_00, 0x00_00_08_15_02_00_00_00,  // | } ~
    ]

    /// The glyph bits of `character` (see `glyphs` for the layout), or `placeholder` if the font
    /// has none. A character is covered only when it is a single ASCII scalar, so "\r\n" (one
    /// `Character`) is a box, not a newline.
    public static func glyph(for character: Character) -> UInt64 {
        let scalars = character.unicodeScalars
        guard scalars.count == 1, let value = scalars.first?.value, value >= 0x20, value <= 0x7E else { return placeholder }
        return glyphs[Int(value) - 0x20]
    }

    /// Width in pixels of `text` drawn at `scale`: one `advance` per character, less the blank
    /// column after the last one, so centring by this width centres the ink. Empty text is 0 wide.
    public static func textWidth(_ text: String, scale: Int) -> Int {
        precondition(scale >= 1 && scale <= maxScale, "text scale \(scale) is outside 1...\(maxScale)")
        let count = text.count
        return count == 0 ? 0 : (count * advance - 1) * scale
    }

    /// The most characters whose `textWidth` at `scale` is at most `maxWidth`.
    public static func characterCapacity(maxWidth: Int, scale: Int) -> Int {
        precondition(scale >= 1 && scale <= maxScale, "text scale \(scale) is outside 1...\(maxScale)")
        // n characters are (6n − 1)·scale wide, so n ≤ (maxWidth + scale) / (6·scale).
        guard maxWidth > 0 else { return 0 }
        return (maxWidth / scale + 1) / advance
    }

    /// `text` if it fits in `maxWidth` pixels at `scale`; otherwise its longest prefix, trailing
    /// spaces dropped, followed by "...", that fits. Where not even "..." fits, as many dots as
    /// do (possibly none). The result's `textWidth` is never above `maxWidth`.
    ///
    /// ```swift
    /// BitmapFont.truncated("white-balance", maxWidth: 47, scale: 1)   // "white..." (47 px)
    /// ```
    public static func truncated(_ text: String, maxWidth: Int, scale: Int) -> String {
        let capacity = characterCapacity(maxWidth: maxWidth, scale: scale)
        guard text.count > capacity else { return text }
        guard capacity > 3 else { return String(repeating: ".", count: capacity) }
        var head = text.prefix(capacity - 3)
        while head.last?.isWhitespace == true { head.removeLast() }
        return String(head) + "..."
    }

    /// Draws `text` on one line with the top-left corner of its first cell at (x, y), each font
    /// pixel a `scale`×`scale` square of `color`. Only ink is drawn (the background shows
    /// through). Pixels falling outside `image` are skipped, so any position, negative or past
    /// the edges, is safe.
    public static func draw(_ text: String, into image: inout RGBImage, x: Int, y: Int, scale: Int, color: RGBImage.Color) {
        precondition(scale >= 1 && scale <= maxScale, "text scale \(scale) is outside 1...\(maxScale)")
        // Beyond these the text cannot touch the image; checking first keeps the pen arithmetic
        // below far from overflow for any position.
        let cellWidth = advance * scale
        guard y < image.height, y > -lineHeight * scale, x < image.width else { return }
        // Characters wholly left of the image are skipped without drawing; the first one drawn
        // starts at x mod cellWidth (in −cellWidth+1...0). Division and remainder cannot
        // overflow for any x, Int.min included.
        let firstVisible = x < 0 ? -(x / cellWidth) : 0
        var index = 0
        var penX = x < 0 ? x % cellWidth : x
        for character in text {
            defer { index += 1 }
            guard index >= firstVisible else { continue }
            guard penX < image.width else { break }
            drawGlyph(glyph(for: character), into: &image, x: penX, y: y, scale: scale, color: color)
            penX += cellWidth
        }
    }

    /// Draws one glyph's set bits as `scale`-sized squares, clipped by `RGBImage.fill`.
    private static func drawGlyph(_ bits: UInt64, into image: inout RGBImage, x: Int, y: Int, scale: Int, color: RGBImage.Color) {
        for row in 0..<glyphHeight {
            let byte = UInt8(truncatingIfNeeded: bits >> UInt64(8 * (glyphHeight - 1 - row)))
            guard byte != 0 else { continue }
            for column in 0..<glyphWidth where byte & (0x10 >> column) != 0 {
                image.fill(x: x + column * scale, y: y + row * scale, width: scale, height: scale, color: color)
            }
        }
    }
}
