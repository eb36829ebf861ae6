internal import CDemosaic
import RecipeCore

/// The render's first stage for a camera raw that recipe develops itself: a Bayer mosaic
/// (`MosaicDevelop`, handed out by the raw codec) white balanced and demosaiced into 16-bit camera
/// RGB, white at 65535, a block of rows at a time, over CDemosaic's directional demosaic; or each
/// 2×2 cell one pixel (half size). The camera matrix and the develop's exposure that follow are
/// point steps of the first pass (`PhotoColor.raw`), folded with the recipe's own.
///
/// Like `BlurStage` it reads around the rows it makes (12 rows of margin above and below a block);
/// unlike it, its source is the whole mosaic, which the raw format's library unpacks at once.
///
/// ```swift
/// try decoder.start(scaleDenominator: 1)
/// let rows = DemosaicStage.rows(of: decoder)   // the decoder itself for every other photo
/// ```
public final class DemosaicStage: RowSource {
    public let develop: MosaicDevelop
    public let width: Int, height: Int
    public let format = PixelFormat(.rgb, .uint16)
    private var bayer: rcp_bayer
    /// The denoise of the mosaic the demosaic reads through, when the develop asks for one.
    private let denoiser: MosaicDenoiser?
    /// The full demosaic's block of rows (read through a margin, so made a block at a time); none
    /// for the half size, which writes into the caller's buffer.
    private let block: UnsafeMutableRawPointer?
    private let scratch: UnsafeMutablePointer<Float>?
    private var blockRange = 0..<0
    private var nextRow = 0
    /// Keeps the source (and the frame it lends) alive while rows are made.
    private var owner: AnyObject?
    /// Rows demosaiced at once: the 12 rows of margin above and below cost 24/96 more.
    public static let blockRows = 96

    public init(_ develop: MosaicDevelop, owner: AnyObject? = nil) {
        self.develop = develop
        self.owner = owner
        bayer = Self.bayer(develop.mosaic, multipliers: develop.multipliers)
        denoiser = develop.denoise.map { MosaicDenoiser(develop.mosaic, denoise: $0, rows: Self.mosaicRows(half: develop.half)) }
        (width, height) = (develop.width, develop.height)
        block = develop.half ? nil : UnsafeMutableRawPointer.allocate(byteCount: width * 6 * Self.blockRows, alignment: 64)
        scratch = develop.half ? nil : UnsafeMutablePointer<Float>.allocate(capacity: rcp_bayer_scratch(Int32(width), Int32(Self.blockRows)))
    }

    deinit {
        block?.deallocate()
        scratch?.deallocate()
    }

    /// The rows of `source`: a demosaic stage over its mosaic when its develop is a render stage
    /// (`MosaicSource`), else the source itself. Call after the source's `start`.
    public static func rows(of source: RowSource) -> RowSource {
        guard let develop = (source as? any MosaicSource)?.undeveloped else { return source }
        return DemosaicStage(develop, owner: source)
    }

    /// What the stage holds beside the mosaic: a block of rows and the demosaic's scratch for it,
    /// for rows `width` pixels wide (nothing for the half size), and the denoise's window and
    /// planes when it denoises.
    public static func bytes(width: Int, half: Bool, denoise: Bool = false) -> Int {
        (half ? 0 : width * 6 * blockRows + rcp_bayer_scratch(Int32(width), Int32(blockRows)) * 4)
            + (denoise ? MosaicDenoiser.bytes(width: half ? 2 * width : width, rows: mosaicRows(half: half)) : 0)
    }

    /// The demosaic's margin: the rows around a block it reads (CDemosaic's PAD, 22, and a cell).
    public static let margin = 24

    /// The mosaic rows a block reads at most (a half-size develop through the denoiser makes at
    /// most `blockRows` rows at a time).
    public static func mosaicRows(half: Bool) -> Int { half ? 2 * blockRows + 2 : blockRows + 2 * margin }

    /// Points the demosaic at the denoiser's window holding the mosaic's rows `rows`.
    private func point(_ denoiser: MosaicDenoiser, _ rows: Range<Int>) {
        let (samples, pitch, top) = denoiser.rows(rows)
        bayer.raw = samples
        bayer.raw_pitch = Int32(pitch)
        (bayer.top, bayer.left) = (Int32(top), 0)
    }

    /// The demosaic's view of the mosaic, white balanced by `m` (R, G, B): each position's samples
    /// scaled so that the least-multiplied channel's white is 1.
    static func bayer(_ mosaic: RawMosaic, multipliers m: [Double]) -> rcp_bayer {
        let low = m.prefix(3).min() ?? 1
        var b = rcp_bayer()
        b.raw = mosaic.samples
        b.raw_pitch = Int32(mosaic.pitch)
        (b.top, b.left, b.width, b.height) = (Int32(mosaic.top), Int32(mosaic.left), Int32(mosaic.width), Int32(mosaic.height))
        let p = mosaic.pattern, black = mosaic.black
        b.pattern = (Int32(p[0]), Int32(p[1]), Int32(p[2]), Int32(p[3]))
        b.black = (black[0], black[1], black[2], black[3])
        let scales = (0..<4).map { q in Float(m[p[q]] / low) / (mosaic.maximum - black[q]) }
        b.scale = (scales[0], scales[1], scales[2], scales[3])
        return b
    }

    public func readRows(into buffer: PixelBuffer) throws -> Int {
        precondition(buffer.width == width && buffer.format == format, "strip does not match the demosaic")
        guard nextRow < height else {
            buffer.rowCount = 0
            return 0
        }
        let rowBytes = width * 6
        let n: Int
        if develop.half {
            // No margin to read around: the cells go straight into the buffer, any rows at a time.
            n = min(buffer.rowCapacity, height - nextRow, denoiser == nil ? Int.max : Self.blockRows)
            if let denoiser { point(denoiser, 2 * nextRow..<2 * (nextRow + n)) }
            rcp_bayer_half_rows(&bayer, Int32(nextRow), Int32(nextRow + n), buffer.baseAddress.assumingMemoryBound(to: UInt16.self),
                                buffer.rowStride)
        } else {
            if !blockRange.contains(nextRow) {
                let end = min(height, nextRow + Self.blockRows)
                if let denoiser { point(denoiser, nextRow - Self.margin..<end + Self.margin) }
                rcp_bayer_rows(&bayer, Int32(nextRow), Int32(end), block!.assumingMemoryBound(to: UInt16.self), rowBytes, scratch!)
                blockRange = nextRow..<end
            }
            n = min(buffer.rowCapacity, blockRange.upperBound - nextRow)
            for r in 0..<n {
                buffer.row(r).copyMemory(from: block! + (nextRow - blockRange.lowerBound + r) * rowBytes, byteCount: rowBytes)
            }
        }
        buffer.rowCount = n
        buffer.originY = nextRow
        nextRow += n
        if nextRow == height {
            // The frame goes with its file once the last row is made.
            develop.finished?()
            owner = nil
        }
        return n
    }
}
