#if canImport(Glibc)
import Glibc
#endif

/// A run of per-channel point steps (sRGB curves, powers, levels, tone curves…) as one table per
/// channel over float inputs, for the ends of a point pass that reads or writes floats: where an
/// 8-bit pass looks a code up in its load or store table, a float pass looks the value up here
/// instead of running each step's arithmetic (the sRGB curves alone, vectorised, were a third of
/// a black-and-white render once samples crossed stages as floats).
///
/// The nodes are log-spaced, as floats themselves are: 512 per octave from 2⁻³⁰ to 16, indexed by
/// the value's exponent and top mantissa bits, so the linear interpolation between two nodes is
/// the lower mantissa bits' fraction and a cell is 1/512 of its value wide. On a power curve that
/// keeps the relative error under 2e-6 at any brightness (0.1 of a 16-bit step at white); a run
/// with a kink (a tone curve's nodes, levels' black point) is cut across the one cell that holds
/// it, by up to 5e-5 (a uniform table of the same size loses
/// the shadows, where x^(1/2.4) is steep). Negative values have nodes of their own (a contrast
/// or a white balance pushes dark pixels below 0, and the curves of an extended working space go
/// on there). Zero is a node of its own; other values under 2⁻³⁰ in magnitude (a power curve is
/// steepest there), values from 16 up, and NaN go through the steps themselves.
///
/// ```swift
/// let toEncoded = ChannelTables(steps: [.toEncoded])
/// toEncoded.apply(planes, count: 64, tile: 64)   // three planes of 64, in place
/// ```
public struct ChannelTables: Sendable {
    /// Tables made on first use: a program builds them only for the ends it runs with floats (an
    /// 8-bit pass has its load and store tables instead), and a plan made and not run (`explain`,
    /// a display render's planning at full size) builds none. Building one evaluates its steps at
    /// 35,000 nodes in double precision, several milliseconds.
    public final class Lazy: @unchecked Sendable {
        // @unchecked: `built` is written once, under `lock`.
        public let steps: [PointStep]
        private var built: ChannelTables?
        private var lock = pthread_mutex_t()

        public init(steps: [PointStep]) {
            self.steps = steps
            pthread_mutex_init(&lock, nil)
        }

        deinit { pthread_mutex_destroy(&lock) }

        /// The tables, built by the first caller.
        public var tables: ChannelTables {
            pthread_mutex_lock(&lock)
            defer { pthread_mutex_unlock(&lock) }
            if let built { return built }
            let made = ChannelTables(steps: steps)
            built = made
            return made
        }
    }

    static let perOctave = 512
    static let octaves = 34
    /// 2⁻³⁰, the first log-spaced node (a matrix leaves values of 1e-8 beside black).
    static let lowest: Float = 0x1p-30
    static let highest: Float = 16
    /// Entries per sign: f(0), the log-spaced nodes, and f(16).
    static let entries = 2 + perOctave * octaves

    /// The steps the tables stand for.
    public let steps: [PointStep]
    /// Per channel (r, g, b), `entries` values at the nodes, then `entries` at their negatives.
    let table: [Float]

    /// The input value of entry `i` (i ≥ 1) of a channel's table.
    static func node(_ i: Int) -> Double {
        if i == 0 { return 0 }
        let k = i - 1
        let octave = k / perOctave, step = k % perOctave
        return Double(lowest) * Double(1 << octave) * (1 + Double(step) / Double(perOctave))
    }

    /// Tables for `steps`, which must all be per-channel (`PointProgram.isPerChannel`), evaluated
    /// in double precision at every node.
    public init(steps: [PointStep]) {
        self.steps = steps
        let perChannel = 2 * Self.entries
        var table = [Float](repeating: 0, count: 3 * perChannel)
        for i in 0..<perChannel {
            let v = i < Self.entries ? Self.node(i) : -Self.node(i - Self.entries)
            let out = steps.reduce(SIMD3(v, v, v)) { $1.reference($0) }
            table[i] = Float(out.x)
            table[perChannel + i] = Float(out.y)
            table[2 * perChannel + i] = Float(out.z)
        }
        self.table = table
    }

    /// Runs the steps on three planes of `count` values that start `tile` floats apart, in place.
    public func apply(_ planes: UnsafeMutablePointer<Float>, count: Int, tile: Int) {
        typealias V = SIMD8<Float>
        typealias U = SIMD8<UInt32>
        let raw = UnsafeMutableRawPointer(planes)
        table.withUnsafeBufferPointer { t in
            for c in 0..<3 {
                let base = t.baseAddress! + c * 2 * Self.entries
                let plane = planes + c * tile
                var k = 0
                while k + 8 <= count {
                    let v = raw.loadUnaligned(fromByteOffset: 4 * (c * tile + k), as: V.self)
                    let magnitude = FastMath.abs(v)
                    let inside = (magnitude .>= Self.lowest) .& (magnitude .< Self.highest)
                    let raw32 = unsafeBitCast(v, to: U.self)
                    let bits = unsafeBitCast(magnitude.replacing(with: Self.lowest, where: .!inside), to: U.self)
                    // Octave from the exponent, node from the top 9 mantissa bits, fraction from
                    // the other 14; negative values from the second half.
                    let sign = (raw32 &>> 31) &* U(repeating: UInt32(Self.entries))
                    let index = ((((bits &>> 23) &- U(repeating: 127 - 30)) &<< 9) | ((bits &>> 14) & 0x1FF)) &+ sign
                    // The 14 low bits as the mantissa of a float in [1, 2): 1 + fraction.
                    let fraction = unsafeBitCast(((bits & 0x3FFF) &<< 9) | 0x3F80_0000, to: V.self) - 1
                    var low = V(), high = V()
                    for j in 0..<8 {
                        let i = Int(index[j]) &+ 1
                        low[j] = base[i]
                        high[j] = base[i &+ 1]
                    }
                    let out = low + (high - low) * fraction
                    raw.storeBytes(of: out, toByteOffset: 4 * (c * tile + k), as: V.self)
                    if !all(inside) {
                        for j in 0..<8 where !inside[j] { plane[k + j] = value(v[j], channel: c, base: base) }
                    }
                    k += 8
                }
                while k < count {
                    plane[k] = value(plane[k], channel: c, base: base)
                    k += 1
                }
            }
        }
    }

    /// One value of channel `c` (the scalar path: tails of a tile and values off the table).
    @inline(__always)
    func value(_ v: Float, channel c: Int, base: UnsafePointer<Float>) -> Float {
        let magnitude = Swift.abs(v)
        let half = base + (v.sign == .minus ? Self.entries : 0)
        if magnitude >= Self.lowest && magnitude < Self.highest {
            let bits = magnitude.bitPattern
            let octave: UInt32 = (bits >> 23) - (127 - 30)
            let i = Int((octave << 9) | ((bits >> 14) & 0x1FF)) + 1
            let fraction = Float(bits & 0x3FFF) / 16384
            return half[i] + (half[i + 1] - half[i]) * fraction
        }
        if magnitude == 0 { return half[0] }
        // Negative, 16 and up, NaN: the steps themselves.
        let d = Double(v)
        let out = steps.reduce(SIMD3(d, d, d)) { $1.reference($0) }
        return Float(out[c])
    }
}
