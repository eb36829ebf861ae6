import RecipeCore
#if canImport(Glibc)
import Glibc
#endif

/// How much memory a render may take (`--max-memory`): every render's estimate
/// (`RenderEstimate`) is checked against it before the photo is decoded, and a render above it is
/// refused with the stages responsible named, so a recipe from a stranger cannot take the machine
/// down (issue 24).
///
/// The default is a third of the memory this process may use (the machine's physical memory, or a
/// container's limit when it is lower): on the 2-core 24 GiB machine the project runs on, two jobs
/// side by side get 8 GiB each and leave a third for the system and the other work on it. `apply`
/// renders `--jobs` photos at once in one process, so each of them gets its share of the budget.
///
/// ```swift
/// MemoryBudget(argument: "1.5GiB")!.bytes   // 1_610_612_736
/// MemoryBudget.standard.bytes               // a third of the memory there is
/// MemoryBudget.text(43_000_000)             // "41 MiB"
/// ```
package struct MemoryBudget: Sendable, Equatable, CustomStringConvertible {
    /// The bytes the process may hold for its renders.
    package var bytes: Int
    /// Renders run at once in this process (`apply --jobs`); each gets `perRender`.
    package var jobs = 1
    /// Given with `--max-memory` (else the default).
    package var given: Bool

    package init(bytes: Int, given: Bool = true) {
        self.bytes = bytes
        self.given = given
    }

    /// The least `--max-memory` takes: below it not even an identity render of a small photo fits.
    package static let minimumBytes = 16 << 20

    /// The default: a third of the memory the process may use (`availableBytes`), for the reason
    /// in the type's notes.
    package static var standard: MemoryBudget { MemoryBudget(bytes: availableBytes / 3, given: false) }

    /// Bytes one of the `jobs` renders may hold.
    package var perRender: Int { bytes / max(1, jobs) }

    /// Parses `512M`, `2G`, `1.5GiB`, `800MB`, `4096K` or a byte count: K, M, G and T are binary
    /// (1G = 1 GiB = 1024³ bytes), with or without `i` and `B`, in any case. Nil for anything
    /// else; a size below `minimumBytes` is the caller's to refuse.
    package init?(argument: String) {
        guard let bytes = ByteSize.parse(argument) else { return nil }
        self.init(bytes: bytes)
    }

    package var description: String { Self.text(bytes) }

    /// What the budget of one render is, for messages: `7.8 GiB (the default, a third of this
    /// machine's 23.4 GiB)`, or with jobs `3.9 GiB (7.8 GiB for 2 photos at once)`.
    package var explained: String {
        let whole = given ? "--max-memory \(Self.text(bytes))" : "the default, a third of the \(Self.text(Self.availableBytes)) this machine has"
        return jobs > 1 ? "\(Self.text(perRender)) (\(Self.text(bytes)) for \(jobs) photos at once; \(whole))" : "\(Self.text(bytes)) (\(whole))"
    }

    /// The memory this process may use: physical memory, or the container's limit (cgroup v2
    /// `memory.max`, v1 `memory.limit_in_bytes`) when that is lower.
    package static let availableBytes: Int = {
        let pages = Int(sysconf(Int32(_SC_PHYS_PAGES))), size = Int(sysconf(Int32(_SC_PAGESIZE)))
        var bytes = pages > 0 && size > 0 ? pages * size : 8 << 30
        for path in ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"] {
            if let limit = readNumber(path), limit > 0, limit < bytes { bytes = limit }
        }
        return bytes
    }()

    /// The first line of a small file as a whole number (nil for `max`, a missing file, anything else).
    private static func readNumber(_ path: String) -> Int? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 64)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
        let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return Int(line.trimmingSpaces())
    }

    /// Bytes as people read them: `620 KiB`, `41 MiB`, `1.5 GiB` (binary units, two significant
    /// digits below ten).
    package static func text(_ bytes: Int) -> String {
        let units = ["bytes", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes), unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        if unit == 0 { return "\(bytes) bytes" }
        let rounded = value < 10 ? (value * 10).rounded() / 10 : value.rounded()
        let digits = rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
        return "\(digits) \(units[unit])"
    }
}

extension StringProtocol {
    /// Without spaces, tabs and line ends at either end.
    fileprivate func trimmingSpaces() -> Substring {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        let s = self[...]
        guard let first = s.firstIndex(where: { !blank($0) }), let last = s.lastIndex(where: { !blank($0) }) else { return "" }
        return Substring(s[first...last])
    }
}
