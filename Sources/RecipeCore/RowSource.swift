/// A producer of image rows, top to bottom: a decoder, or a step of the render pipeline.
///
/// ```swift
/// let strip = PixelBuffer(width: src.width, rowCapacity: 16, format: src.format)
/// while try src.readRows(into: strip) > 0 { /* use strip.rowCount rows */ }
/// ```
public protocol RowSource: AnyObject {
    /// Width of every row.
    var width: Int { get }
    /// Number of rows the source will produce.
    var height: Int { get }
    /// Format of the rows it writes.
    var format: PixelFormat { get }
    /// Fills `buffer` from its row 0 with up to `buffer.rowCapacity` next rows, sets
    /// `buffer.rowCount` and `buffer.originY`, and returns the count; 0 means the end.
    func readRows(into buffer: PixelBuffer) throws -> Int
}

/// A consumer of image rows, top to bottom: an encoder.
public protocol RowSink: AnyObject {
    var width: Int { get }
    var height: Int { get }
    /// The format the sink expects its rows in.
    var format: PixelFormat { get }
    /// Takes `buffer.rowCount` rows, which continue where the previous call stopped.
    func writeRows(from buffer: PixelBuffer) throws
    /// Completes the output; called once after the last row.
    func finish() throws
}
