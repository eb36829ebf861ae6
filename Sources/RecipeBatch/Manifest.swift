import RecipeHistory
#if canImport(Glibc)
import Glibc
#endif

/// What a batch wrote into an output folder, one JSON line per output, so that a re-run renders
/// exactly the outputs whose inputs changed: the source photo's SHA-256 (and the stat it had
/// when hashed, so an untouched photo is not hashed again), the key of the recipes and settings,
/// the engine version, and the output's own SHA-256 and stat.
///
/// ```text
/// OUT/.recipe-manifest.jsonl
/// {"output":"2024/IMG_1.jpg","source":"shoot/2024/IMG_1.jpg","source_sha256":"6f1e…","source_size":2318841,
///  "source_mtime_ns":…,"source_inode":…,"recipe_sha256":"a3c9…","engine":"recipe 0.7.1",
///  "output_sha256":"91b0…","output_size":812344,"output_mtime_ns":…,"output_inode":…,"recorded_ns":…}
/// ```
///
/// A run without `--shard` keeps `.recipe-manifest.jsonl`; shard K of N keeps
/// `.recipe-manifest.shard-K-of-N.jsonl`, so machines sharing one folder never write the same
/// file. Every run reads all of them (the newest record of an output wins), and a run without
/// `--shard` folds the shards' files into its own when it ends: that is the merge.
public struct Manifest: Sendable {
    public static let fileName = ".recipe-manifest.jsonl"
    public static func fileName(shard: Shard?) -> String {
        guard let shard, shard.count > 1 else { return fileName }
        return ".recipe-manifest.shard-\(shard.index)-of-\(shard.count).jsonl"
    }

    public struct Record: Sendable, Equatable {
        /// The output's path below the output folder.
        public var output: String
        public var source: String
        public var sourceSHA256: String
        public var sourceStat: FileStat
        /// SHA-256 of the canonical recipes, the files they read, the params set and the output settings.
        public var recipeSHA256: String
        public var engine: String
        public var outputSHA256: String
        public var outputStat: FileStat
        /// When the record was made (ns since 1970): a photo changed in the same instant as it was
        /// hashed keeps its stat, so a source modified at or after this is always hashed again.
        public var recorded: Int64
        /// The measured `auto` values the render used, `stage 1 exposure.ev=0.4213; …` (empty:
        /// none): what a later render of the same photo and recipes takes instead of measuring
        /// again, so that it gives the same picture whatever the measurement has become.
        public var auto: String = ""

        public init(output: String, source: String, sourceSHA256: String, sourceStat: FileStat, recipeSHA256: String,
                    engine: String, outputSHA256: String, outputStat: FileStat, recorded: Int64, auto: String = "") {
            self.auto = auto
            self.output = output
            self.source = source
            self.sourceSHA256 = sourceSHA256
            self.sourceStat = sourceStat
            self.recipeSHA256 = recipeSHA256
            self.engine = engine
            self.outputSHA256 = outputSHA256
            self.outputStat = outputStat
            self.recorded = recorded
        }

        public var line: String {
            FlatJSON.line([
                ("output", .string(output)), ("source", .string(source)), ("source_sha256", .string(sourceSHA256)),
                ("source_size", .int(Int64(sourceStat.size))), ("source_mtime_ns", .int(sourceStat.mtime)),
                ("source_inode", .int(Int64(bitPattern: sourceStat.inode))), ("source_device", .int(Int64(bitPattern: sourceStat.device))),
                ("recipe_sha256", .string(recipeSHA256)), ("engine", .string(engine)),
                ("output_sha256", .string(outputSHA256)), ("output_size", .int(Int64(outputStat.size))),
                ("output_mtime_ns", .int(outputStat.mtime)), ("output_inode", .int(Int64(bitPattern: outputStat.inode))),
                ("output_device", .int(Int64(bitPattern: outputStat.device))), ("recorded_ns", .int(recorded)),
            ] + (auto.isEmpty ? [] : [("auto", .string(auto))]))
        }

        public init?(line: Substring) {
            guard let f = FlatJSON.parse(line) else { return nil }
            func s(_ k: String) -> String? { if case .string(let v)? = f[k] { v } else { nil } }
            func i(_ k: String) -> Int64? { if case .int(let v)? = f[k] { v } else { nil } }
            guard let output = s("output"), let source = s("source"), let sourceSHA = s("source_sha256"),
                  let recipe = s("recipe_sha256"), let engine = s("engine"), let outputSHA = s("output_sha256"),
                  let ss = i("source_size"), let sm = i("source_mtime_ns"), let si = i("source_inode"), let sd = i("source_device"),
                  let os = i("output_size"), let om = i("output_mtime_ns"), let oi = i("output_inode"), let od = i("output_device"),
                  let recorded = i("recorded_ns") else { return nil }
            self.init(output: output, source: source, sourceSHA256: sourceSHA,
                      sourceStat: FileStat(size: Int(ss), mtime: sm, inode: UInt64(bitPattern: si), device: UInt64(bitPattern: sd)),
                      recipeSHA256: recipe, engine: engine, outputSHA256: outputSHA,
                      outputStat: FileStat(size: Int(os), mtime: om, inode: UInt64(bitPattern: oi), device: UInt64(bitPattern: od)),
                      recorded: recorded, auto: s("auto") ?? "")
        }
    }

    /// The newest record of each output, from every manifest file in the folder.
    public private(set) var records: [String: Record] = [:]
    /// The manifest files read (names).
    public private(set) var files: [String] = []
    /// Lines that were not records (a torn last line after a kill), per file name.
    public private(set) var unreadable: [String: Int] = [:]

    public init() {}

    /// Reads every `.recipe-manifest*.jsonl` in `folder` (none yet is an empty manifest).
    public static func load(folder: String) throws -> Manifest {
        var manifest = Manifest()
        guard let dir = opendir(folder) else {
            if errno == ENOENT { return manifest }
            throw HistoryError(folder, "cannot read the output folder: \(String(cString: strerror(errno)))")
        }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix(".recipe-manifest"), name.hasSuffix(".jsonl") { names.append(name) }
        }
        closedir(dir)
        for name in names.sorted() { try manifest.read(folder: folder, name: name) }
        return manifest
    }

    /// Reads one manifest file (missing: empty).
    public static func loadFile(folder: String, name: String) throws -> Manifest {
        var manifest = Manifest()
        if Paths.isFile(Paths.join(folder, name)) { try manifest.read(folder: folder, name: name) }
        return manifest
    }

    mutating func read(folder: String, name: String) throws {
        let bytes = try Paths.readBytes(Paths.join(folder, name), limit: 1 << 30)
        files.append(name)
        let text = String(decoding: bytes, as: UTF8.self)
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            guard let record = Record(line: line) else {
                unreadable[name, default: 0] += 1
                continue
            }
            add(record)
        }
    }

    /// Keeps `record` unless a newer record of the same output is already here.
    public mutating func add(_ record: Record) {
        if let old = records[record.output], old.recorded > record.recorded { return }
        records[record.output] = record
    }

    /// The text of a manifest holding `records`, sorted by output (stable, diffable).
    public static func text(_ records: some Sequence<Record>) -> String {
        records.sorted { $0.output.utf8.lexicographicallyPrecedes($1.output.utf8) }.map { $0.line + "\n" }.joined()
    }
}

/// Appends records to a manifest file as outputs complete, one `write(2)` of a whole line each
/// (O_APPEND), so a kill leaves at worst a torn last line, which the next read skips.
public final class ManifestWriter: @unchecked Sendable {
    public let path: String
    let fd: Int32

    public init(path: String) throws {
        self.path = path
        // O_NONBLOCK: a FIFO planted at the manifest's name must not block the open (writes to
        // a regular file never block); anything but a regular file is refused.
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW, 0o644)
        guard fd >= 0 else { throw HistoryError(path, "cannot open the manifest: \(String(cString: strerror(errno)))") }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw HistoryError(path, "the manifest is not a regular file")
        }
    }

    deinit { close(fd) }

    public func append(_ record: Manifest.Record) throws {
        let line = Array((record.line + "\n").utf8)
        let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == line.count else {
            throw HistoryError(path, "cannot append to the manifest: \(String(cString: strerror(errno)))")
        }
    }
}
