import Testing
@testable import RecipeBatch

@Suite("Shard")
struct ShardTests {
    @Test("K/N is parsed and checked")
    func parse() throws {
        #expect(try Shard("3/8") == Shard(index: 3, count: 8))
        for bad in ["0/4", "5/4", "1/0", "a/b", "3", "1/2/3", "-1/2", ""] {
            #expect(throws: Shard.Invalid.self) { try Shard(bad) }
        }
    }

    @Test("shards 1…N cover every output exactly once, about evenly, the same way every time")
    func cover() throws {
        let outputs = (0..<3000).map { "2024/day\($0 % 31)/IMG_\($0).jpg" }
        for n in [1, 2, 3, 7, 16] {
            var owners = [Int](repeating: 0, count: outputs.count)
            var sizes = [Int](repeating: 0, count: n + 1)
            for k in 1...n {
                let shard = Shard(index: k, count: n)
                for (i, o) in outputs.enumerated() where shard.contains(o) {
                    owners[i] += 1
                    sizes[k] += 1
                }
            }
            let once = owners.allSatisfy { $0 == 1 }
            #expect(once, "n = \(n)")
            let expected = Double(outputs.count) / Double(n)
            let even = sizes.dropFirst().allSatisfy { abs(Double($0) - expected) < expected * 0.25 }
            #expect(even, "n = \(n): \(sizes.dropFirst())")
        }
        // Fixed by the name alone (SHA-256), so every machine agrees.
        #expect(Shard.bucket("2024/IMG_1.jpg", count: 16) == Shard.bucket("2024/IMG_1.jpg", count: 16))
        #expect(Shard.bucket("a.jpg", count: 1000) != Shard.bucket("b.jpg", count: 1000) || Shard.bucket("c.jpg", count: 1000) != Shard.bucket("b.jpg", count: 1000))
    }
}
