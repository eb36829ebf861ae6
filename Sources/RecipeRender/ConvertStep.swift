import RecipeCore
import RecipeKernels

/// Converts rows to the format an encoder takes: 16→8 bits, 8→16 bits, alpha flattened onto
/// white (JPEG has no alpha), gray+alpha → gray, gray → RGB (8 or 16 bits), etc. Exact where the
/// formats allow.
public final class ConvertStep: RowSource {
    public var width: Int { source.width }
    public var height: Int { source.height }
    public let format: PixelFormat

    private let source: RowSource
    private var scratch: PixelBuffer?
    private var mid: [UInt16] = []

    public init(source: RowSource, to format: PixelFormat) {
        precondition(source.format.sampleType != .float32 && format.sampleType != .float32)
        precondition(format.colorModel == source.format.colorModel || format.colorModel == source.format.colorModel.withoutAlpha
                     || (source.format.colorModel == .gray && format == PixelFormat(.rgb, source.format.sampleType)),
                     "ConvertStep cannot turn \(source.format) into \(format)")
        self.source = source
        self.format = format
    }

    /// What a conversion of `width`-pixel rows from `source` holds, read into strips of `rows`: a
    /// strip of the source's rows and a row of 16-bit samples.
    public static func footprint(width: Int, source: PixelFormat, rows: Int) -> Int {
        PixelBuffer.bytes(width: width, rowCapacity: rows, format: source) + 2 * 4 * width
    }

    public func readRows(into buffer: PixelBuffer) throws -> Int {
        if scratch == nil || scratch!.rowCapacity != buffer.rowCapacity {
            scratch = PixelBuffer(width: width, rowCapacity: buffer.rowCapacity, format: source.format)
        }
        let s = scratch!
        let n = try source.readRows(into: s)
        let from = source.format
        let pixels = width
        for i in 0..<n {
            let dropAlpha = from.colorModel.hasAlpha && !format.colorModel.hasAlpha
            let colour = format.colorModel.channels
            if from.colorModel == .gray, format.colorModel == .rgb {
                // Grey to RGB for colour operations.
                if from.sampleType == .uint8 {
                    SampleConversion.grayToRGB(s.row(i).assumingMemoryBound(to: UInt8.self), buffer.row(i).assumingMemoryBound(to: UInt8.self), pixels: pixels)
                } else {
                    SampleConversion.grayToRGB(s.row(i).assumingMemoryBound(to: UInt16.self), buffer.row(i).assumingMemoryBound(to: UInt16.self), pixels: pixels)
                }
                continue
            }
            switch (from.sampleType, format.sampleType) {
            case (.uint8, .uint8):
                let src = s.row(i).assumingMemoryBound(to: UInt8.self), dst = buffer.row(i).assumingMemoryBound(to: UInt8.self)
                if dropAlpha { SampleConversion.flattenOnWhite(src, dst, pixels: pixels, colorChannels: colour) } else {
                    dst.update(from: src, count: pixels * colour)
                }
            case (.uint16, .uint16):
                let src = s.row(i).assumingMemoryBound(to: UInt16.self), dst = buffer.row(i).assumingMemoryBound(to: UInt16.self)
                if dropAlpha { SampleConversion.flattenOnWhite(src, dst, pixels: pixels, colorChannels: colour) } else {
                    dst.update(from: src, count: pixels * colour)
                }
            case (.uint16, .uint8):
                let src = s.row(i).assumingMemoryBound(to: UInt16.self), dst = buffer.row(i).assumingMemoryBound(to: UInt8.self)
                if dropAlpha {
                    if mid.count < pixels * colour { mid = Array(repeating: 0, count: pixels * colour) }
                    mid.withUnsafeMutableBufferPointer { m in
                        SampleConversion.flattenOnWhite(src, m.baseAddress!, pixels: pixels, colorChannels: colour)
                        SampleConversion.narrow(m.baseAddress!, dst, count: pixels * colour)
                    }
                } else {
                    SampleConversion.narrow(src, dst, count: pixels * colour)
                }
            case (.uint8, .uint16):
                let src = s.row(i).assumingMemoryBound(to: UInt8.self), dst = buffer.row(i).assumingMemoryBound(to: UInt16.self)
                if dropAlpha {
                    // flatten in 8 bits (in place in the scratch row), then widen exactly
                    SampleConversion.flattenOnWhite(src, UnsafeMutablePointer(mutating: src), pixels: pixels, colorChannels: colour)
                }
                SampleConversion.widen(src, dst, count: pixels * colour)
            default:
                preconditionFailure()
            }
        }
        buffer.rowCount = n
        buffer.originY = s.originY
        return n
    }
}
