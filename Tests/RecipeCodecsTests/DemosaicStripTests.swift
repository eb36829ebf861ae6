import CDemosaic
import Testing

/// recipe's own demosaic (`Sources/CDemosaic`) run directly: the engine asks it for blocks of rows
/// in any order, so a block must come out the same whichever blocks it is cut into.
@Suite("The directional demosaic, block by block")
struct DemosaicStripTests {
    static let width = 150, height = 130
    static let black: Float = 100, range: Float = 3900

    /// A mosaic with detail in every direction: stripes on a slant, a ramp and noise (a fixed
    /// linear congruential sequence), so every pass of the demosaic has something to change.
    static func mosaic() -> [UInt16] {
        var out = [UInt16](repeating: 0, count: width * height)
        var seed: UInt32 = 12345
        for y in 0..<height {
            for x in 0..<width {
                seed = seed &* 1_664_525 &+ 1_013_904_223
                let noise = Float(seed >> 20) / 4096
                let stripes: Float = (x / 3 + y / 5) % 2 == 0 ? 0.6 : 0.2
                let v = 0.5 * stripes + 0.3 * noise + 0.2 * Float(x) / Float(width)
                out[y * width + x] = UInt16(black + v * range)
            }
        }
        return out
    }

    /// Demosaics the whole mosaic in blocks of `rows` rows (the last one shorter).
    static func develop(_ raw: [UInt16], pattern: (Int32, Int32, Int32, Int32), rows: Int) -> [UInt16] {
        var out = [UInt16](repeating: 0, count: width * height * 3)
        raw.withUnsafeBufferPointer { r in
            var b = rcp_bayer()
            b.raw = r.baseAddress
            b.raw_pitch = Int32(width)
            b.width = Int32(width)
            b.height = Int32(height)
            b.pattern = pattern
            b.black = (black, black, black, black)
            b.scale = (1 / range, 1 / range, 1 / range, 1 / range)
            let scratch = UnsafeMutablePointer<Float>.allocate(capacity: rcp_bayer_scratch(Int32(width), Int32(rows)))
            defer { scratch.deallocate() }
            out.withUnsafeMutableBufferPointer { o in
                var y = 0
                while y < height {
                    let end = min(height, y + rows)
                    rcp_bayer_rows(&b, Int32(y), Int32(end), o.baseAddress! + y * width * 3, width * 6, scratch)
                    y = end
                }
            }
        }
        return out
    }

    @Test("any cut into blocks gives the same pixels as the whole image in one block",
          arguments: [(Int32(0), Int32(1), Int32(1), Int32(2)), (1, 2, 0, 1)].map { [$0.0, $0.1, $0.2, $0.3] })
    func blocks(pattern p: [Int32]) {
        let raw = Self.mosaic(), pattern = (p[0], p[1], p[2], p[3])
        let whole = Self.develop(raw, pattern: pattern, rows: Self.height)
        for rows in [1, 5, 37, 96] {
            let cut = Self.develop(raw, pattern: pattern, rows: rows)
            let differing = zip(whole, cut).filter { $0 != $1 }.count
            #expect(differing == 0, "pattern \(p), blocks of \(rows) rows: \(differing) samples differ from one block")
        }
    }

    @Test("a flat grey mosaic comes out that grey everywhere, edges included")
    func flat() {
        // (2050 − 100) / 3900 = 0.5 of white: 32767.5 in 16 bits.
        let raw = [UInt16](repeating: 2050, count: Self.width * Self.height)
        let out = Self.develop(raw, pattern: (0, 1, 1, 2), rows: 37)
        let worst = out.map { abs(Int($0) - 32768) }.max() ?? 0
        #expect(worst <= 1, "a flat 0.5 mosaic is off by up to \(worst) of 65535")
    }
}
