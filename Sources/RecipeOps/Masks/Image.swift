import RecipeCore
import RecipeKernels

extension Operations {
    /// A mask made elsewhere: an 8- or 16-bit grey PNG or TIFF (an AI subject or sky mask, a
    /// hand-painted one), white where the stage applies, stretched over the whole picture.
    ///
    /// ```yaml
    /// - exposure: 0.4
    ///   mask: {image: {file: IMG_0001.subject.png}}
    /// ```
    ///
    /// With `sha256` the mask is bound to those bytes, as a sidecar binds its original: a file
    /// changed since then stops the render (exit 1) instead of applying another mask.
    public static let imageMask = MaskSpec(
        name: "image",
        summary: "Applies the stage by a grey PNG or TIFF's values (white fully, black not at all), the image stretched over the canvas: area means where the canvas is coarser, linear interpolation where finer.",
        params: [
            ParamSpec("file", .file(extensions: ["png", "tif", "tiff"]), required: true,
                      "the mask: an 8- or 16-bit grey PNG or TIFF, relative to the recipe's folder"),
            ParamSpec("sha256", .text(maxLength: 64),
                      "the file's SHA-256 (64 hex digits): the render refuses a file whose bytes differ (`recipe edit` writes it into a sidecar)"),
        ] + maskStrengthParams,
        example: "mask: {image: {file: IMG_0001.subject.png}}",
        validate: validateImageMask)

    private static func validateImageMask(_ p: ParamSet) -> [ParamProblem] {
        guard case .text(let digest)? = p["sha256"] else { return [] }
        guard digest.count == 64, digest.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else {
            return [ParamProblem("sha256", "`sha256` must be 64 lower-case hex digits, not `\(digest)`",
                                 notes: ["remove it to use the file as it is; `sha256sum FILE` prints the digest"])]
        }
        return []
    }
}

extension Operations {
    /// The raster mask over `canvas`, from the images the render read (keyed by the `file` as
    /// written); nil when the file was not read.
    static func imageShape(_ p: ParamSet, _ canvas: CanvasSize, rasters: [String: RasterMaskImage]) -> MaskShape? {
        guard case .file(let path)? = p["file"], let image = rasters[path] else { return nil }
        return .raster(RasterMask(image: image, width: canvas.width, height: canvas.height))
    }

    /// The `file`s of every `image` mask in `mask` (a combination's parts included).
    public static func rasterFiles(_ mask: FilterGraph.Mask) -> [String] {
        if mask.kind == imageMask.name, case .file(let path)? = mask.params["file"] { return [path] }
        return mask.parts.flatMap(rasterFiles)
    }
}
