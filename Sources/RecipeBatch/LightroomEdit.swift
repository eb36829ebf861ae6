import RecipeHistory
import RecipeSession

/// `apply --with-lightroom`: a photo's Lightroom sidecar (`IMG_0001.xmp` or `IMG_0001.CR2.xmp`)
/// translated into a recipe in memory and applied as the photo's own edit, as `recipe import`
/// would write it (docs/lightroom.md). Read in the plan for the recipe key and again by the
/// worker, as sidecars are.
///
/// ```swift
/// let edit = try LightroomEdit.sidecar(forPhoto: "shoot/IMG_0001.CR2")   // nil without an .xmp
/// ```
enum LightroomEdit {
    /// The translated settings as an in-memory sidecar, nil when the photo has no Lightroom sidecar.
    static func sidecar(forPhoto photo: String) throws -> Sidecar? {
        guard let xmp = LightroomImport.sidecar(forPhoto: photo) else { return nil }
        let settings = try CameraRawSettings.read(xmp)
        let options = try LightroomImport.options(forPhoto: photo, rawLookStages: RawDefaultLook.stagesAfterDevelop)
        let translation = try LightroomTranslation(settings, options: options)
        let path = xmp + ".recipe.yaml"
        return try Sidecar(editing: LightroomImport.lookRecipe(translation, path: path), path: path)
    }
}
