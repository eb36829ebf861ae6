import Glibc

/// The few system services the fuzzer needs, on Glibc alone (no Foundation, like recipe-bench):
/// a monotonic clock, the process's memory, and reading and writing files.
///
/// ```swift
/// let t0 = FuzzSystem.now()
/// FuzzSystem.residentMiB()              // 31.5
/// FuzzSystem.recipeFiles(under: "Recipes")
/// ```
enum FuzzSystem {
    /// `CLOCK_MONOTONIC` in seconds.
    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// The process's resident set now, from `/proc/self/statm` (second field, in pages), in MiB;
    /// nil off Linux.
    static func residentMiB() -> Double? {
        guard let bytes = readFile("/proc/self/statm") else { return nil }
        let fields = bytes.split(separator: UInt8(ascii: " "))
        guard fields.count > 1, let pages = Int(String(decoding: fields[1], as: UTF8.self)) else { return nil }
        return Double(pages * Int(sysconf(Int32(_SC_PAGESIZE)))) / (1024 * 1024)
    }

    /// Sets the process's resident high-water mark (`VmHWM`) back to its resident set now, so the
    /// next reading of it is the peak since this call: Linux's `/proc/self/clear_refs` with `5`.
    /// False where that file cannot be written (another system, an older kernel).
    @discardableResult
    static func resetPeakResident() -> Bool {
        let fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return write(fd, "5", 1) == 1
    }

    /// `VmRSS` (now) and `VmHWM` (the peak since start or the last `resetPeakResident`) from
    /// `/proc/self/status`, in KiB; nil off Linux.
    static func residentStatus() -> (current: Int, peak: Int)? {
        guard let bytes = readFile("/proc/self/status") else { return nil }
        var current: Int?, peak: Int?
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            let text = String(decoding: line, as: UTF8.self)
            let value = { Int(text.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") }
            if text.hasPrefix("VmRSS:") { current = value() } else if text.hasPrefix("VmHWM:") { peak = value() }
        }
        guard let current, let peak else { return nil }
        return (current, peak)
    }

    /// Returns the heap's free memory to the system (glibc `malloc_trim`, found at run time: the
    /// Glibc module has no malloc.h), so what one input left behind does not hide what the next
    /// one needs.
    static func trimHeap() { _ = mallocTrim?(0) }

    private typealias Trim = @convention(c) (Int) -> Int32
    private static let mallocTrim: Trim? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim")
        .map { unsafeBitCast($0, to: Trim.self) }

    /// The process's peak resident set (`getrusage` `ru_maxrss`) in KiB.
    static func peakRSSKiB() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss)
    }

    /// Writes `text` to stderr (progress, findings as they are found).
    static func note(_ text: String) {
        writeAll(Array((text + "\n").utf8), to: STDERR_FILENO)
    }

    /// The whole file at `path`, or nil.
    static func readFile(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if n == 0 { return result }
            result.append(contentsOf: chunk[0..<n])
        }
    }

    /// Writes `bytes` to `path`, replacing it; false on failure.
    @discardableResult
    static func writeFile(_ bytes: [UInt8], to path: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return false }
        let ok = writeAll(bytes, to: fd)
        return close(fd) == 0 && ok
    }

    @discardableResult
    static func writeAll(_ bytes: [UInt8], to fd: Int32) -> Bool {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            done += n
        }
        return true
    }

    /// Creates `path` and its missing parents; false if it is not a folder afterwards.
    static func makeDirectories(_ path: String) -> Bool {
        var partial = path.hasPrefix("/") ? "/" : ""
        for part in path.split(separator: "/") {
            partial += (partial.isEmpty || partial.hasSuffix("/") ? "" : "/") + part
            mkdir(partial, 0o755)
        }
        return isDirectory(path)
    }

    static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// Every `*.recipe.yaml` (or `.recipe.yml`) below `folder`, sorted, hidden entries skipped
    /// (the same walk as `recipe check`); a file is taken as given.
    static func recipeFiles(under folder: String) -> [String] {
        if !isDirectory(folder) {
            var st = stat()
            return stat(folder, &st) == 0 ? [folder] : []
        }
        guard let dir = opendir(folder) else { return [] }
        var entries: [(String, Bool)] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix(".") { continue }
            let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            var st = stat()
            guard lstat(path, &st) == 0 else { continue }
            let isDir = (st.st_mode & S_IFMT) == S_IFDIR
            if isDir || ((st.st_mode & S_IFMT) == S_IFREG && (name.hasSuffix(".recipe.yaml") || name.hasSuffix(".recipe.yml"))) {
                entries.append((path, isDir))
            }
        }
        closedir(dir)
        var files: [String] = []
        for (path, isDir) in entries.sorted(by: { $0.0 < $1.0 }) {
            if isDir { files += recipeFiles(under: path) } else { files.append(path) }
        }
        return files
    }

    /// `bytes` as a double-quoted C/Swift-style literal that `printf '%b'` and bash `$'…'` also read:
    /// printable ASCII as is, `\n`, `\t`, `\r`, `\\`, `\"`, everything else `\xHH`.
    static func escaped(_ bytes: [UInt8]) -> String {
        var out = "\""
        let hex = Array("0123456789abcdef".utf8)
        for b in bytes {
            switch b {
            case UInt8(ascii: "\n"): out += "\\n"
            case UInt8(ascii: "\t"): out += "\\t"
            case UInt8(ascii: "\r"): out += "\\r"
            case UInt8(ascii: "\\"): out += "\\\\"
            case UInt8(ascii: "\""): out += "\\\""
            case 0x20..<0x7F: out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                out += "\\x"
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(b >> 4)]))
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(b & 15)]))
            }
        }
        return out + "\""
    }
}

/// Fixed-point formatting without Foundation's `String(format:)`.
enum Format {
    /// `value` rounded to `digits` decimals, e.g. `fixed(0.15349, 3)` → `"0.153"`.
    static func fixed(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite else { return String(value) }
        var scale = 1
        for _ in 0..<digits { scale *= 10 }
        let scaled = Int((abs(value) * Double(scale)).rounded())
        let sign = value < 0 && scaled != 0 ? "-" : ""
        guard digits > 0 else { return sign + String(scaled) }
        let fraction = String(scaled % scale)
        return sign + String(scaled / scale) + "." + String(repeating: "0", count: digits - fraction.count) + fraction
    }

    /// A duration in the unit that reads best: `850 µs`, `12.3 ms`, `1.20 s`.
    static func duration(_ seconds: Double) -> String {
        if seconds < 1e-3 { return fixed(seconds * 1e6, 0) + " µs" }
        if seconds < 1 { return fixed(seconds * 1e3, 1) + " ms" }
        return fixed(seconds, 2) + " s"
    }
}
