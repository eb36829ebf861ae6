/// IPTC-IIM datasets (the records inside Photoshop resource 0x0404), read and written for the
/// export metadata policy: each dataset is 0x1C, record, dataset number, a 2-byte big-endian
/// length (or, with its top bit set, the length of a longer length), then the value.
///
/// ```swift
/// var sets = IIM.dataSets(in: iim)
/// sets.removeAll { $0.record == 2 && $0.number == 90 }   // City
/// let bytes = IIM.bytes(of: sets)
/// ```
public enum IIM {
    /// One dataset: record 1 is the envelope (1:90 the character set), record 2 the application
    /// record (2:80 By-line, 2:116 Copyright Notice, 2:90 City …).
    public struct DataSet: Sendable, Equatable {
        public var record: UInt8
        public var number: UInt8
        public var value: [UInt8]

        public init(record: UInt8, number: UInt8, value: [UInt8]) {
            self.record = record
            self.number = number
            self.value = value
        }
    }

    /// 2:80 By-line (the creator; repeatable).
    public static let byline: UInt8 = 80
    /// 2:116 Copyright Notice.
    public static let copyrightNotice: UInt8 = 116
    /// 2:90 City, 2:92 Sub-location, 2:95 Province/State, 2:100 Country Code, 2:101 Country.
    public static let locationDataSets: Set<UInt8> = [90, 92, 95, 100, 101]
    /// 1:90 Coded Character Set: ESC % G declares UTF-8.
    public static let utf8Declaration: [UInt8] = [0x1B, 0x25, 0x47]

    /// The whole datasets at the start of `bytes` (what follows a damaged one is left out).
    public static func dataSets(in bytes: [UInt8]) -> [DataSet] {
        var sets: [DataSet] = []
        let end = PhotoshopResources.iimLength(bytes)
        var i = 0
        while i < end {
            var length = Int(bytes[i + 3]) << 8 | Int(bytes[i + 4])
            var header = 5
            if length & 0x8000 != 0 {
                let digits = length & 0x7FFF
                length = bytes[(i + 5)..<(i + 5 + digits)].reduce(0) { $0 << 8 | Int($1) }
                header += digits
            }
            sets.append(DataSet(record: bytes[i + 1], number: bytes[i + 2], value: Array(bytes[(i + header)..<(i + header + length)])))
            i += header + length
        }
        return sets
    }

    /// `sets` written out, a value over 32767 bytes with the extended (4-byte) length.
    public static func bytes(of sets: [DataSet]) -> [UInt8] {
        var out: [UInt8] = []
        for set in sets {
            out += [0x1C, set.record, set.number]
            let n = set.value.count
            if n <= 0x7FFF {
                out += [UInt8(n >> 8), UInt8(n & 0xFF)]
            } else {
                out += [0x80, 4, UInt8(n >> 24 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
            }
            out += set.value
        }
        return out
    }

    /// Whether the datasets declare UTF-8 (1:90 is ESC % G).
    public static func declaresUTF8(_ sets: [DataSet]) -> Bool {
        sets.contains { $0.record == 1 && $0.number == 90 && $0.value == utf8Declaration }
    }

    /// Application-record text of `number`, in order (decoded as UTF-8 when the datasets declare
    /// it or the bytes are valid UTF-8, else as Latin-1).
    public static func texts(_ number: UInt8, in sets: [DataSet]) -> [String] {
        sets.filter { $0.record == 2 && $0.number == number }.map { text($0.value) }.filter { !$0.isEmpty }
    }

    /// `sets` with every 2:80 and 2:116 replaced by `creators` and `copyright` (each left as it
    /// was when nil; cut to IIM's 32 and 128 bytes), 1:90 declaring UTF-8: text that was not UTF-8 is taken as Latin-1 (what
    /// IIM readers assume without 1:90) and converted, binary datasets kept as they are.
    public static func settingCredits(_ sets: [DataSet], copyright: String?, creators: [String]?) -> [DataSet] {
        var out = sets
        if !declaresUTF8(out) {
            out.removeAll { $0.record == 1 && $0.number == 90 }
            out = out.map { set in
                guard set.record == 2, isText(set.number), String(validating: set.value, as: UTF8.self) == nil else { return set }
                return DataSet(record: 2, number: set.number, value: Array(text(set.value).utf8))
            }
            let at = out.firstIndex { $0.record > 1 } ?? out.endIndex
            out.insert(DataSet(record: 1, number: 90, value: utf8Declaration), at: at)
        }
        var added: [DataSet] = []
        if let creators {
            out.removeAll { $0.record == 2 && $0.number == byline }
            added += creators.map { DataSet(record: 2, number: byline, value: truncated($0, toBytes: 32)) }
        }
        if let copyright {
            out.removeAll { $0.record == 2 && $0.number == copyrightNotice }
            added.append(DataSet(record: 2, number: copyrightNotice, value: truncated(copyright, toBytes: 128)))
        }
        if !out.contains(where: { $0.record == 2 && $0.number == 0 }) {
            added.insert(DataSet(record: 2, number: 0, value: [0, 4]), at: 0)  // Record Version 4
        }
        // Each new dataset after the last of its record with a number not above its own.
        for set in added {
            let at = out.lastIndex { $0.record < set.record || ($0.record == set.record && $0.number <= set.number) }.map { $0 + 1 } ?? 0
            out.insert(set, at: at)
        }
        return out
    }

    /// The longest whole-character prefix of `text` within `limit` UTF-8 bytes: IIM caps By-line
    /// at 32 bytes and Copyright Notice at 128 (EXIF and XMP, which have no cap, keep it whole).
    static func truncated(_ text: String, toBytes limit: Int) -> [UInt8] {
        var out: [UInt8] = []
        for c in text {
            guard out.count + c.utf8.count <= limit else { break }
            out += c.utf8
        }
        return out
    }

    /// Application-record datasets holding text: all but Record Version (2:0), the rasterised
    /// caption (2:125) and the object preview (2:200–2:202).
    static func isText(_ number: UInt8) -> Bool { number != 0 && number != 125 && number < 200 }

    static func text(_ value: [UInt8]) -> String {
        String(validating: value, as: UTF8.self) ?? String(value.map { Character(Unicode.Scalar($0)) })
    }
}
