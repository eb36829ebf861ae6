internal import CDenoise
import RecipeCore

/// `denoise` on rendered photos: float rows of encoded values in, denoised float rows out, a band
/// of rows at a time. Each row goes into an orthonormal luma/chroma transform (Y = (R+G+B)/√3,
/// C1 = (R−B)/√2, C2 = (R+B−2G)/√6: white noise of deviation σ in each channel stays σ in each
/// plane), each plane through the DCT shrinkage (`rcp_dct_denoise`) at 2.3 σ times its strength
/// (the raw develop's tuned threshold), and back. A band holds its rows and 8 around them
/// (mirrored at the image's edges), the transformed rows a ring of the band and its margins:
/// memory grows with the width, not the height.
///
/// σ, unless the recipe gives it, is measured once on the first band's luma (Donoho's median of
/// the finest diagonal detail), in the render's own scale: a display-size render measures the
/// noise its reduced rows still have.
///
/// ```swift
/// let rows = DenoiseStage(source: pass, luma: 1, chroma: 1, detail: 0, sigma: nil)
/// ```
public final class DenoiseStage: RowSource {
    public let width: Int, height: Int
    public let format = PixelFormat(.rgb, .float32)
    private let source: RowSource
    private let luma: Float, chroma: Float, detail: Float
    /// The noise's deviation in encoded units (0…1); nil until measured.
    public private(set) var sigma: Float?
    /// Output rows made at once.
    public static let band = 64
    /// The threshold the strengths multiply, in noise deviations.
    static let threshold: Float = 2.3
    private static let margin = 8
    private let pitch: Int, planeRows: Int
    /// Transformed source rows, by row mod `ringRows`: 3 planes of `pitch` floats (columns mirrored).
    private let ring: UnsafeMutablePointer<Float>
    private let ringRows: Int
    /// A band's planes in (3), denoised (3), and the denoiser's scratch.
    private let planes: UnsafeMutablePointer<Float>
    private let scratch: UnsafeMutablePointer<Float>
    private var input: PixelBuffer
    private var inputNext = 0, inputAvailable = 0, rowsRead = 0
    private var produced = 0, bandEnd = 0

    public init(source: RowSource, luma: Double, chroma: Double, detail: Double, sigma: Double?) {
        precondition(source.format == PixelFormat(.rgb, .float32), "denoise reads float rows")
        self.source = source
        (width, height) = (source.width, source.height)
        (self.luma, self.chroma, self.detail) = (Float(luma), Float(chroma), Float(detail))
        self.sigma = sigma.map { Float($0 / 255) }
        pitch = width + 2 * Self.margin
        planeRows = Self.band + 2 * Self.margin
        ringRows = planeRows + 2
        ring = .allocate(capacity: 3 * pitch * ringRows)
        planes = .allocate(capacity: 6 * pitch * planeRows)
        scratch = .allocate(capacity: rcp_dct_denoise_scratch(Int32(max(24, pitch)), Int32(planeRows)))
        input = PixelBuffer(width: width, rowCapacity: 16, format: format)
    }

    deinit {
        ring.deallocate()
        planes.deallocate()
        scratch.deallocate()
    }

    /// What the stage holds for rows `width` wide.
    public static func bytes(width: Int) -> Int {
        let pitch = width + 2 * margin, rows = band + 2 * margin
        return 4 * (3 * pitch * (rows + 2) + 6 * pitch * rows + rcp_dct_denoise_scratch(Int32(max(24, pitch)), Int32(rows)))
            + PixelBuffer.bytes(width: width, rowCapacity: 16, format: PixelFormat(.rgb, .float32))
    }

    private static func mirror(_ i: Int, _ n: Int) -> Int {
        guard n > 1 else { return 0 }
        var i = i
        while i < 0 || i >= n { i = i < 0 ? -i : 2 * (n - 1) - i }
        return i
    }

    /// Reads source rows through `row`, each transformed into the ring.
    private func read(through row: Int) throws {
        let (w, m) = (width, Self.margin)
        let r3 = Float(1 / 3.0.squareRoot()), r2 = Float(1 / 2.0.squareRoot()), r6 = Float(1 / 6.0.squareRoot())
        while rowsRead <= row {
            if inputNext >= inputAvailable {
                inputAvailable = try source.readRows(into: input)
                inputNext = 0
                precondition(inputAvailable > 0, "source ended early")
            }
            let px = input.row(inputNext).assumingMemoryBound(to: Float.self)
            inputNext += 1
            let slot = ring + (rowsRead % ringRows) * 3 * pitch
            let (y, c1, c2) = (slot, slot + pitch, slot + 2 * pitch)
            for x in 0..<w {
                let (r, g, b) = (px[x], px[w + x], px[2 * w + x])
                y[m + x] = (r + g + b) * r3
                c1[m + x] = (r - b) * r2
                c2[m + x] = (r + b - 2 * g) * r6
            }
            for plane in [y, c1, c2] {
                for i in 0..<m {
                    plane[i] = plane[m + Self.mirror(i - m, w)]
                    plane[m + w + i] = plane[m + Self.mirror(w + i, w)]
                }
            }
            rowsRead += 1
        }
    }

    /// The next band's planes, denoised: output rows `produced..<bandEnd`.
    private func denoiseBand() throws {
        let (m, h) = (Self.margin, height)
        let start = produced, end = min(h, start + Self.band)
        try read(through: min(h - 1, end - 1 + m))
        let rows = end - start + 2 * m
        for j in 0..<rows {
            let row = Self.mirror(start - m + j, h)
            let slot = ring + (row % ringRows) * 3 * pitch
            for c in 0..<3 { (planes + (c * planeRows + j) * pitch).update(from: slot + c * pitch, count: pitch) }
        }
        if sigma == nil {
            sigma = rcp_plane_noise_sigma(planes + m * pitch + m, Int32(width), Int32(end - start), Int32(pitch))
        }
        let out = planes + 3 * planeRows * pitch
        // The denoiser needs 24 rows and columns: a smaller band or photo pads by its mirror.
        let paddedRows = max(rows, 24)
        for j in rows..<paddedRows { for c in 0..<3 { (planes + (c * planeRows + j) * pitch).update(from: planes + (c * planeRows + rows - 1) * pitch, count: pitch) } }
        for c in 0..<3 {
            let strength = c == 0 ? luma : chroma
            let (src, dst) = (planes + c * planeRows * pitch, out + c * planeRows * pitch)
            if strength > 0 && pitch >= 24 && (sigma ?? 0) > 0 {
                rcp_dct_denoise(src, dst, Int32(pitch), Int32(paddedRows), Int32(pitch), Self.threshold * strength * sigma!, c == 0 ? 2 : 4, scratch)
            } else {
                dst.update(from: src, count: rows * pitch)
            }
        }
        bandEnd = end
    }

    public func readRows(into buffer: PixelBuffer) throws -> Int {
        precondition(buffer.width == width && buffer.format == format, "strip does not match the denoise")
        let (w, m) = (width, Self.margin)
        let r3 = Float(1 / 3.0.squareRoot()), r2 = Float(1 / 2.0.squareRoot()), r6 = Float(1 / 6.0.squareRoot())
        var n = 0
        while n < buffer.rowCapacity && produced < height {
            if produced >= bandEnd { try denoiseBand() }
            // Bands start at multiples of `band`: the row's place in its band's planes.
            let at = (produced % Self.band + m) * pitch + m
            let out = planes + 3 * planeRows * pitch
            let (y, c1, c2) = (out + at, out + planeRows * pitch + at, out + 2 * planeRows * pitch + at)
            let y0 = planes + at
            let o = buffer.row(n).assumingMemoryBound(to: Float.self)
            for x in 0..<w {
                let yy = (y[x] + detail * (y0[x] - y[x])) * r3, a = c1[x] * r2, b = c2[x] * r6
                o[x] = yy + a + b
                o[w + x] = yy - 2 * b
                o[2 * w + x] = yy - a + b
            }
            n += 1
            produced += 1
        }
        buffer.rowCount = n
        buffer.originY = produced - n
        return n
    }
}
