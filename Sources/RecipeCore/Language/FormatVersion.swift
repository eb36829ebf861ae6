/// A semantic version `major.minor[.patch]`, as the `version:` header and `sinceFormat` give it.
public struct FormatVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var major: Int
    public var minor: Int
    public var patch: Int

    public init(_ major: Int, _ minor: Int, _ patch: Int = 0) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// Parses `1`, `1.1` or `1.1.0`; nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var numbers: [Int] = []
        for p in parts {
            guard !p.isEmpty, p.count <= 6, p.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(p) else {
                return nil
            }
            numbers.append(n)
        }
        while numbers.count < 3 { numbers.append(0) }
        self.init(numbers[0], numbers[1], numbers[2])
    }

    public static func < (a: FormatVersion, b: FormatVersion) -> Bool {
        (a.major, a.minor, a.patch) < (b.major, b.minor, b.patch)
    }

    /// `1.1` (the patch only when it is not zero).
    public var description: String { patch == 0 ? "\(major).\(minor)" : "\(major).\(minor).\(patch)" }
}

/// The identity of this language as adjustment data (PHAdjustmentData's formatIdentifier and
/// formatVersion): what a recipe's header must say for us to handle it.
public enum RecipeFormat {
    /// The reverse-DNS format identifier.
    public static let identifier = "dev.recipe.edit"
    /// The version this build writes.
    public static let current = FormatVersion(1, 5)
    /// Versions this build reads: the current major, any minor up to the current one.
    public static func canHandle(_ v: FormatVersion) -> Bool { v.major == current.major && v <= current }
    /// Every format version, oldest first; a migration step exists between neighbours.
    public static let history: [FormatVersion] = [FormatVersion(1, 0), FormatVersion(1, 1), FormatVersion(1, 2), FormatVersion(1, 3), FormatVersion(1, 4), FormatVersion(1, 5)]
}
