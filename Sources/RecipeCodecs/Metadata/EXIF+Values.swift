/// Reads single values of IFD0 and the Exif IFD, for what a photo says about its camera and lens
/// (the lens database's query): text entries as strings, numeric entries as numbers.
///
/// ```swift
/// let exif = EXIF(bytes)!
/// exif.string(0xA434, in: .exif)     // "E 19mm F2.8" (LensModel)
/// exif.numbers(0xA432, in: .exif)    // [19, 19, 2.8, 2.8] (LensSpecification)
/// exif.numbers(0x920A, in: .exif)    // [19] (FocalLength)
/// ```
extension EXIF {
    /// Where an entry lives: IFD0 (Make, Model) or the Exif sub-IFD (exposure and lens tags).
    public enum Directory: Sendable {
        case ifd0
        case exif
    }

    /// The IFD's offset, nil when the block has no Exif IFD.
    private func offset(of directory: Directory) -> Int? {
        switch directory {
        case .ifd0: ifd0
        case .exif: subIFD(0x8769, in: ifd0)
        }
    }

    /// An ASCII (or UNDEFINED) entry as text, trimmed of NULs and spaces; nil when absent or empty.
    public func string(_ tag: UInt16, in directory: Directory) -> String? {
        guard let off = offset(of: directory), let e = entries(inIFD: off).first(where: { $0.tag == tag }),
              e.type == 2 || e.type == 7 else { return nil }
        let value = valueBytes(e).prefix { $0 != 0 }
        let text = String(decoding: value, as: UTF8.self).trimmingCharacters(in: " ")
        return text.isEmpty ? nil : text
    }

    /// A numeric entry's values (BYTE, SHORT, LONG, RATIONAL and their signed kinds); nil when
    /// absent or not numeric. A rational with a zero denominator is NaN (EXIF's "unknown").
    public func numbers(_ tag: UInt16, in directory: Directory) -> [Double]? {
        guard let off = offset(of: directory), let e = entries(inIFD: off).first(where: { $0.tag == tag }) else { return nil }
        let r = Reader(bytes: valueBytes(e), bigEndian: bigEndian)
        let size = Reader.typeSize(e.type)
        guard [1, 3, 4, 5, 6, 8, 9, 10].contains(e.type), e.count > 0, r.bytes.count >= size * e.count else { return nil }
        return (0..<e.count).map { i -> Double in
            let at = i * size
            switch e.type {
            case 1: return Double(r.bytes[at])
            case 6: return Double(Int8(bitPattern: r.bytes[at]))
            case 3: return Double(r.u16(at)!)
            case 8: return Double(Int16(bitPattern: r.u16(at)!))
            case 4: return Double(r.u32(at)!)
            case 9: return Double(Int32(bitPattern: r.u32(at)!))
            case 5:
                let d = r.u32(at + 4)!
                return d == 0 ? .nan : Double(r.u32(at)!) / Double(d)
            default:
                let d = Int32(bitPattern: r.u32(at + 4)!)
                return d == 0 ? .nan : Double(Int32(bitPattern: r.u32(at)!)) / Double(d)
            }
        }
    }
}

extension String {
    /// The text without leading and trailing `character`s.
    fileprivate func trimmingCharacters(in character: Character) -> String {
        guard let first = firstIndex(where: { $0 != character }), let last = lastIndex(where: { $0 != character }) else { return "" }
        return String(self[first...last])
    }
}
