import RecipeCore
import RecipeKernels

/// Turns one row of samples as libtiff decodes them (strip, tile or scanline layout) into one row
/// of recipe's formats: gray, gray+alpha, RGB or RGBA, 8- or 16-bit.
///
/// The file's row is either contiguous (the samples of a pixel side by side) or, for planar
/// configuration "separate", one plane per sample `planeStride` bytes apart. 16-bit samples arrive
/// in the machine's byte order (libtiff swaps them).
///
/// ```swift
/// let unpacker = TIFFRowUnpacker(kind: .subByteGray(bits: 4, minIsWhite: false), width: 640, samples: 1,
///                                bytesPerSample: 1, separate: false, output: PixelFormat(.gray, .uint8))
/// unpacker.unpack(bandRow, planeStride: 0, into: strip.row(0))
/// ```
struct TIFFRowUnpacker {
    enum Kind {
        /// 1-, 2- or 4-bit gray scaled to 8 bits (a 4-bit 15 becomes 255); min-is-white inverted.
        case subByteGray(bits: Int, minIsWhite: Bool)
        /// 1-, 2-, 4- or 8-bit palette indices through the colour map (`rgb`: 256 RGB triples).
        case palette(bits: Int, rgb: [UInt8])
        /// 8- or 16-bit gray or RGB samples as stored: `alphaSample` is the file's sample index of
        /// the alpha channel; other extra samples are dropped; min-is-white is inverted and
        /// associated (premultiplied) alpha divided out, as recipe's alpha is unassociated.
        case direct(colorChannels: Int, alphaSample: Int?, minIsWhite: Bool, associatedAlpha: Bool)
        /// 8- or 16-bit CMYK (ink on white, not inverted) to RGB by the device formula
        /// `R = (max − C)(max − K)/max`, or through `converter` (8-bit CMYK → 16-bit RGB).
        case cmyk(converter: JPEGDecoder.CMYKConverter?)
        /// libtiff's packed ABGR raster (TIFFRGBAImage, always premultiplied): RGB, or RGBA with
        /// the alpha divided out.
        case raster(alpha: Bool)
    }

    let kind: Kind
    let width: Int
    /// Samples per pixel in the file.
    let samples: Int
    /// 1 or 2 for the byte-sized kinds.
    let bytesPerSample: Int
    let separate: Bool
    let output: PixelFormat

    /// Unpacks one row. `row` is the file row (plane 0 for separate planes).
    func unpack(_ row: UnsafeRawPointer, planeStride: Int, into out: UnsafeMutableRawPointer, scratch: UnsafeMutableRawPointer?) {
        switch kind {
        case let .subByteGray(bits, minIsWhite):
            let src = row.assumingMemoryBound(to: UInt8.self), dst = out.assumingMemoryBound(to: UInt8.self)
            let maxValue = (1 << bits) - 1, perByte = 8 / bits
            for x in 0..<width {
                let byte = Int(src[x / perByte])
                let v = (byte >> (8 - bits * (x % perByte + 1))) & maxValue
                let scaled = v * 255 / maxValue
                dst[x] = UInt8(minIsWhite ? 255 - scaled : scaled)
            }
        case let .palette(bits, rgb):
            let src = row.assumingMemoryBound(to: UInt8.self), dst = out.assumingMemoryBound(to: UInt8.self)
            let mask = (1 << bits) - 1, perByte = 8 / bits
            for x in 0..<width {
                let index = bits == 8 ? Int(src[x]) : (Int(src[x / perByte]) >> (8 - bits * (x % perByte + 1))) & mask
                dst[3 * x] = rgb[3 * index]
                dst[3 * x + 1] = rgb[3 * index + 1]
                dst[3 * x + 2] = rgb[3 * index + 2]
            }
        case let .direct(colorChannels, alphaSample, minIsWhite, associatedAlpha):
            if bytesPerSample == 1 {
                direct(UInt8.self, row, planeStride, out, colorChannels, alphaSample, minIsWhite, associatedAlpha)
            } else {
                direct(UInt16.self, row, planeStride, out, colorChannels, alphaSample, minIsWhite, associatedAlpha)
            }
        case let .cmyk(converter):
            cmyk(row, planeStride, out, converter, scratch!)
        case let .raster(alpha):
            let src = row.assumingMemoryBound(to: UInt32.self), dst = out.assumingMemoryBound(to: UInt8.self)
            let channels = alpha ? 4 : 3
            for x in 0..<width {
                let abgr = src[x]
                var r = abgr & 0xFF, g = (abgr >> 8) & 0xFF, b = (abgr >> 16) & 0xFF
                let a = abgr >> 24
                if alpha && a < 255 {
                    r = unpremultiply(r, a, 255)
                    g = unpremultiply(g, a, 255)
                    b = unpremultiply(b, a, 255)
                }
                dst[channels * x] = UInt8(r)
                dst[channels * x + 1] = UInt8(g)
                dst[channels * x + 2] = UInt8(b)
                if alpha { dst[channels * x + 3] = UInt8(a) }
            }
        }
    }

    private func direct<T: FixedWidthInteger & UnsignedInteger>(
        _: T.Type, _ row: UnsafeRawPointer, _ planeStride: Int, _ out: UnsafeMutableRawPointer,
        _ colorChannels: Int, _ alphaSample: Int?, _ minIsWhite: Bool, _ associatedAlpha: Bool
    ) {
        let dst = out.assumingMemoryBound(to: T.self)
        let outChannels = output.channels
        if !separate && samples == outChannels && !minIsWhite {
            // As stored (the common case): one copy.
            dst.update(from: row.assumingMemoryBound(to: T.self), count: width * outChannels)
        } else {
            // Sample s of pixel x: contiguous rows interleave, separate planes sit planeStride apart.
            let pixelStep = separate ? 1 : samples
            let sampleStep = separate ? planeStride : MemoryLayout<T>.size
            let picked = colorChannels + (alphaSample == nil ? 0 : 1)
            for c in 0..<picked {
                let s = c < colorChannels ? c : alphaSample!
                let src = (row + s * sampleStep).assumingMemoryBound(to: T.self)
                let invert = minIsWhite && c < colorChannels
                for x in 0..<width {
                    let v = src[x * pixelStep]
                    dst[x * outChannels + c] = invert ? T.max - v : v
                }
            }
        }
        guard associatedAlpha, alphaSample != nil else { return }
        let maxValue = UInt32(T.max)
        for x in 0..<width {
            let a = UInt32(dst[x * outChannels + colorChannels])
            guard a < maxValue else { continue }
            for c in 0..<colorChannels {
                let i = x * outChannels + c
                dst[i] = T(unpremultiply(UInt32(dst[i]), a, maxValue))
            }
        }
    }

    private func cmyk(_ row: UnsafeRawPointer, _ planeStride: Int, _ out: UnsafeMutableRawPointer,
                      _ converter: JPEGDecoder.CMYKConverter?, _ scratch: UnsafeMutableRawPointer) {
        let pixelStep = separate ? 1 : samples
        let packed = scratch.assumingMemoryBound(to: UInt8.self)  // 4 bytes a pixel, C M Y K
        if bytesPerSample == 1 {
            for s in 0..<4 {
                let src = (row + (separate ? s * planeStride : s)).assumingMemoryBound(to: UInt8.self)
                for x in 0..<width { packed[4 * x + s] = src[x * pixelStep] }
            }
            if let converter {
                converter(packed, false, out.assumingMemoryBound(to: UInt16.self), width)
            } else {
                ColorConversion.cmykToRGB(packed, out.assumingMemoryBound(to: UInt8.self), width: width, adobeInverted: false)
            }
            return
        }
        let planes = (0..<4).map { s in (row + (separate ? s * planeStride : 2 * s)).assumingMemoryBound(to: UInt16.self) }
        if let converter {
            // The colour transform takes 8-bit CMYK: the low byte of each 16-bit sample is dropped.
            for s in 0..<4 {
                for x in 0..<width { packed[4 * x + s] = UInt8(planes[s][x * pixelStep] >> 8) }
            }
            converter(packed, false, out.assumingMemoryBound(to: UInt16.self), width)
            return
        }
        let dst = out.assumingMemoryBound(to: UInt16.self)
        for x in 0..<width {
            let k = 65535 - UInt32(planes[3][x * pixelStep])
            for c in 0..<3 {
                let v = 65535 - UInt32(planes[c][x * pixelStep])
                dst[3 * x + c] = UInt16((v * k + 32767) / 65535)
            }
        }
    }
}

/// A premultiplied colour sample back to its straight value, rounded (0 under zero alpha).
@inline(__always)
private func unpremultiply(_ c: UInt32, _ a: UInt32, _ maxValue: UInt32) -> UInt32 {
    guard a > 0 else { return 0 }
    return min(maxValue, UInt32((UInt64(c) * UInt64(maxValue) + UInt64(a / 2)) / UInt64(a)))
}
