internal import CLCMS2
import Synchronization

/// Owns one lcms2 context. Its error handler records lcms2's messages so that they become part of a
/// `ColorProfileError`; lcms2 never prints. Every profile and transform gets its own context, so a
/// failure on one thread does not borrow another thread's message.
final class LCMSContext: @unchecked Sendable {
    /// Messages lcms2 reported, oldest first; a class so the C handler can reach it through the
    /// context's user-data pointer.
    final class Log: Sendable {
        let messages = Mutex<[String]>([])
    }

    let handle: cmsContext
    // Held strongly here, and only as an unretained pointer inside lcms2: it lives exactly as long
    // as the context does.
    private let log = Log()

    init() {
        guard let handle = cmsCreateContext(nil, Unmanaged.passUnretained(log).toOpaque()) else {
            preconditionFailure("lcms2 could not allocate a context")
        }
        self.handle = handle
        cmsSetLogErrorHandlerTHR(handle) { context, _, text in
            guard let context, let user = cmsGetContextUserData(context) else { return }
            let log = Unmanaged<Log>.fromOpaque(user).takeUnretainedValue()
            let message = text.map { String(cString: $0) } ?? "unknown error"
            log.messages.withLock { $0.append(message) }
        }
    }

    deinit {
        cmsDeleteContext(handle)
    }

    /// Returns and forgets the messages recorded so far.
    func drain() -> [String] {
        log.messages.withLock { messages in
            defer { messages.removeAll() }
            return messages
        }
    }
}

/// `": first; second"` for lcms2's messages, or "" when it said nothing.
func lcmsReason(_ contexts: LCMSContext...) -> String {
    var seen: [String] = []
    for message in contexts.flatMap({ $0.drain() }) where !seen.contains(message) { seen.append(message) }
    return seen.isEmpty ? "" : ": " + seen.joined(separator: "; ")
}
