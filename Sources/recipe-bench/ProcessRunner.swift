import Glibc

/// One program to run as a child process: an absolute executable path and its full `argv`.
///
/// ```swift
/// let pipe = Command.shell("djpeg 'in.jpg' | cjpeg -quality 90 > 'out.jpg'", output: "out.jpg")
/// let direct = Command(executable: "/usr/bin/djpeg", arguments: ["djpeg", "-outfile", "/dev/null", "in.jpg"])
/// ```
struct Command {
    /// The program to execute (absolute, or relative to the current directory).
    let executable: String
    /// The argument vector, `argv[0]` included.
    let arguments: [String]
    /// A file the command must leave behind, non-empty, for a run to count as a success.
    var expectedOutput: String? = nil
    /// A folder deleted with everything in it before each run (untimed), so every run starts
    /// from no outputs at all.
    var freshFolder: String? = nil

    /// `/bin/sh -c script`. The shell forks each process of a pipeline and waits for all of them.
    static func shell(_ script: String, output: String? = nil) -> Command {
        Command(executable: "/bin/sh", arguments: ["sh", "-c", script], expectedOutput: output)
    }

    /// The command as one line a reader can paste into a shell.
    var displayLine: String {
        if executable == "/bin/sh", arguments.count == 3, arguments[1] == "-c" { return arguments[2] }
        return arguments.enumerated().map { index, word in
            index == 0 ? word : Shell.quoteIfNeeded(word)
        }.joined(separator: " ")
    }
}

/// Quoting for `/bin/sh` command lines.
enum Shell {
    /// `word` in single quotes, with embedded single quotes spelled `'\''`.
    static func quote(_ word: String) -> String {
        "'" + word.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    /// `word` as is when it holds only characters the shell never interprets, else `quote(word)`.
    static func quoteIfNeeded(_ word: String) -> String {
        let plain = word.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
                || "/._-+=:,@%".utf8.contains(byte)
        }
        return plain && !word.isEmpty ? word : quote(word)
    }
}

/// How the bench starts a child. Both report the same wall time; they differ in what the child's
/// `ru_maxrss` starts from, because Linux carries a process's peak RSS across `execve`
/// (`exec_mmap` folds the pre-exec address space's high-water mark into `signal->maxrss`):
///
/// - `posixSpawn`: glibc's `posix_spawn` is `clone(CLONE_VM | CLONE_VFORK)`; the child runs in the
///   bench's own address space until `execve`, so its `ru_maxrss` is at least the bench's peak RSS
///   (≈ 5-8 MiB for a Swift executable), hiding anything smaller, such as the 2 MiB
///   `djpeg | cjpeg` floor on a baseline JPEG.
/// - `fork`: the child gets a copy of only the bench's anonymous pages (≈ 1 MiB), close to what
///   GNU time (`/usr/bin/time -f %M`, also fork + exec) reports. This is the default.
enum Launcher: String, CaseIterable {
    /// `fork` + `dup2` + `execve` (async-signal-safe calls only between fork and exec).
    case fork = "fork"
    /// `posix_spawn` with `dup2` file actions.
    case posixSpawn = "posix-spawn"
}

/// What one run of a command measured.
struct RunSample {
    /// `CLOCK_MONOTONIC` seconds from just before the child is started to just after `wait4` returns.
    let wallSeconds: Double
    /// `ru_maxrss` from `wait4`, in KiB: the child's peak resident set. For a `/bin/sh -c` child it is
    /// the largest of the shell itself and every child the shell waited for (Linux `wait4` reports
    /// `RUSAGE_BOTH` of the reaped process: its own `maxrss` maxed with its children's `cmaxrss`),
    /// so a pipeline reads as its biggest single process, not the sum.
    let maxRSSKiB: Int
}

/// Why a run did not produce a sample.
enum RunFailure: Error, CustomStringConvertible {
    /// The child could not be started (fork/posix_spawn or an open failed).
    case couldNotStart(String)
    /// The child exited with a non-zero status (127: `execve` failed).
    case exited(Int32, stderr: String)
    /// The child was killed by a signal.
    case signaled(Int32, stderr: String)
    /// The child exited 0 but its expected output file is missing or empty.
    case noOutput(String, stderr: String)

    /// A one-line explanation followed by the last 3 non-blank lines the child wrote to stderr.
    var description: String {
        how + (stderrLines.isEmpty ? "" : ": " + stderrLines.suffix(3).joined(separator: " / "))
    }

    /// The explanation followed by the first non-blank line the child wrote to stderr (`exited with
    /// status 1: recipe: error: …`).
    var firstLine: String {
        how + (stderrLines.first.map { ": " + $0 } ?? "")
    }

    /// How the run ended, e.g. `exited with status 1`.
    private var how: String {
        switch self {
        case .couldNotStart(let why): return "could not start: \(why)"
        case .exited(let code, _): return "exited with status \(code)" + (code == 127 ? " (could not execute)" : "")
        case .signaled(let signal, _): return "killed by signal \(signal)"
        case .noOutput(let path, _): return "exited 0 but wrote no \(path)"
        }
    }

    /// The non-blank lines the child wrote to stderr, trimmed.
    private var stderrLines: [String] {
        switch self {
        case .couldNotStart: return []
        case .exited(_, let text), .signaled(_, let text), .noOutput(_, let text):
            return text.split(separator: "\n").map { $0.trimmingCharacters(in: " \t\r") }.filter { !$0.isEmpty }
        }
    }
}

extension Substring {
    /// The substring without leading and trailing characters from `set`.
    fileprivate func trimmingCharacters(in set: String) -> String {
        var slice = self
        while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}

/// Runs commands as child processes and measures each run's wall time and peak RSS.
///
/// stdin and stdout of the child are `/dev/null` (or stdout goes to a file, see `capture`); stderr goes
/// to a log file in the scratch directory, shown when a run fails.
///
/// ```swift
/// let runner = ProcessRunner(launcher: .fork, logPath: scratch.file("stderr.log"))
/// let sample = try runner.run(command).get()   // RunSample(wallSeconds: 0.153, maxRSSKiB: 2176)
/// ```
struct ProcessRunner {
    /// How children are started.
    let launcher: Launcher
    /// Where each child's stderr goes (truncated per run).
    let logPath: String

    /// Runs `command` once and waits for it. `stdoutPath`, if given, receives the child's stdout.
    func run(_ command: Command, stdoutPath: String? = nil) -> Result<RunSample, RunFailure> {
        let stdoutFD = stdoutPath.map { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
            ?? open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer { if stdoutFD >= 0 { close(stdoutFD) } }
        guard stdoutFD >= 0 else { return .failure(.couldNotStart("open: \(FileSystem.errorText())")) }
        return run(command, stdoutFD: stdoutFD, whileRunning: { _ in })
    }

    /// Runs `command` once with its stdout on a pipe and calls `onOutput` with the child's pid and
    /// each chunk it writes, as it comes, until the child closes its stdout; then waits for it. The
    /// wall time includes the reading.
    func run(_ command: Command, streamingStdout onOutput: (pid_t, UnsafeRawBufferPointer) -> Void)
        -> Result<RunSample, RunFailure>
    {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return .failure(.couldNotStart("pipe: \(FileSystem.errorText())")) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }  // the child gets the write end as fd 1 only
        var writeEnd = ends[1]
        defer {
            close(ends[0])
            if writeEnd >= 0 { close(writeEnd) }
        }
        return run(command, stdoutFD: writeEnd) { pid in
            close(writeEnd)  // the child holds the only copy now, so its exit ends the reading
            writeEnd = -1
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(ends[0], $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                if count <= 0 { return }
                chunk.withUnsafeBytes { onOutput(pid, UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            }
        }
    }

    /// Starts `command` with stdout on `stdoutFD` (the caller's; not closed here), calls
    /// `whileRunning` with the child's pid, then waits for the child and judges the run.
    private func run(_ command: Command, stdoutFD: Int32, whileRunning: (pid_t) -> Void) -> Result<RunSample, RunFailure> {
        if let output = command.expectedOutput { unlink(output) }
        if let folder = command.freshFolder { FileSystem.removeTree(folder) }
        let stdinFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let stderrFD = open(logPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        defer { for fd in [stdinFD, stderrFD] where fd >= 0 { close(fd) } }
        guard stdinFD >= 0, stderrFD >= 0 else {
            return .failure(.couldNotStart("open: \(FileSystem.errorText())"))
        }

        let argv = CStringArray(command.arguments)
        var status: Int32 = 0
        var usage = rusage()
        var started = timespec(), finished = timespec()
        let startError: String? = command.executable.withCString { path in
            argv.withPointers { argvPointer in
                clock_gettime(CLOCK_MONOTONIC, &started)
                let pid: pid_t
                switch launcher {
                case .fork:
                    pid = fork()
                    if pid == 0 {
                        // Child: only async-signal-safe calls until execve.
                        dup2(stdinFD, 0)
                        dup2(stdoutFD, 1)
                        dup2(stderrFD, 2)
                        execve(path, argvPointer, environ)
                        _exit(127)
                    }
                    if pid < 0 { return "fork: \(FileSystem.errorText())" }
                case .posixSpawn:
                    var actions = posix_spawn_file_actions_t()
                    posix_spawn_file_actions_init(&actions)
                    defer { posix_spawn_file_actions_destroy(&actions) }
                    posix_spawn_file_actions_adddup2(&actions, stdinFD, 0)
                    posix_spawn_file_actions_adddup2(&actions, stdoutFD, 1)
                    posix_spawn_file_actions_adddup2(&actions, stderrFD, 2)
                    var child: pid_t = 0
                    let rc = posix_spawn(&child, path, &actions, nil, argvPointer, environ)
                    if rc != 0 { return "posix_spawn \(command.executable): \(FileSystem.errorText(rc))" }
                    pid = child
                }
                whileRunning(pid)
                while wait4(pid, &status, 0, &usage) < 0 {
                    if errno != EINTR { return "wait4: \(FileSystem.errorText())" }
                }
                clock_gettime(CLOCK_MONOTONIC, &finished)
                return nil
            }
        }
        if let startError { return .failure(.couldNotStart(startError)) }

        let stderrText = FileSystem.readText(logPath) ?? ""
        let termination = status & 0x7F
        if termination != 0 { return .failure(.signaled(termination, stderr: stderrText)) }
        let exitCode = (status >> 8) & 0xFF
        if exitCode != 0 { return .failure(.exited(exitCode, stderr: stderrText)) }
        if let output = command.expectedOutput, (FileSystem.size(output) ?? 0) == 0 {
            return .failure(.noOutput(output, stderr: stderrText))
        }
        let wall = Double(finished.tv_sec - started.tv_sec) + Double(finished.tv_nsec - started.tv_nsec) / 1e9
        return .success(RunSample(wallSeconds: wall, maxRSSKiB: Int(usage.ru_maxrss)))
    }
}

/// A NULL-terminated `char *[]` built from Swift strings with `strdup`, owned and freed in `deinit`,
/// so it can be built before `fork` and used in the child without allocating.
final class CStringArray {
    /// The strdup'ed strings followed by one nil.
    private let pointers: [UnsafeMutablePointer<CChar>?]

    /// Copies `strings` into C memory.
    init(_ strings: [String]) {
        pointers = strings.map { strdup($0) } + [nil]
    }

    /// Calls `body` with a pointer to the first element, valid only during the call.
    func withPointers<Result>(_ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> Result) -> Result {
        pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    deinit {
        for pointer in pointers { free(pointer) }
    }
}
