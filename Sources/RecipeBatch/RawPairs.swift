import RecipeCodecs

/// Which of a raw file and the JPEG (or HEIC) a camera wrote beside it with the same name stem a
/// batch renders (`apply --pairs`): cameras set to RAW+JPEG write `IMG_0001.CR2` and
/// `IMG_0001.JPG`, and both would otherwise land on the output `IMG_0001.jpg`.
///
/// ```swift
/// RawPairs.select(photos, keep: .raw)   // IMG_0001.CR2 kept; IMG_0001.JPG left out, naming the raw
/// ```
public enum RawPairs {
    public enum Keep: String, Sendable, CaseIterable {
        /// Develop the raw; leave its camera JPEG out (the default).
        case raw
        /// Render the camera's JPEG; leave the raw out.
        case jpeg
        /// Render both (their outputs need names that differ: `--name '{stem}.{srcext}.{ext}'`).
        case both
    }

    /// The rendered copies a camera writes beside a raw.
    static let companions: Set<String> = ["jpg", "jpeg", "jpe", "heic", "heif", "hif"]

    /// `photos` without the halves of raw+JPEG pairs that `keep` leaves out, and those left out,
    /// each with the photo of its pair that is rendered instead.
    public static func select(_ photos: [PhotoFile], keep: Keep) -> (kept: [PhotoFile], left: [(photo: PhotoFile, partner: PhotoFile)]) {
        guard keep != .both else { return (photos, []) }
        func split(_ relative: String) -> (key: String, ext: String)? {
            guard let dot = relative.lastIndex(of: "."), !relative[dot...].contains("/") else { return nil }
            return (relative[..<dot].lowercased(), relative[relative.index(after: dot)...].lowercased())
        }
        var raws: [String: PhotoFile] = [:], others: [String: PhotoFile] = [:]
        for photo in photos {
            guard let (key, ext) = split(photo.relative) else { continue }
            if RawDetection.extensions.contains(ext) { raws[key] = raws[key] ?? photo }
            else if companions.contains(ext) { others[key] = others[key] ?? photo }
        }
        var leftOut: [String: PhotoFile] = [:]  // path → partner
        for (key, raw) in raws {
            guard let other = others[key] else { continue }
            if keep == .raw { leftOut[other.path] = raw } else { leftOut[raw.path] = other }
        }
        guard !leftOut.isEmpty else { return (photos, []) }
        return (photos.filter { leftOut[$0.path] == nil },
                photos.compactMap { p in leftOut[p.path].map { (p, $0) } })
    }
}
