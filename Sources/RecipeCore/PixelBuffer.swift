/// An owned block of pixel rows: a strip of an image (or all of it when a step needs the whole).
///
/// Rows are `rowStride` bytes apart, each row 64-byte aligned so SIMD loads never straddle. A
/// buffer is created once per stage and reused for every strip; `rowCount` says how many of its
/// `rowCapacity` rows hold data and `originY` where they sit in the image.
///
/// ```swift
/// let strip = PixelBuffer(width: 4000, rowCapacity: 16, format: PixelFormat(.rgb, .uint8))
/// let firstRow = strip.row(0)   // UnsafeMutableRawPointer to 12000 bytes
/// ```
public final class PixelBuffer: @unchecked Sendable {
    // @unchecked: a buffer is owned by one pipeline stage at a time; hand-over between threads
    // goes through a channel that orders the accesses.

    public let width: Int
    public let rowCapacity: Int
    public let format: PixelFormat
    /// Distance between rows in bytes.
    public let rowStride: Int
    /// Rows currently holding data (≤ rowCapacity).
    public var rowCount: Int
    /// Image row index of row 0 of this buffer.
    public var originY: Int
    /// Start of row 0 (it changes only in `exchangeStorage`: read it when you use it).
    public private(set) var baseAddress: UnsafeMutableRawPointer

    /// Trades pixel storage with `other`, of the same width, capacity and format (false, and
    /// nothing traded, otherwise): a full strip handed from one thread to the next moves
    /// instead of being copied. Row counts and origins stay with each buffer.
    public func exchangeStorage(with other: PixelBuffer) -> Bool {
        guard other !== self, other.width == width, other.rowCapacity == rowCapacity, other.format == format else { return false }
        swap(&baseAddress, &other.baseAddress)
        return true
    }

    /// Bytes of one row's pixels (without padding).
    public var rowBytes: Int { width * format.bytesPerPixel }

    public init(width: Int, rowCapacity: Int, format: PixelFormat) {
        precondition(width > 0 && rowCapacity > 0, "empty pixel buffer")
        self.width = width
        self.rowCapacity = rowCapacity
        self.format = format
        self.rowStride = Self.rowStride(width: width, format: format)
        let (total, overflow) = rowStride.multipliedReportingOverflow(by: rowCapacity)
        precondition(!overflow, "pixel buffer size overflows")
        self.baseAddress = UnsafeMutableRawPointer.allocate(byteCount: max(total, 64), alignment: 64)
        self.rowCount = 0
        self.originY = 0
    }

    deinit { baseAddress.deallocate() }

    /// Pointer to the first byte of row `index` (0-based within this buffer).
    @inlinable
    public func row(_ index: Int) -> UnsafeMutableRawPointer {
        assert(index >= 0 && index < rowCapacity)
        return baseAddress + index * rowStride
    }

    /// Row `index` as typed samples (`width × channels` of them).
    @inlinable
    public func samples<T>(_ index: Int, as type: T.Type) -> UnsafeMutableBufferPointer<T> {
        assert(MemoryLayout<T>.size == format.sampleType.byteCount)
        let start = row(index).assumingMemoryBound(to: T.self)
        return UnsafeMutableBufferPointer(start: start, count: width * format.channels)
    }

    /// Total bytes allocated.
    public var allocatedBytes: Int { rowStride * rowCapacity }

    /// The distance between rows of `width` pixels: the row's bytes rounded up to 64.
    public static func rowStride(width: Int, format: PixelFormat) -> Int { (width * format.bytesPerPixel + 63) & ~63 }

    /// What a buffer of these dimensions allocates (its `allocatedBytes`), for memory estimates
    /// made before any buffer exists.
    public static func bytes(width: Int, rowCapacity: Int, format: PixelFormat) -> Int {
        max(rowStride(width: width, format: format) * rowCapacity, 64)
    }
}
