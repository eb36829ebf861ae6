import Crypto

/// One of N deterministic parts of a batch (`--shard K/N`): an output belongs to shard
/// `1 + (first 8 bytes of SHA-256 of its path below the output folder) mod N`. The split depends
/// only on names, not on the machine, the order of the walk or what is already done, so N
/// machines given the same command with K = 1…N write disjoint outputs that together cover all.
///
/// ```swift
/// let shard = try Shard("3/8")
/// shard.contains("2024/rome/IMG_1.jpg")   // true for about one output in eight
/// ```
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    public init(_ text: String) throws(Invalid) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, (1...n).contains(k) else {
            throw Invalid(description: "--shard takes K/N with 1 ≤ K ≤ N (for example 3/8), auto or auto/N, not `\(text)`")
        }
        index = k
        count = n
    }

    public init(index: Int, count: Int) {
        precondition(count >= 1 && (1...count).contains(index))
        self.index = index
        self.count = count
    }

    public var description: String { "\(index)/\(count)" }

    public func contains(_ relativeOutput: String) -> Bool {
        count == 1 || Self.bucket(relativeOutput, count: count) == index
    }

    /// Which shard (1…count) an output belongs to.
    public static func bucket(_ relativeOutput: String, count: Int) -> Int {
        let digest = SHA256.hash(data: Array(relativeOutput.utf8))
        var value: UInt64 = 0
        for byte in digest.prefix(8) { value = value << 8 | UInt64(byte) }
        return Int(value % UInt64(count)) + 1
    }
}
