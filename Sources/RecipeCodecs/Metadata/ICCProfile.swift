/// Reassembles and checks an ICC profile split over JPEG APP2 `ICC_PROFILE` chunks.
///
/// ICC.1:2010 Annex B.4: each chunk carries a 1-based sequence number and the chunk count. A
/// complete set that arrived out of order is repaired (sorted); a set with a count mismatch, a
/// duplicate or zero sequence number, or a missing chunk is dropped, since guessing would write a
/// wrong profile. The result must also look like a profile (`acsp` signature, declared size).
public enum ICCProfile {
    /// One APP2 chunk after the `ICC_PROFILE\0` tag.
    public struct Chunk: Sendable {
        public var sequence: Int
        public var count: Int
        public var data: ArraySlice<UInt8>
        public init(sequence: Int, count: Int, data: ArraySlice<UInt8>) {
            self.sequence = sequence
            self.count = count
            self.data = data
        }
    }

    /// Outcome of reassembly: the profile (if usable) and what was wrong, if anything.
    public struct Assembly: Sendable {
        public var profile: [UInt8]?
        public var problem: String?
    }

    public static func assemble(_ chunks: [Chunk]) -> Assembly {
        guard let first = chunks.first else { return Assembly(profile: nil, problem: nil) }
        let count = first.count
        if chunks.contains(where: { $0.count != count }) {
            return Assembly(profile: nil, problem: "ICC profile chunks disagree on the chunk count; profile dropped")
        }
        if chunks.contains(where: { $0.sequence < 1 || $0.sequence > count }) {
            return Assembly(profile: nil, problem: "ICC profile chunk has an invalid sequence number; profile dropped")
        }
        if Set(chunks.map(\.sequence)).count != chunks.count {
            return Assembly(profile: nil, problem: "ICC profile has duplicate chunk sequence numbers; profile dropped")
        }
        if chunks.count != count {
            return Assembly(profile: nil, problem: "ICC profile is missing \(count - chunks.count) of \(count) chunks; profile dropped")
        }
        let ordered = chunks.sorted { $0.sequence < $1.sequence }
        var profile: [UInt8] = []
        profile.reserveCapacity(ordered.reduce(0) { $0 + $1.data.count })
        for c in ordered { profile.append(contentsOf: c.data) }
        if let problem = validate(profile) {
            return Assembly(profile: nil, problem: problem + "; profile dropped")
        }
        let reordered = zip(chunks, ordered).contains { $0.sequence != $1.sequence }
        return Assembly(profile: profile, problem: reordered ? "ICC profile chunks were out of order; reassembled" : nil)
    }

    /// Why `profile` is not a usable ICC profile, or nil.
    public static func validate(_ profile: [UInt8]) -> String? {
        guard profile.count >= 132 else { return "ICC profile too short (\(profile.count) bytes)" }
        let size = Int(profile[0]) << 24 | Int(profile[1]) << 16 | Int(profile[2]) << 8 | Int(profile[3])
        guard Array(profile[36..<40]) == Array("acsp".utf8) else { return "ICC profile lacks the 'acsp' signature" }
        guard size <= profile.count else {
            return "ICC profile is truncated (declares \(size) bytes, has \(profile.count))"
        }
        // The tag table (ICC.1 §7.3) must lie inside the declared size, and so must every tag.
        func u32(_ o: Int) -> Int { Int(profile[o]) << 24 | Int(profile[o + 1]) << 16 | Int(profile[o + 2]) << 8 | Int(profile[o + 3]) }
        let tags = u32(128)
        guard tags <= (size - 132) / 12 else { return "ICC profile tag table runs past the end of the profile" }
        for t in 0..<tags {
            let offset = u32(132 + 12 * t + 4), length = u32(132 + 12 * t + 8)
            guard offset >= 128 + 4, offset <= size, length <= size - offset else {
                return "ICC profile tag \(t + 1) of \(tags) points outside the profile"
            }
        }
        return nil
    }

    /// The profile's description is not parsed; this returns the colour space signature
    /// (bytes 16–19, e.g. "RGB ", "CMYK", "GRAY") for `recipe info`.
    public static func colorSpace(_ profile: [UInt8]) -> String? {
        guard profile.count >= 20 else { return nil }
        return String(decoding: profile[16..<20], as: UTF8.self).trimmingCharacters(in: " ")
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: Character) -> String {
        var s = Substring(self)
        while s.last == set { s.removeLast() }
        while s.first == set { s.removeFirst() }
        return String(s)
    }
}
