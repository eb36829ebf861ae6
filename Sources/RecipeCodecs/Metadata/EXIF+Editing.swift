import RecipeCore

/// Removes IFD entries and sets IFD0's text entries in place, for the export metadata policy
/// (`ImageMetadata.applying(_:)`).
///
/// Hand-written rather than done with a C++ library such as Exiv2: the job is three edits (drop
/// the GPS IFD, drop a few Exif IFD entries, set Artist and Copyright) of a block whose layout
/// must not move. Maker notes and the IFD1 thumbnail hold offsets counted from the start of the
/// block, which a library that re-serialises the block shifts (Exiv2 rewrites the maker notes it
/// knows and leaves the others pointing at the wrong bytes). Here every byte that is kept stays at
/// its offset: a removed entry's successors move up within their own IFD table, and an IFD0 that
/// must grow is copied whole to the end of the block.
///
/// ```swift
/// var exif = EXIF(bytes)!
/// exif.removeLocation()                               // GPS IFD unlinked and zeroed
/// exif.setText([(EXIF.copyrightTag, Array("© 2026 Zoë".utf8))])
/// ```
extension EXIF {
    /// IFD0 Artist (the creator).
    public static let artistTag: UInt16 = 0x013B
    /// IFD0 Copyright.
    public static let copyrightTag: UInt16 = 0x8298
    /// IFD0's pointer to the GPS IFD.
    static let gpsPointerTag: UInt16 = 0x8825
    /// Tags naming one camera or one person: CameraOwnerName, BodySerialNumber, LensSerialNumber,
    /// MakerNote (maker notes carry serial numbers too) and DNG's CameraSerialNumber.
    static let serialTags: Set<UInt16> = [0xA430, 0xA431, 0xA435, 0x927C, 0xC62F]

    /// One 12-byte IFD entry: where it sits and, when its value does not fit in the entry's last
    /// four bytes, where the value is.
    struct Entry {
        var at: Int
        var tag: UInt16
        var type: UInt16
        var count: Int
        var outOfLine: Range<Int>?
    }

    /// An entry to write into a new IFD table: either its 4-byte value field copied as stored
    /// (an offset in it stays valid because nothing it points to moves) or a value laid out anew.
    struct NewEntry {
        enum Value {
            case field([UInt8])
            case data([UInt8])
        }

        var tag: UInt16
        var type: UInt16
        var count: Int
        var value: Value
    }

    private var reader: Reader { Reader(bytes: bytes, bigEndian: bigEndian) }

    /// The entries of the IFD at `off`, in table order.
    func entries(inIFD off: Int) -> [Entry] {
        let r = reader
        guard let n = r.u16(off).map(Int.init), off + 2 + n * 12 + 4 <= bytes.count else { return [] }
        return (0..<n).map { i in
            let e = off + 2 + i * 12
            let type = r.u16(e + 2)!, count = Int(r.u32(e + 4)!)
            let size = Reader.typeSize(type) * count
            var value: Range<Int>?
            if size > 4, let vo = r.u32(e + 8).map(Int.init), vo <= bytes.count, size <= bytes.count - vo { value = vo..<(vo + size) }
            return Entry(at: e, tag: r.u16(e)!, type: type, count: count, outOfLine: value)
        }
    }

    /// The value bytes of `entry` as stored (in the block's byte order).
    func valueBytes(_ entry: Entry) -> [UInt8] {
        if let range = entry.outOfLine { return Array(bytes[range]) }
        let size = min(4, Reader.typeSize(entry.type) * entry.count)
        return Array(bytes[(entry.at + 8)..<(entry.at + 8 + size)])
    }

    /// IFD0's text entry `tag` (ASCII or UNDEFINED), without its trailing NULs; nil when absent
    /// or empty.
    public func text(tag: UInt16) -> [UInt8]? {
        guard let e = entries(inIFD: ifd0).first(where: { $0.tag == tag }), e.type == 2 || e.type == 7 else { return nil }
        var value = valueBytes(e)
        while value.last == 0 { value.removeLast() }
        return value.isEmpty ? nil : value
    }

    /// The IFD that entry `tag` of the IFD at `off` points to.
    func subIFD(_ tag: UInt16, in off: Int) -> Int? {
        guard let e = entry(tag: tag, inIFD: off) else { return nil }
        return reader.u32(e + 8).map(Int.init)
    }

    /// Unlinks the GPS IFD and zeroes it with its values, so no coordinate stays in the bytes.
    public mutating func removeLocation() {
        var freed: [Range<Int>] = []
        for ifd in EXIF.check(bytes).ok?.ifds ?? [] {
            guard let gps = subIFD(EXIF.gpsPointerTag, in: ifd) else { continue }
            let table = entries(inIFD: gps)
            freed.append(gps..<min(bytes.count, gps + 2 + table.count * 12 + 4))
            freed += table.compactMap(\.outOfLine)
            freed += removeEntries(Set([EXIF.gpsPointerTag]), inIFD: ifd)
        }
        zeroUnused(freed)
    }

    /// Removes the owner's name, the body and lens serial numbers and the maker notes from IFD0
    /// and the Exif IFD, zeroing their values.
    public mutating func removeSerials() {
        var freed = removeEntries(EXIF.serialTags, inIFD: ifd0)
        if let exifIFD = subIFD(0x8769, in: ifd0) { freed += removeEntries(EXIF.serialTags, inIFD: exifIFD) }
        zeroUnused(freed)
    }

    /// Removes the entries whose tag is in `tags` from the IFD at `off`: the entries after each
    /// move up, the count drops, the next-IFD offset moves up behind the last entry. Returns the
    /// bytes no longer used (the removed values and the table's freed tail), for `zeroUnused`.
    mutating func removeEntries(_ tags: Set<UInt16>, inIFD off: Int) -> [Range<Int>] {
        let all = entries(inIFD: off)
        let kept = all.filter { !tags.contains($0.tag) }
        guard kept.count < all.count else { return [] }
        let nextAt = off + 2 + all.count * 12
        let next = Array(bytes[nextAt..<(nextAt + 4)])
        var table = encode16(UInt16(kept.count))
        for e in kept { table += bytes[e.at..<(e.at + 12)] }
        table += next
        bytes.replaceSubrange(off..<(off + table.count), with: table)
        return all.filter { tags.contains($0.tag) }.compactMap(\.outOfLine) + [(off + table.count)..<(nextAt + 4)]
    }

    /// Sets IFD0 text entries (ASCII, stored NUL-terminated), replacing those present. A value
    /// that fits where the old one was is written there; a longer one goes to the end of the
    /// block. When a tag is new, IFD0 (its entries plus the new ones, sorted by tag as TIFF
    /// requires) is copied to the end of the block and the header pointed at it, the old table
    /// zeroed; every other byte keeps its offset.
    public mutating func setText(_ values: [(tag: UInt16, text: [UInt8])]) {
        var freed: [Range<Int>] = []
        var added: [NewEntry] = []
        for (tag, text) in values {
            let value = text + [0]
            guard let e = entries(inIFD: ifd0).first(where: { $0.tag == tag }) else {
                added.append(NewEntry(tag: tag, type: 2, count: value.count, value: .data(value)))
                continue
            }
            bytes.replaceSubrange((e.at + 2)..<(e.at + 8), with: encode16(2) + encode32(UInt32(value.count)))
            if value.count <= 4 {
                bytes.replaceSubrange((e.at + 8)..<(e.at + 12), with: value + [UInt8](repeating: 0, count: 4 - value.count))
                freed += [e.outOfLine].compactMap { $0 }
            } else if let old = e.outOfLine, value.count <= old.count {
                bytes.replaceSubrange(old.lowerBound..<(old.lowerBound + value.count), with: value)
                freed.append((old.lowerBound + value.count)..<old.upperBound)
            } else {
                let at = appendAligned(value)
                bytes.replaceSubrange((e.at + 8)..<(e.at + 12), with: encode32(UInt32(at)))
                freed += [e.outOfLine].compactMap { $0 }
            }
        }
        if !added.isEmpty { freed += moveIFD0(adding: added) }
        zeroUnused(freed)
    }

    /// Copies IFD0 with `added` to the end of the block and points the header at the copy;
    /// returns the old table's bytes.
    private mutating func moveIFD0(adding added: [NewEntry]) -> [Range<Int>] {
        let old = entries(inIFD: ifd0)
        let oldRange = ifd0..<(ifd0 + 2 + old.count * 12 + 4)
        let next = Array(bytes[(oldRange.upperBound - 4)..<oldRange.upperBound])
        let kept = old.map { NewEntry(tag: $0.tag, type: $0.type, count: $0.count, value: .field(Array(bytes[($0.at + 8)..<($0.at + 12)]))) }
        let all = (kept + added).sorted { $0.tag < $1.tag }
        if bytes.count % 2 == 1 { bytes.append(0) }
        let at = bytes.count
        bytes += EXIF.ifd(all, at: at, next: next, bigEndian: bigEndian)
        bytes.replaceSubrange(4..<8, with: encode32(UInt32(at)))
        ifd0 = at
        return [oldRange]
    }

    /// An IFD table at offset `at` of the block, followed by the values that do not fit in their
    /// entries (each on an even offset).
    static func ifd(_ entries: [NewEntry], at: Int, next: [UInt8], bigEndian: Bool) -> [UInt8] {
        func encode16(_ v: UInt16) -> [UInt8] { EXIF.encode16(v, bigEndian: bigEndian) }
        func encode32(_ v: UInt32) -> [UInt8] { EXIF.encode32(v, bigEndian: bigEndian) }
        var table = encode16(UInt16(entries.count))
        var values: [UInt8] = []
        let valuesAt = at + 2 + entries.count * 12 + 4
        for e in entries {
            table += encode16(e.tag) + encode16(e.type) + encode32(UInt32(e.count))
            switch e.value {
            case .field(let field):
                table += field
            case .data(let data) where data.count <= 4:
                table += data + [UInt8](repeating: 0, count: 4 - data.count)
            case .data(let data):
                table += encode32(UInt32(valuesAt + values.count))
                values += data
                if values.count % 2 == 1 { values.append(0) }
            }
        }
        return table + next + values
    }

    /// A new block in the given byte order holding only IFD0 with `entries` (sorted by tag).
    static func minimal(bigEndian: Bool, entries: [NewEntry]) -> [UInt8] {
        let header: [UInt8] = bigEndian ? [0x4D, 0x4D, 0, 42, 0, 0, 0, 8] : [0x49, 0x49, 42, 0, 8, 0, 0, 0]
        return header + ifd(entries.sorted { $0.tag < $1.tag }, at: 8, next: [0, 0, 0, 0], bigEndian: bigEndian)
    }

    /// Appends `value` on an even offset and returns that offset.
    private mutating func appendAligned(_ value: [UInt8]) -> Int {
        if bytes.count % 2 == 1 { bytes.append(0) }
        let at = bytes.count
        bytes += value
        return at
    }

    /// Zeroes the bytes of `freed` that nothing left in the block uses: no IFD table, no entry's
    /// value and no thumbnail or strip of IFD1. A damaged or hostile block whose values overlap
    /// keeps the overlapping bytes rather than losing a value it still refers to.
    mutating func zeroUnused(_ freed: [Range<Int>]) {
        guard !freed.isEmpty else { return }
        var used = [Bool](repeating: false, count: bytes.count)
        func mark(_ range: Range<Int>) {
            let r = range.clamped(to: 0..<bytes.count)
            for i in r { used[i] = true }
        }
        mark(0..<8)
        for off in EXIF.check(bytes).ok?.ifds ?? [ifd0] {
            let table = entries(inIFD: off)
            mark(off..<(off + 2 + table.count * 12 + 4))
            table.compactMap(\.outOfLine).forEach(mark)
            for (offsetTag, lengthTag) in [(UInt16(0x0201), UInt16(0x0202)), (0x0111, 0x0117)] {
                guard let offsets = table.first(where: { $0.tag == offsetTag }).map({ integers($0) }),
                      let lengths = table.first(where: { $0.tag == lengthTag }).map({ integers($0) }) else { continue }
                for (o, n) in zip(offsets, lengths) where o >= 0 && n >= 0 && o <= bytes.count { mark(o..<(o + min(n, bytes.count - o))) }
            }
        }
        for range in freed {
            for i in range.clamped(to: 0..<bytes.count) where !used[i] { bytes[i] = 0 }
        }
    }

    /// The SHORT or LONG values of `entry` (an offset or length list).
    private func integers(_ entry: Entry) -> [Int] {
        let r = Reader(bytes: valueBytes(entry), bigEndian: bigEndian)
        switch entry.type {
        case 3: return (0..<min(entry.count, r.bytes.count / 2)).compactMap { r.u16($0 * 2).map(Int.init) }
        case 4: return (0..<min(entry.count, r.bytes.count / 4)).compactMap { r.u32($0 * 4).map(Int.init) }
        default: return []
        }
    }

    func encode16(_ v: UInt16) -> [UInt8] { EXIF.encode16(v, bigEndian: bigEndian) }
    func encode32(_ v: UInt32) -> [UInt8] { EXIF.encode32(v, bigEndian: bigEndian) }

    static func encode16(_ v: UInt16, bigEndian: Bool) -> [UInt8] {
        bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)]
    }

    static func encode32(_ v: UInt32, bigEndian: Bool) -> [UInt8] {
        let be = [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
        return bigEndian ? be : be.reversed()
    }
}

extension EXIF {
    /// A new block holding only IFD0: Orientation 1, the resolution and YCbCr positioning that
    /// EXIF requires of IFD0 (copied from `original` when it has them, else 72 dpi and centred),
    /// and the text entries `texts`; in `original`'s byte order, little-endian without one.
    static func textsOnly(_ texts: [(tag: UInt16, text: [UInt8])], original: EXIF?) -> [UInt8] {
        let bigEndian = original?.bigEndian ?? false
        let inIFD0 = original.map { $0.entries(inIFD: $0.ifd0) } ?? []
        func copied(_ tag: UInt16, type: UInt16, otherwise value: [UInt8]) -> NewEntry {
            if let original, let e = inIFD0.first(where: { $0.tag == tag && $0.type == type && $0.count == 1 }) {
                return NewEntry(tag: tag, type: type, count: 1, value: .data(original.valueBytes(e)))
            }
            return NewEntry(tag: tag, type: type, count: 1, value: .data(value))
        }
        let short = { (v: UInt16) in encode16(v, bigEndian: bigEndian) + [0, 0] }
        let dpi72 = encode32(72, bigEndian: bigEndian) + encode32(1, bigEndian: bigEndian)
        var entries = [
            NewEntry(tag: 0x0112, type: 3, count: 1, value: .data(short(1))),
            copied(0x011A, type: 5, otherwise: dpi72),
            copied(0x011B, type: 5, otherwise: dpi72),
            copied(0x0128, type: 3, otherwise: short(2)),
            copied(0x0213, type: 3, otherwise: short(1)),
        ]
        entries += texts.map { NewEntry(tag: $0.tag, type: 2, count: $0.text.count + 1, value: .data($0.text + [0])) }
        return minimal(bigEndian: bigEndian, entries: entries)
    }
}
