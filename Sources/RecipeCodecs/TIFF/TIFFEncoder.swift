internal import CTIFF
import RecipeCore
#if canImport(Glibc)
import Glibc
#endif

/// TIFF output settings.
///
/// ```swift
/// let options = TIFFOptions(compression: .lzw)
/// ```
public struct TIFFOptions: Sendable, Equatable {
    /// How the strips are compressed; all three are lossless, LZW and Deflate with horizontal
    /// differencing (predictor 2), which every TIFF reader understands.
    public enum Compression: String, Sendable, CaseIterable { case none, lzw, deflate }
    /// Deflate by default: the smallest of the three, as vips and Photoshop offer it ("ZIP").
    public var compression: Compression = .deflate
    public init(compression: Compression = .deflate) { self.compression = compression }
}

/// Streams rows into a single-image TIFF through libtiff: 8- or 16-bit gray, gray+alpha, RGB or
/// RGBA (unassociated alpha), strips of about 64 KB, orientation 1, with the ICC profile, the XMP
/// packet and the EXIF.
///
/// The EXIF block's EXIF and GPS IFDs are copied entry by entry into the file (see `TIFFRawIFD`:
/// every tag and value as the camera wrote it, only offsets recomputed) and IFD0 points at them;
/// its descriptive IFD0 tags (Make, Model, DateTime, Software, Artist, Copyright,
/// ImageDescription) become the file's own IFD0 tags. The file takes the EXIF block's byte order,
/// so no value needs swapping. Outputs whose uncompressed pixels pass 3.9 GB are written as BigTIFF,
/// without EXIF.
///
/// libtiff writes through the caller's `FILE*` (its close procedure does nothing), so the caller
/// can flush, sync and rename the file after `finish()`.
///
/// ```swift
/// let out = try AtomicOutputFile(path: "out/photo.tif")
/// let tiff = try TIFFEncoder(handle: out.handle, path: out.path, width: 4000, height: 3000,
///                            format: PixelFormat(.rgb, .uint16), metadata: meta, options: TIFFOptions(compression: .lzw))
/// try tiff.writeRows(from: strip) …
/// try tiff.finish()
/// try out.commit()
/// ```
public final class TIFFEncoder: RowSink {
    public let width: Int
    public let height: Int
    public let format: PixelFormat
    /// What was left out of the file (a damaged EXIF block, EXIF in a BigTIFF) and libtiff's warnings.
    public private(set) var warnings: [String] = []

    private let path: String
    private let file: UnsafeMutablePointer<FILE>
    private let handle: TIFFHandle
    /// libtiff's predictor and byte swapping rewrite the row they are given: each row is copied here first.
    private let scratch: UnsafeMutableRawPointer
    private var rowsWritten = 0

    /// Rows per strip for about 64 KB strips.
    static func rowsPerStrip(rowBytes: Int) -> Int { max(1, (64 << 10) / max(rowBytes, 1)) }

    public init(handle file: UnsafeMutablePointer<FILE>, path: String, width: Int, height: Int, format: PixelFormat,
                metadata: ImageMetadata, options: TIFFOptions = TIFFOptions()) throws(ImageError)
    {
        precondition(format.sampleType != .float32, "TIFF takes 8- or 16-bit rows")
        precondition(width > 0 && height > 0, "empty TIFF")
        self.width = width
        self.height = height
        self.format = format
        self.path = path
        self.file = file
        let exif = metadata.exif.flatMap { try? TIFFRawIFD.parse(exifBlock: $0) }
        let bigEndian = exif?.bigEndian ?? false
        let (pixelBytes, overflow) = (width * format.bytesPerPixel).multipliedReportingOverflow(by: height)
        let bigTIFF = overflow || pixelBytes > 3_900_000_000
        self.handle = TIFFHandle(file: file, name: path, mode: "w" + (bigEndian ? "b" : "l") + (bigTIFF ? "8" : ""),
                                 maxSingleAllocation: 512 << 20)
        self.scratch = .allocate(byteCount: width * format.bytesPerPixel, alignment: 64)
        guard handle.tif != nil else { throw failure("libtiff could not start the file") }
        if metadata.exif != nil {
            if let exif, !bigTIFF {
                try writeEXIF(exif.ifd0, bigEndian: bigEndian)
            } else {
                warnings.append(bigTIFF ? "EXIF is not written into a BigTIFF file" : "EXIF block is damaged; not written")
            }
        }
        try writeTags(metadata, compression: options.compression)
    }

    deinit {
        // After finish() this does nothing; before it, the render failed and the caller may have
        // closed the FILE* already: nothing more is written.
        handle.abandon()
        scratch.deallocate()
    }

    private func writeTags(_ m: ImageMetadata, compression: TIFFOptions.Compression) throws(ImageError) {
        let gray = format.colorModel == .gray || format.colorModel == .grayAlpha
        var ok = handle.set(TIFFTAG_IMAGEWIDTH, UInt32(width))
            && handle.set(TIFFTAG_IMAGELENGTH, UInt32(height))
            && handle.set(TIFFTAG_BITSPERSAMPLE, Int32(format.sampleType.bitDepth))
            && handle.set(TIFFTAG_SAMPLESPERPIXEL, Int32(format.channels))
            && handle.set(TIFFTAG_SAMPLEFORMAT, Int32(SAMPLEFORMAT_UINT))
            && handle.set(TIFFTAG_PHOTOMETRIC, Int32(gray ? PHOTOMETRIC_MINISBLACK : PHOTOMETRIC_RGB))
            && handle.set(TIFFTAG_PLANARCONFIG, Int32(PLANARCONFIG_CONTIG))
            && handle.set(TIFFTAG_ORIENTATION, Int32(ORIENTATION_TOPLEFT))
        if format.colorModel.hasAlpha {
            var kind = [UInt16(EXTRASAMPLE_UNASSALPHA)]
            ok = ok && kind.withUnsafeMutableBufferPointer { handle.set(TIFFTAG_EXTRASAMPLES, Int32(1), $0.baseAddress!) }
        }
        switch compression {
        case .none:
            ok = ok && handle.set(TIFFTAG_COMPRESSION, Int32(COMPRESSION_NONE))
        case .lzw:
            ok = ok && handle.set(TIFFTAG_COMPRESSION, Int32(COMPRESSION_LZW)) && handle.set(TIFFTAG_PREDICTOR, Int32(PREDICTOR_HORIZONTAL))
        case .deflate:
            ok = ok && handle.set(TIFFTAG_COMPRESSION, Int32(8)) && handle.set(TIFFTAG_PREDICTOR, Int32(PREDICTOR_HORIZONTAL))
        }
        ok = ok && handle.set(TIFFTAG_ROWSPERSTRIP, UInt32(TIFFEncoder.rowsPerStrip(rowBytes: width * format.bytesPerPixel)))
        if let icc = m.icc { ok = ok && handle.set(TIFFTAG_ICCPROFILE, bytes: icc) }
        if let xmp = m.xmp { ok = ok && handle.set(TIFFTAG_XMLPACKET, bytes: xmp) }
        // IPTC as Photoshop writes it into a TIFF: the image resources, and the IIM records alone.
        if let iptc = m.iptc, let resources = PhotoshopResources.resources(fromAPP13: iptc) {
            ok = ok && handle.set(TIFFTAG_PHOTOSHOP, bytes: resources)
            if let iim = PhotoshopResources.iim(in: resources), !iim.isEmpty {
                let words = PhotoshopResources.padded(iim: iim)
                ok = ok && handle.set(TIFFTAG_RICHTIFFIPTC, bytes: words, unit: handle.unit(of: TIFFTAG_RICHTIFFIPTC))
            }
        }
        guard ok else { throw failure("libtiff refused a tag") }
    }

    /// Writes the EXIF and GPS IFDs of `ifd0` at the end of the file as it is now (just after the
    /// header: libtiff puts the first strip at the end of the file and the IFD after the strips),
    /// points IFD0 at them and copies the descriptive tags.
    private func writeEXIF(_ ifd0: TIFFRawIFD, bigEndian: Bool) throws(ImageError) {
        for problem in ifd0.problems { warnings.append(problem) }
        for tag in TIFFRawIFD.descriptiveTags.sorted() {
            if let text = ifd0.ascii(tag) { handle.set(Int32(tag), ascii: text) }
        }
        for tag in [TIFFRawIFD.exifPointer, TIFFRawIFD.gpsPointer] {
            guard let child = ifd0.children[tag] else { continue }
            guard fseeko(file, 0, SEEK_END) == 0 else { throw ImageError(.writeFailed, path: path, errnoText()) }
            var at = Int(ftello(file))
            if at % 2 == 1 {
                guard fputc(0, file) != EOF else { throw ImageError(.writeFailed, path: path, errnoText()) }
                at += 1
            }
            let bytes = child.serialized(at: at, bigEndian: bigEndian)
            guard fwrite(bytes, 1, bytes.count, file) == bytes.count else { throw ImageError(.writeFailed, path: path, errnoText()) }
            guard handle.set(Int32(tag == TIFFRawIFD.exifPointer ? TIFFTAG_EXIFIFD : TIFFTAG_GPSIFD), UInt64(at)) else {
                throw failure("libtiff refused the EXIF pointer")
            }
        }
    }

    public func writeRows(from buffer: PixelBuffer) throws {
        precondition(buffer.width == width && buffer.format == format, "strip does not match the encoder")
        let n = buffer.rowCount
        precondition(rowsWritten + n <= height, "more rows than the image has")
        let tif = handle.tif!
        for i in 0..<n {
            scratch.copyMemory(from: buffer.row(i), byteCount: buffer.rowBytes)
            guard TIFFWriteScanline(tif, scratch, UInt32(rowsWritten), 0) == 1 else { throw failure("libtiff could not write row \(rowsWritten)") }
            rowsWritten += 1
        }
    }

    public func finish() throws {
        precondition(rowsWritten == height, "TIFF finished after \(rowsWritten) of \(height) rows")
        let ok = TIFFFlush(handle.tif!) == 1
        handle.close()
        warnings += handle.messages.takeWarnings().map(sentence)
        guard ok, handle.messages.errors.isEmpty else { throw failure("libtiff could not finish the file") }
    }

    private func failure(_ fallback: String) -> ImageError {
        let text = handle.messages.lastError
        return ImageError(.writeFailed, path: path, text.isEmpty ? fallback : text)
    }
}
