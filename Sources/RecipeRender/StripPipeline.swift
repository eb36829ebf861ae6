import RecipeCore
#if canImport(Glibc)
import Glibc
#endif

/// Moves strips from a source chain to a sink.
///
/// Threads are placed in the chain with `PrefetchStep`: everything upstream of it runs on its
/// own thread. When the sink reads straight from a prefetch step it takes the strips themselves,
/// without a copy. Rows stay in order, so the output bytes do not depend on timing.
///
/// ```swift
/// try StripPipeline.run(source: PrefetchStep(source: decoder), sink: encoder)
/// ```
public enum StripPipeline {
    /// Bytes a strip of float rows aims at: small enough that a chain's strips stay a few MiB
    /// even at 24 MP (they sit beside a progressive JPEG's whole-image coefficient buffer, whose
    /// peak RSS target leaves 1.1x), large enough that the per-strip hand-over costs nothing
    /// measurable. 128 KiB gives a 4000-pixel float row 8 rows.
    public static let stripByteBudget = 128 << 10
    /// Bytes a strip of integer rows (the decoder's, the encoder's, a point pass's between them)
    /// aims at: 512 KiB gives a 4000-pixel RGB8 row 48 rows, three 4:2:0 MCU rows. A strip's
    /// hand-over between threads costs the same whatever its size, and integer rows are a
    /// quarter of float ones: against 128 KiB (16 rows) the 5-op chain on photo24 took 3% less
    /// CPU, the identity render 3% less and the progressive one 9% less time, for 1.2 MiB more
    /// peak memory (alternating runs, 16 each).
    public static let integerStripByteBudget = 512 << 10

    /// Rows per strip for `width`-pixel rows of `format`: its byte budget, rounded up to a
    /// multiple of 8 (a JPEG MCU row is 8 or 16 lines), between 8 and 64.
    public static func stripRows(width: Int, format: PixelFormat) -> Int {
        let budget = format.sampleType == .float32 ? stripByteBudget : integerStripByteBudget
        let rows = budget / max(1, width * format.bytesPerPixel)
        return min(64, max(8, (rows + 7) / 8 * 8))
    }

    /// `deadline` (CLOCK_MONOTONIC nanoseconds): checked after every strip; once past it the run
    /// stops with `Timeout` (`--timeout`), and the caller discards the output.
    public static func run(source: RowSource, sink: RowSink, stripRows: Int? = nil, deadline: UInt64? = nil) throws {
        let stripRows = stripRows ?? Self.stripRows(width: source.width, format: source.format)
        func checkDeadline() throws {
            if let deadline, Timeout.now() > deadline { throw Timeout() }
        }
        precondition(source.width == sink.width && source.height == sink.height, "source and sink sizes differ")
        precondition(source.format == sink.format, "source rows are \(source.format), the sink wants \(sink.format)")
        var done = 0
        if let prefetch = source as? PrefetchStep {
            while let strip = try prefetch.nextStrip() {
                defer { prefetch.recycle(strip) }
                try sink.writeRows(from: strip)
                done += strip.rowCount
                try checkDeadline()
            }
        } else {
            let strip = PixelBuffer(width: source.width, rowCapacity: max(1, min(stripRows, source.height)), format: source.format)
            while done < source.height {
                let n = try source.readRows(into: strip)
                guard n > 0 else { break }
                try sink.writeRows(from: strip)
                done += n
                try checkDeadline()
            }
        }
        precondition(done == source.height, "source ended after \(done) of \(source.height) rows")
        try sink.finish()
    }
}

/// A render stopped at its `--timeout`.
public struct Timeout: Error, Sendable {
    public init() {}

    /// CLOCK_MONOTONIC, in nanoseconds.
    public static func now() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
    }
}

/// Runs its source on a thread of its own, a few strips ahead of the reader, so the work above
/// it (decoding, say) overlaps the work below it (resampling, encoding). Memory: three strips.
public final class PrefetchStep: RowSource {
    public var width: Int { source.width }
    public var height: Int { source.height }
    public var format: PixelFormat { source.format }

    private let source: RowSource
    private var stripRows: Int
    private var channel: StripChannel?
    private var producer: WorkerThread?
    private var current: PixelBuffer?
    private var currentNext = 0

    /// What a prefetch of `width`-pixel rows holds, read `readerRows` at a time (its strips take
    /// the shape of the buffer they are read into when that is no larger than their own): three
    /// strips, and as its lookahead their rows, read ahead of its reader.
    public static func footprint(width: Int, format: PixelFormat, readerRows: Int) -> (bytes: Int, lookahead: Int) {
        let rows = max(1, min(readerRows, StripPipeline.stripRows(width: width, format: format)))
        return (3 * PixelBuffer.bytes(width: width, rowCapacity: rows, format: format), 3 * rows)
    }

    public init(source: RowSource, stripRows: Int? = nil) {
        self.source = source
        let rows = stripRows ?? StripPipeline.stripRows(width: source.width, format: source.format)
        self.stripRows = max(1, min(rows, source.height))
    }

    deinit {
        channel?.cancel()
        producer?.join()
    }

    private func startIfNeeded() -> StripChannel {
        if let channel { return channel }
        let channel = StripChannel(buffers: (0..<3).map { _ in
            PixelBuffer(width: source.width, rowCapacity: stripRows, format: source.format)
        })
        self.channel = channel
        let box = Unchecked(source)
        producer = WorkerThread {
            let source = box.value
            while let strip = channel.takeEmpty() {
                do {
                    if try source.readRows(into: strip) == 0 {
                        channel.giveBackEmpty(strip)
                        channel.finishProducing(error: nil)
                        return
                    }
                    channel.putFull(strip)
                } catch {
                    channel.finishProducing(error: error)
                    return
                }
            }
        }
        return channel
    }

    /// The next strip as produced (hand it back with `recycle`), or nil at the end.
    public func nextStrip() throws -> PixelBuffer? {
        try startIfNeeded().takeFull()
    }

    /// Returns a strip from `nextStrip` for reuse.
    public func recycle(_ strip: PixelBuffer) {
        channel?.giveBackEmpty(strip)
    }

    public func readRows(into buffer: PixelBuffer) throws -> Int {
        // The strips take the reader's shape before the producer starts, when it is no larger
        // than theirs, so that whole strips move into the reader's buffer (see below) instead of
        // being copied; a reader of more rows gets copies, as three strips of its size would hold
        // more (256 blurs on photo24 peaked at 841 MiB instead of 558).
        if channel == nil, buffer.width == width, buffer.format == format, buffer.rowCapacity <= stripRows {
            stripRows = buffer.rowCapacity
        }
        var filled = 0
        while filled < buffer.rowCapacity {
            if current == nil || currentNext >= current!.rowCount {
                if let done = current { recycle(done); current = nil }
                guard let strip = try nextStrip() else { break }
                current = strip
                currentNext = 0
            }
            let strip = current!
            // A whole strip of the buffer's own shape moves into it: no copy.
            if filled == 0, currentNext == 0, strip.rowCount == buffer.rowCapacity, buffer.exchangeStorage(with: strip) {
                buffer.originY = strip.originY
                buffer.rowCount = strip.rowCount
                recycle(strip)
                current = nil
                return buffer.rowCount
            }
            let n = min(buffer.rowCapacity - filled, strip.rowCount - currentNext)
            if filled == 0 { buffer.originY = strip.originY + currentNext }
            for i in 0..<n { buffer.row(filled + i).copyMemory(from: strip.row(currentNext + i), byteCount: buffer.rowBytes) }
            filled += n
            currentNext += n
        }
        buffer.rowCount = filled
        return filled
    }
}

/// A value moved across a thread boundary whose accesses are ordered by the surrounding code.
struct Unchecked<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// Two queues (empty and full strips) under one mutex, with the producer's outcome.
final class StripChannel: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var changed = pthread_cond_t()
    private var empty: [PixelBuffer]
    private var full: [PixelBuffer] = []
    private var producing = true
    private var cancelled = false
    private var error: Error?

    init(buffers: [PixelBuffer]) {
        empty = buffers
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&changed, nil)
    }

    deinit {
        pthread_mutex_destroy(&mutex)
        pthread_cond_destroy(&changed)
    }

    private func locked<R>(_ body: () -> R) -> R {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body()
    }

    /// Producer: the next empty buffer, or nil when the consumer has given up.
    func takeEmpty() -> PixelBuffer? {
        locked {
            while empty.isEmpty && !cancelled { pthread_cond_wait(&changed, &mutex) }
            return cancelled ? nil : empty.removeFirst()
        }
    }

    func putFull(_ b: PixelBuffer) {
        locked {
            full.append(b)
            pthread_cond_broadcast(&changed)
        }
    }

    func finishProducing(error: Error?) {
        locked {
            producing = false
            self.error = error
            pthread_cond_broadcast(&changed)
        }
    }

    /// Consumer: the next full strip in order, nil at the end, or the producer's error.
    func takeFull() throws -> PixelBuffer? {
        let (strip, failure): (PixelBuffer?, Error?) = locked {
            while full.isEmpty && producing { pthread_cond_wait(&changed, &mutex) }
            if !full.isEmpty { return (full.removeFirst(), nil) }
            return (nil, error)
        }
        if let failure { throw failure }
        return strip
    }

    func giveBackEmpty(_ b: PixelBuffer) {
        locked {
            empty.append(b)
            pthread_cond_broadcast(&changed)
        }
    }

    func cancel() {
        locked {
            cancelled = true
            pthread_cond_broadcast(&changed)
        }
    }
}

/// A joinable POSIX thread running a closure (Foundation's Thread is avoided to keep the binary's
/// resident memory small).
public final class WorkerThread {
    /// What a thread adds to the process's resident memory, for memory estimates: the pages of its
    /// stack it touches and its share of the allocator's per-thread arenas. Measured: 256 blurs of
    /// 1 px on a 21×31 photo peak 8.5 MiB higher on 2 threads (a thread a stage) than on 1, 34 KiB
    /// a stage of which 23 KiB are its three strips; taken as 64 KiB, for the deeper stacks of
    /// other stages and the arenas (up to eight a core) the first threads bring.
    public static let estimatedBytes = 64 << 10

    private var thread = pthread_t()

    public init(_ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Box(body)).toOpaque()
        let rc = pthread_create(&thread, nil, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            box.body()
            return nil
        }, context)
        precondition(rc == 0, "pthread_create failed: \(rc)")
    }

    public func join() { pthread_join(thread, nil) }

    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}
