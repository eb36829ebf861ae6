/// Lays out labelled thumbnails on one image, the "history sheet" of `recipe history PHOTO
/// --sheet OUT.png`: the original, then the picture after each frozen base layer and each edit
/// stage, so a person sees what each layer does.
///
/// ```swift
/// let sheet = ContactSheet(boxWidth: 256, boxHeight: 256, margin: 16)   // one row
/// let png = try sheet.render([
///     (label: "original", sublabel: nil, image: original),
///     (label: "base 1", sublabel: "white-balance", image: afterBase),
///     (label: "stage 2", sublabel: "exposure 0.3", image: afterExposure),
/// ])
/// ```
///
/// Geometry (all in pixels; `columns` defaults to the tile count, one row):
///
/// ```
/// cell width  = boxWidth + 2·borderWidth
/// cell height = boxHeight + 2·borderWidth + labelGap + lineHeight·labelScale + lineHeight·sublabelScale
/// sheet       = margin + columns·(cell width + margin)  ×  margin + rows·(cell height + margin)
/// ```
///
/// Tiles fill the cells left to right, then top to bottom. Each image is centred in its box and
/// framed by a `borderWidth` line just outside it; the label and the optional sublabel are centred
/// under the box, cut with "..." when wider than the cell. Every cell keeps room for a sublabel,
/// so the size depends on the tile count only. Images are not resampled: the caller passes
/// thumbnails that fit the box, and a larger one is centre-cropped to it. The bytes depend on
/// the input only.
public struct ContactSheet: Sendable {
    /// One thumbnail: a label ("base 2"), an optional second line ("exposure 0.3") and the image.
    public typealias Tile = (label: String, sublabel: String?, image: RGBImage)

    /// Largest length setting (box side, margin, border, gap) `render` accepts.
    public static let maxLength = 1 << 16
    /// Largest text scale `render` accepts.
    public static let maxTextScale = 256
    /// Largest sheet `render` makes, in pixels (768 MiB of RGB): past it, a typo in a setting,
    /// not a history, is the likelier cause.
    public static let maxPixels = 1 << 28

    /// Size of the area each image is centred in.
    public var boxWidth: Int
    public var boxHeight: Int
    /// Space around the sheet's edge and between cells.
    public var margin: Int
    /// Cells per row; nil puts every tile in one row.
    public var columns: Int?
    /// Width of the frame around each image (0 for none).
    public var borderWidth = 1
    /// Space between the bottom of the box's frame and the label.
    public var labelGap = 6
    /// Scale of the first caption line (`BitmapFont` at 2 is 12 px per character).
    public var labelScale = 2
    /// Scale of the second caption line.
    public var sublabelScale = 1
    public var background: RGBImage.Color = .gray(0xEE)
    public var borderColor: RGBImage.Color = .gray(0x80)
    public var labelColor: RGBImage.Color = .gray(0x20)
    public var sublabelColor: RGBImage.Color = .gray(0x60)

    public init(boxWidth: Int = 256, boxHeight: Int = 256, margin: Int = 16, columns: Int? = nil) {
        self.boxWidth = boxWidth
        self.boxHeight = boxHeight
        self.margin = margin
        self.columns = columns
    }

    /// The grid and the sheet's size for `tileCount` tiles, after checking the settings.
    ///
    /// - Throws: `ContactSheetError.noTiles` for 0 tiles, `.invalidLayout` for a setting out of
    ///   range or a sheet above `maxPixels`.
    public func size(tileCount: Int) throws(ContactSheetError) -> (columns: Int, rows: Int, width: Int, height: Int) {
        guard tileCount > 0 else { throw .noTiles }
        for (name, value, least) in [("box width", boxWidth, 1), ("box height", boxHeight, 1), ("margin", margin, 0),
                                     ("border width", borderWidth, 0), ("label gap", labelGap, 0)] {
            guard value >= least && value <= Self.maxLength else {
                throw .invalidLayout("\(name) \(value) is outside \(least)...\(Self.maxLength)")
            }
        }
        for (name, value) in [("label scale", labelScale), ("sublabel scale", sublabelScale)] {
            guard value >= 1 && value <= Self.maxTextScale else {
                throw .invalidLayout("\(name) \(value) is outside 1...\(Self.maxTextScale)")
            }
        }
        if let columns, columns < 1 { throw .invalidLayout("columns must be at least 1, not \(columns)") }
        let columns = min(columns ?? tileCount, tileCount)
        let rows = (tileCount - 1) / columns + 1
        // With every setting bounded above, only the products with the counts can overflow.
        let (across, overflowX) = columns.multipliedReportingOverflow(by: cellWidth + margin)
        let (down, overflowY) = rows.multipliedReportingOverflow(by: cellHeight + margin)
        let tooLarge = ContactSheetError.invalidLayout("\(tileCount) tiles make a sheet above \(Self.maxPixels) pixels")
        guard !overflowX, !overflowY, across < Self.maxPixels, down < Self.maxPixels else { throw tooLarge }
        let (width, height) = (margin + across, margin + down)
        guard width * height <= Self.maxPixels else { throw tooLarge }
        return (columns, rows, width, height)
    }

    /// Composes the sheet.
    ///
    /// - Throws: `ContactSheetError.noTiles` for an empty list (no empty image is made: a sheet
    ///   of nothing is better reported than written), `.invalidLayout` as `size(tileCount:)`.
    public func render(_ tiles: [Tile]) throws(ContactSheetError) -> RGBImage {
        let grid = try size(tileCount: tiles.count)
        var sheet = RGBImage(width: grid.width, height: grid.height, filledWith: background)
        for (index, tile) in tiles.enumerated() {
            let cellX = margin + (index % grid.columns) * (cellWidth + margin)
            let cellY = margin + (index / grid.columns) * (cellHeight + margin)
            place(tile.image, into: &sheet, boxX: cellX + borderWidth, boxY: cellY + borderWidth)
            let labelY = cellY + 2 * borderWidth + boxHeight + labelGap
            caption(tile.label, into: &sheet, cellX: cellX, y: labelY, scale: labelScale, color: labelColor)
            if let sublabel = tile.sublabel {
                let sublabelY = labelY + BitmapFont.lineHeight * labelScale
                caption(sublabel, into: &sheet, cellX: cellX, y: sublabelY, scale: sublabelScale, color: sublabelColor)
            }
        }
        return sheet
    }

    var cellWidth: Int { boxWidth + 2 * borderWidth }
    var cellHeight: Int {
        boxHeight + 2 * borderWidth + labelGap + BitmapFont.lineHeight * (labelScale + sublabelScale)
    }

    /// Copies `image` centred into the box whose top-left is (boxX, boxY), cropping its centre
    /// when it is larger than the box, and frames it.
    private func place(_ image: RGBImage, into sheet: inout RGBImage, boxX: Int, boxY: Int) {
        let shownWidth = min(image.width, boxWidth), shownHeight = min(image.height, boxHeight)
        let x = boxX + (boxWidth - shownWidth) / 2
        let y = boxY + (boxHeight - shownHeight) / 2
        // The frame is painted whole and the image over it: one rectangle instead of four.
        if borderWidth > 0 {
            sheet.fill(x: x - borderWidth, y: y - borderWidth, width: shownWidth + 2 * borderWidth,
                       height: shownHeight + 2 * borderWidth, color: borderColor)
        }
        sheet.copy(from: image, sourceX: (image.width - shownWidth) / 2, sourceY: (image.height - shownHeight) / 2,
                   width: shownWidth, height: shownHeight, x: x, y: y)
    }

    /// Draws one caption line centred on the cell, cut to the cell's width.
    private func caption(_ text: String, into sheet: inout RGBImage, cellX: Int, y: Int, scale: Int, color: RGBImage.Color) {
        let shown = BitmapFont.truncated(text, maxWidth: cellWidth, scale: scale)
        let x = cellX + (cellWidth - BitmapFont.textWidth(shown, scale: scale)) / 2
        BitmapFont.draw(shown, into: &sheet, x: x, y: y, scale: scale, color: color)
    }
}
