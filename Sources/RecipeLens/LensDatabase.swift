internal import CLensfunLoader
import Glibc

/// lensfun's database, read once and shared: its cameras, mounts and lens profiles, and the
/// matching of what a photo says about its lens (`match`) and of a name a user writes
/// (`profile(named:)`). Immutable once read, so any thread may use it.
///
/// ```swift
/// let db = try LensDatabase.shared()
/// let query = LensQuery(info: decoder.info)
/// switch db.match(query) {
/// case .matched(let m): m.profile.calibration(focal: 24, aperture: 4, distance: nil)
/// case .ambiguous(let a): print(a.reason)      // never a silent pick
/// case .none(let n): print(n)
/// }
/// ```
public final class LensDatabase: Sendable {
    public let cameras: [LensCamera]
    public let lenses: [LensProfile]
    /// Each mount and the mounts whose lenses fit it (its own name included).
    let fittingMounts: [String: Set<String>]
    let handle: LensfunHandle
    /// The lens ID table (Resources/lens-ids.tsv).
    let lensIDs: LensIDTable

    /// The system's database as lensfun finds it (its data package, newer data fetched with
    /// lensfun-update-data, the user's own files), read on first use; the same object after.
    /// With `RECIPE_LENSFUN_DATA` set to a folder, the lensfun XML files in that folder instead,
    /// and only those: a user's own database, or a test's profiles.
    ///
    /// ```sh
    /// RECIPE_LENSFUN_DATA=~/lensfun-xml recipe render IMG_0042.CR2 --recipe lens.recipe.yaml
    /// ```
    public static func shared() throws(LensDatabaseError) -> LensDatabase { try sharedResult.get() }
    private static let sharedResult = Result<LensDatabase, LensDatabaseError> { () throws(LensDatabaseError) in
        try LensDatabase(directory: directoryVariable)
    }

    /// The variable naming a folder of lensfun XML files to read instead of the system's database.
    public static let directoryVariableName = "RECIPE_LENSFUN_DATA"

    /// The folder `RECIPE_LENSFUN_DATA` names, or nil when it is unset or empty.
    static var directoryVariable: String? {
        guard let value = getenv(directoryVariableName).map({ String(cString: $0) }), !value.isEmpty else { return nil }
        return value
    }

    /// Reads the database: lensfun's own search when `directory` is nil, else the XML files in it.
    public init(directory: String?) throws(LensDatabaseError) {
        var message: UnsafePointer<CChar>?
        guard rcp_lensfun_load(&message) != 0 else {
            throw .libraryMissing(message.map { String(cString: $0) } ?? "liblensfun.so.1 cannot be loaded")
        }
        var status: Int32 = 0
        guard let db = rcp_lensfun_open(directory, &status) else {
            throw status == -2 ? .outOfMemory : status == -1 ? .libraryMissing("liblensfun.so.1 cannot be loaded") : .dataMissing(directory: directory)
        }
        let handle = LensfunHandle(db)
        self.handle = handle
        var camera = rcp_lensfun_camera()
        cameras = (0..<rcp_lensfun_camera_count(db)).compactMap { i in
            rcp_lensfun_camera_at(db, i, &camera) != 0 ? LensCamera(camera) : nil
        }
        var lens = rcp_lensfun_lens()
        lenses = (0..<rcp_lensfun_lens_count(db)).compactMap { i in
            rcp_lensfun_lens_at(db, i, &lens) != 0 ? LensProfile(lens, handle: handle) : nil
        }
        var mount = rcp_lensfun_mount()
        var fitting: [String: Set<String>] = [:]
        for i in 0..<rcp_lensfun_mount_count(db) where rcp_lensfun_mount_at(db, i, &mount) != 0 {
            let compat = withUnsafeBytes(of: mount.compat) { raw in
                (0..<Int(mount.compat_count)).map { k in String(decoding: raw[(k * 48)..<(k * 48 + 48)].prefix { $0 != 0 }, as: UTF8.self) }
            }
            fitting[cString(mount.name)] = Set(compat + [cString(mount.name)])
        }
        fittingMounts = fitting
        lensIDs = LensIDTable.bundled
    }

    /// lensfun's own camera search (its spelling rules: case and spaces ignored, maker as EXIF
    /// writes it), then the same names with makers reduced to one spelling and the maker dropped
    /// from the model ("NIKON D750" → "d750").
    public func camera(make: String, model: String) -> LensCamera? {
        guard !model.isEmpty else { return nil }
        var found = [rcp_lensfun_camera](repeating: rcp_lensfun_camera(), count: 4)
        let n = rcp_lensfun_find_cameras(handle.db, make.isEmpty ? nil : make, model, &found, 4)
        if n > 0 { return LensCamera(found[0]) }
        let maker = LensMaker.canonical(make)
        let key = LensDatabase.cameraKey(model, maker: maker)
        return cameras.first { LensMaker.canonical($0.maker) == maker && LensDatabase.cameraKey($0.model, maker: maker) == key }
    }

    /// A camera model compared without case, spaces, hyphens and its maker's name.
    static func cameraKey(_ model: String, maker: String?) -> String {
        var words = model.lowercased().split(whereSeparator: { $0 == " " || $0 == "-" || $0 == "_" }).map(String.init)
        if let maker, let first = words.first, LensMaker.canonical(first) == maker { words.removeFirst() }
        return words.joined()
    }

    /// Whether a lens of `profile`'s mounts fits a camera of `mount` (directly or by an adapter
    /// lensfun lists).
    func fits(_ profile: LensProfile, mount: String) -> Bool {
        let fitting = fittingMounts[mount] ?? [mount]
        return profile.mounts.contains { fitting.contains($0) }
    }

    /// lensfun's own lens search (`lf_db_find_lenses_hd`) with its scores, best first: what
    /// lensfun alone would pick (darktable's and RawTherapee's matcher). For comparison and as
    /// suggestions; `match` decides with its own rules.
    public func lensfunSearch(cameraMake: String?, cameraModel: String?, lensMaker: String?, lensModel: String,
                              loose: Bool = false) -> [(profile: LensProfile, score: Int)] {
        var found = [rcp_lensfun_lens](repeating: rcp_lensfun_lens(), count: 32)
        let n = rcp_lensfun_find_lenses(handle.db, cameraMake, cameraModel, lensMaker, lensModel, loose ? 1 : 0, &found, 32)
        return found.prefix(Int(min(n, 32))).compactMap { l in
            l.index >= 0 && Int(l.index) < lenses.count ? (lenses[Int(l.index)], Int(l.score)) : nil
        }
    }
}

/// The one owner of lensfun's database handle, freed with the last profile that refers to it.
final class LensfunHandle: @unchecked Sendable {
    // Read-only once loaded: lensfun's look-ups and interpolations do not modify it.
    let db: OpaquePointer

    init(_ db: OpaquePointer) { self.db = db }
    deinit { rcp_lensfun_close(db) }
}

extension LensCamera {
    init(_ c: rcp_lensfun_camera) {
        self.init(maker: cString(c.maker), model: cString(c.model), variant: cString(c.variant), mount: cString(c.mount),
                  cropFactor: Double(c.crop_factor))
    }
}
