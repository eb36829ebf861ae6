import RecipeKernels

/// Matching a photo's lens (`LensQuery`) against the database, by rules that survive the ways
/// files and the database spell lenses apart:
///
/// 1. The camera is looked up (lensfun's own search, then makers reduced to one spelling) for its
///    crop factor and mount; without it the crop factor is the 35 mm focal length over the focal
///    length.
/// 2. The lens is named by EXIF LensModel (or LibRaw's reading of the maker notes); when that is
///    missing or is no name ("", "----", "(195)", "Manual lens"), by the maker-note lens ID through
///    a small table; when that is missing too, by EXIF LensSpecification's focal range and
///    aperture alone. A built-in lens is found by the camera's own mount.
/// 3. Names are compared taken apart (`LensName`): focal range and apertures as numbers ("f/2D"
///    is "f/2.0D"), the maker by one spelling (`LensMaker`: EXIF LensMake, a maker word of the
///    name, or line names only one maker uses), the other words as a set. A profile must have
///    every word of the file's name but a few mount prefixes the database leaves out ("E", "FE",
///    "AF"); profiles with no word more than the file's are preferred to those with more.
/// 4. Profiles that do not fit the camera's mount, or were measured on a larger sensor than its,
///    are dropped; of one lens measured on several sensors, the one nearest the camera's is kept.
/// 5. What remains is one match when the profiles' calibrations at the photo's focal length,
///    aperture and distance are the same; otherwise it is ambiguous, and the candidates are given.
///
/// ```swift
/// let q = LensQuery(cameraMake: "SONY", cameraModel: "NEX-6", lensModel: "E 19mm F2.8", focalLength: 19)
/// database.match(q)   // none: no maker named, and only Sigma's 19mm f/2.8 DN and EX DN (both name themselves so)
/// ```
extension LensDatabase {
    /// Words a camera writes before a lens's name that the database's names often leave out: mount
    /// and autofocus prefixes, "Zoom" of a zoom's name, "Asph." of Panasonic's.
    static let softWords: Set<String> = ["e", "fe", "af", "zoom", "dx", "fx", "lens", "asph"]

    /// LensModel values that name no lens.
    static let placeholderNames: Set<String> = ["", "-", "--", "----", "n/a", "na", "none", "unknown", "0", "unknown lens"]

    public func match(_ q: LensQuery) -> LensMatch {
        let camera = camera(make: q.cameraMake, model: q.cameraModel)
        let cameraMaker = LensMaker.canonical(q.cameraMake) ?? camera.flatMap { LensMaker.canonical($0.maker) }
        let crop: (value: Double, source: LensMatch.CropFactorSource)?
        if let camera, camera.cropFactor > 0 {
            crop = (camera.cropFactor, .camera(camera))
        } else if let f = q.focalLength, let f35 = q.focalLength35mm, f35 >= f * 0.5 {
            crop = (f35 / f, .focalLength35mm)
        } else {
            crop = nil
        }
        let context = Context(q: q, camera: camera, crop: crop,
                              cameraText: camera?.description ?? [q.cameraMake, q.cameraModel].filter { !$0.isEmpty }.joined(separator: " "))

        // A built-in lens: the camera's own mount says which; an attachment ("+ TCL-X100", a
        // converter) only when the file names it.
        if let camera, camera.hasFixedLens {
            let own = lenses.filter { $0.mounts.contains(camera.mount) }
            let bare = own.filter { !$0.model.contains("+") }
            if !own.isEmpty {
                return decide(bare.isEmpty ? own : bare, context, named: "the built-in lens of \(camera.model)", notes: ["the camera's own mount"])
            }
        }

        // What names the lens.
        let model = q.lensModel.trimmingSpaces
        let lower = model.lowercased()
        var idInName: Int64?
        var usable = !LensDatabase.placeholderNames.contains(lower)
        if model.hasPrefix("("), model.hasSuffix(")"), let id = Int64(model.dropFirst().dropLast()) {
            idInName = id  // "(195)": an ID a reader could not decode
            usable = false
        } else if let id = Int64(model) {
            idInName = id
            usable = false
        }
        if usable, lower.hasPrefix("manual lens") || lower == "no lens" {
            return context.unmatched(.manualLens(model), lens: model)
        }
        if usable { return match(named: model, context) }

        if let id = q.lensID ?? idInName {
            switch lensIDs.lookup(maker: cameraMaker, id: id) {
            case .noLens?:
                return context.unmatched(.manualLens("maker-note lens ID \(id)"), lens: model)
            case .lenses(let names)?:
                var found: [LensProfile] = []
                for text in names {
                    let name = LensName(text)
                    found += narrowed(candidates(name, statedMaker: name.maker ?? LensMaker.signature(name.words), q: q), name)
                        .filter { !found.contains($0) }
                }
                if found.isEmpty { return context.unmatched(.noProfile, lens: names.joined(separator: " or ")) }
                let what = names.count == 1 ? names[0] : "shared by \(names.count) lenses"
                return decide(found, context, named: "maker-note lens ID \(id) (\(what))", notes: [])
            case nil:
                if q.lensSpecification == nil { return context.unmatched(.unknownLensID(id), lens: model) }
            }
        }

        // The lens's specification alone: any maker's lens of that range.
        if let spec = q.lensSpecification {
            var name = LensName("")
            name.focal = spec.minFocal...spec.maxFocal
            name.aperture = spec.wideAperture.map { ($0, spec.teleAperture) }
            let found = candidates(name, statedMaker: LensMaker.canonical(q.lensMake), q: q)
            let text = "\(shown(spec.minFocal))\(spec.maxFocal > spec.minFocal ? "-\(shown(spec.maxFocal))" : "")mm"
                + (spec.wideAperture.map { " f/\(shown($0))" } ?? "")
            if found.isEmpty { return context.unmatched(.noProfile, lens: text) }
            return decide(found, context, named: "LensSpecification \(text)", notes: ["no lens name: focal range and aperture only"])
        }
        return context.unmatched(.noLensName, lens: "")
    }

    /// What a match needs to know besides the candidates.
    struct Context {
        var q: LensQuery
        var camera: LensCamera?
        var crop: (value: Double, source: LensMatch.CropFactorSource)?
        var cameraText: String

        func unmatched(_ reason: LensMatch.Unmatched.Reason, lens: String, suggestions: [String] = []) -> LensMatch {
            .none(.init(reason: reason, lens: lens, suggestions: suggestions, camera: cameraText))
        }
    }

    /// A lens the file names by text.
    private func match(named model: String, _ context: Context) -> LensMatch {
        let q = context.q
        let described = "\(q.lensMake.isEmpty ? "" : "LensMake '\(q.lensMake)', ")LensModel '\(model)'"
        // The database spells some lenses exactly as cameras name them ("E 28-75mm F2.8-2.8" is
        // Tamron's): that spelling is the lens, whatever the maker.
        let name = LensName(model)
        let spelled = lenses.filter { $0.name.maker == nil && $0.name.focal == name.focal && $0.name.words == name.words
            && $0.name.aperture?.wide == name.aperture?.wide && $0.name.aperture?.tele == name.aperture?.tele }
        if name.maker == nil, !spelled.isEmpty { return decide(spelled, context, named: described, notes: ["spelled so in the database"]) }

        let makerWord = name.maker, lineMaker = LensMaker.signature(name.words)
        let stated = LensMaker.canonical(q.lensMake) ?? makerWord ?? lineMaker
        var found = narrowed(candidates(name, statedMaker: stated, q: q), name)
        var notes: [String] = []
        if stated == nil, !found.isEmpty {
            // No maker named: the camera's own lenses are named so; another maker's lens of the
            // same name is a guess.
            let cameraMaker = LensMaker.canonical(q.cameraMake)
            let own = found.filter { LensMaker.canonical($0.maker) == cameraMaker }
            let others = fitting(found, context)
            guard !own.isEmpty || others.isEmpty else { return context.unmatched(.makerNotStated(others), lens: model) }
            found = own.isEmpty ? found : own
            notes.append("maker from the camera")
        } else if q.lensMake.isEmpty, makerWord == nil, lineMaker != nil {
            notes.append("maker from the name's line words")
        }
        if found.isEmpty { return context.unmatched(.noProfile, lens: model, suggestions: suggestions(for: model)) }
        if !q.lensMake.isEmpty, !found.contains(where: { $0.maker == q.lensMake }) { notes.append("maker alias") }
        notes.append("name normalised")
        return decide(found, context, named: described, notes: notes)
    }

    /// Profiles whose name agrees with `name`: focal range and apertures equal, the maker when
    /// stated, every strong word of the file's name but soft ones, and the photo's focal length
    /// within the lens's range.
    func candidates(_ name: LensName, statedMaker: String?, q: LensQuery) -> [LensProfile] {
        let focal = name.focal ?? q.lensSpecification.map { $0.minFocal...$0.maxFocal }
        let aperture = name.aperture ?? q.lensSpecification?.wideAperture.map { ($0, q.lensSpecification?.teleAperture) }
        let wanted = name.strongWords.subtracting(LensDatabase.softWords)
        return lenses.filter { p in
            // A camera's built-in lens is found by the camera's mount, never by a name.
            if p.mounts.allSatisfy({ $0.first?.isLowercase ?? false }) { return false }
            if let statedMaker, LensMaker.canonical(p.maker) != statedMaker { return false }
            let pf = p.name.focal ?? p.focalRange
            if let focal {
                guard let pf, abs(pf.lowerBound - focal.lowerBound) <= 0.3, abs(pf.upperBound - focal.upperBound) <= 0.3 else { return false }
            }
            if let f = q.focalLength, let pf, !(pf.lowerBound - 0.6...pf.upperBound + 0.6).contains(f) { return false }
            if let aperture {
                let wide = p.name.aperture?.wide ?? p.apertureRange?.lowerBound
                if let wide, abs(wide - aperture.wide) > 0.05 { return false }
                if let t = aperture.tele, let pt = p.name.aperture?.tele, abs(t - pt) > 0.05 { return false }
            }
            return wanted.isSubset(of: p.name.strongWords)
        }
    }

    /// Of candidates that all have the file's words, those with no word the file does not say,
    /// when there are any ("AF-S Nikkor 50mm f/1.8G" is that lens, not a longer name holding it),
    /// and of those the ones that have most of the file's words ("… HSM | C 013" is the
    /// Contemporary).
    func narrowed(_ found: [LensProfile], _ name: LensName) -> [LensProfile] {
        let said = Set(name.words).union(LensDatabase.softWords)
        let exact = found.filter { $0.name.strongWords.isSubset(of: said) }
        let pool = exact.isEmpty ? found : exact
        func covered(_ p: LensProfile) -> Int { Set(name.words).intersection(p.name.words).count }
        let most = pool.map(covered).max() ?? 0
        return pool.filter { covered($0) == most }
    }

    /// The profiles that fit the camera, one per lens (the nearest sensor), and the decision: one
    /// calibration, or ambiguous.
    func decide(_ found: [LensProfile], _ context: Context, named: String, notes: [String]) -> LensMatch {
        let q = context.q, crop = context.crop
        let fitting = fitting(found, context)
        guard !fitting.isEmpty else { return context.unmatched(.doesNotFit(found), lens: q.lensModel) }
        var chosen: [LensProfile] = []
        var cropUnknown = false
        for lens in LensDatabase.sameLens(fitting) {
            if crop != nil {
                let nearest = lens.map(\.cropFactor).max()!
                chosen += lens.filter { $0.cropFactor == nearest }
            } else {
                cropUnknown = cropUnknown || Set(lens.map(\.cropFactor)).count > 1
                chosen += lens
            }
        }
        let focal = q.focalLength ?? chosen[0].focalRange?.lowerBound ?? 50
        var distinct: [(LensProfile, LensCalibration)] = []
        for p in chosen {
            var c = p.calibration(focal: focal, aperture: q.aperture, distance: q.distance)
            c.source = .lensfun(profile: "")
            if !distinct.contains(where: { $0.1 == c }) { distinct.append((p, c)) }
        }
        if distinct.count > 1 {
            let why = cropUnknown && LensDatabase.sameLens(chosen).count == 1
                ? "the camera's crop factor is unknown (not in lensfun's database, no 35 mm focal length), and the profiles of "
                    + "\(chosen[0].model) measured on different sensors differ"
                : "\(LensMatch.list(distinct.map(\.0))) all fit \(named), and their calibrations at \(shown(focal)) mm differ"
            return .ambiguous(.init(candidates: distinct.map(\.0), reason: why))
        }
        let profile = distinct[0].0
        var all = notes
        if Set(chosen.map(\.model)).count > 1 { all.append("\(LensMatch.list(chosen)) have identical calibrations") }
        let cropFactor = crop?.value ?? profile.cropFactor
        switch crop?.source {
        case .camera(let c)?: all.append("crop \(shown(cropFactor)) of the \(c.model)")
        case .focalLength35mm?: all.append("crop \(shown(cropFactor)) from the 35 mm focal length")
        default: all.append("the camera's crop factor unknown: the profile's \(shown(cropFactor)) taken")
        }
        return .matched(.init(profile: profile, cropFactor: cropFactor, cropFactorSource: crop?.source ?? .profile,
                              how: "\(named) → \(profile.model) (\(all.joined(separator: ", ")))"))
    }

    /// The profiles that fit the camera's mount (directly or by an adapter lensfun lists) and were
    /// measured on a sensor no larger than its (a profile does not cover a larger sensor's corners).
    func fitting(_ found: [LensProfile], _ context: Context) -> [LensProfile] {
        found.filter { p in
            (context.camera.map { $0.hasFixedLens || fits(p, mount: $0.mount) } ?? true)
                && (context.crop.map { p.cropFactor <= $0.value * 1.02 } ?? true)
        }
    }

    /// The profiles grouped by lens: one lens measured on several sensors, or spelled two ways
    /// ("f/1.8G" and "f/1.8G 176", "F/3.5-6.3" and "f/3.5-6.3"), is one group. In database order.
    static func sameLens(_ profiles: [LensProfile]) -> [[LensProfile]] {
        var groups: [[LensProfile]] = []
        var index: [String: Int] = [:]
        for p in profiles {
            let n = p.name
            let key = [LensMaker.canonical(p.maker) ?? "", n.focal.map { "\($0)" } ?? "", n.aperture.map { "\($0.wide)-\($0.tele ?? 0)" } ?? "",
                       n.strongWords.sorted().joined(separator: " ")].joined(separator: "|")
            if let i = index[key] {
                groups[i].append(p)
            } else {
                index[key] = groups.count
                groups.append([p])
            }
        }
        return groups
    }
}

extension String {
    /// Without leading and trailing spaces.
    var trimmingSpaces: String {
        guard let first = firstIndex(where: { $0 != " " }), let last = lastIndex(where: { $0 != " " }) else { return "" }
        return String(self[first...last])
    }
}
