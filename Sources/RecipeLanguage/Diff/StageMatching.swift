/// Which stage of one recipe is which stage of another. A stage with an `id` is the stage with
/// the same id; stages without one are aligned by a longest common subsequence, first of equal
/// stages, then (between those) of stages with the same op, so inserting a stage shows as one
/// insertion and changing a parameter as a change, not as everything after it being different.
/// Equal stages the alignment leaves over are the same stage, moved; so is the one stage of an
/// op left over on each side (moved and changed).
///
/// ```
/// old: exposure 0.3, sepia 0.4,            vignette 0.3
/// new: exposure 0.3, sepia 0.5, blur 2px,  vignette 0.3
///      = same        ~ changed  + added    = same
/// ```
struct StageMatching {
    /// For each old stage, the new stage it is (nil: removed).
    var newIndex: [Int?]
    /// For each new stage, the old stage it is (nil: added).
    var oldIndex: [Int?]
    /// Old indices of matched stages that changed place: not on the longest run of matched
    /// stages that kept their relative order.
    var moved: Set<Int> = []

    /// `pairByKind: false` pairs only stages with the same id or the same content (used for
    /// stages added on both sides of a merge, where two different additions are two stages).
    init(old: [RecipeDocument.Stage], new: [RecipeDocument.Stage], pairByKind: Bool = true) {
        newIndex = Array(repeating: nil, count: old.count)
        oldIndex = Array(repeating: nil, count: new.count)
        var byID: [String: Int] = [:]
        for (j, s) in new.enumerated() { if let id = s.id, byID[id] == nil { byID[id] = j } }
        for (i, s) in old.enumerated() {
            if let id = s.id, let j = byID[id], oldIndex[j] == nil { pair(i, j) }
        }
        // The rest: equal content first (a stage may gain or lose its id), then the same op.
        let restOld = old.indices.filter { newIndex[$0] == nil }, restNew = new.indices.filter { oldIndex[$0] == nil }
        let equal = Self.lcs(restOld.count, restNew.count) { a, b in
            let x = old[restOld[a]], y = new[restNew[b]]
            return (x.id == nil || y.id == nil) && x.content == y.content
        }
        for (a, b) in equal { pair(restOld[a], restNew[b]) }
        if pairByKind {
            var startA = 0, startB = 0
            for (a, b) in equal + [(restOld.count, restNew.count)] {
                let gapOld = restOld[startA..<a].filter { old[$0].id == nil }
                let gapNew = restNew[startB..<b].filter { new[$0].id == nil }
                for (x, y) in Self.lcs(gapOld.count, gapNew.count, { old[gapOld[$0]].kind == new[gapNew[$1]].kind }) {
                    pair(gapOld[x], gapNew[y])
                }
                (startA, startB) = (a + 1, b + 1)
            }
        }
        // Equal stages left over changed place (the alignment keeps order): pair them as moves.
        var unmatchedNew: [String: [Int]] = [:]
        for j in new.indices.reversed() where oldIndex[j] == nil { unmatchedNew[new[j].content, default: []].append(j) }
        for i in old.indices where newIndex[i] == nil {
            guard var candidates = unmatchedNew[old[i].content],
                  let k = candidates.lastIndex(where: { old[i].id == nil || new[$0].id == nil }) else { continue }
            pair(i, candidates.remove(at: k))
            unmatchedNew[old[i].content] = candidates
        }
        if pairByKind {
            // A stage moved and changed: the one stage of its op left on each side.
            var oldLeft: [String: [Int]] = [:], newLeft: [String: [Int]] = [:]
            for i in old.indices where newIndex[i] == nil && old[i].id == nil { oldLeft[old[i].kind, default: []].append(i) }
            for j in new.indices where oldIndex[j] == nil && new[j].id == nil { newLeft[new[j].kind, default: []].append(j) }
            for (kind, olds) in oldLeft where olds.count == 1 {
                if let news = newLeft[kind], news.count == 1 { pair(olds[0], news[0]) }
            }
        }
        let pairs = newIndex.enumerated().compactMap { i, j in j.map { (i, $0) } }
        let kept = Self.inOrder(pairs)
        for (k, p) in pairs.enumerated() where !kept.contains(k) { moved.insert(p.0) }
    }

    mutating func pair(_ i: Int, _ j: Int) {
        newIndex[i] = j
        oldIndex[j] = i
    }

    /// The index pairs of a longest common subsequence of two sequences of lengths `n` and `m`
    /// under `equal`. Common ends are matched first; a middle too large for the quadratic table
    /// (hostile input) is matched greedily instead.
    static func lcs(_ n: Int, _ m: Int, _ equal: (Int, Int) -> Bool) -> [(Int, Int)] {
        var head: [(Int, Int)] = []
        var lo = 0
        while lo < n, lo < m, equal(lo, lo) {
            head.append((lo, lo))
            lo += 1
        }
        var tail: [(Int, Int)] = []
        var (hiA, hiB) = (n, m)
        while hiA > lo, hiB > lo, equal(hiA - 1, hiB - 1) {
            tail.append((hiA - 1, hiB - 1))
            hiA -= 1
            hiB -= 1
        }
        let rows = hiA - lo, columns = hiB - lo
        var middle: [(Int, Int)] = []
        if rows > 0, columns > 0, rows * columns <= 4_000_000 {
            // table[i][j]: the LCS length of the suffixes from i and j.
            var table = [Int](repeating: 0, count: (rows + 1) * (columns + 1))
            func at(_ i: Int, _ j: Int) -> Int { i * (columns + 1) + j }
            for i in stride(from: rows - 1, through: 0, by: -1) {
                for j in stride(from: columns - 1, through: 0, by: -1) {
                    table[at(i, j)] = equal(lo + i, lo + j) ? table[at(i + 1, j + 1)] + 1 : max(table[at(i + 1, j)], table[at(i, j + 1)])
                }
            }
            var (i, j) = (0, 0)
            while i < rows, j < columns {
                if equal(lo + i, lo + j) {
                    middle.append((lo + i, lo + j))
                    i += 1
                    j += 1
                } else if table[at(i + 1, j)] >= table[at(i, j + 1)] {
                    i += 1
                } else {
                    j += 1
                }
            }
        } else if rows > 0, columns > 0 {
            var j = lo
            for i in lo..<hiA {
                if let k = (j..<min(hiB, j + 64)).first(where: { equal(i, $0) }) {
                    middle.append((i, k))
                    j = k + 1
                }
            }
        }
        return head + middle + tail.reversed()
    }

    /// Positions of the pairs (sorted by old index) that stay in place: a longest run whose new
    /// indices increase, and among those the one whose stages moved least, so moving one stage
    /// up reports that stage, not the ones it passed. Quadratic; patience sorting (any longest
    /// run) for very long recipes.
    static func inOrder(_ pairs: [(Int, Int)]) -> Set<Int> {
        guard pairs.count <= 2000 else { return longestIncreasing(pairs.map(\.1)) }
        // best[k]: (length, -total displacement) of the best run ending at pair k.
        var best: [(Int, Int)] = [], previous = [Int](repeating: -1, count: pairs.count)
        for (k, p) in pairs.enumerated() {
            var score = (1, -abs(p.0 - p.1))
            for q in 0..<k where pairs[q].1 < p.1 {
                let candidate = (best[q].0 + 1, best[q].1 - abs(p.0 - p.1))
                if candidate > score {
                    score = candidate
                    previous[k] = q
                }
            }
            best.append(score)
        }
        var kept = Set<Int>()
        var k = best.indices.max { best[$0] < best[$1] } ?? -1
        while k >= 0 {
            kept.insert(k)
            k = previous[k]
        }
        return kept
    }

    /// Positions of a longest strictly increasing subsequence of `values` (patience sorting).
    static func longestIncreasing(_ values: [Int]) -> Set<Int> {
        var tails: [Int] = []  // positions: tails[k] ends the best run of length k + 1
        var previous = [Int](repeating: -1, count: values.count)
        for (p, v) in values.enumerated() {
            var lo = 0, hi = tails.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if values[tails[mid]] < v { lo = mid + 1 } else { hi = mid }
            }
            if lo > 0 { previous[p] = tails[lo - 1] }
            if lo == tails.count { tails.append(p) } else { tails[lo] = p }
        }
        var kept = Set<Int>()
        var p = tails.last ?? -1
        while p >= 0 {
            kept.insert(p)
            p = previous[p]
        }
        return kept
    }
}
