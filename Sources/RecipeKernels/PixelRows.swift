import CKernelsSIMD
import RecipeCore

/// Moves RGB rows between their layout in a `PixelBuffer` (interleaved 8-bit or 16-bit samples, or
/// a float row's three planes: see `SampleType.float32`) and three float planes: integers scaled
/// to 0…1 and back (clamped, rounded), floats copied as they are.
///
/// ```swift
/// PixelRows.deinterleave(row, .uint8, r, g, b, count: width)   // codes / 255
/// PixelRows.interleave(r, g, b, into: row, .float32, count: width)
/// ```
public enum PixelRows {
    /// A row of `count` RGB pixels of type `type` → planes.
    public static func deinterleave(_ row: UnsafeRawPointer, _ type: SampleType, _ r: UnsafeMutablePointer<Float>,
                                    _ g: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>, count: Int) {
        @inline(__always) func split<T>(_ p: UnsafePointer<T>, _ f: (T) -> Float) {
            for x in 0..<count {
                r[x] = f(p[3 * x])
                g[x] = f(p[3 * x + 1])
                b[x] = f(p[3 * x + 2])
            }
        }
        switch type {
        case .uint8: split(row.assumingMemoryBound(to: UInt8.self)) { Float($0) * (1 / 255) }
        case .uint16: split(row.assumingMemoryBound(to: UInt16.self)) { Float($0) * (1 / 65535) }
        case .float32:
            let p = row.assumingMemoryBound(to: Float.self)
            r.update(from: p, count: count)
            g.update(from: p + count, count: count)
            b.update(from: p + 2 * count, count: count)
        }
    }

    /// Planes → a row of `count` RGB pixels of type `type` (integers clamped to 0…1 and rounded).
    public static func interleave(_ r: UnsafePointer<Float>, _ g: UnsafePointer<Float>, _ b: UnsafePointer<Float>,
                                  into row: UnsafeMutableRawPointer, _ type: SampleType, count: Int) {
        @inline(__always) func merge<T>(_ p: UnsafeMutablePointer<T>, _ f: (Float) -> T) {
            for x in 0..<count {
                p[3 * x] = f(r[x])
                p[3 * x + 1] = f(g[x])
                p[3 * x + 2] = f(b[x])
            }
        }
        switch type {
        case .uint8: merge(row.assumingMemoryBound(to: UInt8.self), SampleConversion.quantize8)
        case .uint16: merge(row.assumingMemoryBound(to: UInt16.self), SampleConversion.quantize16)
        case .float32:
            let p = row.assumingMemoryBound(to: Float.self)
            p.update(from: r, count: count)
            (p + count).update(from: g, count: count)
            (p + 2 * count).update(from: b, count: count)
        }
    }
}
