#if canImport(Glibc)
import Glibc
#endif
import CKernelsSIMD

/// What a fused 8-bit pass has rendered, by colour, for one thread (`rk_u8_cache_lookup`): a pass
/// from 8-bit codes to 8-bit codes whose steps read no position gives each colour the same codes
/// wherever it is, and photos repeat their colours (photo24: 24 M pixels, 1.0 M colours, 80–88%
/// of pixels found in 256 KiB of entries). `PointProgram.run` looks a tile up, runs its steps on
/// the colours it misses only, and files their codes; the output bytes are the pass's whichever
/// colours the cache holds.
///
/// A photo whose colours hardly repeat (noise, a small picture) would pay the lookups for
/// nothing, so the cache watches its own hits: over each window of `window` pixels looked up, if
/// fewer than `threshold` of them hit, the pass runs without it for the next `rest` pixels (longer
/// after each miss of the threshold), then looks again. The choice changes the time, never the
/// bytes.
///
/// One thread at a time: each of a pass's threads has its own (`PointStage`).
///
/// ```swift
/// let cache = program.cachesColours ? PixelCache() : nil
/// program.run(row, pixels: width, y: y, cache: cache)
/// ```
public final class PixelCache {
    /// Bytes a cache holds for rows of `width` pixels: its entries and its buffers for a row's
    /// misses (and, while it is filled, the colours and codes of its first entries).
    public static func bytes(width: Int) -> Int { (4 << Int(RK_CACHE_BITS)) + 8 * width + (6 << Int(RK_CACHE_BITS)) }
    /// Whether this CPU runs the lookup's kernel (AVX-512 with VBMI); elsewhere a pass runs
    /// without a cache (the scalar lookup is for tests).
    public static let supported = rk_u8_cache_supported() != 0
    /// Pixels a window of hits and misses counts, and the hit rate under which the pass rests.
    static let window = 1 << 13, threshold = 0.4
    /// Pixels a pass runs without the cache after a window under the threshold, doubled after
    /// each such window in a row (a photo of noise ends up looking a window up every 4 M
    /// pixels), back to the first after a window over it.
    static let rest = 1 << 17, longestRest = 1 << 22

    /// 2^RK_CACHE_BITS entries, each valid once `prefilled` (`rk_u8_cache_prefill`).
    let entries: UnsafeMutablePointer<UInt32>
    /// Whether `entries` holds the pass's codes for the colours it starts with.
    var prefilled = false
    /// A row's misses: their pixels, their indices in the row, their output codes (for rows of
    /// up to `capacity` pixels).
    private(set) var missPixels: UnsafeMutablePointer<UInt8>
    private(set) var missIndices: UnsafeMutablePointer<UInt16>
    private(set) var missOutput: UnsafeMutablePointer<UInt8>
    private var capacity = 0
    private var looked = 0, missed = 0, resting = 0, nextRest = PixelCache.rest
    /// Whether a window has been judged: the first only fills the empty cache.
    private var warm = false
    /// Pixels looked up and missed over the cache's life (for tests and measurements).
    public private(set) var lookups = 0, misses = 0

    public init() {
        entries = .allocate(capacity: 1 << Int(RK_CACHE_BITS))
        missPixels = .allocate(capacity: 0)
        missIndices = .allocate(capacity: 0)
        missOutput = .allocate(capacity: 0)
    }

    /// Rows the cache takes: up to 65,536 pixels (the misses' indices are 16-bit); a wider row
    /// runs without it.
    static let widest = 1 << 16
    /// Images the cache is for: at least 16 times the colours it starts with (a million pixels),
    /// so that rendering those (`prefilled`) costs at most a sixteenth of the pass.
    public static func worthIt(width: Int, height: Int) -> Bool {
        supported && width <= widest && width * height >= 16 << Int(RK_CACHE_BITS)
    }

    /// Room for the misses of a row of `pixels` (at most `widest`).
    func reserve(_ pixels: Int) {
        guard pixels > capacity else { return }
        missPixels.deallocate()
        missIndices.deallocate()
        missOutput.deallocate()
        missPixels = .allocate(capacity: 3 * pixels)
        missIndices = .allocate(capacity: pixels)
        missOutput = .allocate(capacity: 3 * pixels)
        capacity = pixels
    }

    deinit {
        entries.deallocate()
        missPixels.deallocate()
        missIndices.deallocate()
        missOutput.deallocate()
    }

    /// Whether the next `n` pixels go through the cache (else they are counted off the rest).
    @inline(__always)
    func looksUp(_ n: Int) -> Bool {
        guard resting > 0 else { return true }
        resting -= n
        return false
    }

    /// `n` pixels looked up, `missed` of them missing; a window under the threshold starts a rest.
    @inline(__always)
    func record(_ n: Int, missed tileMisses: Int) {
        lookups += n
        misses += tileMisses
        looked += n
        missed += tileMisses
        guard looked >= Self.window else { return }
        if !warm {
            warm = true
        } else if Double(looked - missed) < Self.threshold * Double(looked) {
            resting = nextRest
            nextRest = min(2 * nextRest, Self.longestRest)
        } else {
            nextRest = Self.rest
        }
        looked = 0
        missed = 0
    }
}
