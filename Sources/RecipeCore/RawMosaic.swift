/// The unpacked Bayer mosaic of a camera raw file: the visible area's 16-bit samples as the
/// sensor gave them, and what a develop needs of them (the pattern, black and white levels).
/// The raw codec hands it out (`MosaicSource`); the render's demosaic stage (`DemosaicStage`)
/// develops it. Either a frame the codec's library owns, valid while its decoder keeps the file
/// open, or a copy that the preview keeps (2 bytes a pixel): a new white balance then develops
/// from the copy without unpacking the file again.
///
/// ```swift
/// let raw = try RawDecoder(path: "IMG_0001.DNG", options: DecodeOptions())
/// try raw.start(scaleDenominator: 2)
/// let kept = raw.undeveloped?.mosaic.copy()   // before the last row: the frame goes with the file
/// ```
public final class RawMosaic: @unchecked Sendable {
    // @unchecked: the samples are never written after `init`; a borrowed frame is the library's,
    // read only while its decoder keeps the file open (one thread).
    public let samples: UnsafePointer<UInt16>
    /// Samples a row, and where the visible image starts in the frame.
    public let pitch: Int, top: Int, left: Int
    /// The visible image.
    public let width: Int, height: Int
    /// The colour of (0,0), (0,1), (1,0), (1,1) of the visible image: 0 R, 1 G, 2 B.
    public let pattern: [Int]
    /// Black level per pattern position, and the white level.
    public let black: [Float]
    public let maximum: Float
    private let owned: UnsafeMutablePointer<UInt16>?

    /// A frame borrowed from the library that unpacked it (valid while its owner keeps it).
    public init(borrowing samples: UnsafePointer<UInt16>, pitch: Int, top: Int, left: Int, width: Int, height: Int,
                pattern: [Int], black: [Float], maximum: Float) {
        self.samples = samples
        (self.pitch, self.top, self.left, self.width, self.height) = (pitch, top, left, width, height)
        (self.pattern, self.black, self.maximum) = (pattern, black, maximum)
        owned = nil
    }

    private init(copying other: RawMosaic, adjust: (_ row: Int, _ samples: UnsafeMutableBufferPointer<UInt16>) -> Void = { _, _ in }) {
        let copy = UnsafeMutablePointer<UInt16>.allocate(capacity: max(1, other.width * other.height))
        for y in 0..<other.height {
            (copy + y * other.width).update(from: other.samples + (y + other.top) * other.pitch + other.left, count: other.width)
            adjust(y, UnsafeMutableBufferPointer(start: copy + y * other.width, count: other.width))
        }
        samples = UnsafePointer(copy)
        (pitch, top, left, width, height) = (other.width, 0, 0, other.width, other.height)
        (pattern, black, maximum) = (other.pattern, other.black, other.maximum)
        owned = copy
    }

    deinit { owned?.deallocate() }

    /// The visible area copied into memory of its own (the demosaic reads nothing outside it, so
    /// a develop of the copy gives the frame's pixels, byte for byte).
    public func copy() -> RawMosaic { RawMosaic(copying: self) }

    /// A copy whose rows `adjust` changes as each is copied (row `y` of the visible image, its
    /// `width` samples), and which is never written after: a correction of the sensor's samples
    /// that the develop applies before the demosaic, such as a DNG's lens-shading `GainMap`.
    ///
    /// ```swift
    /// let shaded = mosaic.copy { y, row in for x in row.indices { row[x] = row[x] / 2 } }
    /// ```
    public func copy(adjustingRows adjust: (_ row: Int, _ samples: UnsafeMutableBufferPointer<UInt16>) -> Void) -> RawMosaic {
        RawMosaic(copying: self, adjust: adjust)
    }

    /// What a copy holds.
    public var bytes: Int { width * height * 2 }
}

/// A mosaic and the develop the render runs on it as its first stage (`DemosaicStage`): the white
/// balance, applied to the mosaic before the demosaic reads it (each pattern position's samples
/// scaled so the least-multiplied channel's white is 1), and whether each 2×2 cell becomes one
/// pixel (half size) instead of being demosaiced.
public struct MosaicDevelop {
    public let mosaic: RawMosaic
    /// R, G, B multipliers.
    public let multipliers: [Double]
    public let half: Bool
    /// The denoise of the mosaic before the demosaic (nil: none).
    public let denoise: RawDenoise?
    /// Called once the stage has made its last row: a borrowed frame can go with its file.
    public let finished: (() -> Void)?

    public init(mosaic: RawMosaic, multipliers: [Double], half: Bool, denoise: RawDenoise? = nil, finished: (() -> Void)? = nil) {
        (self.mosaic, self.multipliers, self.half, self.denoise, self.finished) = (mosaic, multipliers, half, denoise, finished)
    }

    /// The developed image's size.
    public var width: Int { half ? (mosaic.width + 1) / 2 : mosaic.width }
    public var height: Int { half ? (mosaic.height + 1) / 2 : mosaic.height }
}

/// A source whose rows, for some photos, are a demosaic away: a raw decoder whose develop runs as
/// a render stage. After `start`, `undeveloped` is the mosaic and its develop, and the rows come
/// from the demosaic stage (`DemosaicStage.rows(of:)`), not from the source itself; nil when the
/// source hands out finished rows (LibRaw's own develop, every other format).
public protocol MosaicSource: RowSource {
    var undeveloped: MosaicDevelop? { get }
}
