import RecipeCore
#if canImport(Glibc)
import Glibc
#endif

/// One image read by several stages (a branch point of the graph): each reader gets every row
/// of the source, which is read once. Rows stay until the slowest reader has passed them, so
/// memory is the distance between the readers (the windows of the stages between a branch
/// point and the blend that joins it), not the image. Readers may run on different threads.
///
/// ```swift
/// let tee = RowTee(source: base, readers: 2)
/// let glow = BlurStage(source: tee.reader(0), sigma: 20)
/// let out = BlendStage(base: tee.reader(1), top: glow, mode: .softLight, opacity: 0.6)
/// ```
public final class RowTee: @unchecked Sendable {
    private let source: RowSource
    private let stripRows: Int
    /// Strips read from the source and not yet passed by every reader, oldest first.
    private var strips: [PixelBuffer] = []
    /// First row of `strips[0]`.
    private var firstRow = 0
    private var loadedRows = 0
    private var spare: [PixelBuffer] = []
    private var positions: [Int]
    private var mutex = pthread_mutex_t()

    public init(source: RowSource, readers count: Int) {
        precondition(count >= 1)
        self.source = source
        stripRows = Self.stripRows(width: source.width, height: source.height, format: source.format)
        positions = Array(repeating: 0, count: count)
        pthread_mutex_init(&mutex, nil)
    }

    deinit { pthread_mutex_destroy(&mutex) }

    /// Source rows read at a time: a prefetch strip's rows (8 for a 4000-pixel float row), so that
    /// a threaded render's strips move into the tee whole rather than being copied (soft-glow on
    /// photo24: 3.4% of its CPU in those copies), at most 16 and the image.
    public static func stripRows(width: Int, height: Int, format: PixelFormat) -> Int {
        max(1, min(16, height, StripPipeline.stripRows(width: width, format: format)))
    }

    /// What a tee of `width`×`height` rows holds when its fastest reader runs `lead` rows ahead
    /// of its slowest (the lookaheads of the stages between the branch point and the blend that
    /// joins it): the strips between them and one more at each end, at most the image.
    public static func footprint(width: Int, height: Int, format: PixelFormat, lead: Int) -> Int {
        let rows = stripRows(width: width, height: height, format: format)
        let strips = min((height + rows - 1) / rows, (min(lead, height) + rows - 1) / rows + 2)
        return strips * PixelBuffer.bytes(width: width, rowCapacity: rows, format: format)
    }

    /// The `index`-th reader (each reads the whole image once; ask for each index once). Readers
    /// keep the tee alive.
    public func reader(_ index: Int) -> RowSource {
        precondition(positions.indices.contains(index), "the tee has \(positions.count) readers")
        return Reader(tee: self, index: index)
    }

    fileprivate func read(_ index: Int, into buffer: PixelBuffer) throws -> Int {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        let start = positions[index]
        let n = min(buffer.rowCapacity, source.height - start)
        guard n > 0 else { buffer.rowCount = 0; return 0 }
        while loadedRows < start + n {
            let strip = spare.popLast() ?? PixelBuffer(width: source.width, rowCapacity: stripRows, format: source.format)
            let got = try source.readRows(into: strip)
            precondition(got > 0, "tee source ended after \(loadedRows) of \(source.height) rows")
            strips.append(strip)
            loadedRows += got
        }
        // The last reader to pass a whole strip takes it as it is (`exchangeStorage`: its own
        // storage becomes the spare): soft-glow's blend reads the kept image that way, after the
        // blur has copied its rows.
        if start == firstRow, let first = strips.first, first.rowCount == n,
           positions.indices.allSatisfy({ $0 == index || positions[$0] >= start + n }), buffer.exchangeStorage(with: first) {
            buffer.rowCount = n
            buffer.originY = start
            positions[index] = start + n
            strips.removeFirst()
            firstRow += n
            spare.append(first)
            return n
        }
        // Sources may return short strips, so walk them with their running first row.
        var stripIndex = 0, stripFirst = firstRow
        for i in 0..<n {
            let y = start + i
            while y >= stripFirst + strips[stripIndex].rowCount {
                stripFirst += strips[stripIndex].rowCount
                stripIndex += 1
            }
            buffer.row(i).copyMemory(from: strips[stripIndex].row(y - stripFirst), byteCount: buffer.rowBytes)
        }
        buffer.rowCount = n
        buffer.originY = start
        positions[index] = start + n
        let slowest = positions.min()!
        while let first = strips.first, firstRow + first.rowCount <= slowest {
            strips.removeFirst()
            firstRow += first.rowCount
            spare.append(first)
        }
        return n
    }

    private final class Reader: RowSource {
        let tee: RowTee
        let index: Int
        let width: Int
        let height: Int
        let format: PixelFormat

        init(tee: RowTee, index: Int) {
            self.tee = tee
            self.index = index
            width = tee.source.width
            height = tee.source.height
            format = tee.source.format
        }

        func readRows(into buffer: PixelBuffer) throws -> Int { try tee.read(index, into: buffer) }
    }
}
