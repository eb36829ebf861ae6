internal import CWebP
import RecipeCore
#if canImport(Glibc)
import Glibc
#endif

/// A WebP file's bytes and libwebp's index of its chunks and frames (the demuxer), owned together
/// because the index points into the bytes.
///
/// The RIFF is read whole (its 32-bit size caps a WebP at 4 GiB; photos are a few MB); bytes after
/// the end the RIFF header declares are left unread. The demuxer runs in partial mode, so a
/// truncated file still yields the chunks and frames before the cut.
///
/// ```swift
/// let webp = try WebPContainer(path: "photo.webp")
/// webp.chunk("ICCP")          // the profile's bytes, or nil
/// webp.frame(1)?.fragment     // the first frame's ALPH/VP8/VP8L chunks
/// ```
final class WebPContainer {
    /// Where the bytes came from.
    let path: String
    /// The bytes read: the RIFF from its header to its declared end, or to the end of the file.
    let data: UnsafeRawBufferPointer
    /// Size of the file on disk.
    let fileSize: Int
    /// Size the RIFF header declares (its size field + 8).
    let declaredSize: Int
    /// libwebp's chunk index; nil when its demuxer refused the container.
    private let demuxer: OpaquePointer?
    /// How far the demuxer got: `WEBP_DEMUX_DONE` for a whole file.
    let demuxState: WebPDemuxState
    private let storage: UnsafeMutableRawBufferPointer

    /// One frame of the file: where it sits on the canvas and its bitstream (the ALPH, VP8 or
    /// VP8L chunks libwebp's decoder takes as they are; cut short when the file is).
    struct Frame {
        var x: Int
        var y: Int
        var width: Int
        var height: Int
        var fragment: UnsafeRawBufferPointer
    }

    init(path: String) throws(ImageError) {
        self.path = path
        let file = try InputFile.open(path)
        defer { fclose(file) }
        var st = stat()
        guard fstat(fileno(file), &st) == 0 else { throw ImageError(.unreadable, path: path, "cannot read: \(errnoText())") }
        fileSize = Int(st.st_size)
        var header = [UInt8](repeating: 0, count: 12)
        let got = fread(&header, 1, 12, file)
        guard got == 12, header[0..<4].elementsEqual("RIFF".utf8), header[8..<12].elementsEqual("WEBP".utf8) else {
            if ferror(file) != 0 { throw ImageError(.unreadable, path: path, "cannot read: \(errnoText())") }
            let riff = Array("RIFF".utf8), webp = Array("WEBP".utf8)
            if got < 12, header.prefix(min(got, 4)).elementsEqual(riff.prefix(got)),
               got <= 8 || header[8..<got].elementsEqual(webp.prefix(got - 8)) {
                throw ImageError(.damaged, path: path, "file ends inside the WebP header (\(got) bytes, truncated)")
            }
            throw ImageError(.corrupt, path: path, "not a WebP file (no RIFF/WEBP header)")
        }
        declaredSize = (Int(header[4]) | Int(header[5]) << 8 | Int(header[6]) << 16 | Int(header[7]) << 24) + 8
        // A RIFF size below the header's own is libwebp's to report; read at least the header then.
        let count = min(fileSize, max(declaredSize, 12))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
        header.withUnsafeBytes { buffer.copyMemory(from: $0) }
        let rest = count > 12 ? fread(buffer.baseAddress! + 12, 1, count - 12, file) : 0
        if ferror(file) != 0 {
            let e = errnoText()
            buffer.deallocate()
            throw ImageError(.unreadable, path: path, "cannot read: \(e)")
        }
        storage = buffer
        data = UnsafeRawBufferPointer(start: buffer.baseAddress, count: 12 + rest)

        var whole = WebPData(bytes: data.baseAddress!.assumingMemoryBound(to: UInt8.self), size: data.count)
        var state = WEBP_DEMUX_PARSE_ERROR
        demuxer = WebPDemuxPartial(&whole, &state)
        demuxState = demuxer == nil ? WEBP_DEMUX_PARSE_ERROR : state
    }

    deinit {
        if let demuxer { WebPDemuxDelete(demuxer) }
        storage.deallocate()
    }

    /// Whether libwebp's demuxer accepted the container (all of it, or the part before a cut).
    var isIndexed: Bool { demuxer != nil }

    /// Frames indexed so far (1 for a still image once its bitstream chunk is reached).
    var frameCount: Int { demuxer.map { Int(WebPDemuxGetI($0, WEBP_FF_FRAME_COUNT)) } ?? 0 }

    /// An animation's loop count (0 = forever).
    var loopCount: Int { demuxer.map { Int(WebPDemuxGetI($0, WEBP_FF_LOOP_COUNT)) } ?? 0 }

    /// Frame `number` (1-based), or nil when the file has no such frame (or ends before it).
    func frame(_ number: Int) -> Frame? {
        guard let demuxer else { return nil }
        var it = WebPIterator()
        guard WebPDemuxGetFrame(demuxer, Int32(number), &it) != 0 else { return nil }
        defer { WebPDemuxReleaseIterator(&it) }
        guard let bytes = it.fragment.bytes else { return nil }
        return Frame(x: Int(it.x_offset), y: Int(it.y_offset), width: Int(it.width), height: Int(it.height),
                     fragment: UnsafeRawBufferPointer(start: bytes, count: it.fragment.size))
    }

    /// Whether the bytes read reach into a VP8 or VP8L chunk (walking the top-level chunks), that
    /// is whether a still image has any image data at all. Needs no demuxer, which refuses a
    /// complete RIFF without an image.
    var reachesImageChunk: Bool {
        var at = 12
        while at + 8 <= data.count {
            let size = Int(data[at + 4]) | Int(data[at + 5]) << 8 | Int(data[at + 6]) << 16 | Int(data[at + 7]) << 24
            if data[at..<(at + 4)].elementsEqual("VP8 ".utf8) || data[at..<(at + 4)].elementsEqual("VP8L".utf8) {
                return at + 8 < data.count
            }
            at += 8 + size + (size & 1)
        }
        return false
    }

    /// The payload of the first chunk named `fourcc` ("ICCP", "EXIF", "XMP "), and how many such
    /// chunks the file has; nil when there is none.
    func chunk(_ fourcc: String) -> (bytes: [UInt8], count: Int)? {
        guard let demuxer else { return nil }
        var it = WebPChunkIterator()
        guard WebPDemuxGetChunk(demuxer, fourcc, 1, &it) != 0 else { return nil }
        defer { WebPDemuxReleaseChunkIterator(&it) }
        let bytes = it.chunk.bytes.map { Array(UnsafeBufferPointer(start: $0, count: it.chunk.size)) } ?? []
        return (bytes, Int(it.num_chunks))
    }
}
