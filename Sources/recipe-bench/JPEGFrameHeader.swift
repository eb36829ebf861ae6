/// The frame header (SOFn segment) of a JPEG file, read straight from the bytes, and the size of the
/// coefficient buffer libjpeg needs to decode it as a progressive (multi-scan) image.
///
/// A progressive JPEG cannot be decoded scanline by scanline: every scan refines every block, so
/// libjpeg (`jdcoefct.c`) keeps one `JBLOCK` (64 × 16-bit coefficients = 128 bytes) per block of every
/// component for the whole image. Each component's block grid is padded to whole MCUs, so
/// for a 4000×6000 4:2:0 photo (MCU 16×16) that is 500×750 + 2 × 250×375 = 562 500 blocks = 72 000 000 bytes.
///
/// ```swift
/// let header = try FileSystem.withMappedFile("photo24-progressive.jpg") { try JPEGFrameHeader(jpeg: $0) }
/// header?.coefficientBufferBytes  // 72_000_000
/// ```
struct JPEGFrameHeader {
    /// One image component as the frame header declares it.
    struct Component {
        /// The component identifier (1, 2, 3 for YCbCr in JFIF files).
        let id: UInt8
        /// Horizontal sampling factor, 1...4.
        let horizontal: Int
        /// Vertical sampling factor, 1...4.
        let vertical: Int
    }

    /// Why a file's frame header could not be read.
    enum ReadError: Error, CustomStringConvertible {
        /// The file does not start with SOI (FF D8).
        case notJPEG
        /// The bytes end, or a scan starts, before any SOFn segment.
        case noFrameHeader
        /// The frame header is malformed (short, zero components, bad sampling factors, or a
        /// height deferred to a DNL marker).
        case malformed(String)

        /// A one-line explanation.
        var description: String {
            switch self {
            case .notJPEG: return "not a JPEG file (no SOI marker)"
            case .noFrameHeader: return "no SOF frame header before the first scan"
            case .malformed(let why): return "malformed frame header: \(why)"
            }
        }
    }

    /// Image width in pixels.
    let width: Int
    /// Image height in pixels.
    let height: Int
    /// True for SOF2/SOF6/SOF10/SOF14 (progressive DCT).
    let isProgressive: Bool
    /// The components in frame-header order.
    let components: [Component]

    /// Reads the first SOFn segment of `bytes`, walking the marker segments from SOI.
    init<Bytes: RandomAccessCollection>(jpeg bytes: Bytes) throws(ReadError)
    where Bytes.Element == UInt8, Bytes.Index == Int {
        guard bytes.startIndex == 0 else { throw .notJPEG }  // the walk below indexes from 0
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { throw .notJPEG }
        var index = 2
        while index + 1 < bytes.count {
            guard bytes[index] == 0xFF else { index += 1; continue }  // tolerate garbage between segments
            var markerIndex = index + 1
            while markerIndex < bytes.count, bytes[markerIndex] == 0xFF { markerIndex += 1 }  // fill bytes
            guard markerIndex < bytes.count else { break }
            let marker = bytes[markerIndex]
            // Standalone markers carry no length.
            if marker == 0x01 || marker == 0xD8 || (0xD0...0xD7).contains(marker) {
                index = markerIndex + 1
                continue
            }
            if marker == 0xD9 || marker == 0xDA { throw .noFrameHeader }  // EOI or SOS first
            guard markerIndex + 2 < bytes.count else { break }
            let length = Int(bytes[markerIndex + 1]) << 8 | Int(bytes[markerIndex + 2])
            guard length >= 2 else { throw .malformed("segment length \(length)") }
            let body = markerIndex + 3
            if Self.isFrameMarker(marker) {
                self = try Self(frameBody: bytes, at: body, length: length - 2, marker: marker)
                return
            }
            index = markerIndex + 1 + length
        }
        throw .noFrameHeader
    }

    /// Parses an SOFn body: precision, height, width, component count, then (id, HV, Tq) per component.
    private init<Bytes: RandomAccessCollection>(frameBody bytes: Bytes, at start: Int, length: Int, marker: UInt8)
        throws(ReadError) where Bytes.Element == UInt8, Bytes.Index == Int {
        guard length >= 6, start + length <= bytes.count else { throw .malformed("segment is truncated") }
        let height = Int(bytes[start + 1]) << 8 | Int(bytes[start + 2])
        let width = Int(bytes[start + 3]) << 8 | Int(bytes[start + 4])
        let count = Int(bytes[start + 5])
        guard height > 0 else { throw .malformed("height deferred to a DNL marker is not supported") }
        guard width > 0, count > 0 else { throw .malformed("\(width)x\(height), \(count) components") }
        guard length >= 6 + 3 * count else { throw .malformed("\(count) components in \(length) bytes") }
        var components: [Component] = []
        for c in 0..<count {
            let base = start + 6 + 3 * c
            let h = Int(bytes[base + 1] >> 4), v = Int(bytes[base + 1] & 0x0F)
            guard (1...4).contains(h), (1...4).contains(v) else {
                throw .malformed("component \(bytes[base]) sampling \(h)x\(v)")
            }
            components.append(Component(id: bytes[base], horizontal: h, vertical: v))
        }
        self.width = width
        self.height = height
        self.isProgressive = [0xC2, 0xC6, 0xCA, 0xCE].contains(marker)
        self.components = components
    }

    /// True for the SOF0...SOF15 markers that start a frame (C4 DHT, C8 JPG and CC DAC are not frames).
    private static func isFrameMarker(_ marker: UInt8) -> Bool {
        (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
    }

    /// The largest horizontal sampling factor: the MCU is `8 × maxHorizontal` pixels wide.
    var maxHorizontal: Int { components.map(\.horizontal).max() ?? 1 }
    /// The largest vertical sampling factor: the MCU is `8 × maxVertical` pixels tall.
    var maxVertical: Int { components.map(\.vertical).max() ?? 1 }

    /// Blocks of each component with its grid padded to whole MCUs:
    /// `ceil(width / (8·Hmax)) · H × ceil(height / (8·Vmax)) · V`. This equals libjpeg's
    /// `jround_up(width_in_blocks, h_samp_factor) × jround_up(height_in_blocks, v_samp_factor)`.
    var blocksPerComponent: [Int] {
        let mcuColumns = (width + 8 * maxHorizontal - 1) / (8 * maxHorizontal)
        let mcuRows = (height + 8 * maxVertical - 1) / (8 * maxVertical)
        return components.map { mcuColumns * $0.horizontal * mcuRows * $0.vertical }
    }

    /// Bytes of libjpeg's whole-image coefficient buffer: every padded block × 128 bytes.
    var coefficientBufferBytes: Int { blocksPerComponent.reduce(0, +) * 128 }

    /// The sampling factors as `2x2 1x1 1x1`.
    var samplingDescription: String {
        components.map { "\($0.horizontal)x\($0.vertical)" }.joined(separator: " ")
    }
}

extension JPEGFrameHeader {
    /// Why a file's frame header could not be read (the description names the file).
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    /// The frame header of the JPEG file at `path`.
    static func read(path: String) -> Result<JPEGFrameHeader, Problem> {
        let parsed: Result<JPEGFrameHeader, ReadError>? = FileSystem.withMappedFile(path) { bytes in
            Result { () throws(ReadError) in try JPEGFrameHeader(jpeg: bytes) }
        }
        switch parsed {
        case nil: return .failure(Problem(description: "\(path): cannot read: \(FileSystem.errorText())"))
        case .failure(let error)?: return .failure(Problem(description: "\(path): \(error)"))
        case .success(let header)?: return .success(header)
        }
    }
}
