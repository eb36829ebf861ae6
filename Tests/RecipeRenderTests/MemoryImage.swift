import RecipeCore
import RecipeKernels
import RecipeRender
import Testing

/// An 8-bit RGB image held in memory, handed out in strips of `chunk` rows.
final class MemoryImage: RowSource {
    let width: Int, height: Int
    let format = PixelFormat(.rgb, .uint8)
    let bytes: [UInt8]
    let chunk: Int
    var next = 0
    init(_ bytes: [UInt8], width: Int, height: Int, chunk: Int = 7) {
        precondition(bytes.count == 3 * width * height)
        (self.bytes, self.width, self.height, self.chunk) = (bytes, width, height, chunk)
    }
    func readRows(into b: PixelBuffer) throws -> Int {
        let n = min(b.rowCapacity, chunk, height - next)
        for r in 0..<n {
            let s = b.samples(r, as: UInt8.self)
            for i in 0..<(3 * width) { s[i] = bytes[(next + r) * 3 * width + i] }
        }
        b.rowCount = n; b.originY = next; next += n
        return n
    }
}

/// Every row of `source`, read `capacity` rows at a time, as one array.
func readAll(_ source: RowSource, capacity: Int = 5) throws -> [UInt8] {
    let strip = PixelBuffer(width: source.width, rowCapacity: capacity, format: source.format)
    var out: [UInt8] = []
    var y = 0
    while true {
        let n = try source.readRows(into: strip)
        if n == 0 { break }
        #expect(strip.originY == y && strip.rowCount == n)
        for r in 0..<n { out += strip.samples(r, as: UInt8.self) }
        y += n
    }
    #expect(y == source.height)
    return out
}

/// `source`'s 8-bit codes as float rows in `space` (decoded exactly for linear light): what a
/// stage between two point passes reads.
func floatRows(_ source: RowSource, in space: WorkingSpace) -> RowSource {
    PointStage(source: source, programs: [PointProgram(steps: space == .linear ? [.toLinear] : [], storeTable: false)], output: .float32)
}

/// Every row of a stage's float rows in `space` as 8-bit sRGB codes (clamped and rounded, as the
/// last point pass writes them for the encoder).
func readCodes(_ stage: RowSource, from space: WorkingSpace, capacity: Int = 5) throws -> [UInt8] {
    try readAll(PointStage(source: stage, programs: [PointProgram(steps: space == .linear ? [.toEncoded] : [])], output: .uint8),
                capacity: capacity)
}

/// Every row of a float source as interleaved RGB, one array (float rows are planar: each row's
/// r, g and b planes, `SampleType.float32`).
func readFloats(_ source: RowSource, capacity: Int = 5) throws -> [Float] {
    let strip = PixelBuffer(width: source.width, rowCapacity: capacity, format: source.format)
    let w = source.width
    var out: [Float] = []
    while try source.readRows(into: strip) > 0 {
        for r in 0..<strip.rowCount {
            let planes = strip.samples(r, as: Float.self)
            for x in 0..<w { out += [planes[x], planes[w + x], planes[2 * w + x]] }
        }
    }
    return out
}
