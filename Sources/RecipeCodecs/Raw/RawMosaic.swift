internal import CDemosaic
internal import CRawLoader
import RecipeCore

/// The unpacked Bayer mosaic of a camera raw file: the visible area's 16-bit samples as the
/// sensor gave them, and what a develop needs of them (the pattern, black and white levels).
/// Either LibRaw's own frame, valid while its decoder holds the file (`RawDecoder` develops from
/// it as rows are read), or a copy that the preview keeps (2 bytes a pixel): a new white balance
/// then develops from the copy without unpacking the file again.
///
/// ```swift
/// let raw = try RawDecoder(path: "IMG_0001.DNG", options: DecodeOptions())
/// try raw.start(scaleDenominator: 2)
/// let kept = raw.mosaic?.copy()          // before the last row is read: the frame goes with the file
/// let again = MosaicDecoder(mosaic: kept!, info: raw.info, develop: RawDevelop(), path: raw.path)
/// ```
public final class RawMosaic: @unchecked Sendable {
    // @unchecked: the samples are never written after `init`; a borrowed frame is LibRaw's, read
    // only while its decoder keeps the file open (one thread).
    let samples: UnsafePointer<UInt16>
    /// Samples a row, and where the visible image starts in the frame.
    let pitch: Int, top: Int, left: Int
    /// The visible image.
    public let width: Int, height: Int
    /// The colour of (0,0), (0,1), (1,0), (1,1) of the visible image: 0 R, 1 G, 2 B.
    let pattern: [Int]
    /// Black level per pattern position, and the white level.
    let black: [Float]
    let maximum: Float
    private let owned: UnsafeMutablePointer<UInt16>?

    /// LibRaw's frame, borrowed (valid until its handle is closed).
    init(libRaw m: rcp_raw_mosaic) {
        samples = m.raw
        (pitch, top, left, width, height) = (Int(m.raw_pitch), Int(m.top), Int(m.left), Int(m.width), Int(m.height))
        pattern = [m.pattern.0, m.pattern.1, m.pattern.2, m.pattern.3].map(Int.init)
        black = [m.black.0, m.black.1, m.black.2, m.black.3]
        maximum = m.maximum
        owned = nil
    }

    private init(copying other: RawMosaic) {
        let copy = UnsafeMutablePointer<UInt16>.allocate(capacity: max(1, other.width * other.height))
        for y in 0..<other.height {
            (copy + y * other.width).update(from: other.samples + (y + other.top) * other.pitch + other.left, count: other.width)
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

    /// What a copy holds.
    public var bytes: Int { width * height * 2 }

    /// Rows recipe's own develop makes at a time (`MosaicRows`).
    public static var blockRows: Int { MosaicRows.blockRows }

    /// The demosaic's view of the mosaic, white balanced by `multipliers` (R, G, B): each
    /// position's samples scaled so that the least-multiplied channel's white is 1.
    func bayer(multipliers m: [Double]) -> rcp_bayer {
        let low = m.prefix(3).min() ?? 1
        var b = rcp_bayer()
        b.raw = samples
        b.raw_pitch = Int32(pitch)
        (b.top, b.left, b.width, b.height) = (Int32(top), Int32(left), Int32(width), Int32(height))
        b.pattern = (Int32(pattern[0]), Int32(pattern[1]), Int32(pattern[2]), Int32(pattern[3]))
        b.black = (black[0], black[1], black[2], black[3])
        let scales = (0..<4).map { q in Float(m[pattern[q]] / low) / (maximum - black[q]) }
        b.scale = (scales[0], scales[1], scales[2], scales[3])
        return b
    }
}

/// Rows of recipe's own develop of a mosaic: the directional demosaic, or each 2×2 cell one pixel
/// (half size), a block of rows made at a time; 16-bit camera RGB, white at 65535.
final class MosaicRows {
    let mosaic: RawMosaic
    private var bayer: rcp_bayer
    let halves: Bool
    let width: Int, height: Int
    private let block: UnsafeMutableRawPointer
    private let scratch: UnsafeMutablePointer<Float>?
    private var blockRange = 0..<0
    /// Rows demosaiced at once: the 12 rows of margin above and below cost 24/96 more.
    static let blockRows = 96

    init(_ mosaic: RawMosaic, multipliers: [Double], half: Bool) {
        self.mosaic = mosaic
        bayer = mosaic.bayer(multipliers: multipliers)
        halves = half
        (width, height) = half ? ((mosaic.width + 1) / 2, (mosaic.height + 1) / 2) : (mosaic.width, mosaic.height)
        block = UnsafeMutableRawPointer.allocate(byteCount: width * 6 * Self.blockRows, alignment: 64)
        scratch = half ? nil : UnsafeMutablePointer<Float>.allocate(capacity: rcp_bayer_scratch(Int32(width), Int32(Self.blockRows)))
    }

    deinit {
        block.deallocate()
        scratch?.deallocate()
    }

    /// What the rows hold beside the mosaic: a block of rows and the demosaic's scratch for it.
    static func bytes(width: Int, half: Bool) -> Int {
        width * 6 * blockRows + (half ? 0 : rcp_bayer_scratch(Int32(width), Int32(blockRows)) * 4)
    }

    /// Rows from `next` into `buffer` (as many as fit, up to the block's end); the count.
    func rows(from next: Int, into buffer: PixelBuffer) -> Int {
        let rowBytes = width * 6
        if !blockRange.contains(next) {
            let end = min(height, next + Self.blockRows)
            let rows = block.assumingMemoryBound(to: UInt16.self)
            if halves {
                rcp_bayer_half_rows(&bayer, Int32(next), Int32(end), rows, rowBytes)
            } else {
                rcp_bayer_rows(&bayer, Int32(next), Int32(end), rows, rowBytes, scratch!)
            }
            blockRange = next..<end
        }
        let n = min(buffer.rowCapacity, blockRange.upperBound - next)
        for r in 0..<n {
            buffer.row(r).copyMemory(from: block + (next - blockRange.lowerBound + r) * rowBytes, byteCount: rowBytes)
        }
        return n
    }
}
