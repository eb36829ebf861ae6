import RecipeCore

/// Re-indexing a whole stored image into upright rows (EXIF orientation). Exact: pixels are
/// copied, never resampled.
public enum Orient {
    /// Writes upright row `y` of `whole` (the stored image, all rows present) into `dst`.
    @inlinable
    public static func uprightRow(_ y: Int, of whole: PixelBuffer, orientation: Orientation, into dst: UnsafeMutableRawPointer) {
        let bpp = whole.format.bytesPerPixel
        let (w, h) = orientation.orientedSize(width: whole.width, height: whole.rowCapacity)
        switch orientation {
        case .up:
            dst.copyMemory(from: whole.row(y), byteCount: w * bpp)
        case .downMirrored:
            dst.copyMemory(from: whole.row(h - 1 - y), byteCount: w * bpp)
        default:
            if whole.format.sampleType == .float32 {
                // A float row's three planes (`SampleType.float32`), each re-indexed.
                let out = dst.assumingMemoryBound(to: Float.self), stored = whole.width
                for x in 0..<w {
                    let (sx, sy) = orientation.sourceCoordinate(x: x, y: y, uprightWidth: w, uprightHeight: h)
                    let src = whole.row(sy).assumingMemoryBound(to: Float.self) + sx
                    for c in 0..<3 { out[c * w + x] = src[c * stored] }
                }
                return
            }
            for x in 0..<w {
                let (sx, sy) = orientation.sourceCoordinate(x: x, y: y, uprightWidth: w, uprightHeight: h)
                copyPixel(from: whole.row(sy) + sx * bpp, to: dst + x * bpp, bytes: bpp)
            }
        }
    }

    /// Mirrors one row in place of a copy (orientation 2, which streams). A float row (`format`
    /// float RGB) is mirrored plane by plane.
    @inlinable
    public static func mirrorRow(_ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, width: Int, format: PixelFormat) {
        if format.sampleType == .float32 {
            for c in 0..<3 { mirrorRow(src + 4 * c * width, dst + 4 * c * width, width: width, bytesPerPixel: 4) }
            return
        }
        mirrorRow(src, dst, width: width, bytesPerPixel: format.bytesPerPixel)
    }

    /// The same for interleaved pixels of `bpp` bytes.
    @inlinable
    public static func mirrorRow(_ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, width: Int, bytesPerPixel bpp: Int) {
        for x in 0..<width { copyPixel(from: src + (width - 1 - x) * bpp, to: dst + x * bpp, bytes: bpp) }
    }

    @inlinable @inline(__always)
    static func copyPixel(from s: UnsafeRawPointer, to d: UnsafeMutableRawPointer, bytes: Int) {
        switch bytes {
        case 1: d.storeBytes(of: s.load(as: UInt8.self), as: UInt8.self)
        case 3:
            d.storeBytes(of: s.loadUnaligned(as: UInt16.self), as: UInt16.self)
            (d + 2).storeBytes(of: (s + 2).load(as: UInt8.self), as: UInt8.self)
        case 4: d.storeBytes(of: s.loadUnaligned(as: UInt32.self), as: UInt32.self)
        default: d.copyMemory(from: s, byteCount: bytes)
        }
    }
}
