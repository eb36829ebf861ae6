import RecipeCore
import RecipeLanguage

/// A photo as the edit lifecycle sees it (DESIGN.md §4): the original (only ever read), its
/// adjustment data, and the object store beside it.
///
/// ```swift
/// let asset = Asset(photo: "IMG_0001.JPG")
/// switch try asset.adjustmentData() {
/// case .native(let sidecar): …           // ours: re-render from the original, append
/// case .apple(let edit, let rendering): … // foreign: frozen base from IMG_E0001.JPG
/// …
/// }
/// ```
public struct Asset: Sendable {
    public let photo: String

    public init(photo: String) {
        self.photo = photo
    }

    public var sidecarPath: String { Sidecar.path(forPhoto: photo) }
    public var store: ObjectStore { .beside(sidecarPath) }

    /// What adjustment data the photo has, and whether we can handle it.
    public enum AdjustmentData: Sendable {
        /// No edit yet.
        case none
        /// Our sidecar in a version this build reads: re-render from the original and append.
        case native(Sidecar)
        /// Our sidecar's path holds foreign data (another major version, another identifier).
        case foreignSidecar(ForeignEdit)
        /// Apple Photos' `IMG_0001.AAE`, with the rendering `IMG_E0001.JPG` when it is there.
        case apple(ForeignEdit, rendering: String?)
        /// darktable's `photo.jpg.xmp` (its rendering must be given).
        case darktable(ForeignEdit)

        /// PhotoKit's `canHandleAdjustmentData`.
        public var canHandle: Bool {
            switch self {
            case .none, .native: true
            default: false
            }
        }
    }

    /// Finds the photo's adjustment data: our sidecar first, then an Apple `.AAE`, then a
    /// darktable `.xmp` (Lightroom's settings are translated by `recipe import`, not found here).
    public func adjustmentData() throws -> AdjustmentData {
        if Paths.exists(sidecarPath) {
            let sidecar = try Sidecar.load(sidecarPath)
            if sidecar.checked.isForeign {
                let edit = try ForeignEdit.read(sidecarPath)
                return .foreignSidecar(edit)
            }
            return .native(sidecar)
        }
        if let aae = AppleAdjustmentData.sidecar(forPhoto: photo) {
            return .apple(try ForeignEdit.read(aae), rendering: AppleAdjustmentData.rendering(forPhoto: photo))
        }
        // A Lightroom sidecar (`IMG_0001.xmp` too) is not darktable's: `recipe import` reads it.
        if let xmp = DarktableSidecar.sidecar(forPhoto: photo), !LightroomImport.isCameraRaw(xmp) {
            return .darktable(try ForeignEdit.read(xmp))
        }
        return .none
    }

    /// The photo's content binding (SHA-256 and size of its bytes).
    public func binding() throws -> OriginalBinding {
        guard Paths.isFile(photo) else { throw HistoryError(photo, "no such photo") }
        let (digest, size) = try ContentHash.file(photo)
        return OriginalBinding(file: Paths.name(of: photo), sha256: digest, size: size)
    }

    /// Refuses a sidecar made for other bytes than the photo's: a replaced or edited original,
    /// or a sidecar copied beside another photo. Returns the photo's binding.
    @discardableResult
    public func verify(_ sidecar: Sidecar) throws -> OriginalBinding {
        let current = try binding()
        guard let bound = sidecar.checked.original else { return current }
        guard bound.sha256 == current.sha256, bound.size == current.size else {
            let was = bound.file.map { " \($0)" } ?? ""
            throw HistoryError(sidecar.path, "was made for another photo\(was) (sha256 \(bound.sha256.prefix(12))…, \(bound.size) bytes), but \(Paths.name(of: photo)) is sha256 \(current.sha256.prefix(12))…, \(current.size) bytes: not applied. If the photo was replaced on purpose, `recipe relink \(photo) --accept` binds the edit to it")
        }
        return current
    }

    /// The image a render of the sidecar starts from: the pixels of its last enabled frozen base
    /// (verified against its digest), or the original.
    public func renderSource(_ sidecar: Sidecar) throws -> String {
        guard let active = sidecar.checked.activeBase, let base = sidecar.checked.stages[active - 1].base else { return photo }
        return try store.verify(base.pixels)
    }
}
