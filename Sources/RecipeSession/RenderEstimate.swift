import RecipeCore

/// What a render will hold at its peak, and roughly how much work it is, estimated from the
/// photo's header and the plan before a pixel is decoded (`RenderJob.estimate`), part by part:
/// the process itself, the decoder, each stage (its window of rows, a whole image where it needs
/// one, its tables, the strips and thread it hands rows over with), the rows kept at branch points,
/// the encoder. The parts are added up: a render streams, so all of them are alive at once.
///
/// ```swift
/// let estimate = job.estimate(decoder, color: color)
/// estimate.summary          // "~41 MiB estimated peak; work ~0.6 G pixel-ops"
/// estimate.largest(3)       // [(process, 14 MiB), (clarity (stage 6), 9.6 MiB), …]
/// ```
///
/// Checked against measured peak RSS (`/usr/bin/time -f %M`, release build) on the bundled
/// recipes over photo24 and small photos (README, "Memory budget"), and by
/// `Tests/recipeTests/MemoryBudgetTests.swift`.
package struct RenderEstimate: Sendable {
    /// One contributor: a stage (by its origin, `clarity (stage 6)`), the decoder, the encoder, …
    package struct Part: Sendable {
        package var what: String
        package var bytes: Int
    }

    /// The contributors, merged by name, in the order first met.
    package private(set) var parts: [Part] = []
    /// Elementary operations on a pixel (a multiply-add on its channels, a table lookup, a copy),
    /// summed over the stages: a rough measure of the time the render takes.
    package var work: Double = 0

    package init() {}

    /// The process's own memory before any pixel: the code a render touches, the Swift runtime,
    /// the libraries. Measured with the release build (`.ci/build-release`): the identity render of
    /// a small photo peaks at 14.5–14.7 MiB (Landscape_1, kodim03), of photo24 at 14.5 MiB, of
    /// which decoding and encoding take about 1 MiB; a recipe's stages bring in code of their own
    /// (the point kernels, the windows, the resamplers: with 14 MiB here, the bundled recipes'
    /// estimates fell up to 2.2 MiB short of their peaks). 16 MiB.
    package static let processBytes = 16 << 20

    package mutating func add(_ what: String, _ bytes: Int) {
        guard bytes > 0 else { return }
        if let i = parts.firstIndex(where: { $0.what == what }) { parts[i].bytes += bytes } else { parts.append(Part(what: what, bytes: bytes)) }
    }

    /// What planning held before the render began (a `.cube` read and parsed), beside the
    /// process: the peak when it is more than the render's parts together.
    package var beforeDecoding: Part?

    /// The estimated peak in bytes: the render's parts together, or what planning held.
    package var bytes: Int { max(parts.reduce(0) { $0 + $1.bytes }, beforeDecoding.map { Self.processBytes + $0.bytes } ?? 0) }

    /// Whether the peak is planning's (`beforeDecoding`), not the render's.
    package var peaksBeforeDecoding: Bool {
        guard let b = beforeDecoding else { return false }
        return Self.processBytes + b.bytes > parts.reduce(0) { $0 + $1.bytes }
    }

    /// The `count` largest parts, largest first, stages of one op taken together
    /// (`256 blur stages (1–256)`: a recipe of many small stages is named by what it repeats).
    package func largest(_ count: Int) -> [Part] {
        Array(grouped.enumerated().sorted { $0.element.bytes != $1.element.bytes ? $0.element.bytes > $1.element.bytes : $0.offset < $1.offset }
            .prefix(count).map(\.element))
    }

    /// The parts with the stages of each op added up: `blur (stage 3)` alone stays as it is,
    /// three blurs become `3 blur stages (2, 5, 9)`.
    package var grouped: [Part] {
        var groups: [(op: String, stages: [String], bytes: Int)] = []
        for part in parts {
            let (op, stage) = Self.stage(of: part.what) ?? (part.what, "")
            if !stage.isEmpty, let i = groups.firstIndex(where: { $0.op == op && !$0.stages.isEmpty }) {
                groups[i].stages.append(stage)
                groups[i].bytes += part.bytes
            } else {
                groups.append((op, stage.isEmpty ? [] : [stage], part.bytes))
            }
        }
        return groups.map { group in
            guard group.stages.count > 1 else {
                return Part(what: group.stages.first.map { "\(group.op) (stage \($0))" } ?? group.op, bytes: group.bytes)
            }
            let numbers = group.stages.compactMap { Int($0) }
            let consecutive = numbers.count == group.stages.count && numbers == Array(numbers.first!...numbers.last!)
            let which = consecutive ? "\(numbers.first!)–\(numbers.last!)"
                : group.stages.prefix(6).joined(separator: ", ") + (group.stages.count > 6 ? ", …" : "")
            return Part(what: "\(group.stages.count) \(group.op) stages (\(which))", bytes: group.bytes)
        }
    }

    /// `("blur", "3")` for `blur (stage 3)`; nil for a part that is not one stage.
    static func stage(of what: String) -> (op: String, stage: String)? {
        let marker = " (stage "
        guard what.hasSuffix(")") else { return nil }
        var i = what.endIndex
        while i > what.startIndex {
            i = what.index(before: i)
            if what[i...].hasPrefix(marker) {
                let number = what[what.index(i, offsetBy: marker.count)...].dropLast()
                return number.allSatisfy(\.isNumber) && !number.isEmpty ? (String(what[..<i]), String(number)) : nil
            }
        }
        return nil
    }

    /// `~41 MiB estimated peak; work ~0.6 G pixel-ops`.
    package var summary: String {
        "~\(MemoryBudget.text(bytes)) estimated peak\(peaksBeforeDecoding ? " (\(beforeDecoding!.what))" : ""); work ~\(Self.workText(work)) pixel-ops"
    }

    /// `0.6 G`, `12 G`, `350 M`.
    package static func workText(_ work: Double) -> String {
        if work >= 1e10 { return "\(Int((work / 1e9).rounded())) G" }
        if work >= 1e8 { return "\((work / 1e8).rounded() / 10) G" }
        return "\(Int((work / 1e6).rounded())) M"
    }

    /// The parts as a list: `clarity (stage 6) 9.6 MiB, shadows-highlights (stage 5) 8.1 MiB`.
    package static func list(_ parts: [Part]) -> String {
        parts.map { "\($0.what) \(MemoryBudget.text($0.bytes))" }.joined(separator: ", ")
    }

    /// The error that refuses a render of `photo` above `budget`: what it would need, the stages
    /// that need the most, and the option that raises the budget.
    package func refusal(photo: String, recipe: String?, budget: MemoryBudget) -> ImageError {
        let through = recipe.map { " through \($0)" } ?? ""
        let most = largest(4).filter { $0.what != Self.processPart }
        // Room for this render with a tenth to spare, for each of the renders sharing the budget.
        let next = Double(bytes) * 1.1 * Double(max(1, budget.jobs))
        let suggestion = next < Double(1 << 30) ? "\(Int((next / Double(100 << 20)).rounded(.up)) * 100)M"
            : next < Double(10 << 30) ? "\((next / Double(1 << 30) * 10).rounded(.up) / 10)G" : "\(Int((next / Double(1 << 30)).rounded(.up)))G"
        return ImageError(.overBudget, path: photo,
                          "not rendered: rendering it\(through) would need about \(MemoryBudget.text(bytes)), over the memory budget of "
                          + "\(budget.explained); most of it: \(Self.list(most)). Raise the budget with --max-memory "
                          + "(e.g. --max-memory \(suggestion)) if the machine has the room")
    }

    /// The name of the process's own part.
    package static let processPart = "the process (code, runtime)"
}
