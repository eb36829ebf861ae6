import RecipeBatch
import RecipeCodecs
import RecipeCore
import RecipeLens

extension InfoReport {
    /// `recipe info`'s lens lines: the lens as the file names it, the settings a correction depends
    /// on, and the lensfun profile `lens: auto` would take, or why none:
    ///
    /// ```
    ///   lens: AF Nikkor 35mm f/2D
    ///   lens settings: 35 mm, f/4, 35 mm in 35 mm terms
    ///   lens profile: LensModel 'AF Nikkor 35mm f/2D' → Nikon AF Nikkor 35mm f/2D 66 (name normalised, crop 1 of the Nikon D800)
    /// ```
    ///
    /// Nothing when the file says nothing about a lens. The database is read only then.
    static func lensFields(_ info: ImageInfo) -> [(key: String, value: JSONLine.Value)] {
        let q = LensQuery(info: info)
        var named = [q.lensMake, q.lensModel].filter { !$0.isEmpty }.joined(separator: " ")
        if let id = q.lensID { named += (named.isEmpty ? "" : ", ") + "maker-note lens ID \(id)" }
        var settings: [String] = []
        func number(_ v: Double) -> String { NumberFormatting.shortest((v * 10).rounded() / 10) }
        if let f = q.focalLength { settings.append("\(number(f)) mm") }
        if let a = q.aperture { settings.append("f/\(number(a))") }
        if let d = q.distance { settings.append(d >= 1000 ? "focused at infinity" : "focused at \(number(d)) m") }
        if let f35 = q.focalLength35mm { settings.append("\(number(f35)) mm in 35 mm terms") }
        guard !named.isEmpty || q.lensSpecification != nil || !settings.isEmpty else { return [] }
        var fields: [(key: String, value: JSONLine.Value)] = []
        // A raw's details already name the lens.
        if info.raw == nil || info.raw?.lens != q.lensModel || q.lensID != nil {
            fields.append(("lens", .string(named.isEmpty ? "not named" : named)))
        }
        if !settings.isEmpty { fields.append(("lens settings", .string(settings.joined(separator: ", ")))) }
        do {
            fields.append(("lens profile", .string(try LensDatabase.shared().match(q).summary)))
        } catch {
            fields.append(("lens profile", .string("unknown: \(error)")))
        }
        return fields
    }
}
