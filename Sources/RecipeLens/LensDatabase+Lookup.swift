/// Finding a profile by the name a user writes in a recipe (`lens: {profile: "…"}`): the model as
/// lensfun spells it, without regard to case or spacing, the maker optional; and "did you mean"
/// names when none has it.
///
/// ```swift
/// db.profiles(named: "af-s nikkor 50mm f/1.8g")          // [Nikon AF-S Nikkor 50mm f/1.8G (crop 1), …]
/// db.profile(named: "Sigma 19mm f/2.8 DN", cropFactor: 1.534)   // the one measured on APS-C
/// db.suggestions(for: "Sigma 19mm F2.8")                 // ["Sigma 19mm f/2.8 DN", "Sigma 19mm f/2.8 EX DN"]
/// ```
extension LensDatabase {
    /// Every profile (one per sensor it was measured on) of the lens of that name; empty when none.
    public func profiles(named name: String) -> [LensProfile] {
        let key = LensDatabase.nameKey(name)
        guard !key.isEmpty else { return [] }
        return lenses.filter { p in
            let model = LensDatabase.nameKey(p.model)
            return model == key || LensDatabase.nameKey(p.maker + " " + p.model) == key
                || p.otherNames.contains { LensDatabase.nameKey($0) == key }
        }
    }

    /// The profile of that name for a camera of `cropFactor` (the one measured on the nearest
    /// sensor not larger than the camera's; the smallest crop factor when it is unknown or none
    /// is that small). Nil when no lens has the name.
    public func profile(named name: String, cropFactor: Double?) -> LensProfile? {
        let all = profiles(named: name)
        if let cropFactor, let nearest = all.filter({ $0.cropFactor <= cropFactor * 1.02 }).max(by: { $0.cropFactor < $1.cropFactor }) {
            return nearest
        }
        return all.min { $0.cropFactor < $1.cropFactor }
    }

    /// Up to `limit` lens names close to `text`: those of the same focal length and aperture first,
    /// most shared words first, then the nearest in length.
    public func suggestions(for text: String, limit: Int = 3) -> [String] {
        let name = LensName(text)
        let key = LensDatabase.nameKey(text)
        var scored: [(score: Double, model: String)] = []
        var seen = Set<String>()
        for p in lenses where seen.insert(p.model).inserted {
            var score = 0.0
            if let f = name.focal, let pf = p.name.focal ?? p.focalRange {
                if abs(pf.lowerBound - f.lowerBound) <= 0.6 && abs(pf.upperBound - f.upperBound) <= 0.6 { score += 4 } else { continue }
            }
            if let a = name.aperture?.wide, let pa = p.name.aperture?.wide ?? p.apertureRange?.lowerBound {
                score += abs(pa - a) <= 0.05 ? 2 : -1
            }
            if let m = name.maker, LensMaker.canonical(p.maker) == m { score += 2 }
            score += Double(name.strongWords.intersection(p.name.strongWords).count)
            // Of equal scores, the name nearest in length.
            score -= Double(abs(key.count - LensDatabase.nameKey(p.model).count)) / 1000
            if score > 1 { scored.append((score, p.model)) }
        }
        return scored.sorted { $0.score > $1.score || ($0.score == $1.score && $0.model < $1.model) }.prefix(limit).map(\.model)
    }

    /// A name compared without case and with runs of spaces as one.
    static func nameKey(_ s: String) -> String {
        s.lowercased().split(separator: " ").joined(separator: " ")
    }
}
