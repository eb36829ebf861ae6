import RecipeCore

/// Tells a camera raw file from other images by its content, never by its name.
///
/// Most raw formats have a magic of their own that no other decoder claims (ORF's `IIRO`, RW2's
/// `IIU`, RAF's `FUJIFILM`, CR3's `crx ` brand, MRW, QuickTake, Kodak's): those fall through the
/// other formats' sniffing to LibRaw. The rest are TIFF files (DNG, CR2, NEF, ARW, PEF, SRW,
/// 3FR, ERF, …), told from a plain TIFF by what only a raw TIFF has: CR2's `CR` after the header,
/// a `DNGVersion` tag, or an image whose photometric interpretation is a colour filter array
/// (32803) or DNG's linear raw (34892), in IFD0 or a sub-IFD.
///
/// ```swift
/// RawDetection.isRawTIFF(try InputFile.prefix("IMG_0001.DNG", count: RawDetection.probeLength))  // true
/// ```
public enum RawDetection {
    /// How much of a TIFF file the probe reads: the IFDs of raw TIFFs sit at its start.
    public static let probeLength = 1 << 18

    /// The extensions of the raw formats LibRaw 0.20 reads (lower case): what `apply` walks by
    /// default besides the other formats. A file is still recognised by content.
    public static let extensions = ["dng", "cr2", "cr3", "crw", "nef", "nrw", "arw", "srf", "sr2", "raf", "orf", "rw2", "rwl",
                                    "pef", "ptx", "srw", "iiq", "3fr", "fff", "erf", "kdc", "dcr", "dcs", "mrw", "mef", "mos",
                                    "x3f", "rwz", "qtk", "k25", "bay", "cap", "mdc", "ari", "sti"]

    /// Camera raw formats LibRaw 0.20 cannot decode, by extension, with why: a batch names each
    /// such file it finds instead of passing it by silently, and refuses one given by name.
    public static let unreadable = [
        "gpr": "GoPro's GPR raw (a DNG compressed with VC-5), which LibRaw 0.20 cannot decode; GoPro's gpr_tools converts it to a plain DNG",
    ]

    /// Why a file with this name is a raw recipe cannot read, nil for any other name.
    public static func unreadableReason(_ path: String) -> String? {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: ".") else { return nil }
        return unreadable[name[name.index(after: dot)...].lowercased()]
    }

    /// Whether a file name ends in one of `extensions` (any case).
    public static func hasRawExtension(_ path: String) -> Bool {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: ".") else { return false }
        return extensions.contains(name[name.index(after: dot)...].lowercased())
    }

    public static func isRawTIFF(_ b: [UInt8]) -> Bool {
        guard b.count >= 16 else { return false }
        let little = b[0] == 0x49
        if little && b[8] == 0x43 && b[9] == 0x52 { return true }  // "CR": Canon CR2
        func u16(_ o: Int) -> Int? {
            guard o >= 0, o + 2 <= b.count else { return nil }
            return little ? Int(b[o]) | Int(b[o + 1]) << 8 : Int(b[o]) << 8 | Int(b[o + 1])
        }
        func u32(_ o: Int) -> Int? {
            guard let lo = u16(little ? o : o + 2), let hi = u16(little ? o + 2 : o) else { return nil }
            return hi << 16 | lo
        }
        guard let first = u32(4) else { return false }
        var queue = [first]
        var seen = Set<Int>()
        while let ifd = queue.popLast(), seen.count < 32 {
            guard ifd >= 8, seen.insert(ifd).inserted, let count = u16(ifd), count < 1000 else { continue }
            for i in 0..<count {
                let e = ifd + 2 + 12 * i
                guard let tag = u16(e), let type = u16(e + 2), let n = u32(e + 4) else { break }
                switch tag {
                case 0xC612: return true  // DNGVersion
                case 0x0106:  // PhotometricInterpretation
                    if let v = u16(e + 8), v == 32803 || v == 34892 { return true }
                case 0x014A:  // SubIFDs
                    if n == 1 { u32(e + 8).map { queue.append($0) } }
                    else if let at = u32(e + 8), type == 4 || type == 13 {
                        for k in 0..<min(n, 8) { u32(at + 4 * k).map { queue.append($0) } }
                    }
                default: break
                }
            }
            if let next = u32(ifd + 2 + 12 * count), next != 0 { queue.append(next) }
        }
        return false
    }
}
