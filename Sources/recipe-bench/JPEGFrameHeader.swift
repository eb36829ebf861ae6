/// The frame header (SOFn segment) of a JPEG file, read straight from the bytes: the engine
/// report's size, progressive flag and chroma sampling of the bench photos and of each row's output.
///
/// ```swift
/// let header = try JPEGFrameHeader.read(path: "photo24-progressive.jpg").get()
/// header.samplingDescription  // "2x2 1x1 1x1"
/// ```
struct JPEGFrameHeader {
    /// One image component's sampling factors as the frame header declares them.
    struct Component {
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
            components.append(Component(horizontal: h, vertical: v))
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
