import RecipeCore
#if canImport(Glibc)
import Glibc
#endif

extension RawImageInfo {
    /// The EXIF essentials of a raw file as a standalone EXIF block (`II*\0`, IFD0 at 8), for the
    /// outputs to carry: Make, Model and Orientation in IFD0; exposure time, f-number, ISO, the
    /// original date, focal length, lens and the image size in the EXIF IFD; position in the GPS
    /// IFD. Nil when the file says none of it. (LibRaw hands over parsed values, not the file's
    /// EXIF bytes, so the block is written anew; a raw's maker notes are not carried.)
    ///
    /// ```swift
    /// raw.exifBlock(orientation: .right, width: 6000, height: 4000)   // [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, …]
    /// ```
    func exifBlock(orientation: Orientation, width: Int, height: Int) -> [UInt8]? {
        typealias Entry = TIFFRawIFD.Entry
        func u16(_ v: Int) -> [UInt8] { [UInt8(v & 255), UInt8(v >> 8 & 255)] }
        func u32(_ v: Int) -> [UInt8] { u16(v & 0xFFFF) + u16(v >> 16 & 0xFFFF) }
        func ascii(_ tag: UInt16, _ s: String) -> Entry? {
            let bytes = Array(s.utf8.prefix(255))
            return bytes.isEmpty ? nil : Entry(tag: tag, type: 2, count: UInt32(bytes.count + 1), value: bytes + [0])
        }
        func short(_ tag: UInt16, _ v: Int) -> Entry { Entry(tag: tag, type: 3, count: 1, value: u16(min(max(v, 0), 65535))) }
        func long(_ tag: UInt16, _ v: Int) -> Entry { Entry(tag: tag, type: 4, count: 1, value: u32(v)) }
        func rational(_ tag: UInt16, _ values: [(Int, Int)]) -> Entry {
            Entry(tag: tag, type: 5, count: UInt32(values.count), value: values.flatMap { u32($0.0) + u32($0.1) })
        }
        func tenths(_ v: Double) -> (Int, Int) { (Int((v * 10).rounded()), 10) }

        var ifd0 = TIFFRawIFD()
        var exif = TIFFRawIFD()
        var gpsIFD = TIFFRawIFD()
        ifd0.entries += [ascii(0x010F, make), ascii(0x0110, model)].compactMap { $0 }
        if let shutter { exif.entries.append(rational(0x829A, [shutter < 1 ? (1, Int((1 / shutter).rounded())) : tenths(shutter)])) }
        if let aperture { exif.entries.append(rational(0x829D, [tenths(aperture)])) }
        if let iso { exif.entries.append(short(0x8827, Int(iso.rounded()))) }
        if let timestamp {
            // LibRaw read the date as local time (mktime): the same clock turns it back.
            var t = time_t(timestamp)
            var parts = tm()
            localtime_r(&t, &parts)
            func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
            let date = "\(parts.tm_year + 1900):\(two(parts.tm_mon + 1)):\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
            exif.entries += [ascii(0x9003, date)].compactMap { $0 }
            ifd0.entries += [ascii(0x0132, date)].compactMap { $0 }
        }
        if let focalLength { exif.entries.append(rational(0x920A, [tenths(focalLength)])) }
        if let lens = ascii(0xA434, self.lens) { exif.entries.append(lens) }
        if let gps {
            func dms(_ v: Double) -> [(Int, Int)] {
                let a = abs(v), d = a.rounded(.down), m = ((a - d) * 60).rounded(.down)
                let seconds: Double = ((a - d) * 60 - m) * 60
                return [(Int(d), 1), (Int(m), 1), (Int((seconds * 1000).rounded()), 1000)]
            }
            gpsIFD.entries = [Entry(tag: 0, type: 1, count: 4, value: [2, 3, 0, 0])]
            gpsIFD.entries += [ascii(1, gps.latitude < 0 ? "S" : "N"), ascii(3, gps.longitude < 0 ? "W" : "E")].compactMap { $0 }
            gpsIFD.entries += [rational(2, dms(gps.latitude)), rational(4, dms(gps.longitude)),
                               Entry(tag: 5, type: 1, count: 1, value: [gps.altitude < 0 ? 1 : 0]),
                               rational(6, [(Int((abs(gps.altitude) * 100).rounded()), 100)])]
        }
        guard !ifd0.entries.isEmpty || !exif.entries.isEmpty || !gpsIFD.entries.isEmpty else { return nil }
        ifd0.entries.append(short(0x0112, orientation.rawValue))
        exif.entries += [Entry(tag: 0x9000, type: 7, count: 4, value: Array("0232".utf8)), long(0xA002, width), long(0xA003, height)]
        ifd0.entries.append(Entry(tag: TIFFRawIFD.exifPointer, type: 4, count: 1, value: [0, 0, 0, 0]))
        ifd0.children[TIFFRawIFD.exifPointer] = exif
        if !gpsIFD.entries.isEmpty {
            ifd0.entries.append(Entry(tag: TIFFRawIFD.gpsPointer, type: 4, count: 1, value: [0, 0, 0, 0]))
            ifd0.children[TIFFRawIFD.gpsPointer] = gpsIFD
        }
        return [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0] + ifd0.serialized(at: 8, bigEndian: false)
    }
}
