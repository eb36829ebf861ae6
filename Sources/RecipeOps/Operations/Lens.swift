import RecipeCore
import RecipeKernels

extension Operations {
    /// Corrects the lens: distortion, lateral chromatic aberration (TCA) and vignetting, from the
    /// photo's own correction data (a DNG's opcode lists) or lensfun's profile for the lens its
    /// EXIF names, at the focal length, aperture and focus distance the photo was taken at. One
    /// resampling of the photo (with the straighten, crops and flips after it); vignetting a
    /// point step on linear light before it.
    ///
    /// ```yaml
    /// - lens: auto
    /// - lens: {profile: "Canon EF 24-70mm f/2.8L USM", focal: 35, aperture: 8, vignetting: false}
    /// ```
    ///
    /// It corrects the photo as the camera made it, so it comes before any crop, rotation,
    /// straighten, flip or resize (R228). Without a profile the photo renders uncorrected with a
    /// warning, or fails with `required: true`.
    public static let lens = OperationSpec(
        name: "lens",
        summary: "Corrects distortion, TCA and vignetting from the photo's own lens data (DNG opcodes) or lensfun's profile of its lens; one resampling, the frame filled (lensfun's formulas).",
        opClass: .geometric, space: .linear, primary: "profile",
        params: [
            ParamSpec("profile", .text(maxLength: 200), default: .text("auto"),
                      "auto: the photo's own correction data, else the lensfun profile its EXIF matches; camera: only the photo's own; database: only lensfun's; or a lens as lensfun names it (\"Nikon AF-S Nikkor 35mm f/1.8G\")"),
            ParamSpec("focal", .orAuto(.number(1...2000, unit: .millimetres)), default: .auto,
                      "focal length the photo was taken at; auto reads the EXIF"),
            ParamSpec("aperture", .orAuto(.number(0.5...128, unit: .none)), default: .auto,
                      "f-number the photo was taken at (vignetting); auto reads the EXIF"),
            ParamSpec("distance", .orAuto(.number(0.01...10000, unit: .metres)), default: .auto,
                      "focus distance (vignetting); auto reads the EXIF, else 1000 m"),
            ParamSpec("crop-factor", .orAuto(.number(0.1...10, unit: .factor)), default: .auto,
                      "the camera's crop factor against 35 mm film; auto: lensfun's camera, else the EXIF's 35 mm focal length"),
            ParamSpec("distortion", .boolean, default: .boolean(true), "correct distortion"),
            ParamSpec("tca", .boolean, default: .boolean(true), "correct lateral chromatic aberration (colour fringes)"),
            ParamSpec("vignetting", .boolean, default: .boolean(true), "correct vignetting (darker corners)"),
            ParamSpec("scale", .orAuto(.number(0.5...2, unit: .factor)), default: .auto,
                      "magnification about the centre; auto fills the frame, no empty borders"),
            ParamSpec("mode", .choice(["correct", "distort"]), default: .choice("correct"),
                      "correct removes the lens's distortion; distort adds it (lensfun's reverse)"),
            ParamSpec("required", .boolean, default: .boolean(false),
                      "true: a photo with no profile fails (exit 1); false: it renders uncorrected, with a warning"),
        ],
        example: "lens: auto",
        sinceFormat: FormatVersion(1, 3),
        validate: { p in
            if p.boolean("distortion") == false && p.boolean("tca") == false && p.boolean("vignetting") == false {
                return [ParamProblem("distortion", "`lens` with distortion, tca and vignetting all off corrects nothing",
                                     notes: ["remove the stage, or switch one correction on"])]
            }
            return []
        })
}
