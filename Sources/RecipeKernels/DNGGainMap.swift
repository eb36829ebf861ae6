import RecipeCore

/// A DNG `GainMap` (opcode 9; Adobe DNG Specification 1.4, chapter 7 "Opcode List Processing"):
/// a grid of gains over the image that the samples of one area are multiplied by, interpolated
/// bilinearly between grid points. A phone's DNG carries its lens shading this way in
/// `OpcodeList2`, which applies to the raw mosaic before the demosaic: usually four maps, one per
/// Bayer position (Top/Left 0 or 1, RowPitch = ColPitch = 2).
///
/// ```swift
/// let map = DNGGainMap(top: 0, left: 1, bottom: 3000, right: 4000, plane: 0, planes: 1, rowPitch: 2, colPitch: 2,
///                      pointsV: 13, pointsH: 17, spacingV: 1.0 / 12, spacingH: 1.0 / 16, originV: 0, originH: 0,
///                      mapPlanes: 1, gains: gains)
/// map.gain(row: 0, column: 1, plane: 0, imageWidth: 4000, imageHeight: 3000)   // the corner's gain, 2.4
/// let shaded = DNGGainMap.apply([map], to: mosaic)     // a corrected copy of the mosaic
/// ```
///
/// Positions: the map's origin and spacing are fractions of the image (the raw's ActiveArea):
/// pixel (row, column) sits at ((row + ½)/H, (column + ½)/W), its centre, as in Adobe's DNG SDK.
/// Outside the grid the nearest edge point's gain holds (no extrapolation).
public struct DNGGainMap: Sendable, Hashable {
    /// The area of the image the map applies to, in pixels (bottom and right excluded); an empty
    /// area means the whole image.
    public var top: Int, left: Int, bottom: Int, right: Int
    /// The planes it applies to: `plane` ..< `plane + planes` (a mosaic has one, plane 0).
    public var plane: Int, planes: Int
    /// Every `rowPitch`-th row from `top`, every `colPitch`-th column from `left`.
    public var rowPitch: Int, colPitch: Int
    /// The grid: points down and across, their spacing and the first point's position, as
    /// fractions of the image's height and width.
    public var pointsV: Int, pointsH: Int
    public var spacingV: Double, spacingH: Double
    public var originV: Double, originH: Double
    /// Gains per point (an image plane past the last takes the last).
    public var mapPlanes: Int
    /// pointsV × pointsH × mapPlanes gains: row by row, each point's planes together.
    public var gains: [Float]

    public init(top: Int, left: Int, bottom: Int, right: Int, plane: Int, planes: Int, rowPitch: Int, colPitch: Int,
                pointsV: Int, pointsH: Int, spacingV: Double, spacingH: Double, originV: Double, originH: Double,
                mapPlanes: Int, gains: [Float]) {
        precondition(pointsV >= 1 && pointsH >= 1 && mapPlanes >= 1 && gains.count == pointsV * pointsH * mapPlanes,
                     "a gain map holds pointsV × pointsH × mapPlanes gains")
        precondition(rowPitch >= 1 && colPitch >= 1, "pitches are at least 1")
        (self.top, self.left, self.bottom, self.right) = (top, left, bottom, right)
        (self.plane, self.planes, self.rowPitch, self.colPitch) = (plane, planes, rowPitch, colPitch)
        (self.pointsV, self.pointsH, self.spacingV, self.spacingH) = (pointsV, pointsH, spacingV, spacingH)
        (self.originV, self.originH, self.mapPlanes, self.gains) = (originV, originH, mapPlanes, gains)
    }

    /// Where a pixel lies between two grid points along one axis: the lower point's index and the
    /// fraction towards the next (0 at and beyond either end).
    static func cell(_ pixel: Int, size: Int, origin: Double, spacing: Double, points: Int) -> (index: Int, fraction: Double) {
        // A one-point axis has no spacing to speak of: its single gain holds everywhere.
        guard points > 1 else { return (0, 0) }
        let at = ((Double(pixel) + 0.5) / Double(size) - origin) / spacing
        guard at > 0 else { return (0, 0) }
        guard at < Double(points - 1) else { return (points - 1, 0) }
        let index = Int(at)
        return (index, at - Double(index))
    }

    /// The gain at pixel (row, column) of a `imageWidth` × `imageHeight` image for image plane
    /// `plane`, bilinear between the grid points around it (whether the pixel is in the map's
    /// area is not asked: `area(width:height:)` says).
    public func gain(row: Int, column: Int, plane: Int, imageWidth: Int, imageHeight: Int) -> Double {
        gain(down: Self.cell(row, size: imageHeight, origin: originV, spacing: spacingV, points: pointsV),
             across: Self.cell(column, size: imageWidth, origin: originH, spacing: spacingH, points: pointsH), plane: plane)
    }

    /// The gain between the grid points of cell `down` × `across` (`cell`'s answers), for `plane`.
    func gain(down: (index: Int, fraction: Double), across: (index: Int, fraction: Double), plane: Int) -> Double {
        let (i, fy, j, fx) = (down.index, down.fraction, across.index, across.fraction)
        let p = min(plane, mapPlanes - 1)
        let (i1, j1) = (min(i + 1, pointsV - 1), min(j + 1, pointsH - 1))
        func g(_ i: Int, _ j: Int) -> Double { Double(gains[(i * pointsH + j) * mapPlanes + p]) }
        return (g(i, j) * (1 - fx) + g(i, j1) * fx) * (1 - fy) + (g(i1, j) * (1 - fx) + g(i1, j1) * fx) * fy
    }

    /// The rows and columns of a `width` × `height` image the map changes: its area within the
    /// image, from its first row and column at its pitch (the whole image when the area is empty).
    public func area(width: Int, height: Int) -> (rows: StrideTo<Int>, columns: StrideTo<Int>) {
        guard bottom > top, right > left else { return (stride(from: 0, to: height, by: 1), stride(from: 0, to: width, by: 1)) }
        // The first row at or below 0 on the map's pitch from `top`.
        func first(_ start: Int, _ pitch: Int) -> Int { start >= 0 ? start : start + ((-start + pitch - 1) / pitch) * pitch }
        return (stride(from: first(top, rowPitch), to: min(bottom, height), by: rowPitch),
                stride(from: first(left, colPitch), to: min(right, width), by: colPitch))
    }

    /// Whether the map applies to a mosaic (one plane: plane 0 is among its planes).
    public var appliesToMosaic: Bool { plane == 0 && planes >= 1 }

    /// A copy of `mosaic` with every map of `maps` that applies to a mosaic multiplied in, in
    /// order: each sample's signal above its black level times the gain, clipped at the white
    /// level (the specification clips the linearised value at 1), rounded to the nearest unit.
    /// The mosaic must be the image the maps were made for (the DNG's ActiveArea).
    ///
    /// ```swift
    /// let shaded = DNGGainMap.apply(opcodes.gainMaps, to: frame)
    /// ```
    public static func apply(_ maps: [DNGGainMap], to mosaic: RawMosaic) -> RawMosaic {
        let (width, height) = (mosaic.width, mosaic.height)
        let used = maps.filter(\.appliesToMosaic)
        // Per map: its rows, and each changed column's grid cell (the same on every row).
        let prepared = used.map { map -> (rows: Set<Int>, columns: [(x: Int, cell: (index: Int, fraction: Double))]) in
            let (rows, columns) = map.area(width: width, height: height)
            return (Set(rows), columns.map { x in (x, cell(x, size: width, origin: map.originH, spacing: map.spacingH, points: map.pointsH)) })
        }
        let black = mosaic.black, white = Double(mosaic.maximum)
        return mosaic.copy { y, row in
            for (map, prep) in zip(used, prepared) where prep.rows.contains(y) {
                let down = cell(y, size: height, origin: map.originV, spacing: map.spacingV, points: map.pointsV)
                for (x, across) in prep.columns {
                    let b = Double(black[(y & 1) * 2 + (x & 1)])
                    let v = b + (Double(row[x]) - b) * map.gain(down: down, across: across, plane: 0)
                    row[x] = UInt16(min(max(v, 0), white).rounded())
                }
            }
        }
    }
}
