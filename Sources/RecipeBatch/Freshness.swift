import RecipeHistory

/// Whether an output is up to date, decided by content, never by timestamps alone: the source's
/// SHA-256 (taken from the manifest only while the photo's stat is exactly what it was when it was
/// hashed), the recipe key and the engine version must equal the record's, and the output must
/// still be the file the record describes (same stat, or the same SHA-256 after a copy).
///
/// ```swift
/// let f = Freshness(engine: "recipe 0.7.1")
/// f.decide(photo, output: "OUT/IMG_1.jpg", record: manifest.records["IMG_1.jpg"], recipeSHA256: key)
/// // .skip("up to date") or .render("the recipe changed"), …
/// ```
public struct Freshness: Sendable {
    public var engine: String
    public var force = false

    public init(engine: String, force: Bool = false) {
        self.engine = engine
        self.force = force
    }

    public enum Decision: Sendable, Equatable {
        case render(String)
        case skip(String)

        public var reason: String {
            switch self {
            case .render(let r), .skip(let r): r
            }
        }
        public var renders: Bool { if case .render = self { true } else { false } }
    }

    /// The decision for one photo, and the source's SHA-256 when it had to be computed. With
    /// `mayHash` false, a decision that needs a file hashed is nil (the caller hashes on a worker).
    public func decide(_ photo: PhotoFile, output: String, record: Manifest.Record?, recipeSHA256: String,
                       mayHash: Bool = true) -> (decision: Decision?, sourceSHA256: String?) {
        if force { return (.render("--force"), nil) }
        guard let record else { return (.render("new"), nil) }
        guard let outputStat = FileStat.of(output) else { return (.render("the output is missing"), nil) }
        if record.engine != engine { return (.render("the engine changed (\(record.engine) → \(engine))"), nil) }
        if record.recipeSHA256 != recipeSHA256 { return (.render("the recipe or the settings changed"), nil) }
        let sourceKnown = Self.unchanged(photo.stat, since: record.sourceStat, recorded: record.recorded)
        let outputKnown = outputStat == record.outputStat
        if !mayHash, !sourceKnown || !outputKnown { return (nil, nil) }
        var hashed: String?
        if !sourceKnown {
            guard let digest = try? ContentHash.file(photo.path).sha256 else { return (.render("the source cannot be hashed"), nil) }
            hashed = digest
            if digest != record.sourceSHA256 { return (.render("the source changed"), digest) }
        }
        if !outputKnown {
            guard let digest = try? ContentHash.file(output).sha256, digest == record.outputSHA256 else {
                return (.render("the output was changed or replaced since it was written"), hashed)
            }
        }
        return (.skip(hashed == nil ? "up to date" : "up to date (same content)"), hashed)
    }

    /// True when `now` is the stat the file had when it was hashed, and that was not in the same
    /// moment as the record was made (a change within the file system's time granularity of the
    /// hash would keep size and time; such a file is hashed again, as git does with "racily
    /// clean" entries).
    static func unchanged(_ now: FileStat, since then: FileStat, recorded: Int64) -> Bool {
        now == then && now.mtime < recorded - racyWindow
    }

    /// Coarse file-system clocks tick every few milliseconds; one second covers them all.
    static let racyWindow: Int64 = 1_000_000_000
}
