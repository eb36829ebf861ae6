import RecipeCore
import RecipeKernels

/// A Gaussian blur over streaming 8-bit RGB strips, clamp-to-edge: it keeps only
/// the rows its window needs (a ring of 2r+1 rows of linear floats; memory grows with the width and
/// the radius, not the image area), blurs each kept row horizontally once, then each output row
/// vertically.
///
/// ```swift
/// let chain = BlurStage(source: decoder, sigma: 2.5)   // sigma in pixels of this canvas
/// ```
public final class BlurStage: RowSource {
    /// What the blurred rows are for.
    public enum Mode: Sendable, Equatable {
        /// The blur itself, in linear light.
        case blur
        /// Unsharp mask on encoded values (ImageMagick's -unsharp): v + amount·(v − blurred),
        /// where |2·(v − blurred)| reaches `threshold`; with `luma`, the luma difference on every channel.
        case unsharp(amount: Float, threshold: Float, luma: Bool)
    }

    // Stored, not forwarded to the source: the loops read them per pixel, and a call through the
    // RowSource existential (with its exclusivity checks) cost more than the arithmetic.
    public let width: Int
    public let height: Int
    public var format: PixelFormat { source.format }

    private let source: RowSource
    private let taps: [Float]
    private let radius: Int
    /// Horizontally blurred rows, planar r, g, b each `width` floats, by row index mod ring size.
    private let ring: UnsafeMutablePointer<Float>
    private let ringRows: Int
    private var input: PixelBuffer
    private var inputRow = 0        // rows of the source consumed
    private var inputAvailable = 0  // rows in `input` not yet consumed
    private var inputNext = 0
    private var produced = 0
    private let line: UnsafeMutablePointer<Float>
    private let rowLinear: UnsafeMutablePointer<Float>
    private let mode: Mode
    /// The unblurred rows (unsharp only), same slots as `ring`.
    private let originals: UnsafeMutablePointer<Float>?

    public init(source: RowSource, sigma: Double, mode: Mode = .blur) {
        self.mode = mode
        precondition(source.format == PixelFormat(.rgb, .uint8), "BlurStage takes 8-bit RGB, not \(source.format)")
        self.source = source
        width = source.width
        height = source.height
        taps = GaussianBlur.taps(sigma: sigma)
        radius = taps.count / 2
        ringRows = min(2 * radius + 1, source.height + 2 * radius)
        ring = .allocate(capacity: 3 * source.width * (2 * radius + 1))
        input = PixelBuffer(width: source.width, rowCapacity: 16, format: source.format)
        line = .allocate(capacity: 3 * source.width)
        rowLinear = .allocate(capacity: 3 * source.width)
        originals = mode == .blur ? nil : .allocate(capacity: 3 * source.width * (2 * radius + 1))
    }

    deinit {
        ring.deallocate()
        originals?.deallocate()
        line.deallocate()
        rowLinear.deallocate()
    }

    /// The ring slot of source row y (rows are clamped into the image first).
    private func slot(_ y: Int) -> UnsafeMutablePointer<Float> {
        ring + ((y % (2 * radius + 1)) * 3 * width)
    }

    /// Reads source row `inputRow` into the ring, horizontally blurred in linear light.
    private func pullRow() throws {
        if inputNext >= inputAvailable {
            inputAvailable = try source.readRows(into: input)
            inputNext = 0
            precondition(inputAvailable > 0, "source ended early")
        }
        let px = input.row(inputNext).assumingMemoryBound(to: UInt8.self)
        if mode == .blur {
            SRGB.decodeTable8.withUnsafeBufferPointer { table in
                for x in 0..<width {
                    for c in 0..<3 { rowLinear[c * width + x] = table[Int(px[3 * x + c])] }
                }
            }
        } else {
            let k: Float = 1 / 255
            for x in 0..<width {
                for c in 0..<3 { rowLinear[c * width + x] = Float(px[3 * x + c]) * k }
            }
            (originals! + (inputRow % (2 * radius + 1)) * 3 * width).update(from: rowLinear, count: 3 * width)
        }
        let dst = slot(inputRow)
        for c in 0..<3 { GaussianBlur.horizontal(rowLinear + c * width, dst + c * width, width: width, taps: taps) }
        inputNext += 1
        inputRow += 1
    }

    public func readRows(into buffer: PixelBuffer) throws -> Int {
        var n = 0
        while n < buffer.rowCapacity && produced < height {
            let y = produced
            // Rows up to y + radius (clamped to the last) must be in the ring.
            while inputRow <= min(y + radius, height - 1) { try pullRow() }
            let count = 3 * width, line = self.line
            for i in 0..<count { line[i] = 0 }
            taps.withUnsafeBufferPointer { t in
                for k in 0..<t.count {
                    let src = slot(min(max(y + k - radius, 0), height - 1))
                    let w = t[k]
                    for i in 0..<count { line[i] += w * src[i] }
                }
            }
            let out = buffer.row(n).assumingMemoryBound(to: UInt8.self)
            if case .unsharp(let amount, let threshold, let luma) = mode {
                let original = originals! + (y % (2 * radius + 1)) * 3 * width
                for x in 0..<width {
                    let v = SIMD3(original[x], original[width + x], original[2 * width + x])
                    let b = SIMD3(line[x], line[width + x], line[2 * width + x])
                    var d = v - b
                    if luma { d = SIMD3(repeating: 0.2126 * d.x + 0.7152 * d.y + 0.0722 * d.z) }
                    for c in 0..<3 {
                        let o = abs(2 * d[c]) < threshold ? v[c] : v[c] + amount * d[c]
                        out[3 * x + c] = SampleConversion.quantize8(o)
                    }
                }
                n += 1
                produced += 1
                continue
            }
            SRGB.encodeTable.withUnsafeBufferPointer { table in
                for x in 0..<width {
                    for c in 0..<3 {
                        let v = SRGB.encodeClamped(line[c * width + x], table: table.baseAddress!)
                        out[3 * x + c] = SampleConversion.quantize8(v)
                    }
                }
            }
            n += 1
            produced += 1
        }
        buffer.rowCount = n
        buffer.originY = produced - n
        return n
    }
}
