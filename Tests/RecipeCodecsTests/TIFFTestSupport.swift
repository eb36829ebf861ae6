import Foundation
import RecipeCodecs
import RecipeCore
import TestSupport

/// Our decoding of a TIFF, whole, as a Netpbm-shaped image (odd strip height on purpose).
func decodeTIFF(_ path: String, options: DecodeOptions = DecodeOptions(), converter: JPEGDecoder.CMYKConverter? = nil)
    throws -> (image: NetpbmImage, decoder: TIFFDecoder)
{
    let decoder = try TIFFDecoder(path: path, options: options)
    if let converter { decoder.cmykConverter = converter }
    let image = try readAll(decoder)
    return (image, decoder)
}

/// libvips from the command line (nil when it is not installed).
enum Vips {
    static let path = ExternalTool.find("vips")
    static let header = ExternalTool.find("vipsheader")

    /// Runs `vips` with `arguments`; throws with its stderr when it fails.
    static func run(_ arguments: [String]) throws {
        let r = try ExternalTool.run(try Requirement.path("vips"), arguments)
        if r.status != 0 { throw VipsFailure(message: "vips \(arguments.joined(separator: " ")): \(r.stderr)") }
    }

    /// vips' own decoding of an image file: `vips copy` to a PNG (16-bit when the file is, no
    /// autorotation), read back with our PNG decoder, which matches pypng exactly.
    static func decode(_ path: String, in folder: URL) throws -> NetpbmImage {
        let png = folder.appendingPathComponent(UUID().uuidString + ".png").path
        try run(["copy", path, png])
        defer { try? FileManager.default.removeItem(atPath: png) }
        return try decodeAll(png).image
    }

    /// vipsheader's one-line summary ("x.tif: 120x96 uchar, 3 bands, srgb, tiffload").
    static func summary(of path: String) throws -> String {
        let r = try ExternalTool.run(header!, [path])
        guard r.status == 0 else { throw VipsFailure(message: "vipsheader \(path): \(r.stderr)") }
        return String(decoding: r.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// One field of `vipsheader -f` (trailing newline removed).
    static func field(_ name: String, of path: String) throws -> String {
        let r = try ExternalTool.run(header!, ["-f", name, path])
        guard r.status == 0 else { throw VipsFailure(message: "vipsheader -f \(name) \(path): \(r.stderr)") }
        return String(decoding: r.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

struct VipsFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Differences between two images on the 8-bit scale (16-bit differences divided by 257), over the
/// first `channels` channels of each (all of `a`'s by default); nil when the sizes differ.
func difference(_ a: NetpbmImage, _ b: NetpbmImage, channels: Int? = nil) -> (max: Double, mean: Double)? {
    let n = channels ?? a.channels
    guard a.width == b.width, a.height == b.height, n <= a.channels, n <= b.channels else { return nil }
    let scaleA = a.maxValue > 255 ? 257.0 : 1.0, scaleB = b.maxValue > 255 ? 257.0 : 1.0
    var maxDiff = 0.0, total = 0.0
    for p in 0..<(a.width * a.height) {
        for c in 0..<n {
            let d = abs(Double(a.samples[p * a.channels + c]) / scaleA - Double(b.samples[p * b.channels + c]) / scaleB)
            maxDiff = max(maxDiff, d)
            total += d
        }
    }
    return (maxDiff, total / Double(max(1, a.width * a.height * n)))
}

/// The same image with its samples in a different container (channel subset, same depth).
func channels(_ image: NetpbmImage, _ keep: Int) -> NetpbmImage {
    var s: [Int] = []
    s.reserveCapacity(image.width * image.height * keep)
    for p in 0..<(image.width * image.height) { s += image.samples[(p * image.channels)..<(p * image.channels + keep)] }
    return NetpbmImage(width: image.width, height: image.height, channels: keep, maxValue: image.maxValue, samples: s)
}

/// Encodes an image with our TIFF encoder, 11 rows at a time.
func encodeTIFF(_ image: NetpbmImage, to path: String, metadata: ImageMetadata = ImageMetadata(),
                options: TIFFOptions = TIFFOptions()) throws -> TIFFEncoder
{
    let models: [Int: ColorModel] = [1: .gray, 2: .grayAlpha, 3: .rgb, 4: .rgba]
    let format = PixelFormat(models[image.channels]!, image.maxValue > 255 ? .uint16 : .uint8)
    let out = try AtomicOutputFile(path: path)
    let encoder = try TIFFEncoder(handle: out.handle, path: path, width: image.width, height: image.height, format: format,
                                  metadata: metadata, options: options)
    let strip = PixelBuffer(width: image.width, rowCapacity: 11, format: format)
    var y = 0
    while y < image.height {
        let n = min(11, image.height - y)
        for r in 0..<n {
            let start = ((y + r) * image.width) * image.channels
            let row = image.samples[start..<(start + image.width * image.channels)]
            if format.sampleType == .uint16 {
                let dst = strip.samples(r, as: UInt16.self)
                for (i, v) in row.enumerated() { dst[i] = UInt16(v) }
            } else {
                let dst = strip.samples(r, as: UInt8.self)
                for (i, v) in row.enumerated() { dst[i] = UInt8(v) }
            }
        }
        strip.rowCount = n
        try encoder.writeRows(from: strip)
        y += n
    }
    try encoder.finish()
    try out.commit()
    return encoder
}

/// A baseline, uncompressed TIFF written byte by byte, for layouts libvips does not write
/// (palette, 1- to 4-bit, planar, CMYK, YCbCr, associated alpha) and for hostile headers.
struct TinyTIFF {
    var width: Int
    var height: Int
    var bitsPerSample = 8
    var samplesPerPixel = 1
    var photometric: UInt16 = 1
    var planar: UInt16 = 1
    var rowsPerStrip: Int?
    var extraSamples: [UInt16] = []
    var colorMap: [UInt16]?
    var inkSet: UInt16?
    var orientation: UInt16?
    var ycbcrSubsampling: [UInt16]?
    var bigEndian = false
    /// Tiles of this size instead of strips (uncompressed; edge tiles padded with zeros).
    var tileSize: (width: Int, length: Int)?
    /// PackBits-compress each row (literal runs only: compressed in name, not in size).
    var packBits = false
    /// IFD right after the header (pixels after it), as a truncation test needs; else last, as libtiff writes.
    var directoryFirst = false
    /// Samples in file order: rows of interleaved samples, or plane after plane; 16-bit as numbers.
    var samples: [Int] = []
    /// Write the header and strip tables only (the strips then point past the end of the file).
    var headerOnly = false

    func bytes() -> [UInt8] {
        let rps = min(rowsPerStrip ?? height, height)
        let planes = planar == 2 ? samplesPerPixel : 1
        let perRow = planar == 2 ? 1 : samplesPerPixel
        let rowBytes = (width * perRow * bitsPerSample + 7) / 8
        let stripsPerPlane = (height + rps - 1) / rps
        var data: [UInt8] = []
        if !headerOnly {
            // Pack samples row by row (sub-byte samples MSB first, each row padded to a byte).
            var i = 0
            for _ in 0..<planes {
                for _ in 0..<height {
                    var row = [UInt8](repeating: 0, count: rowBytes)
                    for k in 0..<(width * perRow) {
                        let v = samples[i]
                        i += 1
                        switch bitsPerSample {
                        case 16:
                            row[2 * k] = UInt8(bigEndian ? v >> 8 : v & 0xFF)
                            row[2 * k + 1] = UInt8(bigEndian ? v & 0xFF : v >> 8)
                        case 8: row[k] = UInt8(v)
                        default:
                            let bit = k * bitsPerSample
                            row[bit / 8] |= UInt8(v << (8 - bitsPerSample - bit % 8))
                        }
                    }
                    if packBits {
                        var k = 0
                        while k < row.count {
                            let n = min(128, row.count - k)
                            data.append(UInt8(n - 1))
                            data += row[k..<(k + n)]
                            k += n
                        }
                    } else {
                        data += row
                    }
                }
            }
        }
        // PackBits adds one byte per 128 of a row.
        let storedRowBytes = packBits ? rowBytes + (rowBytes + 127) / 128 : rowBytes
        var stripSizes: [Int] = []
        for _ in 0..<planes {
            for s in 0..<stripsPerPlane { stripSizes.append(min(rps, height - s * rps) * storedRowBytes) }
        }
        let offsetsTag: UInt16 = tileSize == nil ? 273 : 324
        var entries: [(UInt16, UInt16, [Int])] = [  // tag, type (3 SHORT, 4 LONG), values
            (256, 4, [width]), (257, 4, [height]), (258, 3, Array(repeating: bitsPerSample, count: samplesPerPixel)),
            (259, 3, [packBits ? 32773 : 1]), (262, 3, [Int(photometric)]), (277, 3, [samplesPerPixel]), (284, 3, [Int(planar)]),
        ]
        if let (tw, tl) = tileSize {
            // Cut the packed rows into tiles, plane by plane, row of tiles by row of tiles.
            let tileRowBytes = (tw * perRow * bitsPerSample + 7) / 8
            var tiles: [UInt8] = []
            stripSizes = []
            for plane in 0..<planes {
                for ty in stride(from: 0, to: height, by: tl) {
                    for tx in stride(from: 0, to: width, by: tw) {
                        let start = tx * perRow * bitsPerSample / 8
                        for r in 0..<tl {
                            var row = [UInt8](repeating: 0, count: tileRowBytes)
                            if ty + r < height {
                                let base = (plane * height + ty + r) * rowBytes
                                let n = min(tileRowBytes, rowBytes - start)
                                row[0..<n] = data[(base + start)..<(base + start + n)]
                            }
                            tiles += row
                        }
                        stripSizes.append(tl * tileRowBytes)
                    }
                }
            }
            data = tiles
            entries += [(322, 4, [tw]), (323, 4, [tl]), (324, 4, []), (325, 4, stripSizes)]
        } else {
            entries += [(273, 4, []), (278, 4, [rps]), (279, 4, stripSizes)]
        }
        if let orientation { entries.append((274, 3, [Int(orientation)])) }
        if let colorMap { entries.append((320, 3, colorMap.map(Int.init))) }
        if let inkSet { entries.append((332, 3, [Int(inkSet)])) }
        if !extraSamples.isEmpty { entries.append((338, 3, extraSamples.map(Int.init))) }
        if let ycbcrSubsampling { entries.append((530, 3, ycbcrSubsampling.map(Int.init))) }
        entries.sort { $0.0 < $1.0 }
        // Layout: header, then IFD + values + data, or data + IFD + values.
        let ifdSize = 2 + 12 * entries.count + 4
        let valueSizes = entries.map { e -> Int in
            let n = e.0 == offsetsTag ? stripSizes.count : e.2.count
            let size = n * (e.1 == 3 ? 2 : 4)
            return size > 4 ? size : 0
        }
        let valuesSize = valueSizes.reduce(0, +)
        let ifdOffset = directoryFirst ? 8 : 8 + data.count + (data.count % 2)
        let dataOffset = directoryFirst ? 8 + ifdSize + valuesSize : 8
        var offsets: [Int] = []
        var at = dataOffset
        for size in stripSizes {
            offsets.append(headerOnly ? dataOffset : at)
            at += size
        }
        var out: [UInt8] = bigEndian ? [0x4D, 0x4D, 0, 42] : [0x49, 0x49, 42, 0]
        out += u32(ifdOffset)
        if !directoryFirst { out += data + (data.count % 2 == 1 ? [0] : []) }
        var values: [UInt8] = []
        var valueAt = ifdOffset + ifdSize
        out += u16(entries.count)
        for (i, e) in entries.enumerated() {
            let vals = e.0 == offsetsTag ? offsets : e.2
            out += u16(Int(e.0)) + u16(Int(e.1)) + u32(vals.count)
            let encoded = vals.flatMap { e.1 == 3 ? u16($0) : u32($0) }
            if valueSizes[i] == 0 {
                out += encoded + [UInt8](repeating: 0, count: 4 - encoded.count)
            } else {
                out += u32(valueAt)
                values += encoded
                valueAt += encoded.count
            }
        }
        out += u32(0)
        out += values
        if directoryFirst { out += data }
        return out
    }

    private func u16(_ v: Int) -> [UInt8] {
        bigEndian ? [UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)]
    }

    private func u32(_ v: Int) -> [UInt8] {
        let b = (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) }
        return bigEndian ? b.reversed() : b
    }

    /// Writes the file into `folder` as `name`, returning its path.
    func write(to folder: URL, _ name: String) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(bytes()).write(to: url)
        return url.path
    }
}

/// A small reader of a classic TIFF's IFDs for checking what the encoder wrote, independent of
/// the decoder's code: entries of the IFD at `offset` as (tag, type, count, value bytes).
struct IFDReader {
    let bytes: [UInt8]
    var bigEndian: Bool { bytes[0] == 0x4D }

    func u16(_ o: Int) -> Int { bigEndian ? Int(bytes[o]) << 8 | Int(bytes[o + 1]) : Int(bytes[o + 1]) << 8 | Int(bytes[o]) }
    func u32(_ o: Int) -> Int {
        (0..<4).reduce(0) { $0 << 8 | Int(bytes[o + (bigEndian ? $1 : 3 - $1)]) }
    }
    var firstIFD: Int { u32(4) }

    func entries(at offset: Int) -> [(tag: Int, type: Int, count: Int, value: [UInt8])] {
        let sizes = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4]
        return (0..<u16(offset)).map { i in
            let e = offset + 2 + 12 * i
            let (tag, type, count) = (u16(e), u16(e + 2), u32(e + 4))
            let size = (sizes[type] ?? 1) * count
            let start = size <= 4 ? e + 8 : u32(e + 8)
            return (tag, type, count, Array(bytes[start..<(start + size)]))
        }
    }

    func value(of tag: Int, at offset: Int) -> Int? {
        guard let e = entries(at: offset).first(where: { $0.tag == tag }) else { return nil }
        return e.type == 3 ? (bigEndian ? Int(e.value[0]) << 8 | Int(e.value[1]) : Int(e.value[1]) << 8 | Int(e.value[0]))
            : IFDReader(bytes: (bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]) + [0, 0] + e.value).u32(4)
    }
}
