import RecipeCodecs
import RecipeCore
import RecipeRender
import Testing
import TestSupport

/// A synthetic source: pixel (x, y) of channel c is a function of x, y, c.
final class PatternSource: RowSource {
    let width: Int, height: Int
    let format = PixelFormat(.rgb, .uint8)
    var next = 0
    init(width: Int, height: Int) { self.width = width; self.height = height }
    static func value(_ x: Int, _ y: Int, _ c: Int) -> UInt8 { UInt8((x * 7 + y * 13 + c * 50) & 0xFF) }
    func readRows(into b: PixelBuffer) throws -> Int {
        let n = min(b.rowCapacity, height - next)
        for r in 0..<n {
            let s = b.samples(r, as: UInt8.self)
            for x in 0..<width { for c in 0..<3 { s[x * 3 + c] = Self.value(x, next + r, c) } }
        }
        b.rowCount = n; b.originY = next; next += n
        return n
    }
}

final class CollectingSink: RowSink {
    let width: Int, height: Int, format: PixelFormat
    var rows: [[UInt8]] = []
    var finished = false
    init(width: Int, height: Int, format: PixelFormat) { self.width = width; self.height = height; self.format = format }
    func writeRows(from b: PixelBuffer) throws {
        for r in 0..<b.rowCount { rows.append(Array(b.samples(r, as: UInt8.self))) }
    }
    func finish() throws { finished = true }
}

@Suite("Strip pipeline and steps")
struct PipelineTests {
    @Test("prefetching on a thread delivers the same rows in order as a plain loop")
    func prefetchIdentity() throws {
        let plain = CollectingSink(width: 57, height: 101, format: PixelFormat(.rgb, .uint8))
        try StripPipeline.run(source: PatternSource(width: 57, height: 101), sink: plain, stripRows: 5)
        let threaded = CollectingSink(width: 57, height: 101, format: PixelFormat(.rgb, .uint8))
        try StripPipeline.run(source: PrefetchStep(source: PatternSource(width: 57, height: 101), stripRows: 3), sink: threaded)
        #expect(plain.rows == threaded.rows && plain.rows.count == 101 && threaded.finished)
    }

    @Test("orientation step maps every pixel as EXIF says", arguments: Orientation.allCases)
    func orient(o: Orientation) throws {
        let (w, h) = (5, 3)
        let (uw, uh) = o.orientedSize(width: w, height: h)
        let sink = CollectingSink(width: uw, height: uh, format: PixelFormat(.rgb, .uint8))
        try StripPipeline.run(source: OrientStep(source: PatternSource(width: w, height: h), orientation: o), sink: sink, stripRows: 2)
        for y in 0..<uh { for x in 0..<uw {
            let (sx, sy) = o.sourceCoordinate(x: x, y: y, uprightWidth: uw, uprightHeight: uh)
            #expect(sink.rows[y][x * 3] == PatternSource.value(sx, sy, 0))
        } }
        // Independent statement of two cases: 6 turns the stored left column into the top row.
        if o == .right { #expect(sink.rows[0][0] == PatternSource.value(0, h - 1, 0)) }
        if o == .down { #expect(sink.rows[0][0] == PatternSource.value(w - 1, h - 1, 0)) }
    }

    /// Float rows are planar (`SampleType.float32`): a step that moves pixels must move each
    /// plane, not pixels of interleaved channels.
    @Test("float rows through a turn, flip or crop give the 8-bit rows' pixels", arguments: Orientation.allCases)
    func floatRowsMove(o: Orientation) throws {
        let (w, h) = (13, 7)
        func toFloats(_ s: RowSource) -> RowSource { PointStage(source: s, programs: [], output: .float32) }
        func toCodes(_ s: RowSource) -> RowSource { PointStage(source: s, programs: [], output: .uint8) }
        func rows(_ s: RowSource) throws -> [[UInt8]] {
            let sink = CollectingSink(width: s.width, height: s.height, format: PixelFormat(.rgb, .uint8))
            try StripPipeline.run(source: s, sink: sink, stripRows: 3)
            return sink.rows
        }
        let codes = try rows(CropStep(source: OrientStep(source: PatternSource(width: w, height: h), orientation: o), x: 2, y: 1, width: 4, height: 3))
        let floats = try rows(toCodes(CropStep(source: OrientStep(source: toFloats(PatternSource(width: w, height: h)), orientation: o),
                                               x: 2, y: 1, width: 4, height: 3)))
        #expect(codes == floats && codes.count == 3)
        // Independent of the steps: the crop's first pixel, all three channels.
        let (uw, uh) = o.orientedSize(width: w, height: h)
        let (sx, sy) = o.sourceCoordinate(x: 2, y: 1, uprightWidth: uw, uprightHeight: uh)
        #expect(Array(floats[0][0..<3]) == (0..<3).map { PatternSource.value(sx, sy, $0) })
    }

    /// The last reader past a whole strip takes the tee's own storage (no copy); the others copy.
    /// Either way every reader gets every row once, whatever order and strip sizes they read in.
    @Test("a branch point's readers each get every row, in any order and strip size, moved or copied")
    func teeReaders() throws {
        let (w, h) = (9, 53)
        let format = PixelFormat(.rgb, .uint8)
        let expected = try { () -> [[UInt8]] in
            let sink = CollectingSink(width: w, height: h, format: format)
            try StripPipeline.run(source: PatternSource(width: w, height: h), sink: sink, stripRows: 4)
            return sink.rows
        }()
        let teeRows = RowTee.stripRows(width: w, height: h, format: format)
        // Reader 0 reads the tee's strip size (its strips move once the others have passed
        // them), reader 1 three rows at a time, reader 2 the tee's size too, always last.
        for leader in 0..<3 {
            let tee = RowTee(source: PatternSource(width: w, height: h), readers: 3)
            let readers = (0..<3).map { tee.reader($0) }
            let buffers = [teeRows, 3, teeRows].map { PixelBuffer(width: w, rowCapacity: $0, format: format) }
            var got: [[[UInt8]]] = [[], [], []]
            var done = [false, false, false]
            while done.contains(false) {
                // The leader reads twice a round, the others once: positions drift apart.
                for i in [leader, leader, (leader + 1) % 3, (leader + 2) % 3] where !done[i] {
                    let n = try readers[i].readRows(into: buffers[i])
                    if n == 0 { done[i] = true; continue }
                    #expect(buffers[i].originY == got[i].count)
                    for r in 0..<n { got[i].append(Array(buffers[i].samples(r, as: UInt8.self))) }
                }
            }
            for i in 0..<3 { #expect(got[i] == expected, "reader \(i), leader \(leader)") }
        }
    }

    @Test("resampling a flat image keeps it flat; downscaling halves a 2×2 checker to its mean")
    func resampleFlat() throws {
        final class Flat: RowSource {
            let width = 40, height = 30, format = PixelFormat(.rgb, .uint8); var next = 0
            func readRows(into b: PixelBuffer) throws -> Int {
                let n = min(b.rowCapacity, height - next)
                for r in 0..<n { b.row(r).initializeMemory(as: UInt8.self, repeating: 123, count: b.rowBytes) }
                b.rowCount = n; b.originY = next; next += n; return n
            }
        }
        let sink = CollectingSink(width: 13, height: 9, format: PixelFormat(.rgb, .uint8))
        try StripPipeline.run(source: ResampleStep(source: Flat(), width: 13, height: 9), sink: sink)
        #expect(sink.rows.allSatisfy { $0.allSatisfy { $0 == 123 } })
    }
}
