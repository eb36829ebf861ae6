import RecipeCore
#if canImport(Glibc)
import Glibc
#endif

/// Moves strips from a source to a sink, with the source running on its own thread so decoding
/// (and whatever steps the source chain does) overlaps encoding.
///
/// A few strip buffers circulate between the two threads, so memory is a handful of strips
/// whatever the image height. Row order is kept, so the output bytes do not depend on timing.
///
/// ```swift
/// try StripPipeline.run(source: decoder, sink: encoder)
/// ```
public enum StripPipeline {
    /// Rows per strip handed between threads.
    public static let defaultStripRows = 32

    public static func run(source: RowSource, sink: RowSink, stripRows: Int = defaultStripRows, threaded: Bool = true) throws {
        precondition(source.width == sink.width && source.height == sink.height, "source and sink sizes differ")
        precondition(source.format == sink.format, "source rows are \(source.format), the sink wants \(sink.format)")
        let rows = max(1, min(stripRows, source.height))
        if !threaded {
            let strip = PixelBuffer(width: source.width, rowCapacity: rows, format: source.format)
            var done = 0
            while done < source.height {
                let n = try source.readRows(into: strip)
                guard n > 0 else { break }
                try sink.writeRows(from: strip)
                done += n
            }
            precondition(done == source.height, "source ended after \(done) of \(source.height) rows")
            try sink.finish()
            return
        }

        let channel = StripChannel(buffers: (0..<3).map { _ in
            PixelBuffer(width: source.width, rowCapacity: rows, format: source.format)
        })
        let box = Unchecked(source)
        let producer = WorkerThread {
            let source = box.value
            while let strip = channel.takeEmpty() {
                do {
                    let n = try source.readRows(into: strip)
                    if n == 0 {
                        channel.finishProducing(error: nil)
                        channel.giveBackEmpty(strip)
                        return
                    }
                    channel.putFull(strip)
                } catch {
                    channel.finishProducing(error: error)
                    return
                }
            }
        }
        var consumerError: Error?
        while true {
            let next: PixelBuffer?
            do {
                next = try channel.takeFull()
            } catch {
                consumerError = error
                break
            }
            guard let strip = next else { break }
            do {
                try sink.writeRows(from: strip)
                channel.giveBackEmpty(strip)
            } catch {
                consumerError = error
                channel.cancel()
                break
            }
        }
        producer.join()
        if let consumerError { throw consumerError }
        try sink.finish()
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
final class WorkerThread {
    private var thread = pthread_t()

    init(_ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Box(body)).toOpaque()
        let rc = pthread_create(&thread, nil, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            box.body()
            return nil
        }, context)
        precondition(rc == 0, "pthread_create failed: \(rc)")
    }

    func join() { pthread_join(thread, nil) }

    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}
