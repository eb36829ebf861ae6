import CKernelsSIMD
import RecipeCore
import RecipeKernels

/// Resizes a stream of rows to `width`×`height` in linear light (ops-reference §6), vertical pass
/// first on whole rows, then horizontal. Integer rows are sRGB-decoded on the way in and encoded
/// on the way out (alpha premultiplied while filtering); float rows are linear light already
/// (RGB, between stages) and stay float, unclamped. Memory: one window of input rows in float
/// (the vertical taps), never the image.
public final class ResampleStep: RowSource {
    public let width: Int
    public let height: Int
    public let format: PixelFormat

    private let source: RowSource
    private let horizontal: ResampleWeights
    private let vertical: ResampleWeights
    private let channels: Int
    private let hasAlpha: Bool
    private let inputStride: Int
    private let ring: UnsafeMutablePointer<Float>
    private let ringRows: Int
    private let columnSum: UnsafeMutablePointer<Float>
    private let outRow: UnsafeMutablePointer<Float>
    private var rowPointers: [UnsafePointer<Float>]
    private var inStrip: PixelBuffer
    private var inStripNext = 0
    private var rowsInRing = 0
    private var next = 0

    /// `span`: the size the source's pixels stand for when it is not their count (a DCT-reduced
    /// decode: the stored size over the denominator; see `ResampleWeights`).
    /// `output: .float32` from integer RGB rows writes linear floats (a resize the first stage of
    /// a recipe reads the decoder's codes itself rather than through a pass that only decodes them).
    public init(source: RowSource, width: Int, height: Int, kernel: ResampleKernel = .lanczos3,
                span: (width: Double, height: Double)? = nil, output: SampleType? = nil) {
        precondition(source.format.sampleType != .float32 || source.format.colorModel == .rgb, "float rows are RGB")
        precondition(output != .float32 || source.format.colorModel == .rgb, "float rows are RGB")
        precondition(output == nil || output == .float32 || output == source.format.sampleType, "only integers to floats")
        format = PixelFormat(source.format.colorModel, output ?? source.format.sampleType)
        self.source = source
        self.width = width
        self.height = height
        horizontal = ResampleWeights(inputSize: source.width, outputSize: width, kernel: kernel, inputSpan: span?.width)
        vertical = ResampleWeights(inputSize: source.height, outputSize: height, kernel: kernel, inputSpan: span?.height)
        channels = source.format.channels
        hasAlpha = source.format.colorModel.hasAlpha
        inputStride = source.width * channels + 4  // +4: SIMD4 loads past the last pixel
        ringRows = vertical.taps
        ring = .allocate(capacity: inputStride * ringRows)
        ring.initialize(repeating: 0, count: inputStride * ringRows)
        columnSum = .allocate(capacity: inputStride)
        columnSum.initialize(repeating: 0, count: inputStride)
        outRow = .allocate(capacity: width * channels + 4)
        rowPointers = Array(repeating: UnsafePointer(ring), count: ringRows)
        inStrip = PixelBuffer(width: source.width, rowCapacity: Self.inputRows, format: source.format)
    }

    /// What a step of these sizes holds while it runs, before it exists (for the memory estimate
    /// made before the photo is decoded): its window of float rows, the weights of both passes and
    /// a strip of its source. `lookahead`: the most source rows it has read beyond the rows its
    /// output has reached, in source rows.
    public static func footprint(source: (width: Int, height: Int, format: PixelFormat), width: Int, height: Int,
                                 kernel: ResampleKernel = .lanczos3) -> (bytes: Int, lookahead: Int) {
        let channels = source.format.channels
        let vertical = ResampleWeights.tapCount(inputSize: source.height, outputSize: height, kernel: kernel)
        let horizontal = ResampleWeights.tapCount(inputSize: source.width, outputSize: width, kernel: kernel)
        let stride = source.width * channels + 4
        let floats = stride * (vertical + 1) + width * channels + 4 + width * horizontal + height * vertical
        let bytes = 4 * floats + 4 * (width + height) + 8 * vertical
            + PixelBuffer.bytes(width: source.width, rowCapacity: inputRows, format: source.format)
        return (bytes, min(source.height, vertical + inputRows))
    }

    /// Source rows read at a time.
    public static let inputRows = 16

    deinit {
        ring.deallocate()
        columnSum.deallocate()
        outRow.deallocate()
    }

    /// Pulls input rows until row `index` is in the ring.
    private func fill(through index: Int) throws {
        while rowsInRing <= index {
            if inStripNext >= inStrip.rowCount {
                inStripNext = 0
                guard try source.readRows(into: inStrip) > 0 else {
                    preconditionFailure("resample source ended early")
                }
            }
            let slot = ring + (rowsInRing % ringRows) * inputStride
            let pixels = source.width
            switch source.format.sampleType {
            case .uint8:
                SRGB.decodeTable8.withUnsafeBufferPointer { t in
                    SampleConversion.toLinearPremultiplied(inStrip.row(inStripNext).assumingMemoryBound(to: UInt8.self), slot,
                                                           pixels: pixels, channels: channels, hasAlpha: hasAlpha, table: t.baseAddress!)
                }
            case .uint16:
                SRGB.decodeTable16.withUnsafeBufferPointer { t in
                    SampleConversion.toLinearPremultiplied(inStrip.row(inStripNext).assumingMemoryBound(to: UInt16.self), slot,
                                                           pixels: pixels, channels: channels, hasAlpha: hasAlpha, table: t.baseAddress!)
                }
            case .float32:
                // A float row's planes, interleaved for the passes (they take pixels' channels
                // side by side).
                let p = inStrip.row(inStripNext).assumingMemoryBound(to: Float.self)
                rk_interleave3f(p, p + pixels, p + 2 * pixels, slot, Int32(pixels))
            }
            inStripNext += 1
            rowsInRing += 1
        }
    }

    public func readRows(into buffer: PixelBuffer) throws -> Int {
        guard next < height else { buffer.rowCount = 0; return 0 }
        let n = min(buffer.rowCapacity, height - next)
        for i in 0..<n {
            let j = next + i
            let (first, count) = vertical.window(j)
            try fill(through: first + count - 1)
            for k in 0..<count { rowPointers[k] = UnsafePointer(ring + ((first + k) % ringRows) * inputStride) }
            vertical.weights.withUnsafeBufferPointer { w in
                rowPointers.withUnsafeBufferPointer { rp in
                    Resample.verticalPass(rows: rp.baseAddress!, weights: w.baseAddress! + j * vertical.taps, count: count,
                                          out: columnSum, length: source.width * channels)
                }
            }
            Resample.horizontalPass(input: columnSum, output: outRow, channels: channels, weights: horizontal)
            SRGB.encodeTable.withUnsafeBufferPointer { t in
                switch format.sampleType {
                case .uint8:
                    SampleConversion.fromLinearPremultiplied(outRow, buffer.row(i).assumingMemoryBound(to: UInt8.self), pixels: width,
                                                             channels: channels, hasAlpha: hasAlpha, encodeTable: t.baseAddress!)
                case .uint16:
                    SampleConversion.fromLinearPremultiplied(outRow, buffer.row(i).assumingMemoryBound(to: UInt16.self), pixels: width,
                                                             channels: channels, hasAlpha: hasAlpha, encodeTable: t.baseAddress!)
                case .float32:
                    let p = buffer.row(i).assumingMemoryBound(to: Float.self)
                    rk_deinterleave3f(outRow, p, p + width, p + 2 * width, Int32(width))
                }
            }
        }
        buffer.rowCount = n
        buffer.originY = next
        next += n
        return n
    }
}
