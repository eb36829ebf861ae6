import RecipeCodecs
import RecipeCore
import RecipeKernels
import RecipeLens
import RecipeOps

/// The `lens` stages of a graph resolved for one photo: which numbers correct its lens (its own
/// correction data, lensfun's profile matched from its EXIF, or the profile the recipe names) at
/// the focal length, aperture and distance it was taken at, or why none. The planner's one place
/// for it: every front end gets the same answer, and `explain`, `info` and `apply` say it.
///
/// ```swift
/// let lens = LensResolver.resolve(graph, info: info, photo: "IMG_0042.CR2")
/// lens.corrections[node]   // LensCorrection (Canon EF 24-70mm f/2.8L USM at 35 mm, f/8)
/// lens.lines               // ["lens (stage 1): Canon EF 24-70mm f/2.8L USM at 35 mm f/8, …"]
/// ```
///
/// A stage that finds nothing leaves the photo uncorrected with a warning; with `required: true`
/// it fails the render (exit 1) with the same words.
package enum LensResolver {
    package struct Resolution {
        package var corrections: [FilterGraph.NodeID: LensCorrection] = [:]
        package var warnings: [ImageWarning] = []
        /// What each stage corrects with, one line each (`explain`).
        package var lines: [String] = []
        /// A required correction that cannot be made: the render fails with this.
        package var failure: ImageError?
        /// Why a stage found nothing to correct with (`apply` counts and lists such photos).
        package var uncorrected: String?
    }

    /// Focal lengths outside this are not a photo's (a zero or a corrupt EXIF value).
    static let focalRange = 0.5...5000.0

    package static func resolve(_ graph: FilterGraph, info: ImageInfo?, photo: String) -> Resolution {
        var result = Resolution()
        guard let info else { return result }
        let size = info.uprightSize
        for (id, node) in graph.nodes.enumerated() where node.op == "lens" {
            let stage = "lens (stage \(node.stageIndex))"
            let required = node.params.boolean("required") ?? false
            func refuse(_ why: String) {
                result.uncorrected = result.uncorrected ?? "\(stage): \(why)"
                if required {
                    result.failure = result.failure ?? ImageError(.unsupported, path: photo, "\(stage): \(why); the recipe requires the correction")
                } else {
                    result.warnings.append(ImageWarning(path: photo, "\(stage): \(why); rendered without lens correction"))
                }
                result.lines.append("\(stage): none: \(why)")
            }
            switch correction(node, info: info, size: size) {
            case .success(let (correction, line, notes)):
                result.corrections[id] = correction
                result.lines.append("\(stage): \(line)")
                result.warnings += notes.map { ImageWarning(path: photo, "\(stage): \($0)") }
            case .failure(let why):
                refuse(why.message)
            }
        }
        return result
    }

    struct Why: Error { var message: String }

    /// The correction a stage's parameters ask for on this photo, with the line saying what it
    /// is and warnings about parts left out.
    static func correction(_ node: FilterGraph.Node, info: ImageInfo, size: (width: Int, height: Int))
        -> Result<(LensCorrection, String, [String]), Why> {
        let p = node.params
        let profile: String = if case .text(let t)? = p["profile"] { t } else { "auto" }
        var query = LensQuery(info: info)
        if let focal = p.number("focal") { query.focalLength = focal }
        if let aperture = p.number("aperture") { query.aperture = aperture }
        if let distance = p.number("distance") { query.distance = distance }
        // The photo's own correction data first, where the recipe takes it.
        if profile == "auto" || profile == "camera" {
            if var own = info.raw?.opcodes?.lensCalibration {
                own.vignettingFirst = info.raw?.opcodes?.vignetteBeforeWarp ?? true
                // Its problems are the decoder's warnings already.
                let parts = [own.distortion.map { _ in "distortion" }, own.vignetting.map { _ in "vignetting" }].compactMap { $0 }
                return .success((LensCorrection(calibration: own, cameraCropFactor: 1, orientation: info.orientation),
                                 "the photo's own correction data (DNG OpcodeList3): " + parts.joined(separator: ", "), []))
            }
            if profile == "camera" {
                let problems = info.raw?.opcodes?.warnings ?? []
                return .failure(Why(message: problems.first ?? "the photo carries no lens correction data of its own (only DNG opcode lists are read)"))
            }
        }
        // An EXIF focal length no lens has (0, 10,000 mm) says the EXIF is damaged: nothing is matched on it.
        if let focal = query.focalLength, !(focal.isFinite && focalRange.contains(focal)) {
            return .failure(Why(message: "a focal length of \(NumberFormatting.shortest(focal)) mm is not a photo's"))
        }
        let db: LensDatabase
        switch Result(catching: { () throws(LensDatabaseError) -> LensDatabase in try LensDatabase.shared() }) {
        case .success(let d): db = d
        case .failure(let error): return .failure(Why(message: "\(error)"))
        }
        // The lens: the one the recipe names, or the one the EXIF matches.
        let lens: LensProfile, crop: Double, how: String
        if profile == "auto" || profile == "database" {
            switch db.match(query) {
            case .matched(let m):
                (lens, crop, how) = (m.profile, m.cropFactor, m.how)
            case .ambiguous(let a):
                return .failure(Why(message: "\(a.reason): name the profile in the recipe (`profile: \"\(a.candidates[0].model)\"`)"))
            case .none(let n):
                return .failure(Why(message: n.description))
            }
        } else {
            let camera = db.camera(make: query.cameraMake, model: query.cameraModel)
            let wanted = p.number("crop-factor") ?? camera?.cropFactor
            guard let named = db.profile(named: profile, cropFactor: wanted) else {
                let guesses = db.suggestions(for: profile)
                return .failure(Why(message: "lensfun has no lens named \"\(profile)\"" + (guesses.isEmpty ? "" : "; did you mean " + guesses.map { "\"\($0)\"" }.joined(separator: ", ") + "?")))
            }
            guard let c = wanted ?? query.focalLength35mm.flatMap({ f35 in query.focalLength.map { f35 / $0 } }) else {
                return .failure(Why(message: "the camera's crop factor is unknown (\(query.cameraMake) \(query.cameraModel) is not in lensfun's database and the EXIF gives no 35 mm focal length): give `crop-factor`"))
            }
            (lens, crop, how) = (named, c, "named in the recipe")
        }
        let cropFactor = p.number("crop-factor") ?? crop
        guard let focal = query.focalLength else {
            return .failure(Why(message: "\(lens.model): the photo gives no focal length: give `focal`"))
        }
        if let range = lens.focalRange, focal < range.lowerBound / 1.5 || focal > range.upperBound * 1.5 {
            return .failure(Why(message: "\(lens.model) covers \(NumberFormatting.shortest(range.lowerBound))–\(NumberFormatting.shortest(range.upperBound)) mm, not \(NumberFormatting.shortest(focal)) mm"))
        }
        var calibration = lens.calibration(focal: focal, aperture: query.aperture, distance: query.distance)
        var notes: [String] = []
        var correction = LensCorrection(calibration: calibration, cameraCropFactor: cropFactor)
        let canvas = CanvasSize(width: size.width, height: size.height)
        // A profile whose numbers are not numbers, or whose distortion folds back in the frame, is
        // not used for what it cannot do.
        if let fold = correction.geometry(p, canvas: canvas).foldProblem ?? (calibration.isFinite ? nil : "its terms are not finite") {
            notes.append("\(lens.model)'s profile at \(NumberFormatting.shortest(focal)) mm is not usable: \(fold); distortion and TCA not corrected")
            calibration.distortion = nil
            calibration.tca = nil
            correction.calibration = calibration
        }
        // lensfun's fill for what is corrected: a profile's distortion dropped above must not
        // still magnify the photo.
        if p.number("scale") == nil, p.choice("mode") != "distort" {
            correction.autoScale = lens.autoScale(cropFactor: cropFactor, width: size.width, height: size.height, focal: focal,
                                                  distortion: (p.boolean("distortion") ?? true) && calibration.distortion != nil,
                                                  tca: (p.boolean("tca") ?? true) && calibration.tca != nil)
        }
        if calibration.isEmpty { return .failure(Why(message: "\(lens.model)'s profile has no usable corrections at \(NumberFormatting.shortest(focal)) mm")) }
        var settings = "\(NumberFormatting.shortest(focal)) mm"
        if let a = query.aperture { settings += " f/\(NumberFormatting.shortest(a))" }
        if let d = query.distance { settings += " at \(NumberFormatting.shortest(d)) m" }
        let parts = [calibration.distortion.map { _ in "distortion" }, calibration.tca.map { _ in "TCA" },
                     calibration.vignetting.map { _ in "vignetting" }].compactMap { $0 }
        return .success((correction, "\(lens.model) (lensfun) at \(settings), crop factor \(NumberFormatting.shortest((cropFactor * 1000).rounded() / 1000)): "
                         + parts.joined(separator: ", ") + " (\(how))", notes))
    }
}
