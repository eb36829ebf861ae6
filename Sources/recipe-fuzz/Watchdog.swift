import Glibc

/// Keeps the input being checked where a signal handler can reach it, so that a crash (a Swift
/// trap is SIGILL or SIGTRAP, a stack overflow SIGSEGV) or a hang still leaves the input behind:
/// the handler writes it to a file and, escaped, to stderr, using only async-signal-safe calls on
/// memory allocated up front.
///
/// - crash: the handler saves the input, restores the previous handler and raises the signal again;
///   the process dies as it would have (with the runtime's backtrace, if it has one).
/// - hang: a 1 s interval timer counts ticks while the same input stays current; after
///   `hangSeconds` ticks the input is saved and the process exits with status 1. (Inputs slower
///   than 1 s but finishing are reported by the main loop as `slow` findings.)
///
/// ```swift
/// Watchdog.install(capacity: 4096, folder: "/tmp/findings", hangSeconds: 10)
/// Watchdog.begin(input)      // before each input
/// ```
enum Watchdog {
    // Everything the handlers touch is allocated in `install` and never freed.
    nonisolated(unsafe) static var buffer: UnsafeMutablePointer<UInt8>?
    nonisolated(unsafe) static var capacity = 0
    nonisolated(unsafe) static var length = 0
    /// Incremented by `begin`; the timer compares it between ticks.
    nonisolated(unsafe) static var serial = 0
    nonisolated(unsafe) static var lastSerial = -1
    nonisolated(unsafe) static var ticks = 0
    nonisolated(unsafe) static var hangSeconds = 10
    nonisolated(unsafe) static var crashPath: UnsafeMutablePointer<CChar>?
    nonisolated(unsafe) static var hangPath: UnsafeMutablePointer<CChar>?
    /// Room for the escaped input (4 bytes per byte at most) and messages.
    nonisolated(unsafe) static var scratch: UnsafeMutablePointer<UInt8>?
    nonisolated(unsafe) static var scratchCapacity = 0
    nonisolated(unsafe) static var previous: UnsafeMutablePointer<sigaction>?
    static let crashSignals: [Int32] = [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE, SIGABRT]

    /// Sets up the buffers, the crash handlers (on an alternate stack) and the hang timer.
    /// Crash and hang inputs go to `folder` (created) or, without one, to /tmp.
    static func install(capacity: Int, folder: String?, hangSeconds: Int) {
        self.capacity = capacity
        buffer = .allocate(capacity: capacity)
        scratchCapacity = capacity * 4 + 4096
        scratch = .allocate(capacity: scratchCapacity)
        self.hangSeconds = hangSeconds
        let base = folder ?? "/tmp"
        let tag = folder == nil ? "recipe-fuzz-\(getpid())-" : ""
        crashPath = strdup(base + "/" + tag + "crash.recipe.yaml")
        hangPath = strdup(base + "/" + tag + "hang.recipe.yaml")
        previous = .allocate(capacity: 65)
        previous!.initialize(repeating: sigaction(), count: 65)

        // An alternate stack, so a stack overflow can still be reported.
        let stackSize = 1 << 16
        var altStack = stack_t()
        altStack.ss_sp = UnsafeMutableRawPointer.allocate(byteCount: stackSize, alignment: 16)
        altStack.ss_size = stackSize
        altStack.ss_flags = 0
        sigaltstack(&altStack, nil)

        for sig in crashSignals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = crashHandler
            action.sa_flags = Int32(SA_ONSTACK)
            sigemptyset(&action.sa_mask)
            sigaction(sig, &action, previous! + Int(sig))
        }

        var alarmAction = sigaction()
        alarmAction.__sigaction_handler.sa_handler = tickHandler
        alarmAction.sa_flags = Int32(SA_RESTART)
        sigemptyset(&alarmAction.sa_mask)
        sigaction(SIGALRM, &alarmAction, nil)
        var timer = itimerval(it_interval: timeval(tv_sec: 1, tv_usec: 0), it_value: timeval(tv_sec: 1, tv_usec: 0))
        setitimer(__itimer_which_t(ITIMER_REAL.rawValue), &timer, nil)
    }

    /// Makes `input` the current one (a copy of at most `capacity` bytes).
    static func begin(_ input: [UInt8]) {
        guard let buffer else { return }
        let n = min(input.count, capacity)
        input.withUnsafeBufferPointer { source in
            if n > 0 { buffer.update(from: source.baseAddress!, count: n) }
        }
        length = n
        serial &+= 1
    }

    /// Stops the hang timer (for the summary and minimization, which may take long in total).
    static func stopTimer() {
        var timer = itimerval()
        setitimer(__itimer_which_t(ITIMER_REAL.rawValue), &timer, nil)
    }
}

// MARK: - handlers (async-signal-safe: write, open, close, _exit, sigaction only)

private func emit(_ text: StaticString) {
    _ = write(STDERR_FILENO, text.utf8Start, text.utf8CodeUnitCount)
}

private func emitCString(_ text: UnsafePointer<CChar>) {
    _ = write(STDERR_FILENO, text, strlen(text))
}

/// Writes the current input to `path` and, escaped, to stderr.
private func saveCurrentInput(to path: UnsafeMutablePointer<CChar>?) {
    guard let buffer = Watchdog.buffer, let scratch = Watchdog.scratch else { return }
    if let path {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if fd >= 0 {
            _ = write(fd, buffer, Watchdog.length)
            close(fd)
            emit("recipe-fuzz: input written to ")
            emitCString(path)
            emit("\n")
        }
    }
    // Escape into the scratch buffer.
    var n = 0
    func put(_ b: UInt8) { scratch[n] = b; n += 1 }
    let hex: StaticString = "0123456789abcdef"
    put(UInt8(ascii: "\""))
    for i in 0..<Watchdog.length where n + 8 < Watchdog.scratchCapacity {
        let b = buffer[i]
        switch b {
        case 0x0A: put(0x5C); put(UInt8(ascii: "n"))
        case 0x09: put(0x5C); put(UInt8(ascii: "t"))
        case 0x0D: put(0x5C); put(UInt8(ascii: "r"))
        case 0x5C: put(0x5C); put(0x5C)
        case 0x22: put(0x5C); put(0x22)
        case 0x20..<0x7F: put(b)
        default:
            put(0x5C); put(UInt8(ascii: "x"))
            put(hex.utf8Start[Int(b >> 4)]); put(hex.utf8Start[Int(b & 15)])
        }
    }
    put(UInt8(ascii: "\"")); put(0x0A)
    emit("recipe-fuzz: input: ")
    _ = write(STDERR_FILENO, scratch, n)
}

private let crashHandler: @convention(c) (Int32) -> Void = { sig in
    emit("\nrecipe-fuzz: FINDING crash: a fatal signal while checking an input\n")
    saveCurrentInput(to: Watchdog.crashPath)
    // Put the previous handler back and raise the signal again: it is delivered (to the runtime's
    // backtracer, or the default action) as soon as this handler returns.
    if let previous = Watchdog.previous { sigaction(sig, previous + Int(sig), nil) }
    raise(sig)
}

private let tickHandler: @convention(c) (Int32) -> Void = { _ in
    if Watchdog.serial == Watchdog.lastSerial {
        Watchdog.ticks += 1
        if Watchdog.ticks >= Watchdog.hangSeconds {
            emit("\nrecipe-fuzz: FINDING hang: one input has run for the hang limit without finishing\n")
            saveCurrentInput(to: Watchdog.hangPath)
            _exit(1)
        }
    } else {
        Watchdog.lastSerial = Watchdog.serial
        Watchdog.ticks = 0
    }
}
