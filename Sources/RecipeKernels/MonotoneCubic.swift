/// A monotone cubic Hermite spline through points (Fritsch–Carlson 1980): no overshoot, so a
/// tone curve through increasing points never reverses tones. Linear outside the end points
/// (slopes of the end segments).
///
/// ```swift
/// MonotoneCubic([(0, 0), (0.5, 0.6), (1, 1)]).value(0.25)
/// ```
public struct MonotoneCubic: Sendable {
    /// Samples per channel in the table the point kernel interpolates (ops-reference.md §4.8).
    public static let tableSize = 4096

    let xs: [Double]
    let ys: [Double]
    let tangents: [Double]

    /// `points` sorted by x with strictly increasing x (the checker guarantees it).
    public init(_ points: [(Double, Double)]) {
        xs = points.map(\.0)
        ys = points.map(\.1)
        let n = xs.count
        var secants = [Double](repeating: 0, count: max(0, n - 1))
        for i in 0..<(n - 1) { secants[i] = (ys[i + 1] - ys[i]) / (xs[i + 1] - xs[i]) }
        var m = [Double](repeating: 0, count: n)
        if n >= 2 {
            m[0] = secants[0]
            m[n - 1] = secants[n - 2]
            for i in 1..<(n - 1) {
                m[i] = secants[i - 1] * secants[i] <= 0 ? 0 : (secants[i - 1] + secants[i]) / 2
            }
            // Fritsch–Carlson: limit the tangents so each segment stays monotone.
            for i in 0..<(n - 1) {
                if secants[i] == 0 {
                    m[i] = 0
                    m[i + 1] = 0
                    continue
                }
                let a = m[i] / secants[i], b = m[i + 1] / secants[i]
                let s = a * a + b * b
                if s > 9 {
                    let t = 3 / s.squareRoot()
                    m[i] = t * a * secants[i]
                    m[i + 1] = t * b * secants[i]
                }
            }
        }
        tangents = m
    }

    /// The curve at `x`.
    public func value(_ x: Double) -> Double {
        let n = xs.count
        guard n >= 2 else { return n == 1 ? ys[0] : x }
        if x <= xs[0] { return ys[0] + (x - xs[0]) * tangents[0] }
        if x >= xs[n - 1] { return ys[n - 1] + (x - xs[n - 1]) * tangents[n - 1] }
        var lo = 0, hi = n - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if xs[mid] <= x { lo = mid } else { hi = mid }
        }
        let h = xs[hi] - xs[lo], t = (x - xs[lo]) / h
        let t2 = t * t, t3 = t2 * t
        return (2 * t3 - 3 * t2 + 1) * ys[lo] + (t3 - 2 * t2 + t) * h * tangents[lo]
            + (-2 * t3 + 3 * t2) * ys[hi] + (t3 - t2) * h * tangents[hi]
    }

    /// `size` samples of the curve on [0, 1].
    public func table(size: Int) -> [Float] {
        (0..<size).map { Float(value(Double($0) / Double(size - 1))) }
    }
}
