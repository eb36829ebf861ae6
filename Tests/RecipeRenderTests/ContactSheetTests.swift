import RecipeRender
import Testing

/// Deterministic noise bytes (SplitMix64), so a misplaced or shifted tile cannot match by chance.
private func noiseImage(width: Int, height: Int, seed: UInt64) -> RGBImage {
    var state = seed
    var bytes = [UInt8](repeating: 0, count: 3 * width * height)
    for i in bytes.indices {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        bytes[i] = UInt8(truncatingIfNeeded: (z ^ (z >> 31)) >> 56)
    }
    return RGBImage(width: width, height: height, pixels: bytes)
}

/// The image as rows of "#" (pixel == ink) and "." (anything else).
private func inkRows(_ image: RGBImage, ink: RGBImage.Color) -> [String] {
    (0..<image.height).map { y in
        String((0..<image.width).map { x in image.pixel(x: x, y: y) == ink ? "#" : "." })
    }
}

/// The `width`×`height` rectangle of `image` at (x, y), as a new image.
private func crop(_ image: RGBImage, x: Int, y: Int, width: Int, height: Int) -> RGBImage {
    var out = RGBImage(width: width, height: height, filledWith: .gray(0))
    out.copy(from: image, sourceX: x, sourceY: y, width: width, height: height, x: 0, y: 0)
    return out
}

/// Pixels where two images of one size differ (a count fails readably; `==` on images would
/// print every byte of both).
private func differingPixels(_ a: RGBImage, _ b: RGBImage) -> Int {
    precondition(a.width == b.width && a.height == b.height, "sizes differ")
    var count = 0
    for y in 0..<a.height {
        for x in 0..<a.width where a.pixel(x: x, y: y) != b.pixel(x: x, y: y) { count += 1 }
    }
    return count
}

private let white = RGBImage.Color.gray(255)
private let black = RGBImage.Color.gray(0)

/// `text` drawn at scale 1 on a black cell-sized canvas, as ink rows.
private func glyphRows(_ text: String) -> [String] {
    var image = RGBImage(width: BitmapFont.advance * text.count, height: BitmapFont.lineHeight, filledWith: black)
    BitmapFont.draw(text, into: &image, x: 0, y: 0, scale: 1, color: white)
    return inkRows(image, ink: white)
}

@Suite("ContactSheet bitmap font")
struct ContactSheetFontTests {
    @Test("glyphs draw exactly their bits, in a 6×9 cell with a blank column and row")
    func glyphBits() {
        let one: [String] = [
            "..#...",
            ".##...",
            "..#...",
            "..#...",
            "..#...",
            "..#...",
            ".###..",
            "......",
            "......",
        ]
        let capitalI: [String] = [
            ".###..",
            "..#...",
            "..#...",
            "..#...",
            "..#...",
            "..#...",
            ".###..",
            "......",
            "......",
        ]
        // A descender: rows 6 and 7 below the x-height.
        let g: [String] = [
            "......",
            "......",
            ".####.",
            "#...#.",
            "#...#.",
            ".####.",
            "....#.",
            ".###..",
            "......",
        ]
        let box: [String] = [
            "#####.",
            "#...#.",
            "#...#.",
            "#...#.",
            "#...#.",
            "#...#.",
            "#####.",
            "......",
            "......",
        ]
        let space = [String](repeating: "......", count: 9)
        #expect(glyphRows("1") == one)
        #expect(glyphRows("I") == capitalI)
        #expect(glyphRows("g") == g)
        #expect(glyphRows(" ") == space)
        // Outside 0x20–0x7E: the placeholder box, one per Character.
        #expect(glyphRows("é") == box)
        #expect(glyphRows("\u{2192}") == box)
        #expect(glyphRows("\t") == box)
        let e = "e\u{301}"  // e + combining acute: one Character, two scalars
        #expect(glyphRows(e) == box)
        let iBits: UInt64 = 0x0E_04_04_04_04_04_0E_00
        #expect(BitmapFont.glyph(for: "I") == iBits)
    }

    @Test("every printable ASCII character has its own glyph, and only space is blank")
    func coverage() {
        var seen: Set<UInt64> = []
        for value in UInt8(0x20)...UInt8(0x7E) {
            let bits = BitmapFont.glyph(for: Character(Unicode.Scalar(value)))
            let isSpace = value == 0x20
            #expect((bits == 0) == isSpace, "glyph \(value)")
            #expect(bits != BitmapFont.placeholder, "glyph \(value) is the placeholder")
            // Only the 5 glyph columns are used (bits 5–7 of each row byte are clear).
            let outsideColumns = bits & 0xE0E0_E0E0_E0E0_E0E0
            #expect(outsideColumns == 0, "glyph \(value)")
            seen.insert(bits)
        }
        #expect(seen.count == 95)
    }

    @Test("scale 2 is the scale-1 drawing with every pixel doubled")
    func scaleTwo() {
        let text = "Ag,1%[j]_q"
        let width = BitmapFont.advance * text.count + 2, height = BitmapFont.lineHeight + 2
        var small = RGBImage(width: width, height: height, filledWith: black)
        BitmapFont.draw(text, into: &small, x: 1, y: 1, scale: 1, color: white)
        var large = RGBImage(width: 2 * width, height: 2 * height, filledWith: black)
        BitmapFont.draw(text, into: &large, x: 2, y: 2, scale: 2, color: white)
        var mismatches = 0
        for y in 0..<large.height {
            for x in 0..<large.width {
                let expected: RGBImage.Color = small.pixel(x: x / 2, y: y / 2)
                let actual: RGBImage.Color = large.pixel(x: x, y: y)
                if expected != actual { mismatches += 1 }
            }
        }
        let inked = inkRows(small, ink: white).joined().filter { $0 == "#" }.count
        #expect(inked > 50)
        #expect(mismatches == 0)
    }

    @Test("textWidth is the ink's extent: no blank column after the last character")
    func textWidth() {
        #expect(BitmapFont.textWidth("", scale: 1) == 0)
        #expect(BitmapFont.textWidth("abc", scale: 1) == 17)
        #expect(BitmapFont.textWidth("abc", scale: 3) == 51)
        // "M" inks its last column, so the rightmost ink sits at x + textWidth − 1.
        for scale in 1...3 {
            let text = "AM"
            let width: Int = BitmapFont.textWidth(text, scale: scale)
            var image = RGBImage(width: width + 10, height: BitmapFont.lineHeight * scale, filledWith: black)
            BitmapFont.draw(text, into: &image, x: 4, y: 0, scale: scale, color: white)
            let rows = inkRows(image, ink: white)
            let lastInk: Int = rows.map { row in Array(row).lastIndex(of: "#") ?? -1 }.max() ?? -1
            let firstInk: Int = rows.map { row in Array(row).firstIndex(of: "#") ?? Int.max }.min() ?? -1
            #expect(firstInk == 4, "scale \(scale)")
            #expect(lastInk == 4 + width - 1, "scale \(scale)")
        }
    }

    @Test("drawing at any position writes only inside the image, and the visible part is the unclipped drawing's")
    func clipping() {
        let text = "Clip me: 0123 gjpqy"
        let textWidth = BitmapFont.textWidth(text, scale: 2)
        let textHeight = BitmapFont.lineHeight * 2
        // Reference: the whole text on a canvas with room around it, origin at (pad, pad).
        let pad = 200
        var reference = RGBImage(width: textWidth + 2 * pad, height: textHeight + 2 * pad, filledWith: black)
        BitmapFont.draw(text, into: &reference, x: pad, y: pad, scale: 2, color: white)
        let (w, h) = (37, 11)
        let positions: [(Int, Int)] = [(-7, -5), (-13, 3), (-textWidth + 3, 0), (w - 5, h - 4), (30, -17), (0, h - 1),
                                       (-textWidth - 1, 0), (w, 0), (0, h), (0, -textHeight)]
        for (x, y) in positions {
            var image = RGBImage(width: w, height: h, filledWith: black)
            BitmapFont.draw(text, into: &image, x: x, y: y, scale: 2, color: white)
            // The image's window onto the reference: pixel (i, j) is reference (pad − x + i, pad − y + j).
            let expected = crop(reference, x: pad - x, y: pad - y, width: w, height: h)
            let differing = differingPixels(image, expected)
            #expect(differing == 0, "at (\(x), \(y))")
        }
        // Far-out positions must neither trap on arithmetic nor draw.
        let blank = RGBImage(width: w, height: h, filledWith: black)
        let extremes: [(Int, Int)] = [(Int.min, 0), (0, Int.min), (Int.max, 0), (0, Int.max), (Int.min, Int.min), (Int.max, Int.max)]
        for (x, y) in extremes {
            var image = blank
            BitmapFont.draw(text, into: &image, x: x, y: y, scale: 3, color: white)
            let differing = differingPixels(image, blank)
            #expect(differing == 0, "at (\(x), \(y))")
        }
        // A very negative x with a long text: the characters that reach the image still draw.
        var long = RGBImage(width: w, height: h, filledWith: black)
        let manyCharacters = String(repeating: "#", count: 1000)
        BitmapFont.draw(manyCharacters, into: &long, x: -5990, y: 0, scale: 1, color: white)
        // Character 998 starts at x = −2 (its column 3 lands on 1), character 999 at 4: row 1 of
        // "#" is ".#.#.".
        let rowOne = inkRows(long, ink: white)[1]
        let expectedRowOne = ".#...#.#" + String(repeating: ".", count: w - 8)
        #expect(rowOne == expectedRowOne)
    }

    @Test("truncation with ... fits the width and keeps as much as fits")
    func truncation() {
        #expect(BitmapFont.truncated("white-balance", maxWidth: 47, scale: 1) == "white...")
        #expect(BitmapFont.truncated("white-balance", maxWidth: 77, scale: 1) == "white-balance")
        // Trailing spaces before the dots go.
        #expect(BitmapFont.truncated("base layer 2", maxWidth: 47, scale: 1) == "base...")
        #expect(BitmapFont.truncated("white-balance", maxWidth: 11, scale: 1) == "..")
        #expect(BitmapFont.truncated("white-balance", maxWidth: 10, scale: 1) == ".")
        #expect(BitmapFont.truncated("white-balance", maxWidth: 0, scale: 1) == "")
        let text = "exposure 0.3 then a very long explanation"
        for scale in 1...3 {
            let full = BitmapFont.textWidth(text, scale: scale)
            for maxWidth in 0...(full + 4) {
                let cut = BitmapFont.truncated(text, maxWidth: maxWidth, scale: scale)
                let width = BitmapFont.textWidth(cut, scale: scale)
                #expect(width <= maxWidth, "\(maxWidth) at \(scale)")
                if full <= maxWidth {
                    #expect(cut == text)
                    continue
                }
                // Cut: as many characters as fit (counted here by trying), the last three dots,
                // and spaces before the dots dropped.
                var capacity = 0
                while (BitmapFont.advance * (capacity + 1) - 1) * scale <= maxWidth { capacity += 1 }
                var expected = String(repeating: ".", count: capacity)
                if capacity > 3 {
                    var head = String(text.prefix(capacity - 3))
                    while head.hasSuffix(" ") { head.removeLast() }
                    expected = head + "..."
                }
                #expect(cut == expected, "\(maxWidth) at \(scale)")
            }
        }
    }
}

@Suite("ContactSheet")
struct ContactSheetTests {
    @Test("the sheet's size is the documented formula")
    func size() throws {
        for columns in [nil, 1, 4, 5] as [Int?] {
            for count in 1...13 {
                var sheet = ContactSheet(boxWidth: 40, boxHeight: 30, margin: 7, columns: columns)
                sheet.borderWidth = 2
                sheet.labelGap = 5
                sheet.labelScale = 2
                sheet.sublabelScale = 1
                let tiles = (0..<count).map { (label: "t\($0)", sublabel: nil as String?, image: noiseImage(width: 10, height: 10, seed: 1)) }
                let image = try sheet.render(tiles)
                let gridColumns = min(columns ?? count, count)
                let gridRows = (count + gridColumns - 1) / gridColumns
                let cellWidth = 40 + 2 * 2
                let cellHeight = 30 + 2 * 2 + 5 + 9 * 2 + 9 * 1
                let expectedWidth = 7 + gridColumns * (cellWidth + 7)
                let expectedHeight = 7 + gridRows * (cellHeight + 7)
                #expect(image.width == expectedWidth, "\(count) tiles, columns \(String(describing: columns))")
                #expect(image.height == expectedHeight, "\(count) tiles, columns \(String(describing: columns))")
                let size = try sheet.size(tileCount: count)
                #expect(size.width == expectedWidth && size.height == expectedHeight)
            }
        }
        // The defaults: 256 box, margin 16, border 1, gap 6, scales 2 and 1; 12 tiles in one row.
        let tiles = (0..<12).map { (label: "stage \($0)", sublabel: "exposure 0.3" as String?, image: noiseImage(width: 256, height: 171, seed: UInt64($0))) }
        let image = try ContactSheet().render(tiles)
        #expect(image.width == 16 + 12 * (258 + 16))
        #expect(image.height == 16 + (258 + 6 + 18 + 9) + 16)
    }

    @Test("each tile's pixels sit unchanged, centred in its box, framed by the border colour")
    func tilePlacement() throws {
        let box = (w: 40, h: 30), margin = 9, border = 2
        var sheet = ContactSheet(boxWidth: box.w, boxHeight: box.h, margin: margin, columns: 3)
        sheet.borderWidth = border
        // Odd and even slack, full-box, one pixel, and larger than the box (centre-cropped).
        let sizes: [(Int, Int)] = [(40, 30), (17, 30), (40, 13), (1, 1), (24, 21), (55, 44), (41, 30)]
        let images = sizes.enumerated().map { noiseImage(width: $1.0, height: $1.1, seed: UInt64(100 + $0)) }
        let tiles = images.enumerated().map { (label: "L\($0)", sublabel: "s" as String?, image: $1) }
        let rendered = try sheet.render(tiles)
        let cellWidth = box.w + 2 * border
        let cellHeight = box.h + 2 * border + sheet.labelGap + BitmapFont.lineHeight * 3
        for (index, image) in images.enumerated() {
            let shownWidth = min(image.width, box.w), shownHeight = min(image.height, box.h)
            let cellX = margin + (index % 3) * (cellWidth + margin)
            let cellY = margin + (index / 3) * (cellHeight + margin)
            let x = cellX + border + (box.w - shownWidth) / 2
            let y = cellY + border + (box.h - shownHeight) / 2
            let shown = crop(rendered, x: x, y: y, width: shownWidth, height: shownHeight)
            let expected = crop(image, x: (image.width - shownWidth) / 2, y: (image.height - shownHeight) / 2,
                                width: shownWidth, height: shownHeight)
            let differing = differingPixels(shown, expected)
            #expect(differing == 0, "tile \(index)")
            // The frame: every pixel within `border` outside the image, and background beyond
            // it where the box leaves room.
            var frameErrors = 0, outsideErrors = 0
            for j in (y - border - 1)...(y + shownHeight + border) {
                for i in (x - border - 1)...(x + shownWidth + border) {
                    let insideImage = i >= x && i < x + shownWidth && j >= y && j < y + shownHeight
                    let insideFrame = i >= x - border && i < x + shownWidth + border && j >= y - border && j < y + shownHeight + border
                    let colour: RGBImage.Color = rendered.pixel(x: i, y: j)
                    if insideFrame && !insideImage && colour != sheet.borderColor { frameErrors += 1 }
                    if !insideFrame && colour != sheet.background { outsideErrors += 1 }
                }
            }
            #expect(frameErrors == 0, "tile \(index)")
            #expect(outsideErrors == 0, "tile \(index)")
        }
        let corner: RGBImage.Color = rendered.pixel(x: 0, y: 0)
        #expect(corner == sheet.background)
        // The empty cells after the last tile stay background.
        let lastRowSpare = crop(rendered, x: margin + 1 * (cellWidth + margin), y: margin + 2 * (cellHeight + margin),
                                width: 2 * cellWidth + margin, height: cellHeight)
        let blank = RGBImage(width: lastRowSpare.width, height: lastRowSpare.height, filledWith: sheet.background)
        let spareDiffering = differingPixels(lastRowSpare, blank)
        #expect(spareDiffering == 0)
        // Same input, same bytes.
        let again = try sheet.render(tiles)
        #expect(again == rendered)
    }

    @Test("labels are centred under the box, the sublabel below, long ones cut to the cell")
    func captions() throws {
        var sheet = ContactSheet(boxWidth: 60, boxHeight: 20, margin: 5)
        sheet.borderWidth = 1
        sheet.labelGap = 3
        let tiles: [ContactSheet.Tile] = [
            (label: "Hi", sublabel: "exposure 0.3", image: noiseImage(width: 60, height: 20, seed: 7)),
            (label: "a label far too long for its cell", sublabel: nil, image: noiseImage(width: 10, height: 10, seed: 8)),
        ]
        let rendered = try sheet.render(tiles)
        let cellWidth = 62
        let labelY = 5 + 22 + 3
        let captionHeight = BitmapFont.lineHeight * 3

        // Expected caption areas: the given (already cut) text drawn on the background at the
        // centred positions.
        func expectedCaption(_ label: String, _ sublabel: String?) -> RGBImage {
            var area = RGBImage(width: cellWidth, height: captionHeight, filledWith: sheet.background)
            let labelX = (cellWidth - BitmapFont.textWidth(label, scale: 2)) / 2
            BitmapFont.draw(label, into: &area, x: labelX, y: 0, scale: 2, color: sheet.labelColor)
            if let sublabel {
                let sublabelX = (cellWidth - BitmapFont.textWidth(sublabel, scale: 1)) / 2
                BitmapFont.draw(sublabel, into: &area, x: sublabelX, y: 2 * BitmapFont.lineHeight, scale: 1, color: sheet.sublabelColor)
            }
            return area
        }
        let first = crop(rendered, x: 5, y: labelY, width: cellWidth, height: captionHeight)
        // "exposure 0.3" is 71 px at scale 1; 10 characters fit in 62 (59 px).
        let cutSublabel = BitmapFont.truncated("exposure 0.3", maxWidth: cellWidth, scale: 1)
        #expect(cutSublabel == "exposur...")
        let firstDiffering = differingPixels(first, expectedCaption("Hi", "exposur..."))
        #expect(firstDiffering == 0)
        // "Hi" is 2 characters at scale 2: 22 px wide, so it starts at (62 − 22) / 2 = 20.
        let hiRows = inkRows(first, ink: sheet.labelColor)
        let firstInk = hiRows.compactMap { row in Array(row).firstIndex(of: "#") }.min()
        #expect(firstInk == 20)

        // At scale 2, 5 characters fit in 62 px (5·12 − 2 = 58): "a " and the dots, the space dropped.
        let cut = BitmapFont.truncated("a label far too long for its cell", maxWidth: cellWidth, scale: 2)
        #expect(cut == "a...")
        let second = crop(rendered, x: 5 + cellWidth + 5, y: labelY, width: cellWidth, height: captionHeight)
        let secondDiffering = differingPixels(second, expectedCaption("a...", nil))
        #expect(secondDiffering == 0)
    }

    @Test("no tiles and bad settings are thrown errors, not traps or empty images")
    func errors() {
        let empty: [ContactSheet.Tile] = []
        #expect(throws: ContactSheetError.noTiles) { try ContactSheet().render(empty) }
        let one: [ContactSheet.Tile] = [(label: "x", sublabel: nil, image: noiseImage(width: 2, height: 2, seed: 3))]
        #expect(throws: ContactSheetError.invalidLayout("columns must be at least 1, not 0")) {
            try ContactSheet(columns: 0).render(one)
        }
        #expect(throws: ContactSheetError.self) { try ContactSheet(boxWidth: 0).render(one) }
        #expect(throws: ContactSheetError.self) { try ContactSheet(margin: -1).render(one) }
        var badScale = ContactSheet()
        badScale.labelScale = 0
        #expect(throws: ContactSheetError.self) { try badScale.render(one) }
        #expect(throws: ContactSheetError.self) { try ContactSheet().size(tileCount: Int.max) }
        let message = ContactSheetError.noTiles.description
        #expect(message == "no tiles to lay out")
    }
}
