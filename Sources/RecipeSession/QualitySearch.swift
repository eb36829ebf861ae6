#if canImport(Glibc)
import Glibc
#endif

/// Finds the highest quality whose file fits a size limit in a few encodes (`--max-bytes`).
///
/// The search works on the logarithm of the size against a position on the format's quality
/// scale (`Axis`) along which it is near a straight line. The first try is the top quality
/// (done when it fits). The second follows an assumed slope from it; each later try the line
/// through the two tries whose sizes lie nearest the limit, within the bracket of the largest
/// quality that fits and the smallest that does not; each aims 1 % below the limit and takes the
/// highest quality at or below where the line meets it. The search ends when the best that fits
/// is known to a step, or after `maxTries` encodes once one came within 10 % of the limit, or
/// after `mostTries`. (photo24, whose size grows 0.3 a unit of −ln S at the top and 0.9 at the
/// bottom: with 4 tries at most, 37 % of limits ended more than a step below the best, 1 MiB at
/// quality 14 where 27 fits; with up to 6 while none is within 10 %, 16 %, 4.3 tries on average.) Tuned on kodim03's measured sizes (every
/// limit between qualities 10 and 89: the best or one below it at all of them; aiming at the
/// limit itself and rounding to the nearest quality: 25 % of them a step or more further off)
/// and on simulated S^−0.4…1 laws with 2 % noise (2–8 % of limits further off).
///
/// ```swift
/// let found = try QualitySearch.fit(maxBytes: 30 << 10, top: 90, axis: .jpeg) { q in try encode(q).count }
/// ```
package enum QualitySearch {
    package struct Try: Equatable {
        package var quality: Int
        package var bytes: Int
    }

    /// Where a quality lies on the line the search interpolates along, and the slope (log size a
    /// unit) the second try assumes.
    package struct Axis: Sendable {
        package var position: @Sendable (Int) -> Double
        package var slope: Double

        /// libjpeg scales its quantisation tables by S = 5000/q below 50 and 200 − 2q from 50,
        /// and a file's size goes as about S^−0.6 over the whole range (kodim03: −0.58 to −0.64
        /// between each ten steps from 30 to 90), where in q it grows 1.4 % a step at 40–50 and
        /// 4 % at 80–90. So the axis is −ln S.
        package static let jpeg = Axis(position: { q in
            let scale = q < 50 ? 5000 / Double(max(1, q)) : 200 - 2 * Double(q)
            return -log(max(scale, 1))
        }, slope: 0.6)

        /// The quality itself: WebP's size grows about 2 % a step up to 75 (kodim03), HEIF's and
        /// AVIF's likewise over their middle.
        package static let linear = Axis(position: { Double($0) }, slope: 0.018)
    }

    /// How far below the limit each try aims.
    static let aim = 0.99

    /// `size(q)`: the bytes of the file at quality `q`. The result's `quality` is the highest tried
    /// that fits (nil: none did, down to quality 1 or within `maxTries`).
    package static func fit(maxBytes: Int, top: Int, axis: Axis, maxTries: Int = 4, mostTries: Int = 6,
                            size: (Int) throws -> Int) throws -> (quality: Int?, tries: [Try]) {
        var tries: [Try] = []
        let target = log(Double(maxBytes) * aim)
        func logSize(_ t: Try) -> Double { log(Double(max(1, t.bytes))) }
        func x(_ t: Try) -> Double { axis.position(t.quality) }
        while tries.count < mostTries {
            let best = tries.filter { $0.bytes <= maxBytes }.max { $0.quality < $1.quality }
            if tries.count >= maxTries, let best, Double(best.bytes) >= 0.9 * Double(maxBytes) { break }
            let fits = best?.quality
            let fails = tries.filter { $0.bytes > maxBytes && $0.quality > (fits ?? 0) }.map(\.quality).min()
            let (low, high) = ((fits ?? 0) + 1, (fails ?? top + 1) - 1)
            guard low <= high else { break }
            let q: Int
            if tries.isEmpty {
                q = high
            } else {
                // The line through the two tries nearest the limit (the assumed slope through the
                // one try there is).
                let near = tries.sorted { abs(logSize($0) - target) < abs(logSize($1) - target) }
                let (a, b) = (near[0], near.count > 1 ? near[1] : near[0])
                let k = x(a) != x(b) && a.bytes != b.bytes ? (logSize(b) - logSize(a)) / (x(b) - x(a)) : axis.slope
                let goal = x(a) + (target - logSize(a)) / max(k, axis.slope / 20)
                // The highest quality in the bracket at or below the goal.
                q = (low...high).last { axis.position($0) <= goal } ?? low
            }
            guard !tries.contains(where: { $0.quality == q }) else { break }
            tries.append(Try(quality: q, bytes: try size(q)))
        }
        return (tries.filter { $0.bytes <= maxBytes }.map(\.quality).max(), tries)
    }
}
