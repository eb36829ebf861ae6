import RecipeCore

/// A camera of lensfun's database: what fixes the crop factor a profile is scaled by and the mount
/// a lens must fit.
///
/// ```swift
/// let camera = database.camera(make: "NIKON CORPORATION", model: "NIKON D750")
/// camera?.cropFactor    // 1.0
/// camera?.mount         // "Nikon F AF"
/// ```
public struct LensCamera: Sendable, Hashable {
    public var maker: String
    public var model: String
    public var variant: String
    public var mount: String
    public var cropFactor: Double

    public init(maker: String, model: String, variant: String = "", mount: String, cropFactor: Double) {
        self.maker = maker
        self.model = model
        self.variant = variant
        self.mount = mount
        self.cropFactor = cropFactor
    }

    /// Whether the camera's lens is built in: lensfun names such mounts after the camera, starting
    /// with a lower-case letter ("canonG12", "sonyRX100III"), interchangeable ones with a capital
    /// ("Nikon F AF", "Sony E").
    public var hasFixedLens: Bool { mount.first?.isLowercase ?? false }

    /// "Nikon D750 (Nikon F AF, crop 1)".
    public var description: String {
        let name = model.lowercased().hasPrefix(maker.lowercased()) || maker.isEmpty ? model : "\(maker) \(model)"
        return "\(name) (\(mount), crop \(shown(cropFactor)))"
    }
}

/// A number to three decimals, as short as it reads: lensfun's floats (1.534000039) as the
/// database writes them (1.534).
func shown(_ v: Double) -> String { NumberFormatting.shortest((v * 1000).rounded() / 1000) }
