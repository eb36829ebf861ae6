/// The look a camera raw file gets when no recipe of its render says how it is developed: the
/// recipe below (also shipped as `Recipes/raw-default.recipe.yaml`, the same text, for people to
/// read and copy). `RenderPlanner.plan` puts its stages before the request's recipes when the
/// photo is a raw and none of them has a `develop` stage, as `RecipeChain` composes recipes; a
/// recipe with a `develop` of its own (raw-neutral, raw-look) gets none of it, and a photo that is
/// not a raw never sees it.
///
/// ```text
/// recipe render IMG_0001.CR2 -o a.jpg                        # raw-default's stages
/// recipe render IMG_0001.CR2 --recipe film.recipe.yaml …      # raw-default's stages, then film's
/// recipe render IMG_0001.CR2 --recipe raw-neutral.recipe.yaml # raw-neutral's develop alone
/// ```
package enum RawDefaultLook {
    /// The name messages and `explain` give it: the file it is shipped as.
    package static let name = "raw-default.recipe.yaml"

    /// The recipe's text, byte for byte that of `Recipes/raw-default.recipe.yaml` (a test checks it).
    package static let text = """
    # yaml-language-server: $schema=../Grammar/recipe.schema.json
    # What a camera raw file gets when no recipe of its render has a `develop` stage: the camera's
    # white balance and recipe's own demosaic (highlights clipped at the sensor's white, so a blown sky
    # stays white), then a tone curve that lifts the shadows and mid-tones by about 0.8 stop and rolls
    # the highlights off into white instead of clipping them, a little vibrance and a light sharpening.
    # recipe carries this text inside itself; this copy is for reading and copying. A recipe with a
    # `develop` stage of its own (raw-neutral, raw-look) replaces all of it. On a JPEG the develop is
    # ignored and the rest applies.
    format: dev.recipe.edit
    version: 1.5
    note: the default look of a camera raw file
    stages:
      - develop: {white-balance: as-shot, demosaic: directional, highlights: clip, exposure: 0}
      - curve:
          points: [[0, 0], [0.1, 0.12], [0.25, 0.31], [0.45, 0.59], [0.65, 0.85], [0.8, 0.95], [0.9, 0.98], [1, 1]]
      - vibrance: 0.1
      - sharpen: {amount: 0.3, sigma: 1px}
    """ + "\n"

    /// Its stages after the develop, each as a stage's text (`vibrance: 0.1`, a curve on two lines):
    /// what a translated Lightroom edit that writes its own `develop` keeps of the look.
    package static var stagesAfterDevelop: [String] {
        text.split(separator: "\n  - ").dropFirst(2).map { $0.hasSuffix("\n") ? String($0.dropLast()) : String($0) }
    }

    /// The default look as a recipe of a render request.
    package static var recipe: RenderRequest.Recipe { RenderRequest.Recipe(path: name, text: text) }
}
