/// A small 8-bit RGB image held in one array: rows top to bottom, pixels left to right, three
/// interleaved bytes (r, g, b) per pixel, no row padding. It is a plain value for thumbnails and
/// the contact sheet made of them, not for whole photos: the render pipeline streams those in
/// `PixelBuffer` strips and never holds them in one array.
///
/// ```swift
/// var image = RGBImage(width: 4, height: 2, filledWith: .init(255, 0, 0))  // red
/// image.fill(x: 1, y: 0, width: 2, height: 1, color: .init(0, 0, 255))
/// image.pixel(x: 1, y: 0)   // Color(r: 0, g: 0, b: 255)
/// ```
public struct RGBImage: Sendable, Equatable {
    /// One 8-bit RGB colour.
    public struct Color: Sendable, Hashable, CustomStringConvertible {
        public var r: UInt8
        public var g: UInt8
        public var b: UInt8

        public init(_ r: UInt8, _ g: UInt8, _ b: UInt8) {
            self.r = r
            self.g = g
            self.b = b
        }

        /// A neutral grey, all three channels `value`.
        public static func gray(_ value: UInt8) -> Color { Color(value, value, value) }

        public var description: String { "(\(r), \(g), \(b))" }
    }

    public let width: Int
    public let height: Int
    /// `3 × width × height` bytes. Only this module may write it, so the count always matches the size.
    public internal(set) var pixels: [UInt8]

    /// Wraps interleaved RGB bytes; a count that does not match the size is a bug of the caller.
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width >= 1 && height >= 1, "an RGB image needs at least one pixel, not \(width)×\(height)")
        let (count, overflow) = width.multipliedReportingOverflow(by: height)
        precondition(!overflow && count <= Int.max / 3, "\(width)×\(height) is too large")
        precondition(pixels.count == 3 * count, "\(width)×\(height) RGB needs \(3 * count) bytes, not \(pixels.count)")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// An image of one colour.
    public init(width: Int, height: Int, filledWith color: Color) {
        precondition(width >= 1 && height >= 1, "an RGB image needs at least one pixel, not \(width)×\(height)")
        let (count, overflow) = width.multipliedReportingOverflow(by: height)
        precondition(!overflow && count <= Int.max / 3, "\(width)×\(height) is too large")
        var bytes = [UInt8](repeating: 0, count: 3 * count)
        for i in 0..<count {
            bytes[3 * i] = color.r
            bytes[3 * i + 1] = color.g
            bytes[3 * i + 2] = color.b
        }
        self.init(width: width, height: height, pixels: bytes)
    }

    /// The colour at (x, y); outside the image is a bug of the caller.
    public func pixel(x: Int, y: Int) -> Color {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "(\(x), \(y)) is outside \(width)×\(height)")
        let i = 3 * (y * width + x)
        return Color(pixels[i], pixels[i + 1], pixels[i + 2])
    }

    /// Paints a rectangle, clipped to the image: any part outside (negative origin, past the
    /// right or bottom edge) is skipped, so callers can draw near edges without checking.
    public mutating func fill(x: Int, y: Int, width w: Int, height h: Int, color: Color) {
        let x0 = max(x, 0), y0 = max(y, 0)
        let x1 = min(x.addingClamped(w), width), y1 = min(y.addingClamped(h), height)
        guard x0 < x1, y0 < y1 else { return }
        let imageWidth = width
        pixels.withUnsafeMutableBufferPointer { p in
            for row in y0..<y1 {
                var i = 3 * (row * imageWidth + x0)
                for _ in x0..<x1 {
                    p[i] = color.r
                    p[i + 1] = color.g
                    p[i + 2] = color.b
                    i += 3
                }
            }
        }
    }

    /// Copies the `width`×`height` rectangle of `source` at (`sourceX`, `sourceY`) to (x, y) of
    /// this image, byte for byte. The source rectangle must lie inside `source`; the destination
    /// is clipped like `fill`.
    public mutating func copy(from source: RGBImage, sourceX: Int, sourceY: Int, width w: Int, height h: Int, x: Int, y: Int) {
        precondition(sourceX >= 0 && sourceY >= 0 && w >= 0 && h >= 0 && sourceX + w <= source.width && sourceY + h <= source.height,
                     "\(w)×\(h) at (\(sourceX), \(sourceY)) is outside the \(source.width)×\(source.height) source")
        // Clip the destination and move the source origin by the same amount.
        let x0 = max(x, 0), y0 = max(y, 0)
        let x1 = min(x.addingClamped(w), width), y1 = min(y.addingClamped(h), height)
        guard x0 < x1, y0 < y1 else { return }
        let rowBytes = 3 * (x1 - x0)
        let imageWidth = width
        source.pixels.withUnsafeBufferPointer { from in
            pixels.withUnsafeMutableBufferPointer { to in
                for row in y0..<y1 {
                    let s = 3 * ((sourceY + row - y) * source.width + sourceX + x0 - x)
                    let d = 3 * (row * imageWidth + x0)
                    (to.baseAddress! + d).update(from: from.baseAddress! + s, count: rowBytes)
                }
            }
        }
    }
}

extension Int {
    /// `self + other`, held at the ends of `Int` instead of trapping, for clip rectangles given
    /// far outside the image.
    fileprivate func addingClamped(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }
}
